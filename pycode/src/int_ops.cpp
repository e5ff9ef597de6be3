// Python's integer operators on int64, exactly or not at all (int_ops.h).
#include "weir/pycode/int_ops.h"

#include <limits>

namespace weir::pycode {

namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

IntOpResult ok(std::int64_t v) { return {v, IntOpFault::None}; }
IntOpResult fault(IntOpFault f) { return {0, f}; }

}  // namespace

IntOpResult int_add(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_add_overflow(a, b, &r) ? fault(IntOpFault::Overflow) : ok(r);
}

IntOpResult int_sub(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_sub_overflow(a, b, &r) ? fault(IntOpFault::Overflow) : ok(r);
}

IntOpResult int_mul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) ? fault(IntOpFault::Overflow) : ok(r);
}

IntOpResult int_floordiv(std::int64_t a, std::int64_t b) {
  if (b == 0) return fault(IntOpFault::ZeroDivision);
  if (a == kMin && b == -1) return fault(IntOpFault::Overflow);
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return ok(q);
}

IntOpResult int_mod(std::int64_t a, std::int64_t b) {
  if (b == 0) return fault(IntOpFault::ZeroDivision);
  if (b == -1) return ok(0);  // also for INT64_MIN, whose C++ remainder would trap
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return ok(r);
}

IntOpResult int_pow(std::int64_t a, std::int64_t b) {
  if (b < 0) return fault(IntOpFault::NegativePower);
  std::int64_t result = 1, base = a;
  while (b > 0) {
    if (b & 1) {
      IntOpResult m = int_mul(result, base);
      if (!m.ok()) return m;
      result = m.value;
    }
    b >>= 1;
    if (b > 0) {
      IntOpResult sq = int_mul(base, base);
      if (!sq.ok()) return sq;  // a later factor would overflow too (|base| >= 2 here)
      base = sq.value;
    }
  }
  return ok(result);
}

IntOpResult int_lshift(std::int64_t a, std::int64_t b) {
  if (b < 0) return fault(IntOpFault::NegativeShift);
  if (a == 0) return ok(0);
  if (b >= 63) return fault(IntOpFault::Overflow);
  // a << b == a * 2**b, exactly when it fits.
  return int_mul(a, std::int64_t{1} << b);
}

IntOpResult int_rshift(std::int64_t a, std::int64_t b) {
  if (b < 0) return fault(IntOpFault::NegativeShift);
  if (b >= 64) return ok(a < 0 ? -1 : 0);
  return ok(a >> b);  // arithmetic shift: floor(a / 2**b), as Python's
}

IntOpResult int_neg(std::int64_t a) {
  if (a == kMin) return fault(IntOpFault::Overflow);
  return ok(-a);
}

std::string describe(IntOpFault f) {
  switch (f) {
    case IntOpFault::None: return "no fault";
    case IntOpFault::Overflow:
      return "the result does not fit in int64 (Python's integers are unbounded, weir's are 64 bits)";
    case IntOpFault::ZeroDivision: return "integer division or modulo by zero";
    case IntOpFault::NegativeShift: return "negative shift count";
    case IntOpFault::NegativePower: return "a negative integer exponent gives a float, not an integer";
  }
  return "unknown fault";
}

}  // namespace weir::pycode
