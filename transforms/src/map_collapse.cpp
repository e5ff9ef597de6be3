// MapCollapse: two directly nested maps -> one map over both parameter lists.
#include "weir/transforms/map_collapse.h"

#include <set>

#include "dataflow_util.h"

namespace weir::transforms {

MapCollapse::MapCollapse()
    : PatternTransformation(
          "MapCollapse",
          "Collapse a map nested directly inside another (no nodes between) into one multi-dimensional map") {
}

std::vector<std::vector<std::uint32_t>> MapCollapse::expand(const MatchContext& ctx,
                                                            std::uint32_t anchor) const {
  std::string why;
  NodeId inner = detail::directly_nested_map(*ctx.state, *ctx.state->node(anchor).as<MapEntry>(), why);
  if (inner == kNoNode) return {{anchor}};
  return {{anchor, inner}};
}

MatchResult MapCollapse::can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) const {
  const SDFGState& st = *ctx.state;
  const auto* outer = &pattern(ctx, sub).get<0>();
  std::string why;
  const MapEntry* nested = detail::nested_static_map(st, *outer, sub, why);
  if (!nested) return refuse(why);
  const MapEntry& inner = *nested;
  // A parallel map around a sequential one is a decision already taken (cpu-schedules splits the
  // innermost dimension of a parallel map off so; user31's G23: collapsing them again made a
  // second --auto cpu redo the same split): two decided schedules that differ stay two maps.
  const ScheduleType so = outer->map->schedule, si = inner.map->schedule;
  if (so != ScheduleType::Default && si != ScheduleType::Default && so != si)
    return refuse("the maps have different schedules (" + std::string(to_string(so)) + " around " +
                  std::string(to_string(si)) + "): one map would lose one of them");
  std::set<std::string> outer_params(outer->map->params.begin(), outer->map->params.end());
  for (const auto& p : inner.map->params)
    if (outer_params.count(p)) return refuse("both maps have a parameter named '" + p + "'");
  for (std::size_t d = 0; d < inner.map->range.dims() && d < inner.map->params.size(); ++d) {
    const Range& r = inner.map->range[d];
    for (const sym::Expr* e : {&r.start, &r.end, &r.step})
      for (const auto& s : e->free_symbols())
        if (outer_params.count(s))
          return refuse("the range of inner parameter '" + inner.map->params[d] +
                        "' depends on outer parameter '" + s + "'");
  }
  return MatchResult::success();
}

void MapCollapse::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  SDFGState& st = *ctx.state;
  auto& outer = pattern(ctx, sub).get<0>();
  auto& inner = pattern(ctx, sub).get<1>();
  NodeId outer_exit = outer.exit, inner_exit = inner.exit;

  // Entry side: outer OUT_a -> inner IN_b, inner OUT_b -> x   becomes   outer OUT_a -> x.
  // Ordering edges (no connector) of the inner entry leave the outer entry instead.
  for (EdgeId l : std::vector<EdgeId>(st.out_edges(outer.id()))) {
    DataflowEdge link = st.edge(l);
    if (link.dst_conn.rfind("IN_", 0) != 0) continue;
    for (EdgeId e : st.out_edges_by_connector(inner.id(), "OUT_" + link.dst_conn.substr(3))) {
      DataflowEdge d = st.edge(e);
      st.add_edge(outer.id(), link.src_conn, d.dst, d.dst_conn, d.memlet);
    }
  }
  for (EdgeId e : std::vector<EdgeId>(st.out_edges(inner.id())))
    if (st.edge(e).src_conn.empty()) {
      DataflowEdge d = st.edge(e);
      st.add_edge(outer.id(), "", d.dst, d.dst_conn, d.memlet);
    }
  // Exit side: y -> inner_exit IN_b, inner_exit OUT_b -> outer_exit IN_a   becomes   y -> outer_exit IN_a.
  for (EdgeId l : std::vector<EdgeId>(st.in_edges(outer_exit))) {
    DataflowEdge link = st.edge(l);
    if (link.src_conn.rfind("OUT_", 0) != 0) continue;
    for (EdgeId e : st.in_edges_by_connector(inner_exit, "IN_" + link.src_conn.substr(4))) {
      DataflowEdge d = st.edge(e);
      st.add_edge(d.src, d.src_conn, outer_exit, link.dst_conn, d.memlet);
    }
  }
  for (EdgeId e : std::vector<EdgeId>(st.in_edges(inner_exit)))
    if (st.edge(e).dst_conn.empty()) {
      DataflowEdge d = st.edge(e);
      st.add_edge(d.src, d.src_conn, outer_exit, "", d.memlet);
    }

  MapInfo& m = *outer.map;
  const MapInfo& im = *inner.map;
  for (std::size_t d = 0; d < im.params.size(); ++d) {
    m.params.push_back(im.params[d]);
    m.range.ranges().push_back(im.range.ranges()[d]);
  }
  st.remove_node(inner.id());
  st.remove_node(inner_exit);
}

}  // namespace weir::transforms
