// Whether a transient's values never cross a state boundary: every state that accesses it writes
// all of it first (internal to the map fusions).
#pragma once

#include <string>

#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

namespace weir::transforms::detail {

/// Empty when the single access node `an` of transient T in `st` is written as a whole before
/// anything reads it there: its only in-edge comes from the exit of a top-level map that writes
/// T[p_0 + 0, ..., p_n + 0] (one parameter per dimension, each once) from a tasklet with a
/// single-element, non-dynamic memlet without write-conflict resolution, over the ranges
/// 0:shape[d] with unit steps (every element, T's offsets all 0). Otherwise why not, as text
/// ("'T' has 2 access nodes in state 's'", "map 'm' writes T[0:N - 1] of T's 0:N", ...).
std::string written_whole_first(const SDFG& sdfg, const SDFGState& st, const AccessNode& an);

/// Empty when what a write of transient T leaves in one state is never read in another: T has
/// at most one access node per state in `sdfg` (states of nested regions included, not of nested
/// SDFGs), each written_whole_first. Every state then reads only what it wrote itself, so once
/// the state ends T's values are dead. Otherwise the first state that breaks it, with the reason
/// (`'lap' is read in state 'call_diffuse_w_1' without being written there first`). The caller
/// checks that T is not named in control flow or by name elsewhere (DataUse). Cost: a walk of
/// every state's nodes.
std::string state_local_transient(const SDFG& sdfg, const std::string& T);

}  // namespace weir::transforms::detail
