// ScanColumnBlocking: a map over columns around a nested SDFG of sequential level loops (what
// LoopMapInterchange makes of a scan) runs blocks of columns per map point, the block's columns
// innermost inside every level, so that the levels' dependent operations of several columns
// overlap (ADR 0044).
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [NestedSDFGNode] that is the only node of a map's scope, the map's last parameter
/// `j` (the column dimension to block) with unit step, every memlet of the node indexing its
/// data at exactly `j` in one dimension and using `j` nowhere else, or (reads only) not using
/// `j` at all: a scalar or a field shared by every column, no symbol of the nested
/// SDFG mapped from `j`, and a nested SDFG whose states hold only access nodes and tasklets
/// (edges access -> tasklet -> access, or tasklet -> transient -> tasklet: an intermediate value
/// of a level's expression; no write-conflict resolution, no copies) and whose control flow
/// reads no container. Option `block_size` (B; default 0: the largest of 64, 32, 16, 8 whose
/// block's cache lines per level fit in an L1 data cache of `l1_bytes` (default 32 KiB):
/// one line per column of each container whose blocked dimension is not contiguous, B / 8 lines
/// for one whose is and for each transient; docs/adr/0044, session 37). Refused: B = 1.
///
/// Result: the map iterates `j` in steps of B; the nested SDFG receives the block `j :
/// Min(j + B - 1, end)` of each container (a new dimension of size `__colblock_n` = Min(B, end -
/// j + 1), the block's width, with the outer stride of `j`'s dimension). Inside, every state's
/// tasklets run in one sequential map over `__colblock_q` in 0 : `__colblock_n` - 1, marked for
/// SIMD (`weir_vectorize`), their memlets indexing the new dimension at `__colblock_q`; the
/// nested SDFG's transients gain a last dimension of B (scalars, a scan's carries, become arrays
/// of B in registers), except transient scalars that only carry values between tasklets of a
/// state, which stay scalars inside the SIMD loop (one per column). A shared read keeps its
/// memlets and descriptor: every column of the block reads the same element (a broadcast); a
/// write not indexed by `j` is refused. Each column still runs the same operations in the same
/// order; columns are independent (their accesses are at the map point), so the result is
/// unchanged.
class ScanColumnBlocking final : public PatternTransformation<NestedSDFGNode> {
 public:
  ScanColumnBlocking();

  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
