// HaloExchangeOverlap: computes the interior of a stencil while its halo exchange is in flight
// (docs/adr/0057-distributed-memory.md, section 2026-12-06 "overlap").
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"
#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [exchange state, consumer state] in one region. The exchange state holds only
/// HaloExchange library nodes (weir/distributed/halo_exchange.h; not yet split) and their access
/// nodes, and leaves by one unconditional edge without assignments to the consumer state, whose
/// only in-edge it is. The consumer holds one top-level map (step 1) between access nodes; the
/// map reads at least one exchanged array, writes none and reads none of the arrays it writes,
/// and indexes every exchanged array along every exchanged axis at one map parameter plus a
/// constant.
///
/// The rewrite: the exchange nodes become `phase` "start" (pack and post MPI_Isend/MPI_Irecv of
/// the first split axis), the consumer's map shrinks to the *interior* (the points whose reads
/// stay inside the rank's part, [frame_lo, size - frame_hi) along each exchanged axis, so no
/// halo cell), then a new state holds the same exchanges as `phase` "wait" (MPI_Waitall, unpack,
/// the remaining axes), and a copy of the consumer computes the *boundary*: per split map
/// dimension two strips (below and above the interior), earlier dimensions restricted to the
/// interior so the strips and the interior cover the map's range exactly once. The interior's
/// bounds are clamped (Min/Max), so a part too thin for any interior point leaves it empty and
/// the strips compute everything. A start and its wait share `overlap` (a number unique in the
/// SDFG) for the code generator.
class HaloExchangeOverlap final : public PatternTransformation<SDFGState, SDFGState> {
 public:
  HaloExchangeOverlap();
  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

/// Where HaloExchangeOverlap would split a map: per map dimension it restricts, the interior's
/// inclusive bounds (clamped into the map's range) as the rewrite sets them.
struct OverlapSplit {
  std::vector<std::size_t> dims;  ///< map dimensions restricted, ascending
  std::vector<sym::Expr> lo, hi;  ///< interior [lo, hi] per entry of `dims` (inclusive)
};

/// The split HaloExchangeOverlap computes for the match (exchange state `exchange`, consumer
/// state `consumer` of `sdfg`), or a refusal. For tests and reports.
MatchResult overlap_split(const SDFG& sdfg, const SDFGState& exchange, const SDFGState& consumer,
                          OverlapSplit& out);

/// What overlap_halo_exchanges did: how many exchange states it split, and per exchange state
/// it left whole, "state 'NAME': reason".
struct OverlapReport {
  int split = 0;
  std::vector<std::string> refused;
};

/// Applies HaloExchangeOverlap wherever it can in `sdfg` (all regions and nested SDFGs), one
/// match at a time, transactionally; what `weir run --decompose --overlap` runs.
OverlapReport overlap_halo_exchanges(SDFG& sdfg);

}  // namespace weir::transforms
