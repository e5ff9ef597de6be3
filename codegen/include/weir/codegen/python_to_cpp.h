// Translation of the Python code in SDFGs (tasklets, interstate conditions and assignments, loop
// statements) to C++, by walking pycode's syntax tree (the tree a CodeBlock caches), for one
// target (code_target.h: the CPU's spellings now, CUDA's next). Python semantics are kept
// where C++ differs: `/` is true division, `//` and `%` floor, `**` is a power, `and`/`or`/`not`
// are boolean, comparisons chain.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "weir/codegen/code_target.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/types.h"

namespace weir::codegen {

/// Code the translator cannot translate (unsupported construct, unknown name, syntax error).
/// what() is the message with the offending source text.
class PythonTranslationError : public weir::Error {
 public:
  using weir::Error::Error;
};

/// A name the Python code may use.
struct PyVar {
  /// Its C++ spelling: a variable ("__in1"), or an expression for reads ("A[0]").
  std::string cpp;
  ScalarType type = ScalarType::Float64;
  /// The C++ value is a pointer that the code subscripts (`x[i, j]`).
  bool pointer = false;
  /// Subscripts of a pointer: C++ stride expression per dimension ("NL", "1"). `x[i, j]`
  /// becomes `x[(i)*NL + j]`. Empty: one contiguous dimension.
  std::vector<std::string> strides;
  /// Alternative strides when the code uses fewer indices (squeezed unit dimensions).
  std::vector<std::string> squeezed_strides;
  /// Assignable (tasklet outputs, symbols in interstate assignments).
  bool writable = false;
  /// Writes go through PyContext::write_hook (write-conflict resolution).
  bool hooked = false;
  /// Run-time index checks (CodegenOptions::bounds_checks; bounds_checks.cpp): the C++ extent
  /// of each dimension (as `strides`; `squeezed_extents` as `squeezed_strides`); every index
  /// but a literal 0 becomes weir_index(i, extent, site, dim). Empty: unchecked.
  std::vector<std::string> extents, squeezed_extents;
  /// The extents that are constants (a literal index below one needs no check), else nullopt.
  std::vector<std::optional<long long>> extent_values, squeezed_extent_values;
  /// The name in the program of the dimension of each extent ("Cell": a connector spanning the
  /// whole of a field-view field along it), else "" (as `extents`; `squeezed_extent_dims` as
  /// `squeezed_extents`): an index error names it ("index -1 along Cell").
  std::vector<std::string> extent_dims, squeezed_extent_dims;
  /// What the check's error names first: "state 'main', tasklet 't': connector '__all_v' of 'v'",
  /// or with the read's source line "file.py:12:16: a read of 'v'".
  std::string check_site;
  /// After a source line, the SDFG's names ("state 'main', tasklet 't', connector '__all_v'"),
  /// which the error gives on a line of its own; else empty.
  std::string check_detail;
  /// The enclosing maps' parameters (C++ names) whose values the error names.
  std::vector<std::string> check_point;
  /// Where a value connector's value comes from ("E2V[Edge, 1]"), named by the error of a check
  /// whose index is that connector, with `origin_at` ("file.py:12:16") when known.
  std::string origin, origin_at;
  /// A pointer connector's container (its memlet's data): a value read from it has the origin
  /// "E2V[<index>, 1]" when its indices have origins.
  std::string data;
  /// How such origins name this value when it is a symbol (a map parameter `__K` as "K").
  std::string shown;
  /// A value connector that is an entry of a connectivity table the program checks when it is
  /// called (PyContext::entry_checked_tables): the table's name, else empty.
  std::string table;
  /// Every extent in `extents` is known when the program is called (its arguments' sizes), so
  /// that an entry check of a table can stand for the check of an index below it.
  bool extents_at_entry = false;

