// Float values NumPy defines and C++ leaves to the code (NaN, +-inf, -0.0, values beyond an
// integer type's range), on every path (embedded, cpu as lowered and run from the SDFG, cpu after
// auto_optimize), against NumPy's values (numpy 1.24 on x86-64; each case says what NumPy gives).
// Regressions (docs/field-view-differences.md, "Values at run time"): the cpu backend computed
// floor/ceil/trunc through int64 (NaN, inf and 1e19 became -9.2e18, -0.0 lost its sign);
// maximum/minimum and max_over/min_over followed Python's max (NaN kept or dropped by argument
// order) and the embedded max_over skipped NaN; astype of NaN or out-of-range floats to integers
// was C++'s undefined conversion on cpu and wrapped through int64 on the embedded backend.
#include <cmath>
#include <cstring>
#include <limits>

#include "embedded_test_util.h"
#include "three_ways.h"
#include "weir/frontend/lowering.h"
#include "weir/runtime/cpu_backend.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kOps = R"(
from gt4py.next import floor, ceil, trunc, abs, isnan, isinf, isfinite, fmod, power
from gt4py.next import int8, int16, uint8, uint16, uint32, uint64

F = Field[[I], float64]
S = Field[[I], float32]
B = Field[[I], bool]

@gtx.field_operator
def rounding(a: F) -> tuple[F, F, F]:
    return floor(a), ceil(a), trunc(a)

@gtx.program
def round64(a: F, fl: F, ce: F, tr: F):
    rounding(a, out=(fl, ce, tr))

@gtx.field_operator
def rounding32(a: S) -> tuple[S, S, S]:
    return floor(a), ceil(a), trunc(a)

@gtx.program
def round32(a: S, fl: S, ce: S, tr: S):
    rounding32(a, out=(fl, ce, tr))

@gtx.field_operator
def extremes(a: F, b: F) -> tuple[F, F, F, F]:
    return maximum(a, b), maximum(b, a), minimum(a, b), minimum(b, a)

@gtx.program
def minmax64(a: F, b: F, mx: F, mxr: F, mn: F, mnr: F):
    extremes(a, b, out=(mx, mxr, mn, mnr))

@gtx.field_operator
def extremes32(a: S, b: S) -> tuple[S, S]:
    return maximum(a, b), minimum(b, a)

@gtx.program
def minmax32(a: S, b: S, mx: S, mn: S):
    extremes32(a, b, out=(mx, mn))

@gtx.field_operator
def iextremes(a: Field[[I], int32], b: Field[[I], int32]) -> tuple[Field[[I], int32], Field[[I], int32]]:
    return maximum(a, b), minimum(a, b)

@gtx.program
def minmax_int(a: Field[[I], int32], b: Field[[I], int32], mx: Field[[I], int32], mn: Field[[I], int32]):
    iextremes(a, b, out=(mx, mn))

@gtx.field_operator
def reductions(v: Field[[V], float64]) -> tuple[Field[[E], float64], Field[[E], float64]]:
    return max_over(v(E2V), axis=E2VDim), min_over(v(E2V), axis=E2VDim)

@gtx.program
def over(v: Field[[V], float64], mx: Field[[E], float64], mn: Field[[E], float64]):
    reductions(v, out=(mx, mn))

@gtx.field_operator
def casts(a: F) -> tuple[Field[[I], int8], Field[[I], int16], Field[[I], int32], Field[[I], int64],
                         Field[[I], uint8], Field[[I], uint16], Field[[I], uint32], Field[[I], uint64]]:
    return (astype(a, int8), astype(a, int16), astype(a, int32), astype(a, int64),
            astype(a, uint8), astype(a, uint16), astype(a, uint32), astype(a, uint64))

@gtx.program
def to_ints(a: F, o8: Field[[I], int8], o16: Field[[I], int16], o32: Field[[I], int32],
            o64: Field[[I], int64], u8: Field[[I], uint8], u16: Field[[I], uint16],
            u32: Field[[I], uint32], u64: Field[[I], uint64]):
    casts(a, out=(o8, o16, o32, o64, u8, u16, u32, u64))

