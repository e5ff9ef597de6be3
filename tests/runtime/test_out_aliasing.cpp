// out= naming a field the call also reads: point-wise (allowed, as in gt4py) on every backend
// path, and shifted (a read-after-write hazard) refused when the program is loaded, so that no
// backend runs it. Regression: the cpu backend ran `lap(a, out=a)` and returned a result that
// depended on the order the points were computed in.
#include "embedded_test_util.h"
#include "three_ways.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kOps = R"(
IF = Field[[I], float64]

@gtx.field_operator
def scale(a: IF, b: IF) -> IF:
    return a * 2.0 + b(I + 1)

@gtx.program
def in_place(a: IF, b: IF):
    scale(a, b, out=a[0:-1])

@gtx.program
def hazard(a: IF, b: IF):
    scale(b, a, out=a[0:-1])
)";

}  // namespace

TEST_CASE("out= aliasing: a point-wise read of the written field runs on every path",
          "[runtime][out-hazard]") {
  Arguments args;
  args.arrays.emplace("a", make({5}, [](auto i) { return 1.0 + static_cast<double>(i); }));
  args.arrays.emplace("b", make({5}, [](auto i) { return 10.0 * static_cast<double>(i); }));
  for (const auto& r : test::run_three_ways(load(kOps, "in_place"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    for (std::int64_t i = 0; i < 5; ++i) {
      double expect = i < 4 ? 2.0 * (1.0 + static_cast<double>(i)) + 10.0 * static_cast<double>(i + 1) : 5.0;
      CHECK(at(r.args.arrays.at("a"), {i}) == expect);
    }
  }
}

TEST_CASE("out= aliasing: a shifted read of the written field is refused before any backend runs",
          "[runtime][out-hazard]") {
  // line 26 of test.py: `    scale(b, a, out=a[0:-1])` (12 prelude lines, then the text above)
  CHECK_THROWS_WITH(load(kOps, "hazard"),
                    Catch::Contains("test.py:26:5") && Catch::Contains("reads 'a' at another point"));
}
