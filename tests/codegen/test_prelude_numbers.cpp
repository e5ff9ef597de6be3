// Python's and NumPy's semantics of numbers in codegen/prelude/weir_numbers.h, the functions
// generated code and the embedded backend both call: values worked out by hand from Python's
// and NumPy's definitions (floor division, the remainder's sign, conversions of floats).
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

#include "../../codegen/prelude/weir_numbers.h"

TEST_CASE("prelude numbers: integer // and % round toward negative infinity, by 0 and -1 never trap",
          "[codegen][prelude]") {
  CHECK(weir_floordiv(7, 2) == 3);
  CHECK(weir_floordiv(-7, 2) == -4);
  CHECK(weir_floordiv(7, -2) == -4);
  CHECK(weir_floordiv(-7, -2) == 3);
  CHECK(weir_mod(-7, 2) == 1);
  CHECK(weir_mod(7, -2) == -1);
  CHECK(weir_mod(-7, -2) == -1);
  CHECK(weir_ceildiv(7, 2) == 4);
  CHECK(weir_ceildiv(-7, 2) == -3);
  // NumPy's integer floor_divide and remainder by zero: 0; INT64_MIN // -1 wraps.
  CHECK(weir_floordiv(5, 0) == 0);
  CHECK(weir_mod(5, 0) == 0);
  CHECK(weir_floordiv(INT64_MIN, -1) == INT64_MIN);
  CHECK(weir_mod(INT64_MIN, -1) == 0);
  // NumPy's fmod of integers keeps the dividend's sign.
  CHECK(weir_ifmod(-7, 2) == -1);
  CHECK(weir_ifmod(7, 0) == 0);
}

TEST_CASE(
    "prelude numbers: float // and % as Python's (quotient from fmod, remainder with the divisor's sign)",
    "[codegen][prelude]") {
  CHECK(weir_ffloordiv(1.0, 0.1) == 9.0);  // floor(1.0 / 0.1) would be 10.0
  CHECK(weir_fmod(1.0, 0.1) == 0.09999999999999995);
  CHECK(weir_ffloordiv(-7.5, 2.0) == -4.0);
  CHECK(weir_fmod(-7.5, 2.0) == 0.5);
  CHECK(weir_fmod(7.5, -2.0) == -0.5);
  // A zero remainder has the divisor's sign; -0.0 // 1.0 is -0.0.
  CHECK(std::signbit(weir_fmod(4.0, -2.0)));
  CHECK(std::signbit(weir_ffloordiv(-0.0, 1.0)));
  // By zero: NumPy's inf and nan (Python raises; NumPy warns).
  CHECK(std::isinf(weir_ffloordiv(1.0, 0.0)));
  CHECK(std::isnan(weir_fmod(1.0, 0.0)));
  CHECK(weir_ffloordiv(7.0f, 2.0f) == 3.0f);
}

TEST_CASE("prelude numbers: min/max, NaN-aware maximum and conversions of floats as NumPy on x86",
          "[codegen][prelude]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  CHECK(std::isnan(weir_maximum(nan, 1.0)));
  CHECK(std::isnan(weir_maximum(1.0, nan)));
  CHECK(weir_fmax(nan, 1.0) == 1.0);
  CHECK(std::signbit(weir_maximum(0.0, -0.0)));  // the second unless the first is larger
  CHECK_FALSE(std::signbit(weir_maximum(-0.0, 0.0)));
  CHECK(weir_max(3, 3.5) == 3.5);
  CHECK(weir_min(2, 2.0) == 2.0);
  // int32 and int64 truncate toward zero; NaN, inf and values out of range give the minimum.
  CHECK(weir_ftoi<std::int32_t>(-2.7) == -2);
  CHECK(weir_ftoi<std::int32_t>(3e9) == INT32_MIN);
  CHECK(weir_ftoi<std::int64_t>(nan) == INT64_MIN);
  CHECK(weir_ftoi<std::uint8_t>(300.0) == 44);  // 300 wrapped to 8 bits
  CHECK(weir_sign(-3.0) == -1.0);
  CHECK(std::isnan(weir_sign(nan)));
  CHECK(weir_powi(1.5, 3) == 3.375);
}
