// MapFusionHorizontal: two independent sibling maps over one range become one (see the header).
#include "weir/transforms/map_fusion_horizontal.h"

#include "fusion_util.h"

namespace weir::transforms {

MapFusionHorizontal::MapFusionHorizontal()
    : PatternTransformation("MapFusionHorizontal",
                            "Fuse two independent maps over the same range that read a common access node",
                            {}, Effects{.converges = true}) {}  // every application removes a map

std::vector<std::vector<std::uint32_t>> MapFusionHorizontal::expand(const MatchContext& ctx,
                                                                    std::uint32_t anchor) const {
  const SDFGState& st = *ctx.state;
  std::set<NodeId> others;
  for (EdgeId e : st.in_edges(anchor)) {
    NodeId src = st.edge(e).src;
    if (!st.node(src).as<AccessNode>()) continue;
    for (EdgeId o : st.out_edges(src)) {
      NodeId c = st.edge(o).dst;
      if (c > anchor && st.node(c).as<MapEntry>()) others.insert(c);
    }
  }
  std::vector<std::vector<std::uint32_t>> out;
  for (NodeId c : others) out.push_back({anchor, c});
  if (out.empty()) out.push_back({anchor});
  return out;
}

MatchResult MapFusionHorizontal::can_apply(const MatchContext& ctx,
                                           const std::vector<std::uint32_t>& sub) const {
  if (sub.size() != 2)
    return refuse("map '" + ctx.state->node(sub[0]).label + "' shares no input access node with another map");
  std::map<std::string, sym::Expr> rename;
  return detail::analyze_horizontal(*ctx.state, sub[0], sub[1], rename);
}

void MapFusionHorizontal::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  std::map<std::string, sym::Expr> rename;
  if (auto r = detail::analyze_horizontal(*ctx.state, sub[0], sub[1], rename); !r)
    throw TransformError("MapFusionHorizontal: " + r.reason());
  detail::apply_horizontal(*ctx.state, sub[0], sub[1], rename);
}

}  // namespace weir::transforms
