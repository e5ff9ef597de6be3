// The report of `weir run --profile` (docs/adr/0048-profiling.md): per timed element its calls,
// wall time (min, median), bytes moved, FLOPs, achieved GB/s and GFLOP/s and share of the
// bandwidth probe, as JSON in DaCe's instrumentation-report format (Chrome's trace-event format,
// which SDFV overlays) with weir's summary beside it, and the table of the 10 slowest elements.
#pragma once

#include <iosfwd>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "weir/runtime/program_profile.h"

namespace weir::cli {

/// One timed element over all calls. `samples[c]` is call c's; `bytes` and `flops` are per
/// execution of the element (nullopt: not known, e.g. a size the control flow sets, or an outer
/// map's parameter); `sdfg_id` is DaCe's index of the element's SDFG (0: the program);
/// `map_level` an element's nesting level (1: a map at the top level, 2: inside one map, counting
/// the maps around the nested SDFGs it is in; a state of an SDFG called inside one map is at level
/// 2; 0: another element outside map scopes). An element at level 2 or more (a map, state,
/// library node, nested SDFG call or copy) is timed per thread: its samples' `ns` is the busiest
/// thread's total over all its executions in the call.
struct ProfiledElement {
  runtime::TimedElementInfo info;
  /// Where the element is, as `weir info` names states: its state's control-flow path
  /// ("for_36/for_36_copy1/then/call_heat_step"), a node's or copy's label after it
  /// (".../call_heat_step/heat_update_map"); "" when not known. It tells apart the copies of a
  /// loop body (the same labels in two places) that the table would otherwise name alike.
  std::string path;
  long sdfg_id = 0;
  int map_level = 0;
  std::vector<runtime::ElementSample> samples;
  std::optional<double> bytes, flops;
  bool bytes_dynamic = false, flops_partial = false;
};

/// Everything the report says: the program, each call's wall time (seconds, as `weir run`
/// measured it around the call), the elements, and the probe's triad bandwidth (GB/s; nullopt
/// when it could not run, with `probe_problem` saying why): `probe_rounds_gbps` holds each
/// round's median (a round: new arrays, a warm-up triad, `probe_repeats` timed triads) and
/// `probe_gbps` the figure "% of probe" uses, their maximum (docs/adr/0048-profiling.md,
/// "Probe rounds").
struct ProfileData {
  std::string program;
  std::vector<double> call_seconds;
  std::vector<ProfiledElement> elements;
  std::optional<double> probe_gbps;
  std::vector<double> probe_rounds_gbps;
  int probe_repeats = 0;
  std::string probe_problem;
  long long probe_elements = 0;
  /// The symbol values of the calls, and the profiled (instrumented) SDFG as JSON text: the
  /// report carries them so that `weir view --report FILE` shows the SDFG it was made from and
  /// evaluates its static costs (empty: not written).
  std::map<std::string, long long> symbols;
  std::string sdfg_json;
  /// The timers' clock ("tsc" or "clock_monotonic") and its calibrated rate after the last call.
  std::string clock = "clock_monotonic";
  double clock_ticks_per_second = 1e9;
  /// Elements left untimed because they run per point of a map (`--profile` without
  /// --profile-depth; --profile-depth 0 times them).
  long long timers_omitted = 0;
  /// The machine-load sentence of `weir tune` (tune_load.h) when the machine was loaded while
  /// the calls ran; empty otherwise.
  std::string load_warning;
};

/// The statistics of one element (seconds; GB/s and GFLOP/s from the median time and the
/// bytes/FLOPs of the executions of one call; `probe_share` = GB/s over the probe's).
struct ElementSummary {
  long long calls = 0, executions_per_call = 0;
  double min_s = 0, median_s = 0, share = 0;
  std::optional<double> gbps, gflops, probe_share;
};
ElementSummary summarize(const ProfiledElement& e, const ProfileData& d);

/// The probe's rounds differ by more than this factor (max over min): the report calls the
/// probe unstable (the machine was busy, or its bandwidth changes between allocations).
constexpr double kProbeUnstableRatio = 1.5;

/// The probe's rounds summarized (GB/s; all 0 without rounds): `unstable` when max exceeds
/// kProbeUnstableRatio times min.
struct ProbeStats {
  double min = 0, median = 0, max = 0;
  bool unstable = false;
};
ProbeStats probe_stats(const ProfileData& d);

/// The report: {"traceEvents": [one complete event ("ph": "X", "ts"/"dur" in microseconds from
/// the first call's start, "pid" 0, "tid" 0) per element and call it ran in, named by its label,
/// "cat" its kind, "args" {"sdfg_id", "cfg_id", "state_id", "id" (node, -1 for a state or a
/// copy), "edge"}], "weir_profile": {program, calls, call times, probe (kernel, elements,
/// GBps: the figure used, rounds_GBps, min/median/max_GBps, used: "max", repeats_per_round,
/// unstable), clock (name: "tsc" or "clock_monotonic", ticks_per_second), elements with their
/// summaries, symbols, sdfg}}.
nlohmann::json profile_report_json(const ProfileData& d);

/// The name the table gives `e`: its label, or its `path` where another element of `d` that ran
/// has the same kind and label (the copies of a loop body that a swap makes).
std::string table_name(const ProfiledElement& e, const ProfileData& d);

/// The 10 elements of largest median time among those that ran: name, kind, calls, median time, share of the
/// median call, GB/s, % of probe, GFLOP/s ("-" where unknown); then, when elements inside map scopes
/// were timed, a note on how (how often per call) and that their timers cost time.
void print_profile_table(const ProfileData& d, std::ostream& out);

}  // namespace weir::cli
