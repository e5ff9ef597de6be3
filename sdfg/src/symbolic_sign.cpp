// Sign analysis of weir::sym::Expr assuming every symbol is >= 0 (symbols in shapes and
// ranges are sizes). Each node gets the set of signs its value may have; the analysis is
// conservative (N - 1 may have any sign) but needs no solver.
#include "weir/sdfg/symbolic.h"

namespace weir::sym {
namespace {

using Signs = unsigned;  // bit set of possible signs
constexpr Signs kNeg = 1, kZero = 2, kPos = 4, kAny = 7;

Signs of_value(long long v) { return v < 0 ? kNeg : v == 0 ? kZero : kPos; }

// Combines every pair of possible signs with `op`, a table on single signs.
template <class Op>
Signs lift(Signs a, Signs b, Op op) {
  Signs r = 0;
  for (Signs x : {kNeg, kZero, kPos})
    for (Signs y : {kNeg, kZero, kPos})
      if ((a & x) && (b & y)) r |= op(x, y);
  return r;
}

Signs add1(Signs x, Signs y) {
  if (x == kZero) return y;
  if (y == kZero) return x;
  return x == y ? x : kAny;
}
Signs mul1(Signs x, Signs y) {
  if (x == kZero || y == kZero) return kZero;
  return x == y ? kPos : kNeg;
}
Signs min1(Signs x, Signs y) { return x < y ? x : y; }  // kNeg < kZero < kPos
Signs max1(Signs x, Signs y) { return x > y ? x : y; }

Signs signs(const Expr& e) {
  const auto& a = e.args();
  switch (e.kind()) {
    case Kind::Integer:
    case Kind::Boolean: return of_value(e.value());
    case Kind::Symbol: return kZero | kPos;
    case Kind::Add:
    case Kind::Mul: {
      Signs r = signs(a[0]);
      for (std::size_t i = 1; i < a.size(); ++i)
        r = lift(r, signs(a[i]), e.kind() == Kind::Add ? add1 : mul1);
      return r;
    }
    case Kind::Pow: {
      Signs b = signs(a[0]);
      if (auto k = a[1].as_integer()) {
        if (*k == 0) return kPos;
        if (*k % 2 == 0) return ((b & (kNeg | kPos)) ? kPos : 0) | (b & kZero);
        return b;  // odd powers keep the sign (negative ones too: 1/x has x's sign)
      }
      return b == kPos ? kPos : kAny;
    }
    case Kind::Div:
    case Kind::FloorDiv:
    case Kind::CeilDiv: {
      Signs d = signs(a[1]) & (kNeg | kPos);  // a divisor is nonzero where defined
      if (d == 0) return kAny;
      Signs q = lift(signs(a[0]), d, mul1);
      if (e.kind() == Kind::FloorDiv && (q & kPos)) q |= kZero;  // floor(1/2) == 0
      if (e.kind() == Kind::CeilDiv && (q & kNeg)) q |= kZero;   // ceiling(-1/2) == 0
      return q;
    }
    case Kind::Mod: {
      Signs d = signs(a[1]);
      if (d == kPos) return kZero | kPos;
      if (d == kNeg) return kNeg | kZero;
      return kAny;
    }
    case Kind::Min:
    case Kind::Max: {
      Signs r = signs(a[0]);
      for (std::size_t i = 1; i < a.size(); ++i)
        r = lift(r, signs(a[i]), e.kind() == Kind::Min ? min1 : max1);
      return r;
    }
    case Kind::Compare:
    case Kind::Not:
    case Kind::And:
    case Kind::Or: return kZero | kPos;
    case Kind::Call:
      if (e.name() == "Abs" && a.size() == 1) {
        Signs s = signs(a[0]);
        return ((s & (kNeg | kPos)) ? kPos : 0) | (s & kZero);
      }
      return kAny;
  }
  return kAny;
}

}  // namespace

std::optional<int> Expr::sign_if_symbols_nonnegative() const {
  switch (signs(*this)) {
    case kNeg: return -1;
    case kZero: return 0;
    case kPos: return 1;
    default: return std::nullopt;
  }
}

bool Expr::nonnegative_if_symbols_nonnegative() const { return (signs(*this) & kNeg) == 0; }

}  // namespace weir::sym