@gtx.field_operator
def cast32(a: S) -> Field[[I], int32]:
    return astype(a, int32)

@gtx.program
def f32_to_int32(a: S, o: Field[[I], int32]):
    cast32(a, out=o)

@gtx.field_operator
def divisions(a: F, b: F) -> tuple[F, F, F]:
    return a // b, fmod(a, b), power(a, b)

@gtx.program
def float_div(a: F, b: F, q: F, m: F, p: F):
    divisions(a, b, out=(q, m, p))

@gtx.field_operator
def ifmod(a: Field[[I], int32], b: Field[[I], int32]) -> Field[[I], int32]:
    return fmod(a, b)

@gtx.program
def int_fmod(a: Field[[I], int32], b: Field[[I], int32], m: Field[[I], int32]):
    ifmod(a, b, out=m)

@gtx.field_operator
def tests(a: F) -> tuple[F, B, B, B]:
    return abs(a), isnan(a), isinf(a), isfinite(a)

@gtx.program
def classify(a: F, ab: F, n: B, i: B, f: B):
    tests(a, out=(ab, n, i, f))
)";

const double kNaN = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

Field floats(const std::vector<double>& v, ScalarType t = ScalarType::Float64) { return from_values(v, t); }

/// Equal as IEEE values: both NaN, or equal with the same sign (so -0.0 differs from 0.0).
bool same(double a, double b) {
  if (std::isnan(a) || std::isnan(b)) return std::isnan(a) && std::isnan(b);
  return a == b && std::signbit(a) == std::signbit(b);
}

/// `got` and `want` element by element with same(); the first difference in the message.
void check_same(const std::string& what, const std::vector<double>& got, const std::vector<double>& want) {
  INFO(what);
  REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < got.size(); ++i) {
    INFO("element " << i << ": got " << got[i] << " (signbit " << std::signbit(got[i]) << "), want "
                    << want[i] << " (signbit " << std::signbit(want[i]) << ")");
    CHECK(same(got[i], want[i]));
  }
}

/// The elements of an integer field as exact 64-bit values (uint64 as its bits).
std::vector<std::int64_t> ints(const Field& f) {
  std::vector<std::int64_t> v;
  for (std::int64_t i = 0; i < f.size(); ++i) {
    const char* p = static_cast<const char*>(f.data()) + i * static_cast<std::int64_t>(f.itemsize());
    switch (f.dtype()) {
      case ScalarType::Int8: v.push_back(*reinterpret_cast<const std::int8_t*>(p)); break;
      case ScalarType::Int16: v.push_back(*reinterpret_cast<const std::int16_t*>(p)); break;
      case ScalarType::Int32: v.push_back(*reinterpret_cast<const std::int32_t*>(p)); break;
      case ScalarType::UInt8: v.push_back(*reinterpret_cast<const std::uint8_t*>(p)); break;
      case ScalarType::UInt16: v.push_back(*reinterpret_cast<const std::uint16_t*>(p)); break;
      case ScalarType::UInt32: v.push_back(*reinterpret_cast<const std::uint32_t*>(p)); break;
      default: {
        std::int64_t x;
        std::memcpy(&x, p, sizeof x);
        v.push_back(x);
      }
    }
  }
  return v;
}

Field zeros(std::int64_t n, ScalarType t) {
  Field f = Allocator::cpu().allocate(t, {n});
  std::memset(f.data(), 0x5a, static_cast<std::size_t>(f.nbytes()));
  return f;
}

}  // namespace

