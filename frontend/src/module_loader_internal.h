// Internals of the module loader shared by module_value.cpp, module_evaluator.cpp,
// module_imports.cpp, module_definitions.cpp and module_loader.cpp: the Value constructors and
// the loader's state (the module cache, sys.modules, the import stack).
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "weir/frontend/module_loader.h"

namespace weir::frontend {

namespace fs = std::filesystem;

Value make_type(Type t);
Value make_constant(ConstantValue c);
Value make_int(std::int64_t i);
Value make_float(double d);

/// Python's truth value of a module-level value (`if`, `and`, `or`, conditional expressions):
/// numbers are true unless zero, strings and sequences unless empty, dimensions, classes,
/// modules and types always. Throws FrontendError at `where` for a value Python has but weir
/// does not evaluate.
bool truthy(const Value& v, const SourceLocation& where);

/// Python's `==` on module-level values (numbers exactly across int and float, strings,
/// dimensions and offsets by name and kind, sequences element-wise, classes and modules by
/// identity); nullopt when weir cannot tell.
std::optional<bool> values_equal(const Value& a, const Value& b);

/// A number exactly (every int64 and double is a long double on x86-64), for comparing ints
/// with floats as Python does.
long double exact(const ConstantValue& c);

/// `NAME.attr` of the standard modules weir evaluates: `math` (constants; functions as builtins
/// "math.exp"), `sys` (`sys.float_info.epsilon`, `sys.maxsize`). nullopt for other modules; a
/// Failed value for a name of those modules weir does not evaluate.
std::optional<Value> stdlib_member(const std::string& module, const std::string& attr);

/// `numpy.attr` (`module` "numpy", "np" or a dotted name under them): its scalar types
/// (`np.float64`, `from numpy import int32`) as builtins, its constants pi, e, inf and nan;
/// nullopt for other names (an External value then).
std::optional<Value> numpy_member(const std::string& module, const std::string& attr);

/// Calls a plain module-level function (`fn.plain_function`, defined in `fn.module`) from a
/// module-level expression: its body runs statement by statement (assignments, `if`, `return`)
/// with the parameters bound to `args` and `keywords`; returns what it returns. Throws
/// FrontendError, located in the body or at `call`, for what weir does not evaluate.
Value call_plain_function(const Value& fn, const std::vector<Value>& args,
                          const std::vector<std::pair<std::string, Value>>& keywords, const Call& call);

/// The most modules being loaded at once: a module's import of a module that imports another...
/// Each level recurses through the loader (and CPython itself gives up near 100 nested
/// imports: each costs several frames of importlib against a recursion limit of 1000).
inline constexpr std::size_t kMaxImportDepth = 100;

/// The largest field-view source file read by default: 2 MiB. Parsing and evaluating a module
/// takes up to about 700 bytes of memory per byte of source (a module of one list literal: 400 KB
/// take 290 MB, each element an AST node and a module-level Value), so the limit keeps a hostile
/// file near 1.5 GB at most; real modules are well under 1 MiB.
inline constexpr std::size_t kDefaultMaxSourceBytes = std::size_t(2) << 20;

/// WEIR_MAX_SOURCE_BYTES when set to a positive integer, else kDefaultMaxSourceBytes.
std::size_t max_source_bytes();

/// The source file at `path`, as the loader reads every module: a regular file (opened without
/// blocking, weir::open_input_file) of at most max_source_bytes(), checked before reading.
/// Throws weir::Error "PATH: ..." naming what is wrong.
pycode::SourceFile read_source_file(const std::string& path);

struct ModuleLoader::Impl {
  std::vector<std::string>* search_path = nullptr;
  std::map<std::string, std::unique_ptr<LoadedModule>> cache;  // by canonical path
  std::map<std::string, LoadedModule*> by_name;                // Python's sys.modules
  std::vector<LoadedModule*> loading;                          // the import stack
  const SourceLocation* importing_at = nullptr;                // the import statement running
  // Plain functions (and methods) whose bodies may hold definitions, processed once the
  // module defining them is loaded.
  struct PendingFunction {
    LoadedModule* outer;  ///< the namespace the function is defined in
    const FunctionDef* f;
    std::string qualname;  ///< "test_x", "test_x.helper", "TestCase.test_y"
  };
  std::vector<PendingFunction> pending_functions;

  static std::string canonical(const fs::path& p);

  /// Where `part` is found in `dirs`, as Python's path-based finder sees it.
  struct Spec {
    std::string file;  ///< the module file, `__init__.py`, or first portion
    bool package = false;
    std::vector<std::string> portions;  ///< a package's directories
    bool namespace_package = false;
  };

  // Per directory in order: `part/__init__.py` (a regular package) or `part.py` ends the
  // search; a directory `part` without `__init__.py` is a namespace portion, used only when
  // no directory has a regular package or module.
  static std::optional<Spec> find_spec(const std::vector<std::string>& dirs, const std::string& part);

  static std::string join(const std::vector<std::string>& dirs);

  /// The module of `spec` named `name` (loaded and executed on first use; a module still
  /// being loaded is returned partially initialised, as Python does in an import cycle).
  /// `by_name`: register the module under `name` (false for modules found by directory,
  /// outside every import root, whose names are only for messages).
  LoadedModule* get(const Spec& spec, const std::string& name, bool register_name = true);

  // Executes a module's body, then the bodies of the plain functions it defines (for the
  // definitions nested in them).
  void run(LoadedModule& m);

  /// The chain of modules of `dotted` (a, a.b, a.b.c), importing each; empty when a part is
  /// not found, with `missing` saying which and where it was searched.
  std::vector<LoadedModule*> import_name(const std::string& dotted, std::string* missing);

  /// The dotted name of the package `m` is in (itself for a package); empty when it has none.
  static std::string package_name(const LoadedModule& m);

  // A module relative to `from`: `level` dots then `dotted` (may be empty: the package).
  // By name when `from` knows its package (as Python resolves `__package__`), else by
  // directory (a file loaded outside every import root).
  LoadedModule* resolve_relative(const LoadedModule& from, int level, const std::string& dotted,
                                 std::string* missing);

  static Value module_value(const LoadedModule* m);

  bool is_loading(const LoadedModule* m) const;

  void import_from(LoadedModule& m, const ImportFrom& imp, std::map<std::string, Value>& ns);

  void import(const Import& imp, std::map<std::string, Value>& ns);

  static void bind_target(const Expr& target, const Value& v, std::map<std::string, Value>& ns);

  // Whether a plain function's body may hold definitions (a nested function, maybe in an if).
  static bool has_nested_functions(const StmtList& body);

  void define_function(LoadedModule& m, const FunctionDef& f, std::map<std::string, Value>& ns);
  std::optional<DefinitionKind> misspelt_decorator(LoadedModule& m, const Expr& head, const Value& dv,
                                                   std::string& message);

  // A class body runs in its own namespace that sees the module's (earlier attributes are
  // visible to later ones); methods, properties and nested classes are not members.
  // A NamedTuple subclass or a @dataclass whose body annotates its elements: a named
  // collection type (elements in order); nullopt for any other class.
  std::optional<Value> named_collection(LoadedModule& m, const ClassDef& c, std::map<std::string, Value>& ns);

  void define_class(LoadedModule& m, const ClassDef& c, std::map<std::string, Value>& ns);

  void execute(LoadedModule& m, const StmtList& body, std::map<std::string, Value>& ns);
};

}  // namespace weir::frontend
