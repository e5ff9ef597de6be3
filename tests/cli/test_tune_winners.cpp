// `weir tune`'s second phase (cli/tune_winners.h, docs/adr/0056-weir-tune.md, session 33): the
// choices that won alone are combined in an order fixed by their speed-ups, and go before the
// combinations the seed draws. Speed-ups are given here; nothing is timed.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "tune_winners.h"

namespace {

using weir::cli::SingleWin;
using weir::cli::TuneCandidate;

std::vector<std::string> labels(const std::vector<TuneCandidate>& cs) {
  std::vector<std::string> v;
  for (const auto& c : cs) v.push_back(c.label);
  return v;
}

// Four knobs won (SIMD lanes 8 at 1.30x; guided and plain stores tied at 1.10x; a tiling at
// 1.05x), and simd_lanes=4 at 1.20x, a second value of a knob that has a better one.
std::vector<SingleWin> wins() {
  return {{{"tiling", "32,1"}, 1.05},
          {{"streaming_stores", "off"}, 1.10},
          {{"simd_lanes", "4"}, 1.20},
          {{"omp_schedule", "guided"}, 1.10},
          {{"simd_lanes", "8"}, 1.30}};
}

}  // namespace

TEST_CASE("weir tune winners: growing prefixes of the ranked winners, then the other pairs", "[cli][tune]") {
  // Ranked: simd_lanes=8 (1.30), omp_schedule=guided (1.10; before streaming_stores=off by knob
  // name at the tie), streaming_stores=off (1.10), tiling=32,1 (1.05); simd_lanes=4 is dropped
  // (simd_lanes=8 is better). Each label in the space's knob order (tiling first).
  const std::vector<std::string> expected{
      "simd_lanes=8 omp_schedule=guided",
      "simd_lanes=8 omp_schedule=guided streaming_stores=off",
      "tiling=32,1 simd_lanes=8 omp_schedule=guided streaming_stores=off",
      "simd_lanes=8 streaming_stores=off",
      "tiling=32,1 simd_lanes=8",
      "omp_schedule=guided streaming_stores=off",
      "tiling=32,1 omp_schedule=guided",
      "tiling=32,1 streaming_stores=off",
  };
  const auto cs = weir::cli::winner_combinations(wins());
  CHECK(labels(cs) == expected);
  for (const auto& c : cs) {
    INFO(c.label);
    CHECK(c.phase == "winners");
    // The same steps and threads as the space's candidate of those choices.
    const TuneCandidate same = weir::cli::tune_candidate(c.choices);
    CHECK(c.steps == same.steps);
    CHECK(c.threads == same.threads);
  }
  // The order depends on the speed-ups only, not on the order the singles were measured in.
  std::vector<SingleWin> reversed = wins();
  std::reverse(reversed.begin(), reversed.end());
  CHECK(labels(weir::cli::winner_combinations(reversed)) == expected);
  // A limit keeps the first.
  CHECK(labels(weir::cli::winner_combinations(wins(), 3)) ==
        std::vector<std::string>(expected.begin(), expected.begin() + 3));
  // The script of a combination is the pipeline with each choice made: one cpu-schedules step
  // with both options, then the SIMD lanes.
  const nlohmann::json& steps = cs.front().steps;
  CHECK(std::find(steps.begin(), steps.end(),
                  nlohmann::json({{"pass", "cpu-schedules{omp_schedule=guided}"}})) != steps.end());
  CHECK(steps.back()["transformation"] == "MapVectorization");
  CHECK(steps.back()["options"]["vector_width"] == 8);
}

TEST_CASE("weir tune winners: fewer than two knobs won, nothing to combine", "[cli][tune]") {
  CHECK(weir::cli::winner_combinations({}).empty());
  CHECK(weir::cli::winner_combinations({{{"simd_lanes", "8"}, 1.3}}).empty());
  // Two values of one knob do not combine.
  CHECK(weir::cli::winner_combinations({{{"simd_lanes", "8"}, 1.3}, {{"simd_lanes", "4"}, 1.2}}).empty());
  // Threads are a choice like the others.
  const auto cs = weir::cli::winner_combinations({{{"threads", "1"}, 1.1}, {{"tiling", "8,1"}, 1.2}});
  REQUIRE(cs.size() == 1);
  CHECK(cs[0].label == "tiling=8,1 threads=1");
  CHECK(cs[0].threads == 1);
}

TEST_CASE("weir tune winners: inserted after the singles, a drawn twin moved up, the rest in order",
          "[cli][tune]") {
  auto c = [](std::vector<std::pair<std::string, std::string>> ch, const std::string& phase) {
    TuneCandidate t = weir::cli::tune_candidate(ch);
    t.phase = phase;
    return t;
  };
  std::vector<TuneCandidate> list{c({}, "baseline"), c({{"simd_lanes", "8"}}, "single"),
                                  c({{"omp_schedule", "guided"}}, "single"),
                                  c({{"fusion", "wide"}, {"threads", "1"}}, "drawn"),
                                  // The same choices as the first winner, in another order.
                                  c({{"omp_schedule", "guided"}, {"simd_lanes", "8"}}, "drawn"),
                                  c({{"collapse", "off"}, {"scan_block", "16"}}, "drawn")};
  const auto added =
      weir::cli::winner_combinations({{{"simd_lanes", "8"}, 1.3}, {{"omp_schedule", "guided"}, 1.1}});
  REQUIRE(added.size() == 1);
  weir::cli::insert_before(list, 3, added);
  CHECK(labels(list) == std::vector<std::string>{"auto-optimize-cpu", "simd_lanes=8", "omp_schedule=guided",
                                                 "simd_lanes=8 omp_schedule=guided", "fusion=wide threads=1",
                                                 "collapse=off scan_block=16"});
  CHECK(list[3].phase == "winners");
  // At the end of the list (no drawn combinations): appended.
  std::vector<TuneCandidate> short_list{c({}, "baseline"), c({{"simd_lanes", "8"}}, "single")};
  weir::cli::insert_before(short_list, 5, added);
  CHECK(labels(short_list) ==
        std::vector<std::string>{"auto-optimize-cpu", "simd_lanes=8", "simd_lanes=8 omp_schedule=guided"});
}

TEST_CASE("weir tune space: every candidate names its phase, choices in the knobs' order", "[cli][tune]") {
  const auto cs = weir::cli::tune_candidates(0, 2);
  REQUIRE(cs.size() == 75);
  CHECK(cs[0].phase == "baseline");
  for (std::size_t i = 1; i < cs.size(); ++i) {
    INFO(cs[i].label);
    CHECK(cs[i].phase == (i <= 26 ? "single" : "drawn"));
    if (i <= 26)
      CHECK(cs[i].choices.size() == 1);
    else
      CHECK(cs[i].choices.size() >= 2);
  }
  // Given in another order, the same candidate.
  CHECK(weir::cli::tune_candidate({{"threads", "1"}, {"tiling", "8,1"}}).label == "tiling=8,1 threads=1");
}
