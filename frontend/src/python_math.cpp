// CPython's float operators and math module on doubles (python_math.h). glibc's libm is the
// libm CPython calls on Linux, so the functions CPython takes from libm give its bits here too;
// gamma and lgamma are CPython's own Lanczos approximation and are computed the same way.
#include "python_math.h"

#include <cerrno>
#include <cmath>
#include <limits>
#include <map>

namespace weir::frontend::pymath {

namespace {

constexpr double kPi = 3.141592653589793238462643383279502884197;
constexpr double kLogPi = 1.144729885849400174143427351353058711647;

// The Lanczos approximation CPython's math.gamma and math.lgamma use (g = 6.024680040776729583740234375,
// 13 terms; the sum is a rational function whose denominator is x (x + 1) ... (x + 11)).
constexpr double kLanczosG = 6.024680040776729583740234375;
constexpr double kLanczosGMinusHalf = 5.524680040776729583740234375;
constexpr int kLanczosN = 13;
constexpr double kLanczosNum[kLanczosN] = {
    23531376880.410759688572007674451636754734846804940, 42919803642.649098768957899047001988850926355848959,
    35711959237.355668049440185451547166705960488635843, 17921034426.037209699919755754458931112671403265390,
    6039542586.3520280050642916443072979210699388420708, 1439720407.3117216736632230727949123939715485786772,
    248874557.86205415651146038641322942321632125127801, 31426415.585400194380614231628318205362874684987640,
    2876370.6289353724412254090516208496135991145378768, 186056.26539522349504029498971604569928220784236328,
    8071.6720023658162106380029022722506138218516325024, 210.82427775157934587250973392071336271166969580291,
    2.5066282746310002701649081771338373386264310793408};
constexpr double kLanczosDen[kLanczosN] = {0.0,        39916800.0, 120543840.0, 150917976.0, 105258076.0,
                                           45995730.0, 13339535.0, 2637558.0,   357423.0,    32670.0,
                                           1925.0,     66.0,       1.0};

// Horner in x for small x, in 1/x for large x (where the powers of x would overflow).
double lanczos_sum(double x) {
  double num = 0.0, den = 0.0;
  if (x < 5.0) {
    for (int i = kLanczosN; --i >= 0;) {
      num = num * x + kLanczosNum[i];
      den = den * x + kLanczosDen[i];
    }
  } else {
    for (int i = 0; i < kLanczosN; ++i) {
      num = num / x + kLanczosNum[i];
      den = den / x + kLanczosDen[i];
    }
  }
  return num / den;
}

// sin(pi x) for finite x, exact at the integers and half-integers.
double sinpi(double x) {
  double y = std::fmod(std::fabs(x), 2.0);
  int n = static_cast<int>(std::round(2.0 * y));
  double r = 0.0;
  switch (n) {
    case 0: r = std::sin(kPi * y); break;
    case 1: r = std::cos(kPi * (y - 0.5)); break;
    case 2: r = std::sin(kPi * (1.0 - y)); break;  // not -sin(pi (y - 1)): 0.0 at y == 1, not -0.0
    case 3: r = -std::cos(kPi * (y - 1.5)); break;
    default: r = std::sin(kPi * (y - 2.0)); break;
  }
  return std::copysign(1.0, x) * r;
}

// (n - 1)! for n = 1..23: gamma at the integers, each the double nearest the integer.
constexpr double kFactorials[23] = {1.0,
                                    1.0,
                                    2.0,
                                    6.0,
                                    24.0,
                                    120.0,
                                    720.0,
                                    5040.0,
                                    40320.0,
                                    362880.0,
                                    3628800.0,
                                    39916800.0,
                                    479001600.0,
                                    6227020800.0,
                                    87178291200.0,
                                    1307674368000.0,
                                    20922789888000.0,
                                    355687428096000.0,
                                    6402373705728000.0,
                                    121645100408832000.0,
                                    2432902008176640000.0,
                                    51090942171709440000.0,
                                    1124000727777607680000.0};

// CPython's m_tgamma; `err` becomes EDOM or ERANGE where CPython sets errno.
double tgamma(double x, int& err) {
  if (!std::isfinite(x)) {
    if (std::isnan(x) || x > 0.0) return x;
    err = EDOM;
    return std::numeric_limits<double>::quiet_NaN();
  }
  if (x == 0.0) {
    err = EDOM;
    return std::copysign(HUGE_VAL, x);
  }
  if (x == std::floor(x)) {
    if (x < 0.0) {
      err = EDOM;
      return std::numeric_limits<double>::quiet_NaN();
    }
    if (x <= 23.0) return kFactorials[static_cast<int>(x) - 1];
  }
  double absx = std::fabs(x);
  if (absx < 1e-20) {
    double r = 1.0 / x;
    if (std::isinf(r)) err = ERANGE;
    return r;
  }
  if (absx > 200.0) {
    if (x < 0.0) return 0.0 / sinpi(x);
    err = ERANGE;
    return HUGE_VAL;
  }
  double y = absx + kLanczosGMinusHalf;
  // The rounding error of y, to correct the result with.
  double z = 0.0;
  if (absx > kLanczosGMinusHalf) {
    double q = y - absx;
    z = q - kLanczosGMinusHalf;
  } else {
    double q = y - kLanczosGMinusHalf;
    z = q - absx;
  }
  z = z * kLanczosG / y;
  double r = 0.0;
  if (x < 0.0) {
    r = -kPi / sinpi(absx) / absx * std::exp(y) / lanczos_sum(absx);
    r -= z * r;
    if (absx < 140.0) {
      r /= std::pow(y, absx - 0.5);
    } else {
      double sqrtpow = std::pow(y, absx / 2.0 - 0.25);
      r /= sqrtpow;
      r /= sqrtpow;
    }
  } else {
    r = lanczos_sum(absx) / std::exp(y);
    r += z * r;
    if (absx < 140.0) {
      r *= std::pow(y, absx - 0.5);
    } else {
      double sqrtpow = std::pow(y, absx / 2.0 - 0.25);
      r *= sqrtpow;
      r *= sqrtpow;
    }
  }
  if (std::isinf(r)) err = ERANGE;
  return r;
}

// CPython's m_lgamma.
double lgamma(double x, int& err) {
  if (!std::isfinite(x)) return std::isnan(x) ? x : HUGE_VAL;
  if (x == std::floor(x) && x <= 2.0) {
    if (x <= 0.0) {
      err = EDOM;
      return HUGE_VAL;
    }
    return 0.0;
  }
  double absx = std::fabs(x);
  if (absx < 1e-20) return -std::log(absx);
  double r = std::log(lanczos_sum(absx)) - kLanczosG;
  r += (absx - 0.5) * (std::log(absx + kLanczosG - 0.5) - 1);
  if (x < 0.0) r = kLogPi - std::log(std::fabs(sinpi(absx))) - std::log(absx) - r;
  if (std::isinf(r)) err = ERANGE;
  return r;
}

Result ok(double d) { return {float_value(d), {}}; }
Result fail(std::string e) { return {{}, std::move(e)}; }

const char* kDomain = "ValueError: math domain error";
const char* kRange = "OverflowError: math range error";

// CPython's math_1: libm's result, a NaN from a non-NaN argument a domain error, an infinity
// from a finite argument a range error where the function can overflow, else a domain error.
Result math_1(double x, double (*fn)(double), bool can_overflow) {
  double r = fn(x);
  if (std::isnan(r) && !std::isnan(x)) return fail(kDomain);
  if (std::isinf(r) && std::isfinite(x)) return fail(can_overflow ? kRange : kDomain);
  return ok(r);
}

// CPython's is_error after a function that sets errno itself (math_1a): EDOM a domain error,
// ERANGE an overflow unless the result underflowed (|r| < 1.5).
Result with_errno(double r, int err) {
  if (err == EDOM) return fail(kDomain);
  if (err == ERANGE && std::fabs(r) >= 1.5) return fail(kRange);
  return ok(r);
}

// Python's int(x) of a float that is integral already (floor, ceil, trunc).
Result float_to_int(double d) {
  if (std::isinf(d)) return fail("OverflowError: cannot convert float infinity to integer");
  if (std::isnan(d)) return fail("ValueError: cannot convert float NaN to integer");
  if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0))
    return fail("the int is outside int64 (weir's constants are 64-bit integers)");
  return {int_value(static_cast<std::int64_t>(d)), {}};
}

