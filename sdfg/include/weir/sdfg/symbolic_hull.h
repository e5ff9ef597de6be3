// Bounds of symbolic index expressions for memlet propagation (through map scopes in the
// transforms layer, out of nested SDFGs in nested_access.h): signs and the Min/Max of two
// bounds, simplified where the sign of their difference is known assuming symbols >= 0 (sizes
// and indices).
#pragma once

#include <optional>

#include "weir/sdfg/symbolic.h"

namespace weir::sym {

/// -1, 0 or 1: the sign of an integer, or of an expression whose sign does not depend on its
/// symbols' values when they are >= 0; nullopt otherwise.
std::optional<int> sign_if_known(const Expr& e);

/// min(a, b): a or b where the sign of a - b is known (sign_if_known), Min(a, b) otherwise.
Expr hull_min(const Expr& a, const Expr& b);

/// max(a, b): a or b where the sign of a - b is known (sign_if_known), Max(a, b) otherwise.
Expr hull_max(const Expr& a, const Expr& b);

}  // namespace weir::sym
