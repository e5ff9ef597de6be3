// Random well-typed Python expressions for tasklets (docs/testing.md, "Differential testing of
// tasklet expressions"): over the float inputs x, y, the int inputs i, j and the bool inputs
// p, q; operators + - * / // % ** (int powers with literal exponents), comparisons (also
// chained), and/or/not, unary minus, if-else, abs/min/max, float()/bool(), the math module's
// sqrt/exp/log/sin/cos/tanh/atan2/hypot, and literals, big ones included (`2 ** 70`,
// 9223372036854775807, 1e308). Integer magnitudes at run time stay below 2**62 (what the
// generator can bound), so int64 arithmetic on the inputs never wraps; constant subexpressions
// may exceed int64 (weir must fold them exactly or refuse them).
#pragma once

#include <cstdint>
#include <random>
#include <string>

namespace weir::tasklet_diff {

/// The static type of an expression: the element type of the container its value goes to.
enum class ExprType { Float, Int, Bool };

/// "float64", "int64", "bool".
const char* type_name(ExprType t);

struct GeneratedExpr {
  std::string text;
  ExprType type = ExprType::Float;
};

/// Expression number `index` of run `seed`: depends on nothing else, so any one reproduces alone.
GeneratedExpr generate_expression(std::uint64_t seed, std::uint64_t index, int max_depth = 4);

}  // namespace weir::tasklet_diff
