// Staggered dimensions (gt4py.next.common.flip_staggered) and half-integer shifts between a
// dimension and its partner: `a(IHalf + 0.5)` reads a field over I at the faces, `f(I + 0.5)` a
// field over the faces at the cells. A staggered index sits half a cell below its base index:
// face h lies between cells h - 1 and h. Each program runs on the embedded backend, the cpu
// backend and the cpu backend after auto_optimize, against values computed here from the inputs.
#include "embedded_test_util.h"
#include "three_ways.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kStaggered = R"(
from gt4py.next import common

IHalf = common.flip_staggered(I)
KHalf = common.flip_staggered(K)
IK = Field[Dims[I, K], float64]
HK = Field[Dims[IHalf, K], float64]
IKH = Field[Dims[I, KHalf], float64]

@gtx.field_operator
def _faces(a: IK) -> HK:
    return 0.5 * (a(IHalf - 0.5) + a(IHalf + 0.5))

@gtx.field_operator
def _difference(f: HK) -> IK:
    return f(I + 0.5) - f(I - 0.5)

@gtx.program
def face_difference(a: IK, faces: HK, diff: IK, n: int32, nk: int32):
    _faces(a, out=faces, domain={IHalf: (1, n), K: (0, nk)})
    _difference(faces, out=diff)

@gtx.field_operator
def _interfaces(w: IK) -> IKH:
    return 3.0 * w(KHalf + 0.5) + w(KHalf - 0.5)(KHalf + 1) - w(KHalf - 1.5)

@gtx.program
def interfaces(w: IK, out: IKH, nk: int32):
    _interfaces(w, out=out, domain={I: (0, 2), KHalf: (2, nk)})
)";

constexpr std::int64_t kCells = 5, kLevels = 3;

double a_at(std::int64_t i, std::int64_t k) {
  return wave(i * kLevels + k, 2) + 0.1 * static_cast<double>(i);
}
double w_at(std::int64_t i, std::int64_t k) { return wave(i * kLevels + k, 5); }

}  // namespace

TEST_CASE("staggered shifts: cells to faces and back over a staggered horizontal dimension",
          "[runtime][staggered]") {
  Arguments args;
  args.arrays.emplace("a",
                      make({kCells, kLevels}, [](std::int64_t x) { return a_at(x / kLevels, x % kLevels); }));
  // faces 0 and kCells are boundary values the program does not write
  args.arrays.emplace("faces", make({kCells + 1, kLevels}, [](std::int64_t x) { return 10.0 + x; }));
  args.arrays.emplace("diff", full({kCells, kLevels}, 0.0));
  args.values["n"] = kCells;
  args.values["nk"] = kLevels;
  for (const auto& r : test::run_three_ways(load(kStaggered, "face_difference"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    auto face = [&](std::int64_t h, std::int64_t k) {  // face h between cells h - 1 and h
      if (h == 0 || h == kCells) return 10.0 + static_cast<double>(h * kLevels + k);
      return 0.5 * (a_at(h - 1, k) + a_at(h, k));
    };
    for (std::int64_t h = 0; h <= kCells; ++h)
      for (std::int64_t k = 0; k < kLevels; ++k) CHECK(at(r.args.arrays.at("faces"), {h, k}) == face(h, k));
    for (std::int64_t i = 0; i < kCells; ++i)  // cell i between faces i and i + 1
      for (std::int64_t k = 0; k < kLevels; ++k)
        CHECK(at(r.args.arrays.at("diff"), {i, k}) == face(i + 1, k) - face(i, k));
  }
}

TEST_CASE(
    "staggered shifts: levels to interfaces over a staggered vertical dimension, chained with an integer "
    "shift",
    "[runtime][staggered]") {
  constexpr std::int64_t kCols = 2, kK = 6;
  Arguments args;
  args.arrays.emplace("w", make({kCols, kK}, [](std::int64_t x) { return w_at(x / kK, x % kK); }));
  args.arrays.emplace("out", full({kCols, kK + 1}, -7.0));
  args.values["nk"] = kK;
  for (const auto& r : test::run_three_ways(load(kStaggered, "interfaces"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    for (std::int64_t i = 0; i < kCols; ++i)
      for (std::int64_t h = 0; h <= kK; ++h) {
        // interface h lies between levels h - 1 and h: KHalf + 0.5 reads level h, KHalf - 0.5
        // level h - 1 (then + 1: level h), KHalf - 1.5 level h - 2
        double want = h >= 2 && h < kK ? 3.0 * w_at(i, h) + w_at(i, h) - w_at(i, h - 2) : -7.0;
        CHECK(at(r.args.arrays.at("out"), {i, h}) == want);
      }
  }
}

TEST_CASE("staggered shifts: a shift by a quarter, or to a dimension the field lacks, is a located error",
          "[runtime][staggered]") {
  const char* quarter = R"(
from gt4py.next import common
IHalf = common.flip_staggered(I)

@gtx.field_operator
def _quarter(a: Field[Dims[I], float64]) -> Field[Dims[IHalf], float64]:
    return a(IHalf + 0.25)
)";
  REQUIRE_THROWS_WITH(load(quarter, "_quarter"),
                      Catch::Contains("test.py:") && Catch::Contains("invalid offset '0.25'") &&
                          Catch::Contains("half-integer (0.5, -1.5) to shift to its staggered partner"));
  const char* missing = R"(
from gt4py.next import common
JHalf = common.flip_staggered(J)

@gtx.field_operator
def _missing(a: Field[Dims[I], float64]) -> Field[Dims[I], float64]:
    return a(JHalf + 0.5)
)";
  REQUIRE_THROWS_WITH(load(missing, "_missing"),
                      Catch::Contains("it has no dimension 'J' (a half-integer shift to "
                                      "'_StaggeredJ' reads its staggered partner)"));
}
