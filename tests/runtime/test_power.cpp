// `**` and power() with every integer/float combination the language allows (docs: dtypes match,
// except a float base with an integer exponent), on the embedded backend, the cpu backend as
// lowered and after auto_optimize, against values worked out by repeated multiplication.
// Regression: the embedded backend read an integer exponent's bits as a double (x ** 2 == 1.0).
#include "embedded_test_util.h"
#include "three_ways.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kPowers = R"(
from gt4py.next import power
F = Field[Dims[I], float64]
G = Field[Dims[I], float32]
N = Field[Dims[I], int32]
M = Field[Dims[I], int64]

@gtx.field_operator
def times_square(f: F, a: F) -> F:
    return f * a**2

@gtx.field_operator
def cube(a: F) -> F:
    return a**3

@gtx.field_operator
def zeroth(a: F) -> F:
    return a**0 + a**1

@gtx.field_operator
def inverse_square(a: F) -> F:
    return a**-2 + a**-1

@gtx.field_operator
def by_int32(a: F, e: int32) -> F:
    return a**e

@gtx.field_operator
def by_int64(a: F, e: int64) -> F:
    return a**e

@gtx.field_operator
def scalar_square(f: F, s: float64) -> F:
    return f * s**2

@gtx.field_operator
def single(g: G, e: int32) -> G:
    return g**2 + g**e

@gtx.field_operator
def by_float(a: F) -> F:
    return a**0.5 + a**a + power(a, a)

@gtx.field_operator
def int_powers(m: N, e: int32) -> N:
    return m**3 + m**e + m**0

@gtx.field_operator
def long_powers(m: M, e: int64) -> M:
    return m**e

@gtx.program
def powers(f: F, a: F, g: G, m: N, l: M, s: float64, e32: int32, en: int32, e64: int64,
           o1: F, o2: F, o3: F, o4: F, o5: F, o6: F, o7: F, o8: F, o9: G, o10: N, o11: M, o12: F):
    times_square(f, a, out=o1)
    cube(a, out=o2)
    zeroth(a, out=o3)
    inverse_square(a, out=o4)
    by_int32(a, e32, out=o5)
    by_int32(a, en, out=o6)
    by_int64(a, e64, out=o7)
    by_float(a, out=o8)
    single(g, e32, out=o9)
    int_powers(m, e32, out=o10)
    long_powers(l, e64, out=o11)
    scalar_square(f, s, out=o12)
)";

double ipow(double x, int n) {
  double r = 1;
  for (int i = 0; i < (n < 0 ? -n : n); ++i) r *= x;
  return n < 0 ? 1 / r : r;
}

}  // namespace

TEST_CASE("power: every integer/float combination of ** agrees on embedded, cpu and cpu+auto-optimize",
          "[runtime][embedded][power]") {
  auto p = load(kPowers, "powers");
  const std::int64_t n = 7;
  Arguments args;
  auto base = [](std::int64_t i) { return 0.5 + 0.25 * static_cast<double>(i); };  // positive: a**0.5 is real
  args.arrays.emplace("f", make({n}, [](auto i) { return wave(i) + 2.0; }));
  args.arrays.emplace("a", make({n}, base));
  args.arrays.emplace(
      "g", make(
               {n}, [](auto i) { return 1.5 - 0.5 * static_cast<double>(i); }, ScalarType::Float32));
  args.arrays.emplace("m", make(
                               {n}, [](auto i) { return static_cast<double>(i) - 3; }, ScalarType::Int32));
  args.arrays.emplace(
      "l", make(
               {n}, [](auto i) { return static_cast<double>(i) * 1000 - 2000; }, ScalarType::Int64));
  for (const char* o : {"o1", "o2", "o3", "o4", "o5", "o6", "o7", "o8", "o12"})
    args.arrays.emplace(o, full({n}, -9.0));
  args.arrays.emplace("o9", full({n}, -9.0, ScalarType::Float32));
  args.arrays.emplace("o10", full({n}, -9.0, ScalarType::Int32));
  args.arrays.emplace("o11", full({n}, -9.0, ScalarType::Int64));
  args.values["s"] = 3.0;
  args.values["e32"] = std::int64_t{2};
  args.values["en"] = std::int64_t{-3};
  args.values["e64"] = std::int64_t{3};
  for (const auto& r : test::run_three_ways(p, args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    const Arguments& out = r.args;
    for (std::int64_t i = 0; i < n; ++i) {
      INFO("i = " << i);
      double a = base(i), f = wave(i) + 2.0;
      double g = static_cast<float>(1.5 - 0.5 * static_cast<double>(i));
      CHECK(close(at(out.arrays.at("o1"), {i}), f * a * a));
      CHECK(close(at(out.arrays.at("o2"), {i}), a * a * a));
      CHECK(close(at(out.arrays.at("o3"), {i}), 1 + a));
      CHECK(close(at(out.arrays.at("o4"), {i}), 1 / (a * a) + 1 / a));
      CHECK(close(at(out.arrays.at("o5"), {i}), a * a));
      CHECK(close(at(out.arrays.at("o6"), {i}), ipow(a, -3)));
      CHECK(close(at(out.arrays.at("o7"), {i}), a * a * a));
      CHECK(close(at(out.arrays.at("o8"), {i}), std::sqrt(a) + 2 * std::pow(a, a)));
      CHECK(close(at(out.arrays.at("o9"), {i}), static_cast<float>(2 * g * g), 1e-6));
      double m = static_cast<double>(i) - 3;
      CHECK(at(out.arrays.at("o10"), {i}) == m * m * m + m * m + 1);
      double l = static_cast<double>(i) * 1000 - 2000;
      CHECK(at(out.arrays.at("o11"), {i}) == l * l * l);
      CHECK(close(at(out.arrays.at("o12"), {i}), f * 9.0));
    }
  }
}

TEST_CASE("power: an integer to a negative literal power is refused where it is written",
          "[runtime][power]") {
  // NumPy raises for integers to negative integer powers; the value has no integer result.
  const std::string src =
      "@gtx.field_operator\n"
      "def inv(m: Field[Dims[I], int32]) -> Field[Dims[I], int32]:\n"
      "    return m**-1\n";
  try {
    load(src, "inv");
    FAIL("loaded");
  } catch (const frontend::FrontendError& e) {
    std::string w = e.what();
    CHECK(w.find("test.py:15:") != std::string::npos);
    CHECK(w.find("negative integer powers") != std::string::npos);
  }
}

TEST_CASE("power: an integer to a negative run-time power is refused by the embedded backend",
          "[runtime][embedded][power]") {
  const std::string src =
      "@gtx.field_operator\n"
      "def pw(m: Field[Dims[I], int32], e: int32) -> Field[Dims[I], int32]:\n"
      "    return m**e\n";
  auto p = load(src, "pw");
  Arguments args;
  args.arrays.emplace("m", full({3}, 2.0, ScalarType::Int32));
  args.arrays.emplace("__out", full({3}, 0.0, ScalarType::Int32));
  args.values["e"] = std::int64_t{-1};
  CHECK_THROWS_WITH(run_embedded(p, args), Catch::Contains("test.py:15:") && Catch::Contains("negative"));
}