TEST_CASE("float specials: floor ceil and trunc keep NaN inf -0.0 and large values on every path",
          "[runtime][floats]") {
  // NumPy: np.floor/np.ceil/np.trunc of
  // [nan, inf, -inf, 3e9, -3e9, -0.0, -2.5, 2.5, 1e19, -1e19, 0.5, -0.5].
  const std::vector<double> a{kNaN, kInf, -kInf, 3e9, -3e9, -0.0, -2.5, 2.5, 1e19, -1e19, 0.5, -0.5};
  const std::vector<double> fl{kNaN, kInf, -kInf, 3e9, -3e9, -0.0, -3.0, 2.0, 1e19, -1e19, 0.0, -1.0};
  const std::vector<double> ce{kNaN, kInf, -kInf, 3e9, -3e9, -0.0, -2.0, 3.0, 1e19, -1e19, 1.0, -0.0};
  const std::vector<double> tr{kNaN, kInf, -kInf, 3e9, -3e9, -0.0, -2.0, 2.0, 1e19, -1e19, 0.0, -0.0};
  for (ScalarType t : {ScalarType::Float64, ScalarType::Float32}) {
    Arguments args;
    args.arrays.emplace("a", floats(a, t));
    for (const char* o : {"fl", "ce", "tr"})
      args.arrays.emplace(o, floats(std::vector<double>(a.size(), 7.0), t));
    // The float32 values of 3e9 and 1e19 are other numbers, exact integers all the same.
    auto as_t = [&](std::vector<double> v) {
      if (t == ScalarType::Float32)
        for (double& x : v) x = static_cast<double>(static_cast<float>(x));
      return v;
    };
    for (const auto& r :
         test::run_three_ways(load(kOps, t == ScalarType::Float64 ? "round64" : "round32"), args)) {
      INFO(r.path << " " << to_string(t) << ": " << r.error);
      REQUIRE(r.error == "");
      check_same("floor", values(r.args.arrays.at("fl")), as_t(fl));
      check_same("ceil", values(r.args.arrays.at("ce")), as_t(ce));
      check_same("trunc", values(r.args.arrays.at("tr")), as_t(tr));
    }
  }
}

TEST_CASE("float specials: maximum and minimum propagate NaN in either order as NumPy's",
          "[runtime][floats]") {
  // NumPy 1.24: with a = [nan, 1, -1, inf, 2, -0.0, 0.0, nan, -inf] and
  // b = [1, nan, 0, nan, -inf, 0.0, -0.0, nan, 3]:
  // np.maximum(a, b) = [nan, nan, 0, nan, 2, 0.0, -0.0, nan, 3] (equal values: the second),
  // np.maximum(b, a) = [nan, nan, 0, nan, 2, -0.0, 0.0, nan, 3],
  // np.minimum(a, b) = [nan, nan, -1, nan, -inf, 0.0, -0.0, nan, -inf],
  // np.minimum(b, a) = [nan, nan, -1, nan, -inf, -0.0, 0.0, nan, -inf].
  const std::vector<double> a{kNaN, 1, -1, kInf, 2, -0.0, 0.0, kNaN, -kInf};
  const std::vector<double> b{1, kNaN, 0, kNaN, -kInf, 0.0, -0.0, kNaN, 3};
  Arguments args;
  args.arrays.emplace("a", floats(a));
  args.arrays.emplace("b", floats(b));
  for (const char* o : {"mx", "mxr", "mn", "mnr"})
    args.arrays.emplace(o, floats(std::vector<double>(a.size(), 7.0)));
  for (const auto& r : test::run_three_ways(load(kOps, "minmax64"), args)) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    check_same("maximum(a, b)", values(r.args.arrays.at("mx")), {kNaN, kNaN, 0, kNaN, 2, 0.0, -0.0, kNaN, 3});
    check_same("maximum(b, a)", values(r.args.arrays.at("mxr")),
               {kNaN, kNaN, 0, kNaN, 2, -0.0, 0.0, kNaN, 3});
    check_same("minimum(a, b)", values(r.args.arrays.at("mn")),
               {kNaN, kNaN, -1, kNaN, -kInf, 0.0, -0.0, kNaN, -kInf});
    check_same("minimum(b, a)", values(r.args.arrays.at("mnr")),
               {kNaN, kNaN, -1, kNaN, -kInf, -0.0, 0.0, kNaN, -kInf});
  }
  // float32 alike: np.maximum(a, b) and np.minimum(b, a) of the float32 values.
  Arguments a32;
  a32.arrays.emplace("a", floats(a, ScalarType::Float32));
  a32.arrays.emplace("b", floats(b, ScalarType::Float32));
  a32.arrays.emplace("mx", floats(std::vector<double>(a.size(), 7.0), ScalarType::Float32));
  a32.arrays.emplace("mn", floats(std::vector<double>(a.size(), 7.0), ScalarType::Float32));
  for (const auto& r : test::run_three_ways(load(kOps, "minmax32"), a32)) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    check_same("maximum(a, b)", values(r.args.arrays.at("mx")), {kNaN, kNaN, 0, kNaN, 2, 0.0, -0.0, kNaN, 3});
    check_same("minimum(b, a)", values(r.args.arrays.at("mn")),
               {kNaN, kNaN, -1, kNaN, -kInf, -0.0, 0.0, kNaN, -kInf});
  }
  // Integers as before.
  Arguments ia;
  ia.arrays.emplace("a", floats({3, -5, 2147483647, 0}, ScalarType::Int32));
  ia.arrays.emplace("b", floats({-4, -5, -2147483647, 9}, ScalarType::Int32));
  ia.arrays.emplace("mx", floats({0, 0, 0, 0}, ScalarType::Int32));
  ia.arrays.emplace("mn", floats({0, 0, 0, 0}, ScalarType::Int32));
  for (const auto& r : test::run_three_ways(load(kOps, "minmax_int"), ia)) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    CHECK(values(r.args.arrays.at("mx")) == std::vector<double>{3, -5, 2147483647, 9});
    CHECK(values(r.args.arrays.at("mn")) == std::vector<double>{-4, -5, -2147483647, 0});
  }
}

