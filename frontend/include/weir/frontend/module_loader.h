// Loading field-view Python modules: imports on a search path, module-level evaluation of the
// declarations definitions need (dimensions, offsets, type aliases, constants, enums, decorated
// definitions), with lazy errors for what fails to evaluate.
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "weir/frontend/python_syntax.h"
#include "weir/frontend/types.h"

namespace weir::frontend {

struct LoadedModule;
struct Definition;

/// A module-level constant: a number, bool or string.
struct ConstantValue {
  enum class Kind { Int, Float, Bool, String };
  Kind kind = Kind::Int;
  std::int64_t int_value = 0;
  double float_value = 0.0;
  bool bool_value = false;
  std::string str_value;
  /// The number as double (ints and bools converted).
  double as_double() const;
  /// Python-like text: `1`, `0.5`, `True`, `'x'`.
  std::string str() const;
};

/// A generic type alias (`Field[Dims[CellDim, KDim], T]` with TypeVars): its expression, the
/// module it is evaluated in, and its type parameters in order of first appearance.
struct GenericAlias {
  const Expr* expr = nullptr;
  const LoadedModule* module = nullptr;
  std::vector<std::string> params;
};

/// A class's namespace: an `Enum` subclass (members are its literal members; `auto()` counts
/// on from the last integer member) or a plain class whose attributes are evaluated in order,
/// each seeing the earlier ones (`B = A * 0.25`). Methods and properties are not members.
struct EnumClass {
  std::string name;
  bool is_enum = true;
  std::map<std::string, struct Value> members;  // evaluated attributes or Failed values
};

/// What a module-level name is bound to.
enum class ValueKind {
  Module,        ///< a module found on the search path (`module`)
  Builtin,       ///< a gt4py/typing/enum builtin by `name`: "Field", "float64", "where",
                 ///< "field_operator", "DimensionKind.VERTICAL", ...
  External,      ///< something from a module not on the search path (`name`: dotted name;
                 ///< `error`: which module was missing and which directories were searched;
                 ///< `defined_at`: the import)
  Dimension,     ///< `dim`
  Offset,        ///< `offset`
  Type,          ///< a type (`type`): a dtype alias, a field type alias, a tuple type
  GenericAlias,  ///< `alias`
  TypeVar,       ///< `name`
  Constant,      ///< `constant`
  Enum,          ///< `enum_class`: an Enum subclass or a plain class's namespace
  Definition,    ///< a decorated @field_operator / @scan_operator / @program (`definition`)
  Sequence,      ///< a tuple or list of values (`elements`), e.g. `(EdgeDim, E2VDim)`
  Failed,        ///< could not be evaluated: `error`, at `defined_at`
};

struct Value {
  ValueKind kind = ValueKind::Failed;
  std::string name;
  const LoadedModule* module = nullptr;
  Dimension dim;
  FieldOffset offset;
  Type type;
  ConstantValue constant;
  std::shared_ptr<GenericAlias> alias;
  std::shared_ptr<EnumClass> enum_class;
  std::shared_ptr<Definition> definition;
  std::vector<Value> elements;
  std::string error;
  SourceLocation defined_at;
  /// A plain (undecorated) function bound as a Failed value (field-view code cannot call it):
  /// its definition, in `module` (orchestration functions call it).
  const FunctionDef* plain_function = nullptr;

  static Value builtin(std::string name);
  static Value failed(std::string error, SourceLocation where);
  /// A short description for messages: "dimension 'K'", "module 'a.b'", "constant 3", ...
  std::string describe() const;
};

enum class DefinitionKind { FieldOperator, ScanOperator, Program };
std::string_view to_string(DefinitionKind kind);  ///< "field_operator", "scan_operator", "program"

/// A decorated definition found at module level.
struct Definition {
  DefinitionKind kind = DefinitionKind::FieldOperator;
  std::string name;
  const FunctionDef* def = nullptr;
  const LoadedModule* module = nullptr;
  // @scan_operator(axis=..., forward=..., init=...)
  std::optional<Dimension> axis;
  bool forward = true;
  const Expr* init = nullptr;
  /// When the decorator's arguments failed to evaluate: the message and where (reported when
  /// the definition is checked or used).
  std::string error;
  SourceLocation error_loc;
  /// For a definition nested in plain functions: their dotted names ("test_x"); empty at
  /// module level.
  std::string scope;
};

/// One loaded module. Owned by its ModuleLoader; addresses are stable.
struct LoadedModule {
  std::string path;  ///< the file, or the directory of a namespace package
  std::string name;  ///< dotted name (the file's stem for a file loaded directly)
  bool is_package = false;
  Module ast;
  std::map<std::string, Value> names;
  std::map<std::string, const LoadedModule*> submodules;
  std::vector<std::shared_ptr<Definition>> definitions;  ///< in source order
  /// Definitions nested in plain (undecorated) functions, in source order. Each lives in the
  /// namespace of its function (`scopes`): the module's names at the end of loading plus what
  /// the function body binds before it (imports, assignments, other definitions).
  std::vector<std::shared_ptr<Definition>> nested_definitions;
  /// The namespaces of plain functions that may hold definitions, nested ones too
  /// (`function` set; same name and path as this module).
  std::vector<std::shared_ptr<LoadedModule>> scopes;
  /// For such a namespace: the function's dotted name within the module ("test_x").
  std::string function;
  /// A package's directories (Python's `__path__`): the one of a regular package, every
  /// portion of a namespace package (PEP 420) in search-path order; empty for a module.
  std::vector<std::string> portions;

