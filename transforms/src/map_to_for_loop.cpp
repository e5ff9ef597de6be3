// MapToForLoop: replace a map scope by a nested SDFG that loops over the map's range.
#include "weir/transforms/map_to_for_loop.h"

#include <algorithm>

#include "dataflow_util.h"
#include "nest_util.h"
#include "weir/transforms/analysis.h"

namespace weir::transforms {

MapToForLoop::MapToForLoop()
    : PatternTransformation(
          "MapToForLoop",
          "Turn a top-level map into sequential for loops (one LoopRegion per parameter) in a nested SDFG") {}

std::vector<std::vector<std::uint32_t>> MapToForLoop::expand(const MatchContext&,
                                                             std::uint32_t anchor) const {
  return {{anchor}};
}

MatchResult MapToForLoop::can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) const {
  const SDFGState& st = *ctx.state;
  const auto* me = &pattern(ctx, sub).get<0>();
  const std::string what = "map '" + me->map->label + "'";
  if (auto dyn = detail::dynamic_inputs(*me); !dyn.empty())
    return refuse(what + " has dynamic range inputs (" + dyn + ")");
  if (me->map->range.dims() != me->map->params.size())
    return refuse(what + " has a different number of parameters and ranges");
  ScheduleType s = me->map->schedule;
  if (s == ScheduleType::GPU_Device || s == ScheduleType::GPU_Persistent || s == ScheduleType::GPU_Default)
    return refuse(what + " is a GPU kernel (" + std::string(to_string(s)) +
                  "): a host loop cannot run its body");
  const ScopeTree& tree = ctx.cache.scope_tree(st);
  if (tree.parent[me->id()] != kNoNode) return refuse(what + " is nested in another map");
  const auto& use = ctx.cache.data_use(ctx.sdfg);
  std::map<std::string, int> inside;
  for (NodeId n : detail::scope_body(st, tree, me->id())) {
    if (const auto* a = st.node(n).as<AccessNode>()) ++inside[a->data];
    if (const auto* inner = st.node(n).as<MapEntry>(); inner && !detail::dynamic_inputs(*inner).empty())
      return refuse(what + " contains map '" + inner->map->label + "' with dynamic range inputs");
  }
  for (const auto& [data, count] : inside) {
    auto u = use.find(data);
    if (!ctx.sdfg.has_data(data) || !ctx.sdfg.data(data).transient)
      return refuse(what + " accesses non-transient '" + data + "' inside its scope");
    if (u == use.end() || u->second.access_nodes != count || u->second.in_control_flow ||
        u->second.by_name_elsewhere)
      return refuse(what + " accesses transient '" + data + "', which is also used outside the map");
  }
  for (EdgeId e : st.in_edges(me->id())) {
    const DataflowEdge& d = st.edge(e);
    if (!d.memlet.is_empty() && !st.node(d.src).as<AccessNode>())
      return refuse(what + ": input '" + d.dst_conn + "' does not come from an access node");
  }
  for (EdgeId e : st.out_edges(me->exit)) {
    const DataflowEdge& d = st.edge(e);
    if (!d.memlet.is_empty() && !st.node(d.dst).as<AccessNode>())
      return refuse(what + ": output '" + d.src_conn + "' does not go to an access node");
  }
  return MatchResult::success();
}

