// gt4py's scalar type constructors in programs: `gtx.float64(n) * s` and `gtx.int32(s)` as call
// arguments (a cast of a parameter), `gtx.float64(DT)` and `gtx.int32(NLEV - 1)` of module
// constants, and integer casts and `minimum`/`maximum` as domain bounds. Each runs on the
// embedded backend, the cpu backend and the cpu backend after auto_optimize, against values
// computed here from the inputs. Field operators still take literals only (as gt4py's).
#include "embedded_test_util.h"
#include "three_ways.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kCasts = R"(
NLEV = 5
DT = 10
IK = Field[Dims[I, K], float64]

@gtx.field_operator
def _scale(a: IK, s: float64, n: int32) -> IK:
    return a * s + astype(n, float64)

@gtx.program
def cast_parameters(a: IK, s: float64, n: int32, out: IK):
    _scale(a, gtx.float64(n) * s, gtx.int32(s), out=out)

@gtx.program
def cast_constants(a: IK, out: IK):
    _scale(a, gtx.float64(DT), gtx.int32(NLEV - 1), out=out, domain={I: (0, 2), K: (0, gtx.int32(NLEV - 1))})

@gtx.program
def min_max_bounds(a: IK, n: int32, out: IK):
    _scale(a, 2.0, n, out=out, domain={I: (0, minimum(1, 2)), K: (maximum(n - 1, 0), 4)})
)";

constexpr std::int64_t kCells = 3, kLevels = 5;

double a_at(std::int64_t i) { return wave(i, 1); }

Arguments inputs() {
  Arguments args;
  args.arrays.emplace("a", make({kCells, kLevels}, a_at));
  args.arrays.emplace("out", full({kCells, kLevels}, -1.0));
  return args;
}

/// Runs `name` the three ways and checks `out` at every point: `inside(i, k)` says whether the
/// call writes it, `value(a)` what it writes there (-1 stays elsewhere).
void check(const std::string& name, const Arguments& args,
           const std::function<bool(std::int64_t, std::int64_t)>& inside,
           const std::function<double(double)>& value) {
  for (const auto& r : test::run_three_ways(load(kCasts, name), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    for (std::int64_t i = 0; i < kCells; ++i)
      for (std::int64_t k = 0; k < kLevels; ++k) {
        INFO("out[" << i << ", " << k << "]");
        double a = a_at(i * kLevels + k);
        CHECK(at(r.args.arrays.at("out"), {i, k}) == (inside(i, k) ? value(a) : -1.0));
      }
  }
}

}  // namespace

TEST_CASE("program casts: scalar parameters converted by the type's constructor", "[runtime][casts]") {
  Arguments args = inputs();
  args.values["s"] = 2.75;
  args.values["n"] = 3;
  // s' = float64(3) * 2.75 = 8.25, n' = int32(2.75) = 2 (toward zero, as NumPy's cast).
  check(
      "cast_parameters", args, [](auto, auto) { return true; }, [](double a) { return a * 8.25 + 2.0; });
}

TEST_CASE("program casts: module constants converted, and an integer cast as a domain bound",
          "[runtime][casts]") {
  check(
      "cast_constants", inputs(), [](auto i, auto k) { return i < 2 && k < 4; },
      [](double a) { return a * 10.0 + 4.0; });
}

TEST_CASE("program casts: minimum and maximum as domain bounds", "[runtime][casts]") {
  Arguments args = inputs();
  args.values["n"] = 3;
  // I: (0, minimum(1, 2)) = (0, 1); K: (maximum(3 - 1, 0), 4) = (2, 4).
  check(
      "min_max_bounds", args, [](auto i, auto k) { return i < 1 && k >= 2 && k < 4; },
      [](double a) { return a * 2.0 + 3.0; });
}