bool is_int(const ConstantValue& c) {
  return c.kind == ConstantValue::Kind::Int || c.kind == ConstantValue::Kind::Bool;
}
std::int64_t as_int(const ConstantValue& c) {
  return c.kind == ConstantValue::Kind::Bool ? std::int64_t(c.bool_value) : c.int_value;
}

ConstantValue bool_value(bool b) {
  ConstantValue c;
  c.kind = ConstantValue::Kind::Bool;
  c.bool_value = b;
  return c;
}

// math.log, log2, log10 (CPython's loghelper: a non-positive int is a domain error, an int
// is converted to float exactly as int + float converts it).
Result log_of(const ConstantValue& x, double (*fn)(double)) {
  if (is_int(x) && as_int(x) <= 0) return fail(kDomain);
  return math_1(x.as_double(), fn, false);
}

double log_e(double x) { return std::log(x); }
double log_2(double x) { return std::log2(x); }
double log_10(double x) { return std::log10(x); }

}  // namespace

ConstantValue float_value(double d) {
  ConstantValue c;
  c.kind = ConstantValue::Kind::Float;
  c.float_value = d;
  return c;
}

ConstantValue int_value(std::int64_t i) {
  ConstantValue c;
  c.kind = ConstantValue::Kind::Int;
  c.int_value = i;
  return c;
}

