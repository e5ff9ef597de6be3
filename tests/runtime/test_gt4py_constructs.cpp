// Definitions gt4py accepts that weir refused (issue 34): a scan's init given as a float
// literal for a float32 carry, or as a module-level name bound to a nested tuple; a plain tuple
// returned where a NamedTuple is annotated; code after a return in both branches of an if; a
// nested tuple out= (`out=((a, b), c)`).
// Each runs on the embedded backend, the cpu backend and the cpu backend after auto_optimize,
// against values computed here from the inputs.
#include "embedded_test_util.h"
#include "three_ways.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kConstructs = R"(
from typing import NamedTuple

IK = Field[Dims[I, K], float64]
IK32 = Field[Dims[I, K], float32]
IKi = Field[Dims[I, K], int32]
INIT = (0.0, (1.0, 0))

@gtx.scan_operator(axis=K, forward=True, init=0.5)
def acc32(c: float32, x: float32) -> float32:
    return c + x

@gtx.field_operator
def _acc32(x: IK32) -> IK32:
    return acc32(x)

@gtx.program
def run_acc32(x: IK32, out: IK32):
    _acc32(x, out=out)

@gtx.scan_operator(axis=K, forward=True, init=INIT)
def sum_prod_count(c: tuple[float64, tuple[float64, int32]], x: float64) -> tuple[float64, tuple[float64, int32]]:
    return c[0] + x, (c[1][0] * x, c[1][1] + 1)

@gtx.field_operator
def _sum_prod_count(x: IK) -> tuple[IK, IK, IKi]:
    r = sum_prod_count(x)
    return r[0], r[1][0], r[1][1]

@gtx.program
def run_sum_prod_count(x: IK, s: IK, p: IK, n: IKi):
    _sum_prod_count(x, out=(s, p, n))

class Pair(NamedTuple):
    doubled: IK
    shifted: IK

@gtx.field_operator
def _pair(x: IK) -> Pair:
    return x * 2.0, x + 1.0

@gtx.program
def run_pair(x: IK, a: IK, b: IK):
    _pair(x, out=(a, b))

@gtx.field_operator
def _nested(x: IK) -> tuple[tuple[IK, IK], IK]:
    return (x * 2.0, x + 1.0), x - 3.0

@gtx.program
def run_nested(x: IK, a: IK, b: IK, c: IK):
    _nested(x, out=((a, b), c))

@gtx.field_operator
def _branch(x: IK, flag: bool) -> IK:
    if flag:
        return x * 2.0
    else:
        return x + 1.0
    y = x * 3.0
    return y

@gtx.program
def run_branch(x: IK, flag: bool, out: IK):
    _branch(x, flag, out=out)
)";

constexpr std::int64_t kCells = 2, kLevels = 4;

double x_at(std::int64_t i) { return 1.0 + 0.5 * wave(i, 4); }

Arguments with_x(ScalarType t = ScalarType::Float64) {
  Arguments args;
  args.arrays.emplace("x", make({kCells, kLevels}, x_at, t));
  return args;
}

}  // namespace

TEST_CASE("gt4py constructs: a float literal init for a float32 carry", "[runtime][gt4py-constructs]") {
  Arguments args = with_x(ScalarType::Float32);
  args.arrays.emplace("out", full({kCells, kLevels}, 0.0, ScalarType::Float32));
  for (const auto& r : test::run_three_ways(load(kConstructs, "run_acc32"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    for (std::int64_t i = 0; i < kCells; ++i) {
      float c = 0.5F;  // the scan in float32, level by level
      for (std::int64_t k = 0; k < kLevels; ++k) {
        c = c + static_cast<float>(x_at(i * kLevels + k));
        CHECK(at(r.args.arrays.at("out"), {i, k}) == static_cast<double>(c));
      }
    }
  }
}

TEST_CASE("gt4py constructs: a scan init named at module level, a nested tuple",
          "[runtime][gt4py-constructs]") {
  Arguments args = with_x();
  args.arrays.emplace("s", full({kCells, kLevels}, 0.0));
  args.arrays.emplace("p", full({kCells, kLevels}, 0.0));
  args.arrays.emplace("n", full({kCells, kLevels}, 0.0, ScalarType::Int32));
  for (const auto& r : test::run_three_ways(load(kConstructs, "run_sum_prod_count"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    for (std::int64_t i = 0; i < kCells; ++i) {
      double s = 0.0, p = 1.0;
      for (std::int64_t k = 0; k < kLevels; ++k) {
        s += x_at(i * kLevels + k);
        p *= x_at(i * kLevels + k);
        CHECK(at(r.args.arrays.at("s"), {i, k}) == s);
        CHECK(at(r.args.arrays.at("p"), {i, k}) == p);
        CHECK(at(r.args.arrays.at("n"), {i, k}) == static_cast<double>(k + 1));
      }
    }
  }
}

TEST_CASE("gt4py constructs: a plain tuple returned where a NamedTuple is annotated",
          "[runtime][gt4py-constructs]") {
  Arguments args = with_x();
  args.arrays.emplace("a", full({kCells, kLevels}, 0.0));
  args.arrays.emplace("b", full({kCells, kLevels}, 0.0));
  for (const auto& r : test::run_three_ways(load(kConstructs, "run_pair"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    for (std::int64_t i = 0; i < kCells * kLevels; ++i) {
      CHECK(r.args.arrays.at("a").value_as_double(i) == x_at(i) * 2.0);
      CHECK(r.args.arrays.at("b").value_as_double(i) == x_at(i) + 1.0);
    }
  }
}

TEST_CASE("gt4py constructs: code after a return in both branches never runs",
          "[runtime][gt4py-constructs]") {
  for (bool flag : {true, false}) {
    Arguments args = with_x();
    args.arrays.emplace("out", full({kCells, kLevels}, 0.0));
    args.values["flag"] = flag;
    for (const auto& r : test::run_three_ways(load(kConstructs, "run_branch"), args)) {
      INFO(r.path << " flag " << flag);
      REQUIRE(r.error == "");
      for (std::int64_t i = 0; i < kCells * kLevels; ++i)
        CHECK(r.args.arrays.at("out").value_as_double(i) == (flag ? x_at(i) * 2.0 : x_at(i) + 1.0));
    }
  }
}

TEST_CASE("gt4py constructs: a nested tuple out= takes a nested tuple result",
          "[runtime][gt4py-constructs]") {
  Arguments args = with_x();
  for (const char* n : {"a", "b", "c"}) args.arrays.emplace(n, full({kCells, kLevels}, 0.0));
  for (const auto& r : test::run_three_ways(load(kConstructs, "run_nested"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    for (std::int64_t i = 0; i < kCells * kLevels; ++i) {
      CHECK(r.args.arrays.at("a").value_as_double(i) == x_at(i) * 2.0);
      CHECK(r.args.arrays.at("b").value_as_double(i) == x_at(i) + 1.0);
      CHECK(r.args.arrays.at("c").value_as_double(i) == x_at(i) - 3.0);
    }
  }
}
