// Bounds of symbolic index expressions (see symbolic_hull.h).
#include "weir/sdfg/symbolic_hull.h"

namespace weir::sym {

std::optional<int> sign_if_known(const Expr& e) {
  if (auto v = e.as_integer()) return *v < 0 ? -1 : (*v > 0 ? 1 : 0);
  return e.sign_if_symbols_nonnegative();
}

Expr hull_min(const Expr& a, const Expr& b) {
  if (auto s = sign_if_known(a - b)) return *s <= 0 ? a : b;
  return Expr::min(a, b);
}

Expr hull_max(const Expr& a, const Expr& b) {
  if (auto s = sign_if_known(a - b)) return *s >= 0 ? a : b;
  return Expr::max(a, b);
}

}  // namespace weir::sym
