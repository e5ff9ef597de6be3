// ScanFullBlocks: a column-blocked scan (ScanColumnBlocking, ADR 0044) runs its full blocks with
// a block width known at compile time (each carry one vector from level k - 1 to level k) and
// its last, partial block separately (ADR 0059).
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [MapEntry] of a map whose scope holds exactly one NestedSDFGNode, as
/// ScanColumnBlocking leaves it: the map's last parameter `j` steps by a constant B >= 2 over
/// `start : end` (inclusive), and the nested SDFG's block width `__colblock_n` is mapped from
/// `Min(B, end - j + 1)`.
///
/// Result: the map covers the full blocks, `j` in `start : start + floor(n / B) * B - 1` step B
/// (n = end - start + 1), with `__colblock_n` mapped from the constant B: the block's SIMD maps
/// (`__colblock_q` in 0 : B - 1) then have a constant trip count and the carries (register arrays
/// of B) a constant extent, so that each level of B columns compiles to straight-line vector
/// code of full width (B = 8 doubles: one AVX-512 register per carry), without a trip-count test
/// or a scalar epilogue. A copy of the scope (the nested SDFG cloned) covers the rest, `j` in
/// `start + floor(n / B) * B : end` (at most one block, none when B divides n), keeps the
/// Min-bounded width and is marked `weir_colblock_remainder` (MapInfo::extra, the block size).
/// Every column runs the same operations in the same order as before, so results are
/// bit-identical.
///
/// Refuses (can_apply says which): dynamic range inputs; a scope other than one nested SDFG; a
/// last dimension whose step is not an integer >= 2; a nested SDFG without `__colblock_n` (not
/// column-blocked: ScanColumnBlocking first); a width already constant (full blocks already); a
/// width mapped from anything other than `Min(B, end - j + 1)`; the remainder map this
/// transformation made.
class ScanFullBlocks final : public PatternTransformation<MapEntry> {
 public:
  ScanFullBlocks();

  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

/// The attribute (MapInfo::extra) of the remainder map ScanFullBlocks made: the block size.
inline constexpr const char* kColumnRemainderAttribute = "weir_colblock_remainder";

}  // namespace weir::transforms
