// Structural equality of syntax trees: whether two expressions are the same Python expression,
// whatever their source locations and redundant parentheses (as comparing Python's ast.dump of
// both without attributes).
#pragma once

#include "weir/pycode/ast.h"

namespace weir::pycode {

/// Whether `a` and `b` are the same tree: the same node kinds, operators, names, attributes and
/// keyword names, constants of the same kind and value (`1.0` and `1.00` are the same float),
/// children pairwise the same. Locations and how a tuple was written (with or without `( )`) do
/// not count. Two null pointers are the same; a null and a node are not. Never throws.
bool same_expression(const Expr* a, const Expr* b);

}  // namespace weir::pycode
