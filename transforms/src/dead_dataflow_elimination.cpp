// DeadDataflowElimination: remove isolated access nodes and transient writes nobody reads.
#include "weir/transforms/dead_dataflow_elimination.h"

#include <set>

#include "dataflow_util.h"
#include "overwritten_before_read.h"
#include "weir/transforms/analysis.h"

namespace weir::transforms {

DeadDataflowElimination::DeadDataflowElimination()
    : PatternTransformation("DeadDataflowElimination",
                            "Remove access nodes without edges and writes to transients that are never read",
                            {}, Effects{.converges = true}) {}

std::vector<std::vector<std::uint32_t>> DeadDataflowElimination::expand(const MatchContext&,
                                                                        std::uint32_t anchor) const {
  return {{anchor}};
}

namespace {

/// A writer of the dead node: the tasklet, and the map exit it writes through (or kNoNode).
/// Where fusion left an access node of the container inside the map (a point's value -> that
/// node -> the exit), `inner` is that node and `tasklet` its writer if that is a tasklet writing
/// nothing else (else kNoNode: the value comes from a scalar other tasklets of the point read).
struct Writer {
  NodeId tasklet = kNoNode;
  NodeId exit = kNoNode;
  EdgeId into_exit = 0;  // tasklet (or inner) -> exit edge
  NodeId inner = kNoNode;
};

/// The writer through access node `x` inside a map (its only out-edge `w.into_exit` goes to the
/// exit): `x` has one in-edge, from a tasklet or an access node; else a reason.
std::string inner_writer(const SDFGState& st, NodeId x, Writer& w) {
  const Node& xn = st.node(x);
  if (st.out_edges(x).size() != 1) return "access node '" + xn.label + "' inside the map is also read there";
  if (st.in_edges(x).size() != 1) return "access node '" + xn.label + "' inside the map has several writers";
  const DataflowEdge& in = st.edge(st.in_edges(x).front());
  w.inner = x;
  if (st.node(in.src).as<AccessNode>()) return {};
  if (!st.node(in.src).as<Tasklet>())
    return "access node '" + xn.label + "' inside the map is written by '" + st.node(in.src).label + "'";
  w.tasklet = in.src;
  return {};
}

/// The writers of access node `n` if every in-edge comes from a side-effect-free tasklet whose
/// only outputs go to `n` (directly or through one map exit); else a reason.
std::string writers_of(const SDFGState& st, NodeId n, std::vector<Writer>& out) {
  for (EdgeId e : st.in_edges(n)) {
    const DataflowEdge& d = st.edge(e);
    const Node& src = st.node(d.src);
    Writer w;
    if (src.as<Tasklet>()) {
      w.tasklet = src.id();
    } else if (const auto* mx = src.as<MapExit>()) {
      auto ins = st.in_edges_by_connector(
          mx->id(), "IN_" + d.src_conn.substr(d.src_conn.rfind("OUT_", 0) == 0 ? 4 : 0));
      if (d.src_conn.rfind("OUT_", 0) != 0 || ins.size() != 1)
        return "it is written through map exit '" + src.label + "' in a way that is not a single tasklet";
      const DataflowEdge& inner = st.edge(ins.front());
      if (st.out_edges_by_connector(mx->id(), d.src_conn).size() != 1)
        return "map exit '" + src.label + "' has several outputs for it";
      w.exit = mx->id();
      w.into_exit = inner.id;
      if (const auto* x = st.node(inner.src).as<AccessNode>(); x && x->data == d.memlet.data) {
        if (auto why = inner_writer(st, inner.src, w); !why.empty()) return why;
      } else if (st.node(inner.src).as<Tasklet>()) {
        w.tasklet = inner.src;
      } else {
        return "it is written by '" + st.node(inner.src).label + "', not by a tasklet";
      }
    } else {
      return "it is written by " + std::string(to_string(src.kind())) + " '" + src.label + "'";
    }
    if (w.tasklet != kNoNode) {
      const auto& t = *st.node(w.tasklet).as<Tasklet>();
      if (t.side_effects.value_or(false)) return "tasklet '" + t.label + "' has side effects";
      std::size_t outs = st.out_edges(w.tasklet).size();
      if (outs != 1) return "tasklet '" + t.label + "' also writes elsewhere";
    }
    out.push_back(w);
  }
  return {};
}

}  // namespace

MatchResult DeadDataflowElimination::can_apply(const MatchContext& ctx,
                                               const std::vector<std::uint32_t>& sub) const {
  const SDFGState& st = *ctx.state;
  const auto* an = &pattern(ctx, sub).get<0>();
  if (st.in_edges(an->id()).empty() && st.out_edges(an->id()).empty()) return MatchResult::success();
  if (!st.out_edges(an->id()).empty()) return refuse("access node '" + an->data + "' is read in this state");
  if (!ctx.sdfg.has_data(an->data)) return refuse("container '" + an->data + "' does not exist");
  const DataDescriptor& desc = ctx.sdfg.data(an->data);
  if (!desc.transient)
    return refuse("container '" + an->data + "' is not transient (the caller may read it)");
  if (desc.is_view()) return refuse("container '" + an->data + "' is a view");
  const auto& use = ctx.cache.data_use(ctx.sdfg);
  auto it = use.find(an->data);
  if (it != use.end()) {
    if (it->second.in_control_flow) return refuse("container '" + an->data + "' is named in control flow");
    if (it->second.by_name_elsewhere)
      return refuse("container '" + an->data + "' is named in a symbol mapping");
    // Read elsewhere: dead all the same when writes that always follow cover every read (the
    // zero-fill of a local field that the calls after it overwrite where anything reads it).
    // Or every read anywhere is of a value its own state wrote before (one transient reused by
    // several loops, each level writing it before reading it).
    if (it->second.read_nodes > 0 && !detail::read_only_where_written(ctx.sdfg, an->data))
      if (auto why = detail::overwritten_before_read(ctx.sdfg, ctx.region, st, *an))
        return refuse("container '" + an->data + "' is read elsewhere in the SDFG" + *why);
  }
  const ScopeTree& tree = ctx.cache.scope_tree(st);
  if (tree.parent[an->id()] != kNoNode) return refuse("access node '" + an->data + "' is inside a map");
  std::vector<Writer> ws;
  if (auto why = writers_of(st, an->id(), ws); !why.empty())
    return refuse("the write to '" + an->data + "' cannot be removed: " + why);
  return MatchResult::success();
}

namespace {

/// Removes the edge `e` into a map entry's OUT_x user and, if OUT_x has no other user, the
/// connector pair and the edge into IN_x (recursively outwards through enclosing entries).
void drop_entry_use(SDFGState& st, EdgeId e) {
  DataflowEdge d = st.edge(e);
  st.remove_edge(e);
  Node& src = st.node(d.src);
  // An access node that only fed the removed dataflow would be left isolated (invalid).
  if (src.as<AccessNode>() && st.in_edges(d.src).empty() && st.out_edges(d.src).empty()) {
    st.remove_node(d.src);
    return;
  }
  if (!src.as<MapEntry>() || d.src_conn.rfind("OUT_", 0) != 0) return;
  if (!st.out_edges_by_connector(d.src, d.src_conn).empty()) return;
  std::string in = "IN_" + d.src_conn.substr(4);
  src.out_connectors.erase(d.src_conn);
  for (EdgeId i : st.in_edges_by_connector(d.src, in)) drop_entry_use(st, i);
  src.in_connectors.erase(in);
  // A map entry with no remaining input keeps its scope through an ordering edge from nowhere:
  // nothing to do; DaCe allows maps without inputs.
}

}  // namespace

void DeadDataflowElimination::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  SDFGState& st = *ctx.state;
  NodeId n = sub[0];
  std::string data = st.node(n).as<AccessNode>()->data;
  // Access nodes of the container elsewhere in the SDFG, from the cached use (no scan of it).
  int elsewhere_nodes = 0;
  if (auto it = ctx.cache.data_use(ctx.sdfg).find(data); it != ctx.cache.data_use(ctx.sdfg).end())
    elsewhere_nodes = it->second.access_nodes - static_cast<int>(st.access_nodes(data).size());
  std::vector<Writer> ws;
  writers_of(st, n, ws);
  std::set<NodeId> tasklets;
  for (const Writer& w : ws) {
    if (w.exit != kNoNode) {
      DataflowEdge into = st.edge(w.into_exit);
      Node& mx = st.node(w.exit);
      mx.in_connectors.erase(into.dst_conn);
      mx.out_connectors.erase("OUT_" + into.dst_conn.substr(3));
    }
    if (w.inner != kNoNode) {
      // The access node inside the map goes; an access node feeding it keeps its other readers.
      EdgeId in = st.in_edges(w.inner).front();
      NodeId from = st.edge(in).src;
      st.remove_node(w.inner);
      if (w.tasklet == kNoNode && st.in_edges(from).empty() && st.out_edges(from).empty())
        st.remove_node(from);
    }
    if (w.tasklet != kNoNode) tasklets.insert(w.tasklet);
  }
  st.remove_node(n);
  for (NodeId t : tasklets) {
    for (EdgeId e : std::vector<EdgeId>(st.in_edges(t))) drop_entry_use(st, e);
    st.remove_node(t);
  }
  // Maps left without any node inside: remove them too (their exits have no inputs now).
  bool again = true;
  while (again) {
    again = false;
    for (NodeId me : std::vector<NodeId>(ctx.cache.nodes_of_kind(st, NodeKind::MapEntry))) {
      if (!st.has_node(me)) continue;
      auto& e = *st.node(me).as<MapEntry>();
      bool empty = true;
      for (EdgeId o : st.out_edges(me))
        if (st.edge(o).dst != e.exit) empty = false;
      if (!empty) continue;
      bool exit_used = false;
      for (EdgeId i : st.in_edges(e.exit))
        if (st.edge(i).src != me) exit_used = true;
      if (exit_used) continue;
      for (EdgeId i : std::vector<EdgeId>(st.in_edges(me))) drop_entry_use(st, i);
      NodeId x = e.exit;
      st.remove_node(me);
      st.remove_node(x);
      again = true;
    }
  }
  if (st.access_nodes(data).empty() && elsewhere_nodes == 0 && ctx.sdfg.has_data(data) &&
      ctx.sdfg.data(data).transient)
    ctx.sdfg.arrays.erase(data);  // no access node left (cached use): skip remove_data's O(SDFG) check
}

std::optional<std::vector<std::string>> DeadDataflowElimination::data_footprint(
    const MatchContext& ctx, const std::vector<std::uint32_t>& sub) const {
  return std::vector<std::string>{pattern(ctx, sub).get<0>().data};
}

}  // namespace weir::transforms