TEST_CASE("float specials: max_over and min_over propagate NaN as np.max and np.min", "[runtime][floats]") {
  // v = [-0.0, 0.0, nan, 5.0]; edges' neighbours (E2V, -1: none) and NumPy's np.max / np.min
  // over each edge's neighbours in table order:
  //   [0, 1]: 0.0 / 0.0     [1, 0]: -0.0 / -0.0   [2, 3]: nan / nan
  //   [3, 2]: nan / nan     [3, -1]: 5.0 / 5.0    [2, -1]: nan / nan
  Arguments args;
  args.arrays.emplace("v", floats({-0.0, 0.0, kNaN, 5.0}));
  std::vector<double> e{0, 1, 1, 0, 2, 3, 3, 2, 3, -1, 2, -1};
  args.arrays.emplace(
      "E2V", make(
                 {6, 2}, [&](std::int64_t i) { return e[static_cast<std::size_t>(i)]; }, ScalarType::Int32));
  args.arrays.emplace("mx", floats(std::vector<double>(6, 7.0)));
  args.arrays.emplace("mn", floats(std::vector<double>(6, 7.0)));
  for (const auto& r : test::run_three_ways(load(kOps, "over"), args)) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    check_same("max_over", values(r.args.arrays.at("mx")), {0.0, -0.0, kNaN, kNaN, 5.0, kNaN});
    check_same("min_over", values(r.args.arrays.at("mn")), {0.0, -0.0, kNaN, kNaN, 5.0, kNaN});
  }
}

