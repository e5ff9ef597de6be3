// TrivialMapElimination: drop map dimensions with a single iteration.
#include "weir/transforms/trivial_map_elimination.h"

#include "dataflow_util.h"

namespace weir::transforms {

TrivialMapElimination::TrivialMapElimination()
    : PatternTransformation("TrivialMapElimination",
                            "Remove map dimensions of size 1, substituting the parameter by its value (the "
                            "whole map if all are)",
                            {}, Effects{.converges = true, .no_data = true}) {}

std::vector<std::vector<std::uint32_t>> TrivialMapElimination::expand(const MatchContext&,
                                                                      std::uint32_t anchor) const {
  return {{anchor}};
}

namespace {

bool trivial(const Range& r) { return r.start == r.end; }

}  // namespace

MatchResult TrivialMapElimination::can_apply(const MatchContext& ctx,
                                             const std::vector<std::uint32_t>& sub) const {
  const auto* me = &pattern(ctx, sub).get<0>();
  if (auto dyn = detail::dynamic_inputs(*me); !dyn.empty())
    return refuse("map '" + me->map->label + "' has dynamic range inputs (" + dyn + ")");
  const MapInfo& m = *me->map;
  if (m.range.dims() != m.params.size())
    return refuse("map '" + m.label + "' has a different number of parameters and ranges");
  bool any = false, all = true;
  for (const Range& r : m.range.ranges()) {
    any = any || trivial(r);
    all = all && trivial(r);
  }
  if (!any) return refuse("no dimension of map '" + m.label + "' has exactly one iteration");
  // A one-point kernel is the only thing that runs its body on the GPU.
  bool kernel = m.schedule == ScheduleType::GPU_Device || m.schedule == ScheduleType::GPU_Persistent ||
                m.schedule == ScheduleType::GPU_Default;
  if (all && kernel)
    return refuse("map '" + m.label + "' is a one-point GPU kernel (" + std::string(to_string(m.schedule)) +
                  "): without it its body would run on the host");
  return MatchResult::success();
}

void TrivialMapElimination::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  SDFGState& st = *ctx.state;
  auto& me = pattern(ctx, sub).get<0>();
  MapInfo& m = *me.map;
  std::map<std::string, sym::Expr> subs;
  std::vector<std::string> params;
  std::vector<Range> ranges;
  for (std::size_t d = 0; d < m.params.size(); ++d) {
    if (trivial(m.range[d])) {
      subs[m.params[d]] = m.range[d].start;
    } else {
      params.push_back(m.params[d]);
      ranges.push_back(m.range[d]);
    }
  }
  ScopeTree tree = st.scope_tree();
  detail::substitute_in_scope(st, tree, me.id(), subs);
  // Later (kept) ranges of the same map may use an eliminated parameter.
  for (auto& r : ranges) r = Subset({r}).subs(subs)[0];
  if (!params.empty()) {
    m.params = params;
    m.range = Subset(ranges);
    return;
  }
  // No dimension left: connect the map's surroundings to its body directly.
  NodeId entry = me.id(), exit = me.exit;
  std::vector<NodeId> order_preds, order_succs;
  for (EdgeId e : std::vector<EdgeId>(st.out_edges(entry))) {
    DataflowEdge d = st.edge(e);
    if (d.src_conn.rfind("OUT_", 0) == 0) {
      auto ins = st.in_edges_by_connector(entry, "IN_" + d.src_conn.substr(4));
      if (!ins.empty()) {
        const DataflowEdge& in = st.edge(ins.front());
        st.add_edge(in.src, in.src_conn, d.dst, d.dst_conn, d.memlet);
      }
    } else {
      order_succs.push_back(d.dst);
    }
  }
  for (EdgeId e : st.in_edges(entry))
    if (st.edge(e).dst_conn.empty()) order_preds.push_back(st.edge(e).src);
  for (NodeId p : order_preds)
    for (NodeId s : order_succs) st.add_edge(p, "", s, "", Memlet{});
  order_preds.clear();
  order_succs.clear();
  for (EdgeId e : std::vector<EdgeId>(st.in_edges(exit))) {
    DataflowEdge d = st.edge(e);
    if (d.dst_conn.rfind("IN_", 0) == 0) {
      for (EdgeId o : st.out_edges_by_connector(exit, "OUT_" + d.dst_conn.substr(3))) {
        const DataflowEdge& out = st.edge(o);
        st.add_edge(d.src, d.src_conn, out.dst, out.dst_conn, d.memlet);
      }
    } else {
      order_preds.push_back(d.src);
    }
  }
  for (EdgeId e : st.out_edges(exit))
    if (st.edge(e).src_conn.empty()) order_succs.push_back(st.edge(e).dst);
  for (NodeId p : order_preds)
    for (NodeId s : order_succs) st.add_edge(p, "", s, "", Memlet{});
  st.remove_node(entry);
  st.remove_node(exit);
}

}  // namespace weir::transforms
