// The one walk over the names of Python code that the analyses (names.cpp) and rewrites
// (rewrite.cpp) share: every Name node with the role it has where it stands. Private to pycode.
#pragma once

#include <functional>
#include <set>
#include <string>

#include "weir/pycode/ast.h"

namespace weir::pycode::detail {

/// Where a Name stands. A name in no role below is an ordinary read.
struct NameSite {
  bool store = false;           ///< assigned (a target, or the base of a subscript/attribute target)
  bool augmented = false;       ///< the target of `x op= v`: read and written
  bool callee = false;          ///< the function of a call (`min` in `min(a, b)`)
  bool attribute_base = false;  ///< the value of an attribute (`math` in `math.pi`)
  bool subscripted = false;     ///< the value of a subscript (`a` in `a[i]`)
};

/// Called for each Name with the slot that owns it (the visitor may replace the slot; null for
/// the root of walk_names(Expr&), which the caller replaces itself). Names
/// bound by an enclosing lambda or def parameter are not visited; neither are attribute names
/// (`b` in `a.b`), keyword argument names, string literals, imports and unparsed statements.
using NameVisitor = std::function<void(const Name& name, ExprPtr* slot, const NameSite& site)>;

/// Visits in evaluation order (an assignment's value before its targets).
void walk_names(StmtList& body, const NameVisitor& visit);
void walk_names(Expr& root, const NameVisitor& visit);

}  // namespace weir::pycode::detail