TEST_CASE("float specials: astype of NaN inf and out-of-range floats to integers gives NumPy's x86 values",
          "[runtime][floats]") {
  // NumPy 1.24 on x86-64 (AVX-512), np.array(a).astype(t) for
  // a = [nan, inf, -inf, 3e9, -3e9, 1e19, -1e19, 200, -200, -1, 40000, 70000, 2**63, 2**64,
  //      -2.5, 255.7, 2**31, 5e9]:
  const std::vector<double> a{kNaN, kInf,  -kInf, 3e9,    -3e9,   1e19, -1e19, 200,    -200,
                              -1,   40000, 70000, 0x1p63, 0x1p64, -2.5, 255.7, 0x1p31, 5e9};
  const std::int64_t i32min = std::numeric_limits<std::int32_t>::min();
  const std::int64_t i64min = std::numeric_limits<std::int64_t>::min();
  auto u64 = [](std::uint64_t u) { return static_cast<std::int64_t>(u); };
  const std::map<std::string, std::vector<std::int64_t>> want = {
      {"o8", {0, 0, 0, 0, 0, 0, 0, -56, 56, -1, 64, 112, 0, 0, -2, -1, 0, 0}},
      {"o16", {0, 0, 0, 0, 0, 0, 0, 200, -200, -1, -25536, 4464, 0, 0, -2, 255, 0, 0}},
      {"o32",
       {i32min, i32min, i32min, i32min, i32min, i32min, i32min, 200, -200, -1, 40000, 70000, i32min, i32min,
        -2, 255, i32min, i32min}},
      {"o64",
       {i64min, i64min, i64min, 3000000000, -3000000000, i64min, i64min, 200, -200, -1, 40000, 70000, i64min,
        i64min, -2, 255, 2147483648, 5000000000}},
      {"u8", {0, 0, 0, 0, 0, 0, 0, 200, 56, 255, 64, 112, 0, 0, 254, 255, 0, 0}},
      {"u16", {0, 0, 0, 0, 0, 0, 0, 200, 65336, 65535, 40000, 4464, 0, 0, 65534, 255, 0, 0}},
      {"u32",
       {2147483648, 0, 2147483648, 3000000000, 2147483648, 0, 2147483648, 200, 4294967096, 4294967295, 40000,
        70000, 0, 0, 4294967294, 255, 2147483648, 0}},
      {"u64",
       {u64(9223372036854775808ull), 0, u64(9223372036854775808ull), 3000000000, u64(18446744070709551616ull),
        u64(10000000000000000000ull), u64(9223372036854775808ull), 200, u64(18446744073709551416ull),
        u64(18446744073709551615ull), 40000, 70000, u64(9223372036854775808ull), 0,
        u64(18446744073709551614ull), 255, 2147483648, 5000000000}},
  };
  const std::map<std::string, ScalarType> types = {{"o8", ScalarType::Int8},    {"o16", ScalarType::Int16},
                                                   {"o32", ScalarType::Int32},  {"o64", ScalarType::Int64},
                                                   {"u8", ScalarType::UInt8},   {"u16", ScalarType::UInt16},
                                                   {"u32", ScalarType::UInt32}, {"u64", ScalarType::UInt64}};
  Arguments args;
  args.arrays.emplace("a", floats(a));
  for (const auto& [name, t] : types)
    args.arrays.emplace(name, zeros(static_cast<std::int64_t>(a.size()), t));
  for (const auto& r : test::run_three_ways(load(kOps, "to_ints"), args)) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    for (const auto& [name, w] : want) {
      INFO(name);
      CHECK(ints(r.args.arrays.at(name)) == w);
    }
  }
  // From float32: the same rule on the float32 values (np.float32 array .astype(np.int32)).
  Arguments f32;
  f32.arrays.emplace("a", floats(a, ScalarType::Float32));
  f32.arrays.emplace("o", zeros(static_cast<std::int64_t>(a.size()), ScalarType::Int32));
  for (const auto& r : test::run_three_ways(load(kOps, "f32_to_int32"), f32)) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    CHECK(ints(r.args.arrays.at("o")) ==
          std::vector<std::int64_t>{i32min, i32min, i32min, i32min, i32min, i32min, i32min, 200, -200, -1,
                                    40000, 70000, i32min, i32min, -2, 255, i32min, i32min});
  }
}