std::optional<ConstantValue> constant(const std::string& name) {
  if (name == "pi") return float_value(kPi);
  if (name == "e") return float_value(2.718281828459045235360287471352662498);
  if (name == "tau") return float_value(2.0 * kPi);
  if (name == "inf") return float_value(HUGE_VAL);
  if (name == "nan") return float_value(std::numeric_limits<double>::quiet_NaN());
  return std::nullopt;
}

std::optional<ConstantValue> sys_constant(const std::string& dotted) {
  using L = std::numeric_limits<double>;
  static const std::map<std::string, double> floats = {
      {"float_info.epsilon", L::epsilon()}, {"float_info.max", L::max()}, {"float_info.min", L::min()}};
  static const std::map<std::string, std::int64_t> ints = {
      {"float_info.dig", L::digits10},
      {"float_info.mant_dig", L::digits},
      {"float_info.max_exp", L::max_exponent},
      {"float_info.min_exp", L::min_exponent},
      {"float_info.max_10_exp", L::max_exponent10},
      {"float_info.min_10_exp", L::min_exponent10},
      {"float_info.radix", L::radix},
      {"maxsize", std::numeric_limits<std::int64_t>::max()}};
  if (auto it = floats.find(dotted); it != floats.end()) return float_value(it->second);
  if (auto it = ints.find(dotted); it != ints.end()) return int_value(it->second);
  return std::nullopt;
}

Result float_pow(double x, double y) {
  if (y == 0.0) return ok(1.0);
  if (std::isnan(x)) return ok(x);
  if (std::isnan(y)) return ok(x == 1.0 ? 1.0 : y);
  if (!std::isfinite(x) || !std::isfinite(y))
    return ok(std::pow(x, y));  // C99's special values, as CPython's
  if (x == 0.0) {
    if (y < 0.0) return fail("ZeroDivisionError: 0.0 cannot be raised to a negative power");
    bool odd = std::fmod(std::fabs(y), 2.0) == 1.0;
    return ok(odd ? x : 0.0);
  }
  bool negate = false;
  if (x < 0.0) {
    if (y != std::floor(y))
      return fail("a negative number to a fractional power is a complex number in Python, not a float");
    x = -x;
    negate = std::fmod(std::fabs(y), 2.0) == 1.0;
  }
  if (x == 1.0) return ok(negate ? -1.0 : 1.0);
  double r = std::pow(x, y);
  if (std::isinf(r)) return fail("OverflowError: (34, 'Numerical result out of range')");
  return ok(negate ? -r : r);
}

