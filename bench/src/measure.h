// Measuring: wall clock, summary statistics over repeats, peak memory of the process.
#pragma once

#include <cstddef>
#include <vector>

namespace weir::bench {

/// Seconds on a monotonic clock (std::chrono::steady_clock).
double now_seconds();

/// Median, minimum and maximum of a sample (seconds); all 0 for an empty sample.
struct Stats {
  double median = 0, min = 0, max = 0;
  std::size_t n = 0;
};
Stats stats_of(std::vector<double> sample);

/// Peak resident set size of this process's address space so far, in KiB (VmHWM of
/// /proc/self/status; getrusage's ru_maxrss where that is unavailable).
long peak_rss_kib();

/// Least-squares slope of log(y) over log(x): the exponent e of y ~ x^e. Needs >= 2 points
/// with positive values (otherwise 0).
double growth_exponent(const std::vector<double>& x, const std::vector<double>& y);

}  // namespace weir::bench
