// The halos of an orchestration function over Cartesian programs (docs/adr/0057, 2026-12-07):
// its SDFG as lowered (before auto-optimize inlines the calls) has one NestedSDFG node per call;
// each call's program is analysed as a single program is (analyse_halos) and its containers
// are mapped to the orchestration's arrays through the call's connectors, so a field passed as
// `u` in one call and as `out` in the next (a swap) is one array.
#pragma once

#include <string>
#include <vector>

#include "weir/distributed/halo_analysis.h"
#include "weir/sdfg/sdfg.h"

namespace weir::distributed {

/// One call (a NestedSDFG node in `state`) and the orchestration's arrays it reads shifted
/// along a decomposed dimension, with the widths that call reads them at.
struct CallHalos {
  const SDFGState* state = nullptr;
  std::string program;             ///< the called program's name
  std::vector<InputHalo> shifted;  ///< orchestration arrays (outer names) read shifted
};

/// What decomposing an orchestration function needs: the merged halos (the common frame of
/// every call, per array the widest width any call reads it at, every array some call writes)
/// for the decomposition and the gather, and the calls that read arrays shifted.
struct OrchestrationHalos {
  ProgramHalos merged;
  std::vector<CallHalos> calls;
  /// Arrays read shifted that no call writes: one exchange before the first state suffices.
  std::vector<InputHalo> read_only;
};

/// The orchestration array `sdfg` passes to connector `conn` of call `n` in state `st` (its
/// in-edges for `read`, else its out-edges), "" when none. Throws weir::Error naming the program
/// when only part of the array is passed (a partition or decomposition splits whole arrays).
std::string call_argument(const SDFG& sdfg, const SDFGState& st, const NestedSDFGNode& n,
                          const std::string& conn, bool read);

/// Adds a state labelled `label` before `target` (a state of `sdfg`) that takes over all of
/// target's incoming interstate edges (and its place as its region's start), so that what it
/// holds runs on every path into `target`: after a previous iteration, a swap or a branch.
/// Returns the new state. Throws weir::Error for a state outside any region.
SDFGState& add_state_before(SDFG& sdfg, SDFGState& target, const std::string& label);

/// Analyses every call of `sdfg` (an orchestration function lowered, not yet optimized) along
/// `dims`. Throws weir::Error naming the programs when two calls leave different frames along a
/// dimension (one decomposition must split every call's output domain the same way), when a
/// call passes part of an array rather than the whole, and as analyse_halos does for one call.
OrchestrationHalos analyse_orchestration_halos(const SDFG& sdfg, const std::vector<std::string>& dims);

/// Inserts the HaloExchange nodes of `halos` into `sdfg` (the SDFG analysed): one state before
/// the start state for the arrays no call writes, and one state before every call state that
/// reads a written array shifted (so an exchange runs on every path into the call: after a
/// previous iteration, a swap or a branch), taking over that state's incoming interstate edges.
/// Returns how many nodes it added. `grid`: ranks per entry of `dims`.
int insert_call_exchanges(SDFG& sdfg, const OrchestrationHalos& halos, const std::vector<std::string>& dims,
                          const std::vector<int>& grid);

}  // namespace weir::distributed