Result float_div(double x, double y) {
  if (y == 0.0) return fail("ZeroDivisionError: float division by zero");
  return ok(x / y);
}

// CPython's float_divmod: the remainder takes the divisor's sign, the quotient is rounded so
// that q * y + r == x as closely as doubles allow.
static void divmod(double x, double y, double& floordiv, double& mod) {
  mod = std::fmod(x, y);
  double div = (x - mod) / y;
  if (mod != 0.0) {
    if ((y < 0) != (mod < 0)) {
      mod += y;
      div -= 1.0;
    }
  } else {
    mod = std::copysign(0.0, y);
  }
  if (div != 0.0) {
    floordiv = std::floor(div);
    if (div - floordiv > 0.5) floordiv += 1.0;
  } else {
    floordiv = std::copysign(0.0, x / y);
  }
}

Result float_floordiv(double x, double y) {
  if (y == 0.0) return fail("ZeroDivisionError: float floor division by zero");
  double q = 0.0, r = 0.0;
  divmod(x, y, q, r);
  return ok(q);
}

Result float_mod(double x, double y) {
  if (y == 0.0) return fail("ZeroDivisionError: float modulo");
  double q = 0.0, r = 0.0;
  divmod(x, y, q, r);
  return ok(r);
}

std::optional<Result> call(const std::string& name, const std::vector<ConstantValue>& args) {
  // One float argument, libm's function, and whether an infinite result is an overflow.
  struct Unary {
    double (*fn)(double);
    bool can_overflow;
  };
  static const std::map<std::string, Unary> unary = {
      {"acos", {[](double x) { return std::acos(x); }, false}},
      {"acosh", {[](double x) { return std::acosh(x); }, false}},
      {"asin", {[](double x) { return std::asin(x); }, false}},
      {"asinh", {[](double x) { return std::asinh(x); }, false}},
      {"atan", {[](double x) { return std::atan(x); }, false}},
      {"atanh", {[](double x) { return std::atanh(x); }, false}},
      {"cbrt", {[](double x) { return std::cbrt(x); }, false}},
      {"cos", {[](double x) { return std::cos(x); }, false}},
      {"cosh", {[](double x) { return std::cosh(x); }, true}},
      {"exp", {[](double x) { return std::exp(x); }, true}},
      {"exp2", {[](double x) { return std::exp2(x); }, true}},
      {"expm1", {[](double x) { return std::expm1(x); }, true}},
      {"fabs", {[](double x) { return std::fabs(x); }, false}},
      {"log1p", {[](double x) { return std::log1p(x); }, false}},
      {"sin", {[](double x) { return std::sin(x); }, false}},
      {"sinh", {[](double x) { return std::sinh(x); }, true}},
      {"sqrt", {[](double x) { return std::sqrt(x); }, false}},
      {"tan", {[](double x) { return std::tan(x); }, false}},
      {"tanh", {[](double x) { return std::tanh(x); }, false}},
      {"erf", {[](double x) { return std::erf(x); }, false}},
      {"erfc", {[](double x) { return std::erfc(x); }, false}},
  };
  std::size_t n = args.size();
  for (const ConstantValue& a : args)
    if (a.kind == ConstantValue::Kind::String) return fail("TypeError: must be real number, not str");
  auto arity = [&](std::size_t want) -> std::optional<Result> {
    if (n == want) return std::nullopt;
    return fail("TypeError: math." + name + " takes " + std::to_string(want) + " argument" +
                (want == 1 ? "" : "s") + ", got " + std::to_string(n));
  };
  if (auto it = unary.find(name); it != unary.end()) {
    if (auto bad = arity(1)) return bad;
    return math_1(args[0].as_double(), it->second.fn, it->second.can_overflow);
  }
  if (name == "gamma" || name == "lgamma") {
    if (auto bad = arity(1)) return bad;
    int err = 0;
    double r = name == "gamma" ? tgamma(args[0].as_double(), err) : lgamma(args[0].as_double(), err);
    return with_errno(r, err);
  }
  if (name == "log") {
    if (n != 1 && n != 2) return fail("TypeError: math.log takes 1 or 2 arguments, got " + std::to_string(n));
    Result num = log_of(args[0], log_e);
    if (n == 1 || !num.error.empty()) return num;
    Result den = log_of(args[1], log_e);
    if (!den.error.empty()) return den;
    return float_div(num.value.float_value, den.value.float_value);
  }
  if (name == "log2" || name == "log10") {
    if (auto bad = arity(1)) return bad;
    return log_of(args[0], name == "log2" ? log_2 : log_10);
  }
  if (name == "floor" || name == "ceil" || name == "trunc") {
    if (auto bad = arity(1)) return bad;
    if (is_int(args[0])) return Result{int_value(as_int(args[0])), {}};
    double x = args[0].float_value;
    return float_to_int(name == "floor" ? std::floor(x) : name == "ceil" ? std::ceil(x) : std::trunc(x));
  }
  if (name == "pow") {
    if (auto bad = arity(2)) return bad;
    double x = args[0].as_double(), y = args[1].as_double();
    double r = std::pow(x, y);
    if (std::isfinite(x) && std::isfinite(y)) {
      if (std::isnan(r)) return fail(kDomain);
      if (std::isinf(r)) return fail(x == 0.0 ? kDomain : kRange);
    }
    return ok(r);
  }
  if (name == "atan2" || name == "copysign" || name == "fmod") {
    if (auto bad = arity(2)) return bad;
    double x = args[0].as_double(), y = args[1].as_double();
    if (name == "atan2") return ok(std::atan2(x, y));
    if (name == "copysign") return ok(std::copysign(x, y));
    if (std::isinf(y) && std::isfinite(x)) return ok(x);
    double r = std::fmod(x, y);
    if (std::isnan(r) && !std::isnan(x) && !std::isnan(y)) return fail(kDomain);
    return ok(r);
  }
  if (name == "degrees" || name == "radians") {
    if (auto bad = arity(1)) return bad;
    return ok(args[0].as_double() * (name == "degrees" ? 180.0 / kPi : kPi / 180.0));
  }
  if (name == "isfinite" || name == "isinf" || name == "isnan") {
    if (auto bad = arity(1)) return bad;
    double x = args[0].as_double();
    return Result{bool_value(name == "isfinite" ? std::isfinite(x)
                             : name == "isinf"  ? std::isinf(x)
                                                : std::isnan(x)),
                  {}};
  }
  if (name == "factorial") {
    if (auto bad = arity(1)) return bad;
    if (!is_int(args[0])) return fail("TypeError: 'float' object cannot be interpreted as an integer");
    std::int64_t k = as_int(args[0]);
    if (k < 0) return fail("ValueError: factorial() not defined for negative values");
    std::int64_t f = 1;
    for (std::int64_t i = 2; i <= k; ++i)
      if (__builtin_mul_overflow(f, i, &f))
        return fail("the int is outside int64 (weir's constants are 64-bit integers)");
    return Result{int_value(f), {}};
  }
  if (name == "gcd") {
    std::int64_t g = 0;
    for (const ConstantValue& a : args) {
      if (!is_int(a)) return fail("TypeError: 'float' object cannot be interpreted as an integer");
      std::int64_t v = as_int(a);
      if (v == std::numeric_limits<std::int64_t>::min())
        return fail("the int is outside int64 (weir's constants are 64-bit integers)");
      v = v < 0 ? -v : v;
      while (v != 0) {
        std::int64_t t = g % v;
        g = v;
        v = t;
      }
    }
    return Result{int_value(g), {}};
  }
  return std::nullopt;
}

}  // namespace weir::frontend::pymath
