// Reading the timers of a compiled program (docs/adr/0048-profiling.md): the elements whose
// `instrument` is Timer and what each measured in the program's last call, through the optional
// entry points weir_profile_elements / weir_profile_read of codegen/include/weir/codegen/program_abi.h.
#pragma once

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace weir::runtime {

/// One timed element as the program names it (weir/sdfg/instrumented.h's TimedElement):
/// `kind` "state", "map", "library", "nested_sdfg" or "copy"; DaCe's report ids (`cfg_id`,
/// `state_id`, `node_id` -1 for a state or copy) and a copy's `edge_id` (else -1).
struct TimedElementInfo {
  std::string kind, label;
  long cfg_id = 0, state_id = -1, node_id = -1, edge_id = -1;
};

/// What one element measured in one call: how often its code ran, the total wall time of those
/// runs (nanoseconds) and when the first started (nanoseconds of the steady clock,
/// std::chrono::steady_clock's epoch). executions == 0: it did not run.
struct ElementSample {
  std::int64_t executions = 0, ns = 0, start_ns = 0;
};

/// The clock the program's timers read (docs/adr/0048-profiling.md, "a cheaper clock"): "tsc"
/// (the invariant time-stamp counter, converted to nanoseconds at a rate calibrated against
/// CLOCK_MONOTONIC) or "clock_monotonic" (std::chrono::steady_clock's clock), and its ticks per
/// second as of the last read (1e9 for clock_monotonic).
struct TimerClock {
  std::string name = "clock_monotonic";
  double ticks_per_second = 1e9;
};

/// The timers of a program library that is loaded in this process.
class ProgramProfile {
 public:
  /// Finds the loaded `library` (dlopen RTLD_NOLOAD: never loads it a second time). Throws
  /// LoadError naming it when it is not loaded or exports no timers (compiled without
  /// instrumented elements), or when its element list is not valid JSON.
  explicit ProgramProfile(const std::filesystem::path& library);
  ~ProgramProfile();
  ProgramProfile(const ProgramProfile&) = delete;
  ProgramProfile& operator=(const ProgramProfile&) = delete;

  /// One per timer slot, in the program's order.
  const std::vector<TimedElementInfo>& elements() const { return elements_; }
  /// The samples of the program's last call, one per element. Throws ProgramError when the
  /// library refuses (it has another number of elements).
  std::vector<ElementSample> read() const;
  /// The timers' clock as of the last read(). A library built before the TSC clock (no
  /// weir_profile_clock_info) read CLOCK_MONOTONIC. Throws LoadError when its answer is not the
  /// JSON object program_abi.h describes.
  TimerClock clock() const;

 private:
  std::shared_ptr<void> dl_;
  void* read_ = nullptr;
  void* clock_ = nullptr;
  std::vector<TimedElementInfo> elements_;
  std::string library_;
};

}  // namespace weir::runtime
