// `weir tune`'s confirmation (cli/tune_confirm.h, cli/tune_measure.h; docs/adr/0056-weir-tune.md,
// session 35): the sign test's thresholds worked out by hand, verdicts on given timings, and the
// order of calls in a series with untimed warm calls, seen by fake programs. Nothing is timed.
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>
#include <vector>

#include "tune_confirm.h"
#include "tune_measure.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/program.h"

namespace {

using weir::cli::judge_confirmation;
using weir::cli::wins_needed;

TEST_CASE("tune confirm: wins needed by the sign test at 5%, by hand", "[cli][tune]") {
  // P(X >= k), X ~ Binomial(n, 1/2): n = 5: P(5) = 1/32 = 0.031, P(>= 4) = 6/32 = 0.19.
  CHECK(wins_needed(5) == 5);
  // n = 6: P(6) = 1/64, P(>= 5) = 7/64 = 0.109.
  CHECK(wins_needed(6) == 6);
  // n = 9: P(>= 8) = 10/512 = 0.0195, P(>= 7) = 46/512 = 0.0898.
  CHECK(wins_needed(9) == 8);
  // n = 18: P(>= 13) = 12616/262144 = 0.0481, P(>= 12) = 31180/262144 = 0.119.
  CHECK(wins_needed(18) == 13);
  // Too few rounds for any k: 3 of 3 has probability 1/8, 4 of 4 1/16.
  CHECK(wins_needed(3) == 4);
  CHECK(wins_needed(4) == 5);
  CHECK(wins_needed(weir::cli::kMinConfirmRounds) == weir::cli::kMinConfirmRounds);
  // Another level: n = 10 at 1%: P(10) = 1/1024, P(>= 9) = 11/1024 = 0.0107.
  CHECK(wins_needed(10, 0.01) == 10);
  CHECK(wins_needed(10, 0.011) == 9);
}

TEST_CASE("tune confirm: a candidate faster in enough paired rounds is kept", "[cli][tune]") {
  // 9 rounds; the candidate 10% faster in 8 (ratios 1.1), slower in one (10 / 12.5 = 0.8).
  std::vector<double> base(9, 10e-3), cand(9, 10e-3 / 1.1);
  cand[4] = 12.5e-3;
  auto v = judge_confirmation(base, cand, 1.03, 10e-3);
  CHECK(v.keep);
  CHECK(v.why.empty());
  CHECK(v.wins == 8);
  CHECK(v.needed == 8);
  CHECK(v.median_ratio == Approx(1.1));
  CHECK(v.baseline_drift == Approx(1.0));
  REQUIRE(v.ratios.size() == 9);
  CHECK(v.ratios[4] == Approx(0.8));
}

TEST_CASE("tune confirm: a ratio of medians above the gain is not enough without the pairs", "[cli][tune]") {
  // The laplap case: the candidate's median is 1.12x below the baseline's, but round by round it
  // wins only 6 of 9 (a slow baseline in six rounds, a slow candidate in three).
  std::vector<double> base = {12e-3, 12e-3, 12e-3, 12e-3, 12e-3, 12e-3, 9e-3, 9e-3, 9e-3};
  std::vector<double> cand = {10e-3, 10e-3, 10e-3, 10e-3, 10e-3, 10e-3, 11e-3, 11e-3, 11e-3};
  CHECK(weir::cli::median(base) / weir::cli::median(cand) == Approx(1.2));
  auto v = judge_confirmation(base, cand, 1.03, 9e-3);
  CHECK_FALSE(v.keep);
  CHECK(v.wins == 6);
  CHECK(v.needed == 8);
  CHECK(v.median_ratio == Approx(1.2));
  CHECK(v.why ==
        "faster by 3% or more in 6 of 9 paired rounds (8 needed to tell a gain from noise; median 1.20x)");
}

TEST_CASE("tune confirm: a gain below kMinGain in every round is no gain", "[cli][tune]") {
  std::vector<double> base(7, 10.2e-3), cand(7, 10e-3);  // 1.02x every round
  auto v = judge_confirmation(base, cand, 1.03, 10.2e-3);
  CHECK_FALSE(v.keep);
  CHECK(v.wins == 0);
  CHECK(v.needed == 7);
  CHECK(v.why ==
        "faster by 3% or more in 0 of 7 paired rounds (7 needed to tell a gain from noise; median 1.02x)");
}

TEST_CASE("tune confirm: too few rounds cannot confirm anything", "[cli][tune]") {
  std::vector<double> base(3, 20e-3), cand(3, 10e-3);  // 2x in all three
  auto v = judge_confirmation(base, cand, 1.03, 20e-3);
  CHECK_FALSE(v.keep);
  CHECK(v.wins == 3);
  CHECK(v.needed == 4);
  CHECK(
      v.why ==
      "faster by 3% or more in 3 of 3 paired rounds (3 rounds cannot tell a gain from noise; at least 5 can; "
      "median 2.00x)");
}

TEST_CASE("tune confirm: a baseline slower than in its quietest series keeps --auto cpu", "[cli][tune]") {
  // laplace2d's log: the baseline's quietest series had a median of 7.9 ms; in a busy spell it
  // took 20.2 ms beside a candidate with a dynamic schedule, which lost less (10.4 ms): 1.94x
  // in every round, a gain a quiet machine does not show.
  std::vector<double> base(9, 20.2e-3), cand(9, 10.4e-3);
  auto v = judge_confirmation(base, cand, 1.03, 7.9e-3);
  CHECK_FALSE(v.keep);
  CHECK(v.wins == 9);
  CHECK(v.baseline_drift == Approx(20.2 / 7.9));
  CHECK(v.why ==
        "the baseline took 2.56x its quietest series' time in this series (more than 1.15x): the machine was "
        "busier, and a ratio measured then need not hold on a quiet one");
  // Within the drift allowed (1.15x: 9.0 ms against 7.9 ms is 1.14x) the same pairs are kept.
  std::vector<double> quiet(9, 9.0e-3), faster(9, 9.0e-3 / 1.94);
  CHECK(judge_confirmation(quiet, faster, 1.03, 7.9e-3).keep);
  // Unknown quietest series (0): not checked.
  CHECK(judge_confirmation(base, cand, 1.03, 0).keep);
}

TEST_CASE("tune confirm: series of different lengths are a programming error", "[cli][tune]") {
  CHECK_THROWS_AS(judge_confirmation({1e-3, 1e-3}, {1e-3}, 1.03, 0), std::invalid_argument);
}

// A program that records, into a shared trace, its name and the first value of its array as it
// finds it, then overwrites the array (as in-place programs do).
class Recorder : public weir::runtime::Program {
 public:
  Recorder(std::string name, std::vector<std::string>& trace) : name_(std::move(name)), trace_(trace) {}
  const std::string& name() const override { return name_; }
  const weir::runtime::Signature& signature() const override { return sig_; }
  void run(weir::runtime::Arguments& args) override {
    auto& f = args.arrays.at("u");
    auto* p = static_cast<double*>(f.data());
    trace_.push_back(name_ + "@" + std::to_string(static_cast<int>(p[0])));
    p[0] += name_ == "a" ? 10 : 100;
  }