TEST_CASE("float specials: // fmod and power of floats with zeros inf and NaN as NumPy's",
          "[runtime][floats]") {
  // NumPy 1.24 with
  // a = [1.0, -2.0, 2.0, 5.5, -5.5, inf, -1.0, 1.0, nan, 3.0, -0.0, 0.0, 7.0, -3.0]
  // b = [0.1, 1.0, -1.0, inf, inf, 2.0, inf, -inf, 1.0, 0.0, 3.0, -3.0, nan, -0.0]:
  // np.floor_divide(a, b) = [9.0, -2.0, -2.0, 0.0, -1.0, nan, -1.0, -1.0, nan, inf, -0.0, -0.0, nan, inf]
  // np.fmod(a, b) = [0.09999999999999995, -0.0, 0.0, 5.5, -5.5, nan, -1.0, 1.0, nan, nan, -0.0, 0.0, nan,
  // nan] np.power(a, b) = [1.0, -2.0, 0.5, inf, inf, inf, 1.0, 1.0, nan, 1.0, -0.0, inf, nan, 1.0]
  const std::vector<double> a{1.0, -2.0, 2.0, 5.5, -5.5, kInf, -1.0, 1.0, kNaN, 3.0, -0.0, 0.0, 7.0, -3.0};
  const std::vector<double> b{0.1, 1.0, -1.0, kInf, kInf, 2.0, kInf, -kInf, 1.0, 0.0, 3.0, -3.0, kNaN, -0.0};
  Arguments args;
  args.arrays.emplace("a", floats(a));
  args.arrays.emplace("b", floats(b));
  for (const char* o : {"q", "m", "p"}) args.arrays.emplace(o, floats(std::vector<double>(a.size(), 7.0)));
  for (const auto& r : test::run_three_ways(load(kOps, "float_div"), args)) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    check_same("a // b", values(r.args.arrays.at("q")),
               {9.0, -2.0, -2.0, 0.0, -1.0, kNaN, -1.0, -1.0, kNaN, kInf, -0.0, -0.0, kNaN, kInf});
    check_same(
        "fmod(a, b)", values(r.args.arrays.at("m")),
        {0.09999999999999995, -0.0, 0.0, 5.5, -5.5, kNaN, -1.0, 1.0, kNaN, kNaN, -0.0, 0.0, kNaN, kNaN});
    check_same("power(a, b)", values(r.args.arrays.at("p")),
               {1.0, -2.0, 0.5, kInf, kInf, kInf, 1.0, 1.0, kNaN, 1.0, -0.0, kInf, kNaN, 1.0});
  }
  // Integers: np.fmod([7, -7, 5, 9, -2147483648], [0, 2, -3, -1, -1]) = [0, -1, 2, 0, 0] (by
  // zero with a warning), never a trap.
  Arguments ia;
  ia.arrays.emplace("a", floats({7, -7, 5, 9, -2147483648.0}, ScalarType::Int32));
  ia.arrays.emplace("b", floats({0, 2, -3, -1, -1}, ScalarType::Int32));
  ia.arrays.emplace("m", floats({11, 11, 11, 11, 11}, ScalarType::Int32));
  for (const auto& r : test::run_three_ways(load(kOps, "int_fmod"), ia)) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    CHECK(values(r.args.arrays.at("m")) == std::vector<double>{0, -1, 2, 0, 0});
  }
}

TEST_CASE("float specials: abs isnan isinf and isfinite of NaN inf and -0.0", "[runtime][floats]") {
  // NumPy: np.abs([-0.0, nan, -inf, -2.5, 0.0]) = [0.0, nan, inf, 2.5, 0.0]; isnan, isinf, isfinite.
  Arguments args;
  args.arrays.emplace("a", floats({-0.0, kNaN, -kInf, -2.5, 0.0}));
  args.arrays.emplace("ab", floats({7, 7, 7, 7, 7}));
  for (const char* o : {"n", "i", "f"}) args.arrays.emplace(o, floats({0, 0, 0, 0, 0}, ScalarType::Bool));
  for (const auto& r : test::run_three_ways(load(kOps, "classify"), args)) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    check_same("abs", values(r.args.arrays.at("ab")), {0.0, kNaN, kInf, 2.5, 0.0});
    CHECK(values(r.args.arrays.at("n")) == std::vector<double>{0, 1, 0, 0, 0});
    CHECK(values(r.args.arrays.at("i")) == std::vector<double>{0, 0, 1, 0, 0});
    CHECK(values(r.args.arrays.at("f")) == std::vector<double>{1, 0, 0, 1, 1});
  }
}

