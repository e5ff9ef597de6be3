// Scalar operations of the embedded evaluator: arithmetic, comparisons and math functions on Num.
#include "internal.h"

#include <cmath>
#include <map>

// Python's and NumPy's semantics of numbers, the very functions generated code calls
// (codegen/prelude/weir_numbers.h): both backends compute // and % by the same code.
#include "weir_numbers.h"

namespace weir::runtime::embedded {

namespace {

template <class T>
T ipow(T base, T exp) {
  T r = 1;
  while (exp > 0) {
    if (exp & 1) r *= base;
    base *= base;
    exp >>= 1;
  }
  return r;
}

}  // namespace

Num binop(BinaryOperator op, ScalarKind k, Num a, Num b, const TExpr& e) {
  Num r{0.0};
  switch (num_class(k)) {
    case NumClass::Float: {
      double x = a.f, y = b.f;
      switch (op) {
        case BinaryOperator::Add: r.f = x + y; break;
        case BinaryOperator::Sub: r.f = x - y; break;
        case BinaryOperator::Mult: r.f = x * y; break;
        case BinaryOperator::Div: r.f = x / y; break;
        case BinaryOperator::FloorDiv:
          r.f = k == ScalarKind::Float32 ? weir_ffloordiv(static_cast<float>(x), static_cast<float>(y))
                                         : weir_ffloordiv(x, y);
          break;
        case BinaryOperator::Pow: r.f = std::pow(x, y); break;
        case BinaryOperator::Mod:  // NumPy's remainder: the sign of the divisor
          r.f = k == ScalarKind::Float32 ? weir_fmod(static_cast<float>(x), static_cast<float>(y))
                                         : weir_fmod(x, y);
          break;
        default: fail(e.loc, "operator not defined on floating-point values");
      }
      return r;
    }
    case NumClass::Unsigned: {
      std::uint64_t x = a.u, y = b.u;
      // By zero: 0, as NumPy's integer floor_divide and remainder (docs/adr/0014).
      if ((op == BinaryOperator::FloorDiv || op == BinaryOperator::Mod) && y == 0) return r;
      if (op == BinaryOperator::Div && y == 0) fail(e.loc, "integer division by zero");
      switch (op) {
        case BinaryOperator::Add: r.u = x + y; break;
        case BinaryOperator::Sub: r.u = x - y; break;
        case BinaryOperator::Mult: r.u = x * y; break;
        case BinaryOperator::Div:
        case BinaryOperator::FloorDiv: r.u = x / y; break;
        case BinaryOperator::Mod: r.u = x % y; break;
        case BinaryOperator::Pow: r.u = ipow<std::uint64_t>(x, y); break;
        case BinaryOperator::BitAnd: r.u = x & y; break;
        case BinaryOperator::BitOr: r.u = x | y; break;
        case BinaryOperator::BitXor: r.u = x ^ y; break;
        case BinaryOperator::LShift: r.u = x << (y & 63); break;
        case BinaryOperator::RShift: r.u = x >> (y & 63); break;
        default: fail(e.loc, "operator not defined on integers");
      }
      return r;
    }
    case NumClass::Bool:
    case NumClass::Signed: {
      std::int64_t x = a.i, y = b.i;
      // By zero: 0, as NumPy's integer floor_divide and remainder; by -1 without the trap of
      // INT64_MIN / -1 (docs/adr/0014): weir_floordiv and weir_mod say so.
      if (op == BinaryOperator::FloorDiv || op == BinaryOperator::Mod) {
        r.i = op == BinaryOperator::FloorDiv ? weir_floordiv(x, y) : weir_mod(x, y);
        return r;
      }
      if (op == BinaryOperator::Div && y == 0) fail(e.loc, "integer division by zero");
      switch (op) {
        case BinaryOperator::Add:
          r.i = static_cast<std::int64_t>(static_cast<std::uint64_t>(x) + static_cast<std::uint64_t>(y));
          break;
        case BinaryOperator::Sub:
          r.i = static_cast<std::int64_t>(static_cast<std::uint64_t>(x) - static_cast<std::uint64_t>(y));
          break;
        case BinaryOperator::Mult:
          r.i = static_cast<std::int64_t>(static_cast<std::uint64_t>(x) * static_cast<std::uint64_t>(y));
          break;
        // Integer true division as the C++ backend does it: in double, then converted back.
        case BinaryOperator::Div:
          r.i = static_cast<std::int64_t>(static_cast<double>(x) / static_cast<double>(y));
          break;
        case BinaryOperator::Pow:
          if (y < 0)
            fail(e.loc, "integer power " + std::to_string(x) + " ** " + std::to_string(y) +
                            ": an integer to a negative integer power has no integer value (NumPy raises "
                            "ValueError)");
          r.i = static_cast<std::int64_t>(
              ipow<std::uint64_t>(static_cast<std::uint64_t>(x), static_cast<std::uint64_t>(y)));
          break;
        case BinaryOperator::BitAnd: r.i = x & y; break;
        case BinaryOperator::BitOr: r.i = x | y; break;
        case BinaryOperator::BitXor: r.i = x ^ y; break;
        case BinaryOperator::LShift:
          r.i = static_cast<std::int64_t>(static_cast<std::uint64_t>(x) << (y & 63));
          break;
        case BinaryOperator::RShift: r.i = x >> (y & 63); break;
        default: fail(e.loc, "operator not defined on integers");
      }
      return r;
    }
  }
  return r;
}

Num maximum(ScalarKind k, Num a, Num b) {
  int c = compare3(k, a, b);
  if (num_class(k) == NumClass::Float) return (c == 1 || std::isnan(a.f)) ? a : b;
  return c == 1 ? a : b;
}

Num minimum(ScalarKind k, Num a, Num b) {
  int c = compare3(k, a, b);
  if (num_class(k) == NumClass::Float) return (c == -1 || std::isnan(a.f)) ? a : b;
  return c == -1 ? a : b;
}

int compare3(ScalarKind k, Num a, Num b) {
  switch (num_class(k)) {
    case NumClass::Float: return a.f < b.f ? -1 : a.f > b.f ? 1 : a.f == b.f ? 0 : 2;  // 2: unordered (NaN)
    case NumClass::Unsigned: return a.u < b.u ? -1 : a.u > b.u ? 1 : 0;
    default: return a.i < b.i ? -1 : a.i > b.i ? 1 : 0;
  }
}

bool compare(CompareOperator op, int c) {
  switch (op) {
    case CompareOperator::Eq: return c == 0;
    case CompareOperator::NotEq: return c != 0;
    case CompareOperator::Lt: return c == -1;
    case CompareOperator::LtE: return c == -1 || c == 0;
    case CompareOperator::Gt: return c == 1;
    case CompareOperator::GtE: return c == 1 || c == 0;
    default: return false;
  }
}

Num bool_num(bool b) {
  Num r{0.0};
  r.i = b;
  return r;
}

double math1(const std::string& n, double x) {
  static const std::map<std::string, double (*)(double)> fns = {
      {"sqrt", [](double v) { return std::sqrt(v); }},
      {"exp", [](double v) { return std::exp(v); }},
      {"log", [](double v) { return std::log(v); }},
      {"sin", [](double v) { return std::sin(v); }},
      {"cos", [](double v) { return std::cos(v); }},
      {"tan", [](double v) { return std::tan(v); }},
      {"arcsin", [](double v) { return std::asin(v); }},
      {"arccos", [](double v) { return std::acos(v); }},
      {"arctan", [](double v) { return std::atan(v); }},
      {"sinh", [](double v) { return std::sinh(v); }},
      {"cosh", [](double v) { return std::cosh(v); }},
      {"tanh", [](double v) { return std::tanh(v); }},
      {"arcsinh", [](double v) { return std::asinh(v); }},
      {"arccosh", [](double v) { return std::acosh(v); }},
      {"arctanh", [](double v) { return std::atanh(v); }},
      {"gamma", [](double v) { return std::tgamma(v); }},
      {"cbrt", [](double v) { return std::cbrt(v); }},
      {"floor", [](double v) { return std::floor(v); }},
      {"ceil", [](double v) { return std::ceil(v); }},
      {"trunc", [](double v) { return std::trunc(v); }},
  };
  return fns.at(n)(x);
}

}  // namespace weir::runtime::embedded