  /// The directory relative imports start from (the package this module is in).
  std::string package_dir() const;
};

struct LoaderOptions {
  /// Directories searched for absolute imports, in order.
  std::vector<std::string> search_path;
  /// Also search the directories of the environment variable WEIR_PATH (split on ':'), after
  /// `search_path`.
  bool use_environment = true;
};

/// Loads modules and resolves their imports as Python's path-based import system does. Each
/// module file is loaded once per loader (cached by its resolved path and by dotted name).
/// Search order for `import a.b`: the options' directories, WEIR_PATH, then the directory of
/// the file given to load_file; in each, `a/__init__.py` (a regular package) wins over `a.py`,
/// and a directory `a` without `__init__.py` is a portion of a namespace package `a` that spans
/// every root having one (PEP 420), used only when no root has a regular package or module
/// `a`. Submodules are searched in every directory of their package. A file given to
/// load_file that lies under a root gets its dotted name from it (so its relative imports
/// resolve by name across namespace portions). Import cycles behave as in Python: importing a
/// module still being loaded gives it partially initialised, and a name it does not define yet
/// is a lazy error ("partially initialized module"). `gt4py.*`, `typing`, `typing_extensions`, `enum` and
/// `__future__` are builtin; other modules not found (numpy, pytest, ...) bind External values,
/// which are an error only where a definition uses them. Module-level statements are evaluated
/// in order; a value that fails is bound as a Failed value (never thrown at load).
/// An error for a module that is not found names the directories that were searched.
/// Throws FrontendError for syntax errors in files, weir::Error when the file given to
/// load_file cannot be read.
class ModuleLoader {
 public:
  explicit ModuleLoader(const LoaderOptions& options = {});
  ~ModuleLoader();
  ModuleLoader(const ModuleLoader&) = delete;
  ModuleLoader& operator=(const ModuleLoader&) = delete;

  /// Loads a file (and what it imports).
  const LoadedModule& load_file(const std::string& path);
  /// Loads a module from text; relative imports start in the directory of `file.path()`.
  const LoadedModule& load_source(const SourceFile& file);
  /// The effective search path (options, WEIR_PATH, then load_file directories).
  const std::vector<std::string>& search_path() const { return search_path_; }
  /// Every module loaded so far.
  std::vector<const LoadedModule*> modules() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
  std::vector<std::string> search_path_;
};

/// Evaluates a module-level expression (an annotation, a decorator argument, a declaration) in
/// `module`'s namespace; `overlay` binds extra names first (TypeVar substitution). Names fall
/// back to Python builtins (`float`, `int`, `bool`, `tuple`, `abs`). Throws FrontendError
/// (located) when it cannot be evaluated, including when it uses a Failed value (the message
/// then names where that value was defined).
Value evaluate(const Expr& expr, const LoadedModule& module,
               const std::map<std::string, Value>* overlay = nullptr);

/// The value as a type: Type values, dtype builtins (`float64`, `float`, `IndexType`), dtype
/// strings ("float64"). Throws FrontendError at `where` otherwise.
Type value_to_type(const Value& value, const SourceLocation& where);

/// The message for using an External value: "'numpy.sqrt' comes from a module that is not on
/// the search path (no module 'numpy' in /a, /b)".
std::string external_message(const Value& value);

/// Throws the lazy error of a Failed value used at `where` (does nothing for other values).
void check_usable(const Value& value, const std::string& name, const SourceLocation& where);

}  // namespace weir::frontend
