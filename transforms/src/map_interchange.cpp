// MapInterchange: swap two directly nested maps.
#include "weir/transforms/map_interchange.h"

#include <set>

#include "dataflow_util.h"
#include "weir/transforms/memlet_propagation.h"

namespace weir::transforms {

MapInterchange::MapInterchange()
    : PatternTransformation(
          "MapInterchange",
          "Swap two directly nested maps whose ranges do not depend on each other's parameters") {}

std::vector<std::vector<std::uint32_t>> MapInterchange::expand(const MatchContext& ctx,
                                                               std::uint32_t anchor) const {
  std::string why;
  NodeId inner = detail::directly_nested_map(*ctx.state, *ctx.state->node(anchor).as<MapEntry>(), why);
  if (inner == kNoNode) return {{anchor}};
  return {{anchor, inner}};
}

namespace {

std::string dependency(const MapInfo& a, const MapInfo& b) {
  std::set<std::string> bp(b.params.begin(), b.params.end());
  for (std::size_t d = 0; d < a.range.dims() && d < a.params.size(); ++d) {
    const Range& r = a.range[d];
    for (const sym::Expr* e : {&r.start, &r.end, &r.step})
      for (const auto& s : e->free_symbols())
        if (bp.count(s))
          return "the range of parameter '" + a.params[d] + "' depends on parameter '" + s + "'";
  }
  return {};
}

}  // namespace

MatchResult MapInterchange::can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) const {
  const SDFGState& st = *ctx.state;
  const auto* outer = &pattern(ctx, sub).get<0>();
  std::string why;
  const MapEntry* nested = detail::nested_static_map(st, *outer, sub, why);
  if (!nested) return refuse(why);
  const MapEntry& inner = *nested;
  if (auto d = dependency(*inner.map, *outer->map); !d.empty()) return refuse(d);
  if (auto d = dependency(*outer->map, *inner.map); !d.empty()) return refuse(d);
  return MatchResult::success();
}

void MapInterchange::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  SDFGState& st = *ctx.state;
  auto& outer = pattern(ctx, sub).get<0>();
  auto& inner = pattern(ctx, sub).get<1>();
  std::swap(outer.map->params, inner.map->params);
  std::swap(outer.map->range, inner.map->range);
  // Memlets between the two scopes were specialised to the outer parameters, which are now the
  // inner ones: start from the (parameter-free) memlets outside the outer map (kept where
  // propagation cannot say more), then propagate.
  for (EdgeId e : st.out_edges(outer.id())) {
    DataflowEdge& d = st.edge(e);
    if (auto m = detail::outer_memlet_of_entry(st, outer.id(), d.src_conn)) d.memlet = *m;
  }
  for (EdgeId e : st.in_edges(outer.exit)) {
    DataflowEdge& d = st.edge(e);
    if (auto m = detail::outer_memlet_of_exit(st, outer.exit, d.dst_conn)) d.memlet = *m;
  }
  propagate_memlets_scope(st, outer.id());
}

}  // namespace weir::transforms
