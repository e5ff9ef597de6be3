// Lowering of structured control flow (DaCe 2.x control-flow regions) to plain states joined by
// interstate edges: the form older DaCe versions, SDFV and state-machine code generators use.
#pragma once

#include <cstddef>

#include "weir/sdfg/sdfg.h"

namespace weir::transforms {

/// Rewrites every control-flow region of `sdfg` (LoopRegion, ConditionalBlock, nested
/// ControlFlowRegion, Break/Continue/Return blocks), recursively and in nested SDFGs too, into
/// plain SDFGStates joined by interstate edges with conditions and assignments.
///
/// Semantics are preserved exactly (interstate assignments are ordered, as weir defines them):
///  * LoopRegion `L`: a guard state "<L>_guard" with the edge `cond` to the body's start and
///    `not (cond)` to an exit state "<L>_end". The init statement's assignments go on the
///    edge(s) entering the loop (merged into the incoming edge when that cannot change its
///    meaning, else through a fresh "<L>_init" state, which is also used when the loop was the
///    start block); the update's assignments on the back edges from the body's end states to
///    the guard. `inverted` loops enter the body first and check the condition in the guard
///    after it; with `update_before_condition == false` the update sits on the guard's `cond`
///    edge instead. An empty body gets an empty "<L>_body" state.
///  * ConditionalBlock `C`: a state "<C>_guard" with one edge per branch, conditioned on
///    `(not (c0)) and ... and (ci)`, to the branch bodies, which all join in "<C>_end" (an
///    implicit else edge goes straight there).
///  * ControlFlowRegion: inlined; its in-edges go to its start block, its out-edges leave its
///    single end state (or a fresh "<R>_end" joining several).
///  * BreakBlock / ContinueBlock: their in-edges are redirected to the loop's exit / back edge
///    (ContinueBlock edges get the update assignments); one that starts the loop body becomes
///    an empty state with that edge. ReturnBlock becomes an empty sink state (label kept,
///    "return_state" if it had none). Edges out of these blocks are never taken and are dropped;
///    a loop left without incoming edges still gets its "<L>_init" state.
///  * A state inside a region whose out-edges are all conditional and not evidently exhaustive
///    gets an extra edge `not ((c1) or ...)` to the region's exit: in DaCe, a region ends when
///    no out-edge of its current block is taken.
/// No two edges join the same pair of states (DaCe's graphs are not multigraphs): where one
/// would, or where appending assignments to an edge could change their meaning, a fresh empty
/// state is put in between.
/// Original states are moved, never copied (same objects, labels, dataflow); fresh states get
/// labels unique in their SDFG. Labels are unique per region, so states moved out of different
/// regions may share one: all but the first (in block order) get fresh labels ("<label>_1"), so
/// that the flat graph validates. Sets `using_explicit_control_flow = false` on `sdfg` and on every
/// nested SDFG. Returns the number of non-state blocks removed (loops, conditionals, regions,
/// break/continue/return blocks; a conditional's branch bodies are not counted separately).
///
/// Throws weir::Error (before changing anything) if a loop's init/update statement is not a
/// list of `name = expression` statements separated by ';' or newlines, if a loop or branch
/// condition is not Python, if a Break/ContinueBlock is outside any loop, or if a region to
/// inline has no unique start block.
std::size_t flatten_control_flow(SDFG& sdfg);

}  // namespace weir::transforms
