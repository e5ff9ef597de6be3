// Bounds checks of a nested SDFG's loop body hoisted before the loop (loop_check_hoisting.cpp,
// docs/adr/0044 session 37): a scan's level state checks its memlets at every level, though
// they move with the loop variable only by a constant shift; checked at the loop variable's
// first and last value before the loop, the level's function records no fault, so that no
// fault poll follows it and the level loop keeps no branch out of it.
#pragma once

#include "codegen_internal.h"

namespace weir::codegen::detail {

/// Emits into `w` the bounds checks of the states of `loop` (a loop of the nested SDFG that `sg`
/// generates), to run before the loop at the lowest and the highest value its variable takes
/// (none when the loop runs no iteration), adds the states to SdfgGen::hoisted_check_states so
/// that their functions emit no checks, and returns true; false (nothing emitted, nothing
/// added) when the loop does not qualify. It qualifies when it is a for loop (weir/sdfg/for_loop.h)
/// in host code of a nested SDFG with bounds checks on, whose body is states only, joined by
/// unconditional edges without assignments (every state runs at every value, and no symbol
/// but the loop variable changes), where the loop variable appears in no map range, container
/// shape or offset, and in memlet subsets only in ranges whose start is affine in it and whose
/// length does not depend on it (a shifted point, `K - 1`, or a fixed-length window): each
/// check then fails somewhere in the loop's range only if it fails at one of its ends. States
/// with view containers or reach checks of their own (SdfgGen::state_reach_checks) keep their
/// checks.
bool emit_hoisted_loop_checks(SdfgGen& sg, const LoopRegion& loop, Writer& w);

}  // namespace weir::codegen::detail
