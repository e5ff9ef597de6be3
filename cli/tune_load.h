// Whether the machine was too loaded for `weir tune`'s ratios to mean anything
// (docs/adr/0056-weir-tune.md, session 32): a parallel program timed while another process holds
// one of its CPUs waits at its barrier for the preempted thread, and a speed-up measured then
// says more about the scheduler than about the candidate.
#pragma once

#include <string>
#include <vector>

namespace weir::cli {

/// One reading of the system's load: /proc/loadavg's 1-minute average.
struct LoadReading {
  double one_minute = -1;  ///< -1 when it could not be read
  std::string text;        ///< the first three fields as read ("9.30 8.12 7.05"), "" when unread
};

/// Parses the text of /proc/loadavg ("9.30 8.12 7.05 3/412 12345"); one_minute stays -1 (text
/// "") when it does not start with three numbers.
LoadReading parse_loadavg(const std::string& text);

/// /proc/loadavg now (one_minute -1 where it cannot be read), or the text of the environment
/// variable WEIR_TUNE_LOADAVG where it is set (a load injected by tests: what tune says about
/// load must be testable without loading the machine); throws UsageError naming the variable
/// when that text is not a load reading.
LoadReading read_load();

/// Above this 1-minute load per the machine's CPUs plus kLoadMargin, some thread of a program
/// timed on all of them is waiting on average (tune's own threads count in the load).
inline constexpr double kLoadMargin = 0.5;

/// Above this relative interquartile range of the baseline's calls within their series (the same
/// program on the same inputs, each call divided by the median of the series it was timed in),
/// the program tune compares against moves by more than the 1.15x a tuned program is asked to
/// gain: a parallel baseline waiting at its barrier for a preempted thread, or load that comes
/// and goes while a series runs.
inline constexpr double kMaxBaselineSpread = 0.15;

/// (75th percentile - 25th percentile) / median of `seconds`, by linear interpolation between
/// the sorted values; 0 for fewer than 4 values (too few to say).
double relative_spread(std::vector<double> seconds);

/// The spread of calls within their series: every call divided by the median of its own series,
/// pooled, then relative_spread of those ratios (0 for fewer than 4 calls). A ratio tune reports
/// is median / median of one interleaved series, so its noise is the scatter inside a series;
/// a level that differs from one series to the next (what the candidate timed in between left
/// in the caches, a compile just before, drift) falls on both programs of that series alike and
/// is not counted (docs/adr/0056-weir-tune.md, session 33). Empty series are skipped.
double within_series_spread(const std::vector<std::vector<double>>& series);

/// The sentence tune prints and logs when its ratios are unreliable, "" when they are not:
/// when `load` (the larger of the readings before and after the search) is above `cpus` +
/// kLoadMargin, or when the baseline's calls `baseline_series` (one list per interleaved series:
/// its own, one per measured candidate, the confirmation's) spread within their series by more
/// than kMaxBaselineSpread. "the machine is loaded (load 9.30 on 2 CPUs; the baseline's 85 calls
/// in 12 series spread by 23% within a series (interquartile range / median)): speed-ups below
/// are unreliable"; with a load within the CPUs, "the timings are noisy (load 1.30 on 2 CPUs;
/// the baseline's ...): ...". `whose` names the calls ("the baseline's"; `weir run --profile`:
/// "the program's", one series) and `consequence` ends the sentence (tune's "speed-ups below are
/// unreliable").
std::string load_warning(const LoadReading& load, unsigned cpus,
                         const std::vector<std::vector<double>>& baseline_series,
                         const std::string& whose = "the baseline's",
                         const std::string& consequence = "speed-ups below are unreliable");

}  // namespace weir::cli
