// OTFMapFusion: vertical (producer-consumer) map fusion by recomputation (DaCe's OTFMapFusion):
// the consumer may read the producer's transient at offsets (stencils); the producer's body is
// copied into the consumer once per distinct point read.
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [MapExit of map A, AccessNode of a transient T, MapEntry of map B], both maps at the
/// top level of one state, A writes T, B reads it.
///
/// A must write only T, one element per iteration at `T[p0 + c0, p1 + c1, ...]` (each dimension
/// one of A's parameters plus a constant, every parameter once), from a tasklet; its body holds
/// only tasklets (no side effects, code not naming A's parameters) and transient scalars; its
/// inputs come from access nodes. B reads T only as single elements straight into tasklets.
///
/// Result: for every distinct point `T[s]` B reads, A's body is copied into B with A's
/// parameters replaced so that A would write exactly `T[s]` (s = i + 1 gives p0 = i + 1 - c0),
/// its local scalars renamed per copy, and its result going to a new Register scalar that the
/// readers of `T[s]` now read. A's inputs enter B through B's existing connector from the same
/// access node (its outer memlet widened by memlet propagation) or a new one. When T has no
/// other reader A, T and the inputs only A read disappear; otherwise A stays and keeps writing T.
/// Reads at the same point share one copy, so fusing consumers first (the greedy pass does)
/// computes each needed point of every producer once per consumer iteration.
///
/// Refuses, with the reason, when: a map has dynamic range inputs or the schedules differ
/// (neither Default); T is not transient, is a view, or is written by another node; A writes
/// other containers, with write-conflict resolution, several elements, or not one parameter
/// plus a constant per dimension; A's body holds a map, nested SDFG or library node, a tasklet
/// with side effects or naming a parameter, or a non-scalar container; an input of A is written
/// by B ("recomputing inside 'B' would read overwritten values") or by another access node of
/// the same state whose writers B does not reach (B could read the new values); B
/// reads T into a non-tasklet or through a multi-element memlet; B reads a point A does not
/// provably write ("cannot prove that map 'B' reads T[i + 3] only where map 'A' writes it");
/// a limit is exceeded (options max_points: distinct points per fusion, max_tasklets: tasklets
/// in B's body after fusion; 0 = no limit).
class OTFMapFusion final : public PatternTransformation<MapExit, AccessNode, MapEntry> {
 public:
  OTFMapFusion();

  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
