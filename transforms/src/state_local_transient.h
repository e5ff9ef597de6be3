// Whether a transient's values never cross a state boundary: every state that accesses it writes
// all of it first, or what one state leaves is overwritten on every path before it is read
// (internal to the map fusions).
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

/// Empty when what state `st` leaves in transient T is never read: `st` has one access node of
/// T, and on every path of the control flow from the end of `st` a state that writes T whole
/// first (written_whole_first) comes before any state that could read it, or the SDFG ends. A
/// path goes on through states that do not access T (or only write it) and through
/// conditionals branch by branch (a conditional kills T when every branch does and one is the
/// else branch); from the end of a branch body it continues after the conditional, from the
/// end of a plain region after the region, from the end of a loop body both at the body's start
/// (the next iteration) and after the loop. Conservative: a loop met on the way that accesses
/// T, and a break, continue or return count as reads.
/// Otherwise why not (`'lap' is read in state 'call_diffuse_w_1' before a whole write`). The
/// caller checks that T is not named in control flow or by name elsewhere (DataUse). Cost: a
/// walk of the blocks after `st`, each state's access nodes of T.
std::string dead_after_state(const SDFG& sdfg, const SDFGState& st, const std::string& T);

}  // namespace weir::transforms::detail
