// Python's integer operators on int64 values, exactly: the result Python computes, or nothing
// when that result is not an int64 (Python's ints are unbounded; weir's integers are 64 bits).
// Constant folding (the module evaluator, the tasklet translator) uses these so that a folded
// value is Python's or refused, never wrapped around (docs/adr/0039-tasklet-semantics.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace weir::pycode {

/// Why an integer operation has no int64 result.
enum class IntOpFault {
  None,
  Overflow,       ///< Python's result exists but is outside [-2**63, 2**63)
  ZeroDivision,   ///< `//` or `%` by zero (Python raises ZeroDivisionError)
  NegativeShift,  ///< `<<` or `>>` by a negative count (Python raises ValueError)
  NegativePower,  ///< `a ** b` with b < 0: Python's result is a float, not an int
};

/// An int64 result or the fault that prevents one.
struct IntOpResult {
  std::int64_t value = 0;
  IntOpFault fault = IntOpFault::None;
  bool ok() const { return fault == IntOpFault::None; }
};

IntOpResult int_add(std::int64_t a, std::int64_t b);
IntOpResult int_sub(std::int64_t a, std::int64_t b);
IntOpResult int_mul(std::int64_t a, std::int64_t b);
/// Python's floor division (rounds toward negative infinity).
IntOpResult int_floordiv(std::int64_t a, std::int64_t b);
/// Python's modulo (the result has the divisor's sign).
IntOpResult int_mod(std::int64_t a, std::int64_t b);
/// a ** b for b >= 0 (0 ** 0 is 1).
IntOpResult int_pow(std::int64_t a, std::int64_t b);
IntOpResult int_lshift(std::int64_t a, std::int64_t b);
/// Arithmetic shift right; counts of 64 and more give 0 or -1, as Python's.
IntOpResult int_rshift(std::int64_t a, std::int64_t b);
IntOpResult int_neg(std::int64_t a);

/// A sentence for a fault, for error messages ("the result does not fit in int64 ...").
std::string describe(IntOpFault fault);

}  // namespace weir::pycode
