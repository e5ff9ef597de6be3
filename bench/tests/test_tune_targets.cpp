// The `weir tune` section's target rows (bench/src/tune_targets.cpp) from speed-ups whose
// verdicts are worked out by hand: ">= 1.15x on at least half" and "never slower" (below 0.97x).
#include <catch2/catch.hpp>

#include "../src/tune_targets.h"

using nlohmann::json;
using weir::bench::tune_targets;

namespace {

json kernel(const std::string& name, double speedup) { return {{"name", name}, {"speedup", speedup}}; }

}  // namespace

TEST_CASE("tune targets: half of the kernels at 1.15x and none slower is met", "[bench][tune]") {
  // 1.20 and 1.15 reach 1.15x (the bound counts); 1.00 and 0.97 do not; 0.97 is not slower.
  json ks = json::array({kernel("a", 1.20), kernel("b", 1.00), kernel("c", 1.15), kernel("d", 0.97)});
  json t = tune_targets(ks);
  REQUIRE(t.size() == 2);
  CHECK(t[0]["met"] == true);
  CHECK(t[0]["measured"] == "2 of 4 kernels (a, c)");
  CHECK(t[1]["met"] == true);
  CHECK(t[1]["measured"] == "none below 0.97x");
}

TEST_CASE("tune targets: fewer than half fast, or one slower, is not met", "[bench][tune]") {
  // 1 of 3 at 1.15x (1.149 is below); 0.90 is slower than --auto cpu.
  json ks = json::array({kernel("x", 1.30), kernel("y", 1.149), kernel("z", 0.90)});
  json t = tune_targets(ks);
  CHECK(t[0]["met"] == false);
  CHECK(t[0]["measured"] == "1 of 3 kernels (x)");
  CHECK(t[1]["met"] == false);
  CHECK(t[1]["measured"] == "z 0.90x below 0.97x");
}

TEST_CASE("tune targets: kernels that failed or were skipped are not counted", "[bench][tune]") {
  json failed = {{"name", "f"}, {"status", "failed"}};
  CHECK(tune_targets(json::array({failed}))[0]["met"].is_null());
  CHECK(tune_targets(json::array({failed}))[1]["met"].is_null());
  // One measured kernel of two: 1.16x is half of one.
  json t = tune_targets(json::array({failed, kernel("g", 1.16)}));
  CHECK(t[0]["met"] == true);
  CHECK(t[0]["measured"] == "1 of 1 kernels (g)");
}