 private:
  std::string name_;
  std::vector<std::string>& trace_;
  weir::runtime::Signature sig_;
};

TEST_CASE("tune confirm: with warm calls each timed call follows an untimed one of its own program",
          "[cli][tune]") {
  std::vector<std::string> trace;
  Recorder a("a", trace), b("b", trace);
  weir::runtime::Arguments args;
  args.arrays.emplace("u", weir::runtime::Allocator::cpu().allocate(weir::ScalarType::Float64, {4}));
  static_cast<double*>(args.arrays.at("u").data())[0] = 1;
  const weir::cli::InputSnapshot snapshot(args, {"u"});
  auto [sa, sb] = weir::cli::time_interleaved({&a, 0}, {&b, 0}, args, snapshot, 2, true);
  CHECK(sa.size() == 2);
  CHECK(sb.size() == 2);
  // Warm a, timed a, warm b, timed b, twice; every call from the restored value 1.
  CHECK(trace == std::vector<std::string>{"a@1", "a@1", "b@1", "b@1", "a@1", "a@1", "b@1", "b@1"});
  trace.clear();
  (void)weir::cli::time_interleaved({&a, 0}, {&b, 0}, args, snapshot, 2, false);
  CHECK(trace == std::vector<std::string>{"a@1", "b@1", "a@1", "b@1"});
}

}  // namespace