  /// A read-only value.
  static PyVar value(std::string cpp, ScalarType type) {
    PyVar v;
    v.cpp = std::move(cpp);
    v.type = type;
    return v;
  }
};

/// Loop-invariant code motion out of the loop nest of a sequential map whose body is the code
/// (StateGen's hoisting, docs/adr/0041): what varies from one iteration to the next, the
/// loops' parameters, and where the hoisted C++ goes. The translator moves there the top-level
/// assignments `x = e` (x a local assigned nowhere else) whose value reads nothing variant, and
/// the checks of indices it computes unconditionally: an invariant index is checked once (the
/// loop body reads a variable), a loop parameter `p` (or `p + c`, `p - c`) at its first and
/// last value. The hoisted lines run only when the loops run at least once.
struct LoopHoist {
  /// Names (Python) whose value differs between iterations: the loops' parameters, connectors
  /// whose memlets use them or whose containers the tasklet writes, every output.
  std::set<std::string> variant;
  /// The loops' parameters (Python names) -> C++ of their first and last value (steps +1/-1).
  std::map<std::string, std::pair<std::string, std::string>> params;
  /// Filled by the translator: C++ lines to run once before the loops.
  mutable std::vector<std::string> lines;
  /// A row the loops read: a pointer connector subscripted, in every iteration, with invariant
  /// indices and a loop parameter (+ c) in its last, contiguous dimension (a neighbour's column
  /// gathered through a table). The code generator prefetches the rows of a later iteration of
  /// the enclosing loop (gather_prefetch.cpp, docs/adr/0041).
  struct Row {
    std::string start;     ///< C++ of the address of its element at the parameter's first value
    std::string elements;  ///< C++ of its length in elements (last - first + 1)
    ScalarType type = ScalarType::Float64;
  };
  /// Filled by the translator: the rows, each once, in the order the code reads them. Their
  /// C++ reads only what the hoisted lines and the invariant connectors declare.
  mutable std::vector<Row> rows;
  /// Filled by the translator: the bools (declared in `lines`) of the invariant conditions of
  /// `a if c else b` in the loops (the field-view lowering's `x != -1` of a missing neighbour).
  /// The code generator runs a version of the loops in which all of them are the constant true
  /// where they all hold (map_codegen.cpp, docs/adr/0041).
  mutable std::vector<std::string> conditions;
};

/// An index check the translator left out because a table's entry check proves it (docs/adr/
/// 0051): the index is an entry of `table`, never -1 (the code replaced -1 first), and the
/// program checks at entry that every entry of `table` is -1 or below `extent`.
struct TableProof {
  std::string table;
  /// C++ of the extent the index stays below (the indexed container's, in its dimension `dim`).
  std::string extent;
  /// The container indexed, for the entry check's error.
  std::string data;
  std::size_t dim = 0;
};

struct PyContext {
  std::map<std::string, PyVar> vars;
  /// Connectivity tables whose entries the program checks when it is called (every entry -1 or
  /// below the extents of `proofs`): an index that is such an entry and never -1, used in a
  /// container whose extents are PyVar::extents_at_entry, needs no check of its own.
  std::set<std::string> entry_checked_tables;
  /// Filled by the translator: the index checks such proofs replaced.
  mutable std::vector<TableProof> proofs;
  /// Hoisting out of the enclosing sequential loops (null: none).
  const LoopHoist* hoist = nullptr;
  /// Where a run-time fault of the code other than an index (an integer to a negative power)
  /// happens in the program: the tasklet's source line ("file.py:43:14", its debuginfo) and
  /// "tasklet 'name'", which the error names; `fault_line` empty when the SDFG has no debuginfo.
  std::string fault_line, fault_tasklet;
  /// C++ names new local variables must not take (they are renamed `_<name>`).
  std::set<std::string> reserved;
  /// More such names, asked per name (may be empty): a tasklet's containers, too many to copy
  /// into `reserved` per tasklet in a big SDFG.
  std::function<bool(const std::string& cpp)> is_reserved;
  /// For hooked variables: the C++ statement for `name[index] = value` (index empty for a value
  /// connector). `value` is already C++.
  std::function<std::string(const std::string& name, const std::string& index, const std::string& value)>
      write_hook;
  /// Whether assignments to unknown names create locals (tasklets: yes; conditions: no).
  bool allow_locals = true;
  /// Filled by the translator: the vars the code reads or writes.
  mutable std::set<std::string> used;
  /// Spellings of math functions for the code's target.
  const CodeTarget* target = &cpu_target();
};

/// Translates statements (tasklet code). Returns C++ statement lines, nested blocks indented by
/// four spaces. Locals assigned in the code become `auto` variables (declared before the first
/// block that assigns them conditionally). Throws PythonTranslationError.
std::vector<std::string> translate_python_statements(std::string_view code, PyContext& ctx);
/// The same for a code block's cached tree (not parsed again): what the code generators call.
std::vector<std::string> translate_statements(const CodeBlock& code, PyContext& ctx);

/// Translates one expression. `type`, if given, receives its type. Throws PythonTranslationError.
std::string translate_python_expression(std::string_view code, const PyContext& ctx,
                                        ScalarType* type = nullptr);
/// The same for a code block holding one expression statement (a condition), from its tree.
std::string translate_expression(const CodeBlock& code, const PyContext& ctx, ScalarType* type = nullptr);

/// Translates assignment statements `x = e; y = f` (loop init/update statements) to one C++
/// expression `x = e, y = f` (empty for empty code). Targets must be writable vars.
std::string translate_python_assignments(std::string_view code, const PyContext& ctx);
/// The same for a code block's tree.
std::string translate_assignments(const CodeBlock& code, const PyContext& ctx);

/// Write-conflict resolution lambda (`lambda a, b: a + b`) as a C++ update of `target` with
/// `value`: "target += value" for +, *, -, &, |, ^ (`op` receives "+" etc.), else a full
/// assignment "target = weir_max(target, value)" (`op` empty). Throws PythonTranslationError.
std::string translate_wcr(std::string_view lambda, const std::string& target, const std::string& value,
                          ScalarType type, std::string* op = nullptr);
/// The same lambda as a C++ expression of its two arguments `a` (the value in memory) and `b`
/// (the value written): "a + b", "weir_max(a, b)": the combining function of a compare-and-swap
/// update (weir_atomic_update), for every lambda, including the operator forms that
/// translate_wcr prints as compound assignments. Throws PythonTranslationError.
std::string translate_wcr_combine(std::string_view lambda, const std::string& a, const std::string& b,
                                  ScalarType type);

/// A C++ identifier for an SDFG name: the name itself unless it is a C++ keyword (then "name_").
std::string cpp_ident(const std::string& name);

}  // namespace weir::codegen