TEST_CASE("float specials: a tasklet's float % and // are NumPy's remainder and floor_divide on cpu",
          "[runtime][floats]") {
  // Field operators take `%` of integers only; DaCe's SDFGs write it on floats in Python
  // tasklets. The lowered `fmod(a, b)` tasklet with its call replaced by `a % b` (and `//`);
  // NumPy 1.24 (np.remainder, np.floor_divide) with the a and b of the test above:
  const std::vector<double> a{1.0, -2.0, 2.0, 5.5, -5.5, kInf, -1.0, 1.0, kNaN, 3.0, -0.0, 0.0, 7.0, -3.0};
  const std::vector<double> b{0.1, 1.0, -1.0, kInf, kInf, 2.0, kInf, -kInf, 1.0, 0.0, 3.0, -3.0, kNaN, -0.0};
  const std::vector<double> rem{
      0.09999999999999995, 0.0, -0.0, 5.5, kInf, kNaN, kInf, -kInf, kNaN, kNaN, 0.0, -0.0, kNaN, kNaN};
  const std::vector<double> quo{9.0,  -2.0, -2.0, 0.0,  -1.0, kNaN, -1.0,
                                -1.0, kNaN, kInf, -0.0, -0.0, kNaN, kInf};
  for (ScalarType t : {ScalarType::Float64, ScalarType::Float32}) {
    for (const char* op : {"%", "//"}) {
      INFO(op << " " << to_string(t));
      std::string body = t == ScalarType::Float64 ? kOps : std::string(kOps) + R"(
@gtx.field_operator
def fmod32(a: S, b: S) -> S:
    return fmod(a, b)

@gtx.program
def fmod_prog32(a: S, b: S, m: S):
    fmod32(a, b, out=m)
)";
      std::string name = t == ScalarType::Float64 ? "fmod_prog" : "fmod_prog32";
      if (t == ScalarType::Float64)
        body += R"(
@gtx.field_operator
def fmod64(a: F, b: F) -> F:
    return fmod(a, b)

@gtx.program
def fmod_prog(a: F, b: F, m: F):
    fmod64(a, b, out=m)
)";
      FieldViewProgram p = load(body, name);
      std::shared_ptr<SDFG> sdfg = frontend::lower_to_sdfg(*p.definition);
      int rewritten = 0;
      for (SDFGState* st : sdfg->all_states())
        for (Node* n : st->nodes())
          if (auto* tk = n->as<Tasklet>()) {
            std::string c = tk->code.code;
            std::size_t at = c.find("np.fmod(");
            if (at == std::string::npos) continue;
            std::size_t comma = c.find(", ", at), close = c.find(')', at);
            c = c.substr(0, at) + "(" + c.substr(at + 8, comma - at - 8) + " " + op + " " +
                c.substr(comma + 2, close - comma - 2) + ")" + c.substr(close + 1);
            tk->code = CodeBlock(c, Language::Python);
            ++rewritten;
          }
      REQUIRE(rewritten == 1);
      Arguments args;
      args.arrays.emplace("a", floats(a, t));
      args.arrays.emplace("b", floats(b, t));
      args.arrays.emplace("m", floats(std::vector<double>(a.size(), 7.0), t));
      auto cpu = make_backend("cpu");
      CompilableProgram c{sdfg, p.options, p.origin};
      prepare(*cpu, c)->run(args);
      std::vector<double> want = std::string(op) == "%" ? rem : quo;
      if (t == ScalarType::Float32)
        want[0] = std::string(op) == "%" ? 0.09999998658895493 : 9.0;  // NumPy on float32
      check_same(op, values(args.arrays.at("m")), want);
    }
  }
}
