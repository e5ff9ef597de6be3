// Programs that use module-level constants a climate model computes at import (math, sys, class
// constants, enums holding computed values, a helper that gives a dimension's staggered partner,
// NumPy's scalar types as annotations), run on the embedded backend, the cpu backend and the cpu
// backend after auto_optimize. The constants are the doubles Debian's CPython 3.11 gives (written
// here as hex literals); the expected fields are computed here from the inputs in the order the
// operators apply.
#include "embedded_test_util.h"
#include "three_ways.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kModel = R"(
import enum
import math
import sys
import numpy as np
from numpy import int32 as np_int32

class PhysicsConstants:
    rd = 287.04
    cpd = 1004.64
    cvd = cpd - rd
    rd_o_cpd = rd / cpd

class Coeffs(enum.Enum):
    A = math.exp(0.5)
    B = 2.0 * math.sqrt(3.0)

class Level(enum.IntEnum):
    TOP = 0
    SURFACE = 3

EPS = sys.float_info.epsilon
GAMMA_HALF = math.gamma(0.5)
KHalf = gtx.Dimension("KHalf", kind=gtx.DimensionKind.VERTICAL)

def staggered(dim):
    if dim == K:
        return KHalf
    return dim

def tetens(t):
    x = 17.62 * (t - 273.15)
    return 611.2 * math.exp(x / (t - 30.03))

ES_REF = tetens(300.0)
KH = staggered(K)

IK = Field[Dims[I, K], np.float64]

@gtx.field_operator
def _mix(theta: IK, rho: IK, n: np_int32) -> IK:
    return theta * PhysicsConstants.rd_o_cpd + rho * Coeffs.A.value + Coeffs.B.value / ES_REF + GAMMA_HALF * EPS * astype(n + Level.SURFACE, float64)

@gtx.program
def mix(theta: IK, rho: IK, n: np_int32, out: IK):
    _mix(theta, rho, n, out=out)

@gtx.field_operator
def _on_half_levels(w: Field[Dims[I, KH], float64]) -> Field[Dims[I, KH], float64]:
    return w * PhysicsConstants.cvd - math_free(w)

@gtx.field_operator
def math_free(w: Field[Dims[I, KHalf], float64]) -> Field[Dims[I, KHalf], float64]:
    return w * float64(Level.SURFACE)

@gtx.program
def on_half_levels(w: Field[Dims[I, KH], float64], out: Field[Dims[I, KHalf], float64]):
    _on_half_levels(w, out=out)
)";

// CPython's values (repr in the comments).
constexpr double kRdOCpd = 0x1.2492492492493p-2;     // 287.04 / 1004.64 = 0.28571428571428575
constexpr double kExpHalf = 0x1.a61298e1e069cp+0;    // math.exp(0.5) = 1.6487212707001282
constexpr double kTwoSqrt3 = 0x1.bb67ae8584caap+1;   // 2.0 * math.sqrt(3.0) = 3.4641016151377544
constexpr double kEsRef = 0x1.b8b5ec9eec489p+11;     // tetens(300.0) = 3525.685134374133
constexpr double kGammaHalf = 0x1.c5bf891b4ef6ap+0;  // math.gamma(0.5) = 1.7724538509055159
constexpr double kEps = 0x1p-52;                     // sys.float_info.epsilon
constexpr double kCvd = 0x1.66cccccccccccp+9;        // 1004.64 - 287.04 = 717.5999999999999

constexpr std::int64_t kCells = 3, kLevels = 5;

}  // namespace

TEST_CASE("module constants: math, sys, class and enum constants in a program", "[runtime][constants]") {
  Arguments args;
  args.arrays.emplace("theta", make({kCells, kLevels}, [](auto i) { return 280.0 + 3.0 * wave(i, 1); }));
  args.arrays.emplace("rho", make({kCells, kLevels}, [](auto i) { return 1.2 + wave(i, 2); }));
  args.arrays.emplace("out", full({kCells, kLevels}, 0.0));
  args.values["n"] = 4;
  for (const auto& r : test::run_three_ways(load(kModel, "mix"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    for (std::int64_t i = 0; i < kCells * kLevels; ++i) {
      double theta = 280.0 + 3.0 * wave(i, 1), rho = 1.2 + wave(i, 2);
      double want = theta * kRdOCpd + rho * kExpHalf + kTwoSqrt3 / kEsRef + kGammaHalf * kEps * 7.0;
      CHECK(close(r.args.arrays.at("out").value_as_double(i), want, 1e-15));
    }
  }
}

TEST_CASE("module constants: a dimension from a helper called at module level annotates fields",
          "[runtime][constants]") {
  Arguments args;
  args.arrays.emplace("w", make({kCells, kLevels + 1}, [](auto i) { return wave(i, 3); }));
  args.arrays.emplace("out", full({kCells, kLevels + 1}, 0.0));
  for (const auto& r : test::run_three_ways(load(kModel, "on_half_levels"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    for (std::int64_t i = 0; i < kCells * (kLevels + 1); ++i)
      CHECK(close(r.args.arrays.at("out").value_as_double(i), wave(i, 3) * kCvd - wave(i, 3) * 3.0, 1e-15));
  }
}
