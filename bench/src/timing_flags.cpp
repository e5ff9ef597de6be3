#include "timing_flags.h"

#include <algorithm>
#include <cstdio>

#include "measure.h"

namespace weir::bench {

namespace {

std::string format(const char* fmt, double a, double b = 0, double c = 0) {
  char text[256];
  std::snprintf(text, sizeof text, fmt, a, b, c);
  return text;
}

}  // namespace

double timer_resolution_s() {
  double best = 1;
  for (int i = 0; i < 1000; ++i) {
    const double a = now_seconds();
    double b = now_seconds();
    while (b == a) b = now_seconds();
    best = std::min(best, b - a);
  }
  return std::max(best, 1e-9);
}

std::string variant_timing_flag(double median_s, double fraction_of_probe, double resolution_s) {
  const double floor_s = kTimerResolutionsPerCall * resolution_s;
  if (median_s < floor_s)
    return format("too small to time: a call takes %.3g us, under %.0f x the timer's resolution (%.3g us)",
                  median_s * 1e6, kTimerResolutionsPerCall, resolution_s * 1e6);
  if (fraction_of_probe > kMaxProbeShare)
    return format(
        "impossible: %.0f%% of the bandwidth probe (at most %.0f%% is believable); the "
        "rounds were disturbed or the sizes are too small to time",
        fraction_of_probe * 100, kMaxProbeShare * 100);
  return "";
}

std::string rounds_timing_flag(double rounds_probe_gbs, double alone_probe_gbs) {
  if (!(rounds_probe_gbs > 0) || !(alone_probe_gbs > 0)) return "";
  const double f = rounds_probe_gbs / alone_probe_gbs;
  if (f >= kMinRoundsProbeFraction) return "";
  return format(
      "disturbed: the probe ran at %.2f GB/s in this kernel's rounds, %.1f%% of the machine's "
      "probe's %.2f GB/s (a busy machine?)",
      rounds_probe_gbs, f * 100, alone_probe_gbs);
}

std::string target_not_judged(const std::string& rounds_flag, const std::string& primary,
                              const std::string& primary_flag, const std::string& hand_flag) {
  if (!rounds_flag.empty()) return rounds_flag;
  if (!primary_flag.empty()) return primary + "'s timing: " + primary_flag;
  if (!hand_flag.empty()) return "the hand-written kernel's timing: " + hand_flag;
  return "";
}

}  // namespace weir::bench
