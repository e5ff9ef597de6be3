// Which names Python code reads and writes: the read/write sets of tasklets, interstate
// conditions and assignments and loop statements (DaCe's free symbols of a CodeBlock), from the
// syntax tree (never from the text: string literals, attribute names `a.b` and keyword argument
// names are not names).
#pragma once

#include <cstddef>
#include <map>
#include <set>
#include <string>

#include "weir/pycode/ast.h"
#include "weir/pycode/code.h"

namespace weir::pycode {

/// The names code uses, by role. A name can be in several sets (`x = x + a.real`).
struct NameUse {
  /// Read as a value: loads, the targets of `x op= v`, subscripted values that are read.
  std::set<std::string> reads;
  /// Assigned, whole (`x = v`) or in part (`x[i] = v`, `x.re = v`).
  std::set<std::string> writes;
  /// Subscripted, read or written (`a[i]`): the connectors code indexes.
  std::set<std::string> subscripted;
  /// How often each name in `subscripted` is subscripted (`a[i] + a[i + 1]` counts a twice;
  /// `a[i][j]` once): the elements one run of the code may access through it.
  std::map<std::string, std::size_t> subscript_count;
  /// Called (`min` in `min(a, b)`): functions, not data.
  std::set<std::string> called;
  /// Bases of attributes (`math` in `math.sqrt(x)`, `z` in `z.real`): modules or values.
  std::set<std::string> attribute_bases;

  /// Every name in any role but `called`.
  std::set<std::string> data() const;
};

/// The names of statements or of one expression. Names bound by lambda parameters inside the
/// code are not included. Never throws.
NameUse names_used(const Code& code);
NameUse names_used(const StmtList& body);
NameUse names_used(const Expr& expr);

}  // namespace weir::pycode
