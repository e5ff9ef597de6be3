// CPython's float arithmetic and its `math` module on doubles, for the constants a module
// computes at import (`CELL_AREA = 4.0 * math.pi * R**2`, `math.gamma(0.5)`): the double CPython
// gives, or the exception it raises as a message (docs/adr/0046-module-level-constants.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "weir/frontend/module_loader.h"

namespace weir::frontend::pymath {

/// A Python float or int result, or the exception CPython raises ("ValueError: math domain
/// error"): `error` is empty on success.
struct Result {
  ConstantValue value;
  std::string error;
};

/// `math.NAME(args)` as CPython 3.11 computes it (libm where CPython calls libm, CPython's own
/// Lanczos approximation for gamma and lgamma, its error rules: a NaN from a non-NaN argument is
/// a ValueError, an infinity from finite arguments an OverflowError or ValueError as CPython
/// decides per function). nullopt when weir does not evaluate `math.NAME` (hypot, which CPython
/// computes with its own algorithm, and functions that are no numbers' functions).
std::optional<Result> call(const std::string& name, const std::vector<ConstantValue>& args);

/// `math.NAME` for CPython's constants (pi, e, tau, inf, nan); nullopt for other names.
std::optional<ConstantValue> constant(const std::string& name);

/// `sys.float_info.NAME` and `sys.NAME` (maxsize); nullopt for other names.
std::optional<ConstantValue> sys_constant(const std::string& dotted);

/// The float operators CPython's float type implements: `x ** y` (ZeroDivisionError for 0.0 to
/// a negative power, an error for a negative base to a fractional power, whose Python result
/// is complex, OverflowError), `x // y` and `x % y` (float_divmod's rounding and signs; a zero
/// divisor is a ZeroDivisionError), `x / y`.
Result float_pow(double x, double y);
Result float_floordiv(double x, double y);
Result float_mod(double x, double y);
Result float_div(double x, double y);

/// A Python float as a ConstantValue.
ConstantValue float_value(double d);
/// A Python int as a ConstantValue.
ConstantValue int_value(std::int64_t i);

}  // namespace weir::frontend::pymath
