// The overlays of `weir view` (issue 39; docs/adr/0048-profiling.md): per element of an SDFG,
// the static costs a profile would divide by (bytes moved, FLOPs: transforms/static_costs.h)
// and the measurements of a profile report (`weir run --profile=FILE`), located as the page's
// validation problems are (SDFG name, block path, node, edge).
#pragma once

#include <map>
#include <memory>
#include <nlohmann/json_fwd.hpp>
#include <string>

namespace weir {
class SDFG;
}

namespace weir::cli::view {

/// A profile report read from a file: its JSON and the SDFG the report was made from (the
/// instrumented SDFG `weir run --profile` writes into it as `weir_profile.sdfg`).
struct ProfileReport {
  std::shared_ptr<const nlohmann::json> json;
  std::unique_ptr<SDFG> sdfg;
};

/// Reads `path`. Throws UsageError naming the file for one that does not read, is not JSON
/// (with its line and column), has no `weir_profile` part with `elements` and `sdfg` (a report
/// of another tool, or of a weir before reports carried their SDFG), or whose SDFG does not load.
ProfileReport read_profile_report(const std::string& path);

/// `sdfg` as `weir run --profile` compiles it (with_timers' form): read back from its JSON (ids
/// numbered by position) and, where it has library nodes the compile expands, with the timers
/// of instrument-timers set and then those nodes expanded and read back again. The ids of a
/// report's elements are this SDFG's.
std::unique_ptr<SDFG> as_profiled(const SDFG& sdfg);

/// The measured overlay: the report's program, calls, median call time and probe, and per
/// element its location in `sdfg`, kind, label and numbers (median ms, share of the call, GB/s,
/// share of the probe, GFLOP/s, bytes, FLOPs, arithmetic intensity = FLOPs / bytes). Throws
/// UsageError naming `path` and the element when an element is not `sdfg`'s (not there, or
/// another element there): the report was made from another SDFG.
nlohmann::json profile_overlay(const SDFG& sdfg, const nlohmann::json& report, const std::string& path);

/// The static overlay: for every element a profile times (states, maps outside any map,
/// library nodes, nested SDFG calls, copies; the instrument-timers pass's choice) its location,
/// kind, label, bytes moved and FLOPs as expressions of the SDFG's symbols (static_cost), and
/// their values where `symbols` gives every symbol they need (else null and `needs` lists the
/// missing ones). An SDFG that does not validate gets no elements and a `problem`.
nlohmann::json static_overlay(const SDFG& sdfg, const std::map<std::string, long long>& symbols);

}  // namespace weir::cli::view
