// DeadAssignmentElimination: interstate assignments whose value no read can see are removed
// (liveness of symbols over the control-flow graph; DaCe's DeadSymbolElimination goes only as
// far as "nothing reads the symbol"). Frees the edges between states for StateFusion: an
// orchestrated SDFG records its bindings in `__binding` on every call edge (ADR 0019), and
// every such assignment whose value is overwritten before any read is dead (ADR 0052).
#pragma once

#include <optional>
#include <string>

#include "weir/transforms/pipeline.h"

namespace weir::transforms {

/// Why the assignment of `symbol` on edge `edge` of `region` (a region of `sdfg`, not of a
/// nested SDFG) may be read, or nullopt when it is dead. The assignment is dead when
///  * nothing in `sdfg` reads the symbol (descriptors, interstate conditions and values, loop
///    statements, branch conditions, map ranges, tasklet code, memlets, symbol mappings of
///    nested SDFGs), or
///  * on every path from the edge's destination within `region`, an edge assigns the symbol
///    again before any block or edge reads it, and no path reaches the end of `region`
///    unless `region` is the SDFG itself (a symbol's value is not an output).
/// Kept, with the reason: the symbol is a loop variable or a container; another assignment
/// of the same edge reads it; "read in block 'B'"; "read by the edge 'A' -> 'B'"; "reaches
/// the end of region 'R'" (a loop body or branch: what follows is not looked at); "reaches
/// the control transfer 'B'" (break, continue, return).
/// Throws TransformError when the edge has no such assignment.
std::optional<std::string> assignment_live_reason(const SDFG& sdfg, const ControlFlowRegion& region,
                                                  EdgeId edge, const std::string& symbol);

/// Per SDFG (nested SDFGs separately): removes every dead interstate assignment (see
/// assignment_live_reason) and drops a symbol from `symbols` once nothing assigns or reads it
/// (so that it does not become an argument). run() returns the number of removed assignments.
class DeadAssignmentElimination final : public Pass {
 public:
  DeadAssignmentElimination();

 protected:
  std::size_t run_pass(SDFG& sdfg, Transaction& tx) override;
};

}  // namespace weir::transforms
