// CopyIntoMap: a map's result copied after the map: each point writes its element of the copy's
// destination itself.
#pragma once

#include "weir/transforms/pattern.h"

namespace weir::transforms {

/// Pattern: [AccessNode A, AccessNode B] outside any map, joined by one copy edge. A's node is
/// written by one map M alone, one element per point from one tasklet directly inside M (A[p]:
/// each index a parameter plus a constant, every parameter used, unit steps), and the copy reads
/// exactly the part of A that M writes, onto a part of B of the same extents (dimensions of
/// extent 1 may differ: `ccol[:, :, k] = t` from a 2-D `t`) and element type. B's node has no
/// other writer; every other access node of B in the state is read only by tasklets directly
/// inside M, each reading either B's element the point would write (and a predecessor of the
/// tasklet that writes A[p]: `data_col = f(data_col)`, element by element) or elements outside
/// the copied part (`ccol[..., k - 1]` beside `ccol[..., k]`), or elements inside it whose
/// points together read a part of fewer wide dimensions than the copied part (floyd_warshall's
/// `path[i, k]` and `path[k, j]` beside `path[i, j]`: a column and a row of the matrix; each
/// index free of the map's parameters or one parameter plus a constant; CPU maps): those reads
/// go to a transient snapshot of that part, copied from B before the map (the values the copy
/// after the map had kept intact), so the whole-array temporary and its copy go for a copy of
/// a row or column. The map may read B through views of B (DaCe's frontend reads `path[:, k]`
/// through a view `path_1`): a view node whose `views` edge comes from B's node, read only by M,
/// whose dimensions of more than one element run along those of its subset of B in order with
/// the same extents and strides; its reads count as reads of B at those elements (a snapshot is
/// copied from B's node itself, and the view goes when nothing reads it any more). A strided,
/// transposed or reshaping view is refused, named. Then each point also writes its element of B: the
/// tasklet's value goes to a new transient scalar, which two copy tasklets write to A[p] and B[p'] through
/// M's exit; the copy edge goes. A stays written (while anything reads it: DeadDataflowElimination removes
/// the write when nothing does). The copy then no longer stands between M and a loop around it
/// (LoopMapInterchange refuses a copy outside the maps of a scan's level; vadv's sweeps), and M
/// fuses with the maps that read B.
class CopyIntoMap final : public PatternTransformation<AccessNode, AccessNode> {
 public:
  CopyIntoMap();
  std::vector<std::vector<std::uint32_t>> expand(const MatchContext& ctx,
                                                 std::uint32_t anchor) const override;
  MatchResult can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) const override;
  void apply(const MatchContext& ctx, const std::vector<std::uint32_t>& subgraph) override;
};

}  // namespace weir::transforms
