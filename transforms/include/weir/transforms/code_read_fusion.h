// CodeReadFusion: vertical map fusion by recomputation through neighbour reads in tasklet code
// (docs/adr/0052, "2026-12-06, later"). The field-view lowering reads a field at a neighbour
// (`g(C2E)`) as `__all_g[idx, __K]` inside the consumer's code, with `idx` from a connectivity
// table; OTFMapFusion, which copies producers to the points of memlets, cannot see such reads.
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [MapExit of map A, AccessNode of a transient T, MapEntry of map B], both maps at the
/// top level of one state, A writes T, B reads it.
///
/// A must hold one Python tasklet without side effects that writes T[p0, p1, ...] (its own
/// parameters, in order) over the whole of T (ranges 0:extent, unit steps), reading its inputs
/// from access nodes through single-element or dynamic memlets. B must read T through one
/// dynamic connector of one Python tasklet made of `name = value` statements, only as subscripts
/// `conn[i0, i1, ...]` (one index per dimension of T) that Python always evaluates (not inside a
/// branch of `x if c else y` or after the first operand of `and`/`or`).
///
/// Result: before each statement of B's tasklet, per read `conn[i0, i1]` in it, the indices go to
/// new names and A's statements follow with its parameters replaced by them, its assigned names
/// prefixed, and its single-element inputs `x` (memlet `X[f(p)]`) replaced by code reads
/// `__T___all_X[f(point)]` of new whole-array connectors; the read becomes A's result. The same
/// operations on the same values: results are bit-identical. A, T's node here and T (unless
/// other states still use it, see below) disappear; B keeps the bounds checks of what went
/// (CheckedAccess records: B's read of T, A's outer memlets). B's index into T stays checked
/// against T's extent: the new element connectors cover A's range (T's extent) from the first
/// element, so the generated index checks test it; in a dimension where no single-element input
/// of A is read at A's parameter, B must index T by one of its own parameters and the fused map
/// checks B's range of it against T's extent before it runs (refused otherwise).
///
/// Refuses, with the reason, when: A's body is not one such tasklet, does not write T at its
/// parameters or not the whole of T; T is also read by another node ("the producer would stay
/// and recomputing only adds work"), used by name elsewhere, or read in another state after this
/// write (the path liveness of the pointwise fusions); B reads T through a memlet
/// (OTFMapFusion's case), under a condition or other than as a subscript; B writes an input of A
/// or another node of the state may write one before B ran; and by the cost rule: the reads of
/// one copy of A (its element inputs plus its code subscripts) times the reads of T in B must
/// not exceed option `max_reads` (default 16; 0: no limit).
class CodeReadFusion final : public PatternTransformation<MapExit, AccessNode, MapEntry> {
 public:
  CodeReadFusion();

  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