void MapToForLoop::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  SDFGState& st = *ctx.state;
  SDFG& sdfg = ctx.sdfg;
  auto& me = pattern(ctx, sub).get<0>();
  const MapInfo m = *me.map;
  NodeId entry = me.id(), exit = me.exit;
  ScopeTree tree = st.scope_tree();
  auto body = detail::scope_body(st, tree, entry);
  std::set<NodeId> in_body(body.begin(), body.end());
  std::string label = detail::identifier_from(m.label);

  auto inner = std::make_unique<SDFG>(label + "_loop");
  ControlFlowRegion* parent = inner.get();
  for (std::size_t d = 0; d < m.params.size(); ++d) {
    const std::string& p = m.params[d];
    const Range& r = m.range[d];
    parent = &parent->add_loop(label + "_" + p, p, p + " = " + detail::python_expr(r.start),
                               p + " <= " + detail::python_expr(r.end),
                               p + " = " + p + " + " + detail::python_expr(r.step));
    inner->symbols[p] = DataType::scalar(ScalarType::Int64);
  }
  SDFGState& bs = parent->add_state(label + "_body", true);

  std::vector<std::string> inputs, outputs;
  std::map<std::string, NodeId> read_node, write_node;
  auto ensure_data = [&](const std::string& d) {
    if (inner->has_data(d)) return;
    inner->arrays[d] = detail::as_argument(sdfg.data(d));
  };
  // Body nodes; transients used only here move in.
  std::map<NodeId, NodeId> nm;
  for (NodeId n : body) {
    const Node& node = st.node(n);
    if (const auto* a = node.as<AccessNode>(); a && !inner->has_data(a->data)) {
      inner->arrays[a->data] = sdfg.data(a->data);
    }
    nm[n] = bs.add_node(node.clone()).id();
  }
  detail::relink_cloned_maps(st, bs, nm);
  for (NodeId n : body)
    for (EdgeId e : st.out_edges(n)) {
      const DataflowEdge& d = st.edge(e);
      if (in_body.count(d.dst)) bs.add_edge(nm[n], d.src_conn, nm[d.dst], d.dst_conn, d.memlet);
    }
  for (EdgeId e : st.out_edges(entry)) {
    const DataflowEdge& d = st.edge(e);
    if (d.memlet.is_empty()) continue;
    ensure_data(d.memlet.data);
    if (!read_node.count(d.memlet.data)) {
      read_node[d.memlet.data] = bs.add_access(d.memlet.data).id();
      inputs.push_back(d.memlet.data);
    }
    bs.add_edge(read_node[d.memlet.data], "", nm[d.dst], d.dst_conn, d.memlet);
  }
  for (EdgeId e : st.in_edges(exit)) {
    const DataflowEdge& d = st.edge(e);
    if (d.memlet.is_empty()) continue;
    ensure_data(d.memlet.data);
    if (!write_node.count(d.memlet.data)) {
      write_node[d.memlet.data] = bs.add_access(d.memlet.data).id();
      outputs.push_back(d.memlet.data);
    }
    bs.add_edge(nm[d.src], d.src_conn, write_node[d.memlet.data], "", d.memlet);
  }
  // Containers only memlets name (a transient between two tasklets) are needed inside too.
  for (const auto& d : detail::memlet_data({&bs}))
    if (!inner->has_data(d) && sdfg.has_data(d)) inner->arrays[d] = sdfg.data(d);
  auto mapping = detail::nest_symbols(sdfg, *inner);

  // Outer edges: sources of the map's inputs feed the nested SDFG, its outputs feed the map's
  // destinations (whole containers).
  struct Outer {
    NodeId node;
    std::string conn;
    std::string data;
  };
  std::vector<Outer> srcs, dsts;
  for (EdgeId e : st.in_edges(entry)) {
    const DataflowEdge& d = st.edge(e);
    srcs.push_back({d.src, d.src_conn, d.memlet.data});
  }
  for (EdgeId e : st.out_edges(exit)) {
    const DataflowEdge& d = st.edge(e);
    dsts.push_back({d.dst, d.dst_conn, d.memlet.data});
  }
  for (NodeId n : body) st.remove_node(n);
  st.remove_node(entry);
  st.remove_node(exit);
  // Transients that moved in leave the outer SDFG unless something else still uses them.
  std::vector<std::string> moved;
  for (const auto& [name, desc] : inner->arrays)
    if (desc.transient) moved.push_back(name);
  for (const auto& name : moved)
    if (!detail::data_referenced(sdfg, name)) sdfg.remove_data(name);
  NestedSDFGNode& ns = st.add_nested_sdfg(label + "_loop", std::move(inner), inputs, outputs, mapping);
  std::set<std::string> connected_in, connected_out;
  auto has = [](const std::vector<std::string>& v, const std::string& x) {
    return std::find(v.begin(), v.end(), x) != v.end();
  };
  for (const auto& s : srcs) {
    if (has(inputs, s.data) && connected_in.insert(s.data).second)
      st.add_edge(s.node, s.conn, ns.id(), s.data,
                  Memlet::simple(s.data, Subset::full(sdfg.data(s.data).shape)));
    else
      st.add_edge(s.node, "", ns.id(), "", Memlet{});
  }
  for (const auto& d : dsts) {
    if (has(outputs, d.data) && connected_out.insert(d.data).second)
      st.add_edge(ns.id(), d.data, d.node, d.conn,
                  Memlet::simple(d.data, Subset::full(sdfg.data(d.data).shape)));
    else
      st.add_edge(ns.id(), "", d.node, d.conn, Memlet{});
  }
  sdfg.relink_nested();
}

}  // namespace weir::transforms
