// When a kernel benchmark's timing is not a result: a call too short for the timer, an
// effective bandwidth the machine cannot have (a share of the bandwidth probe no cache level
// gives), or rounds in which the probe itself ran far below its own speed (the machine was busy).
// Such rows print "n/a" for their probe share and ratio, and a kernel's target is not judged on
// them (user31 G6: `--size tiny` at load 9 printed 43718% of the probe and "target met ... 0.00x").
#pragma once

#include <string>

namespace weir::bench {

/// Shortest median a row is trusted with, as a multiple of the timer's resolution: the two
/// clock reads around a call then cost at most 1% of it.
inline constexpr double kTimerResolutionsPerCall = 100;

/// Largest believable share of the bandwidth probe. The probe of a kernel's rounds has the
/// kernel's footprint (probe_size.h), so its better of copy and triad is the bandwidth of the
/// level the kernel's data lives in; a kernel whose working set sits one level closer (L1) moves
/// its bytes about 2x faster at most on current x86 cores. Four times the probe is a disturbed
/// measurement (of the kernel or of the probe), not a kernel's speed. (Full-size rows reach
/// 104%: docs/benchmarks.md.)
inline constexpr double kMaxProbeShare = 4.0;

/// The probe in a kernel's rounds running below this fraction of the machine's probe (STREAM's
/// rule, measured on its own before the kernels) says the rounds were disturbed (descheduled
/// threads), so are their timings: no footprint streams slower than memory does.
inline constexpr double kMinRoundsProbeFraction = 0.25;

/// The timer's resolution in seconds: the smallest positive difference between two successive
/// readings of now_seconds() (measured; at least 1 ns).
double timer_resolution_s();

/// Why one variant's timing is not a result, or "" when it is: its median (seconds) is below
/// kTimerResolutionsPerCall x `resolution_s` ("too small to time: ..."), or its share of the
/// probe `fraction_of_probe` (its effective bandwidth / the probe's in the same rounds) exceeds
/// kMaxProbeShare ("impossible: N% of the bandwidth probe ...").
std::string variant_timing_flag(double median_s, double fraction_of_probe, double resolution_s);

/// Why none of a kernel's timings are results, or "" when they may be: the probe in its rounds
/// (`rounds_probe_gbs`) ran below kMinRoundsProbeFraction of the machine's probe measured on its
/// own (`alone_probe_gbs`). "" when either is not positive (nothing to compare).
std::string rounds_timing_flag(double rounds_probe_gbs, double alone_probe_gbs);

/// Whether a kernel's target (weir's variant at most kMaxRatioToHand x the hand-written one) can
/// be judged: "" when it can, else why not, from the flags of the kernel's rounds, of weir's
/// variant and of the hand-written variant ("weir's timing: too small to time ...").
std::string target_not_judged(const std::string& rounds_flag, const std::string& primary,
                              const std::string& primary_flag, const std::string& hand_flag);

}  // namespace weir::bench
