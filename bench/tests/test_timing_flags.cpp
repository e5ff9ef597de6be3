// The kernel table's timing flags (bench/src/timing_flags.cpp) on injected timings: user31 G6's
// tiny-size run at load 9 printed a weir variant at 43718% of the bandwidth probe and "target met
// ... 0.00x the hand-written kernel"; such rows must be flagged and the target not judged.
#include <catch2/catch.hpp>
#include <cmath>
#include <string>

#include "../src/timing_flags.h"

using Catch::Matchers::Contains;
using Catch::Matchers::StartsWith;
using weir::bench::rounds_timing_flag;
using weir::bench::target_not_judged;
using weir::bench::timer_resolution_s;
using weir::bench::variant_timing_flag;

namespace {

// The tiny size (Sizes::tiny()): probe arrays of 1 << 14 doubles, a copy moving 16 bytes per
// element; jacobi_2d on 34 x 34 arrays, 4 sweeps each reading one array and writing another.
constexpr double kTinyCopyBytes = 16.0 * (1 << 14);         // 262144
constexpr double kTinyJacobiBytes = 4.0 * 2 * 34 * 34 * 8;  // 73984

}  // namespace

TEST_CASE("bench timing flags: a tiny-size row faster than the disturbed probe is impossible, not a result",
          "[timing_flags]") {
  // G6's rounds: the probe's copy took 16 ms (0.016384 GB/s), weir's variant 6 us.
  const double probe_gbs = kTinyCopyBytes / 16e-3 / 1e9;
  const double variant_gbs = kTinyJacobiBytes / 6e-6 / 1e9;
  const double frac = variant_gbs / probe_gbs;  // 73984 / 6e-6 / (262144 / 16e-3) = 752.604
  CHECK(frac == Approx(752.604).epsilon(1e-5));
  const std::string flag = variant_timing_flag(6e-6, frac, 30e-9);
  CHECK_THAT(flag, StartsWith("impossible: 75260% of the bandwidth probe (at most 400% is believable)"));
  // The same kernel's rounds: the machine's probe had run at 20 GB/s on its own before them.
  const std::string rounds = rounds_timing_flag(probe_gbs, 20.0);
  CHECK_THAT(rounds, StartsWith("disturbed: the probe ran at 0.02 GB/s in this kernel's rounds, 0.1% of the "
                                "machine's probe's 20.00 GB/s"));
  // The target is not judged on them: the rounds' flag first, else the variant's, else hand's.
  CHECK(target_not_judged(rounds, "weir", flag, "") == rounds);
  CHECK(target_not_judged("", "weir-opt(dace-simplified)", flag, "") ==
        "weir-opt(dace-simplified)'s timing: " + flag);
  CHECK(target_not_judged("", "weir", "", "too small to time") ==
        "the hand-written kernel's timing: too small to time");
}

TEST_CASE("bench timing flags: a call under 100 timer resolutions is too small to time", "[timing_flags]") {
  // 0.5 us against a 20 ns resolution: under the 2 us floor.
  CHECK(variant_timing_flag(0.5e-6, 0.5, 20e-9) ==
        "too small to time: a call takes 0.5 us, under 100 x the timer's resolution (0.02 us)");
  // Just above the floor it is timed.
  CHECK(variant_timing_flag(2.1e-6, 0.5, 20e-9).empty());
  // Too small wins over an impossible share (both are said by the first).
  CHECK_THAT(variant_timing_flag(1e-7, 50, 20e-9), StartsWith("too small to time"));
}

TEST_CASE("bench timing flags: full-size rows of docs/benchmarks.md are results", "[timing_flags]") {
  // laplacian's weir row (3.192 ms, 97% of the probe) and cell_laplacian's hand row (104%).
  CHECK(variant_timing_flag(3.192e-3, 0.97, 30e-9).empty());
  CHECK(variant_timing_flag(4.771e-3, 1.04, 30e-9).empty());
  // 4x the probe is the last believable share.
  CHECK(variant_timing_flag(1e-3, 4.0, 30e-9).empty());
  CHECK_THAT(variant_timing_flag(1e-3, 4.01, 30e-9), StartsWith("impossible: 401%"));
  // A probe at half its own speed in the rounds (load) is still a comparison; a quarter is the bound.
  CHECK(rounds_timing_flag(12.8, 25.6).empty());
  CHECK(rounds_timing_flag(6.5, 25.6).empty());
  CHECK_THAT(rounds_timing_flag(6.3, 25.6), StartsWith("disturbed: the probe ran at 6.30 GB/s"));
  // Nothing to compare: no flag.
  CHECK(rounds_timing_flag(0, 25.6).empty());
  CHECK(target_not_judged("", "weir", "", "").empty());
}

TEST_CASE("bench timing flags: the timer's resolution is a positive clock step", "[timing_flags]") {
  const double r = timer_resolution_s();
  CHECK(std::isfinite(r));
  CHECK(r >= 1e-9);
}
