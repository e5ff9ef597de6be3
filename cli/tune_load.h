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

/// Above this relative interquartile range of the baseline's calls (the same program on the same
/// inputs, all its calls in the search pooled), the program tune compares against moves by more
/// than the 1.15x a tuned program is asked to gain: a parallel baseline waiting at its barrier
/// for a preempted thread, or load that came and went during the search.
inline constexpr double kMaxBaselineSpread = 0.15;

/// (75th percentile - 25th percentile) / median of `seconds`, by linear interpolation between
/// the sorted values; 0 for fewer than 4 values (too few to say).
double relative_spread(std::vector<double> seconds);

/// The sentence tune prints and logs when its ratios are unreliable, "" when they are not:
/// when `load` (the larger of the readings before and after the search) is above `cpus` +
/// kLoadMargin, or when the baseline's calls `baseline_seconds` spread more than
/// kMaxBaselineSpread. "the machine is loaded (load 9.30 on 2 CPUs; the baseline's 85 calls
/// spread by 23% (interquartile range / median)): speed-ups below are unreliable"; with a load
/// within the CPUs, "the timings are noisy (load 1.30 on 2 CPUs; the baseline's ...): ...".
/// `whose` names the calls ("the baseline's"; `weir run --profile`: "the program's") and
/// `consequence` ends the sentence (tune's "speed-ups below are unreliable").
std::string load_warning(const LoadReading& load, unsigned cpus, const std::vector<double>& baseline_seconds,
                         const std::string& whose = "the baseline's",
                         const std::string& consequence = "speed-ups below are unreliable");

}  // namespace weir::cli
