// MapFusion: producer map + consumer map that reads the producer's output point by point ->
// one map with a scalar intermediate.
#include "weir/transforms/map_fusion.h"

#include <algorithm>
#include <deque>
#include <set>

#include "dataflow_util.h"
#include "fusion_util.h"

namespace weir::transforms {

MapFusion::MapFusion()
    : PatternTransformation(
          "MapFusion",
          "Fuse a map into the map that reads its transient output at the same points (producer-consumer)",
          {}, Effects{.converges = true}) {}  // every application removes a map

namespace {

using sym::Expr;

/// An access node between the two maps, and how A writes it.
struct Intermediate {
  NodeId node = kNoNode;
  std::string data;
  bool keep = false;  ///< used elsewhere: A still writes it out
  EdgeId write = 0;   ///< the edge inside A that writes it (into A's exit)
  Subset point;       ///< the element written per iteration, in A's parameters
  /// When A writes T out by a copy from a scalar inside its scope (what fusing A with another
  /// reader of T left behind), that scalar's access node: B reads it too.
  NodeId local = kNoNode;
};

struct Plan {
  NodeId entry_a = kNoNode, exit_a = kNoNode, entry_b = kNoNode, exit_b = kNoNode;
  std::map<std::string, Expr> rename;  ///< B's parameters -> A's (only those that differ)
  std::vector<Intermediate> inter;
};

std::string quoted(const std::string& s) { return "'" + s + "'"; }

std::string node_text(const Node& n) {
  return "node " + std::to_string(n.id()) + " (" + std::string(to_string(n.kind())) + " '" + n.label + "')";
}

std::string range_text(const Range& r) { return Subset({r}).str(); }

/// Integer coefficient of `p` when `e` is affine in p with an integer coefficient.
std::optional<long long> integer_coefficient(const Expr& e, const std::string& p) {
  Expr P = Expr::symbol(p);
  Expr a = e.subs({{p, P + Expr(1)}}) - e;
  auto v = a.as_integer();
  if (!v) return std::nullopt;
  if (Expr(*v) * P + e.subs({{p, Expr(0)}}) != e) return std::nullopt;
  return v;
}

/// Whether different iterations of the map write different elements `point`: every parameter
/// is the only parameter of some index, with a nonzero integer coefficient. Empty if so, else
/// the parameter that does not tell iterations apart.
std::string non_distinguishing_param(const Subset& point, const std::vector<std::string>& params) {
  for (const auto& p : params) {
    bool ok = false;
    for (const Range& r : point.ranges()) {
      auto fs = r.start.free_symbols();
      if (!fs.count(p)) continue;
      bool alone = std::none_of(params.begin(), params.end(),
                                [&](const std::string& q) { return q != p && fs.count(q); });
      auto a = integer_coefficient(r.start, p);
      if (alone && a && *a != 0) ok = true;
    }
    if (!ok) return p;
  }
  return {};
}

/// Nodes reachable from `from` following edges forward (or backward), `from` excluded.
std::set<NodeId> reachable(const SDFGState& st, NodeId from, bool forward) {
  std::set<NodeId> seen;
  std::deque<NodeId> work{from};
  while (!work.empty()) {
    NodeId n = work.front();
    work.pop_front();
    for (EdgeId e : forward ? st.out_edges(n) : st.in_edges(n)) {
      NodeId m = forward ? st.edge(e).dst : st.edge(e).src;
      if (seen.insert(m).second) work.push_back(m);
    }
  }
  return seen;
}

/// Memlets of a map's body at its boundary: container -> (subset, is_write), excluding `skip`.
struct Access {
  Subset subset;
  bool write;
};

std::map<std::string, std::vector<Access>> boundary_accesses(const SDFGState& st, NodeId entry, NodeId exit,
                                                             const std::set<std::string>& skip,
                                                             const std::map<std::string, Expr>& rename) {
  std::map<std::string, std::vector<Access>> out;
  for (EdgeId e : st.out_edges(entry)) {
    const Memlet& m = st.edge(e).memlet;
    if (!m.is_empty() && !skip.count(m.data)) out[m.data].push_back({m.subset.subs(rename), false});
  }
  for (EdgeId e : st.in_edges(exit)) {
    const Memlet& m = st.edge(e).memlet;
    if (!m.is_empty() && !skip.count(m.data)) out[m.data].push_back({m.subset.subs(rename), true});
  }
  return out;
}

MatchResult analyze(const MatchContext& ctx, const std::vector<std::uint32_t>& sub, Plan& plan) {
  const SDFGState& st = *ctx.state;
  const auto* exit_a = &MapFusion::pattern(ctx, sub).get<0>();
  const MapInfo& a = *exit_a->map;
  if (sub.size() != 3) return refuse("map '" + a.label + "' writes no access node that another map reads");
  const auto* t_node = &MapFusion::pattern(ctx, sub).get<1>();
  const auto* entry_b = &MapFusion::pattern(ctx, sub).get<2>();
  const MapEntry& entry_a = st.entry_of(*exit_a);
  const MapInfo& b = *entry_b->map;
  if (entry_a.id() == entry_b->id()) return refuse("a map cannot be fused with itself");
  plan.entry_a = entry_a.id();
  plan.exit_a = exit_a->id();
  plan.entry_b = entry_b->id();
  plan.exit_b = entry_b->exit;

  const ScopeTree& tree = ctx.cache.scope_tree(st);
  if (tree.parent[entry_a.id()] != tree.parent[entry_b->id()])
    return refuse("maps '" + a.label + "' and '" + b.label + "' are in different scopes");
  for (const MapEntry* me : {&entry_a, entry_b})
    if (auto dyn = detail::dynamic_inputs(*me); !dyn.empty())
      return refuse("map '" + me->map->label + "' has dynamic range inputs (" + dyn + ")");

  // Ranges, dimension by dimension, with B's parameters renamed to A's.
  if (a.params.size() != a.range.dims() || b.params.size() != b.range.dims())
    return refuse("a map has a different number of parameters and ranges");
  if (a.params.size() != b.params.size())
    return refuse("map '" + a.label + "' has " + std::to_string(a.params.size()) + " dimension(s), map '" +
                  b.label + "' has " + std::to_string(b.params.size()));
  std::map<std::string, Expr> rename;
  for (std::size_t d = 0; d < a.params.size(); ++d)
    if (a.params[d] != b.params[d]) rename[b.params[d]] = Expr::symbol(a.params[d]);
  for (std::size_t d = 0; d < a.params.size(); ++d) {
    Range rb = Subset({b.range[d]}).subs(rename)[0];
    if (!(a.range[d] == rb))
      return refuse("ranges differ in dimension " + std::to_string(d) + " (" + range_text(a.range[d]) +
                    " vs " + range_text(rb) + ")");
  }
  if (a.schedule != b.schedule && a.schedule != ScheduleType::Default && b.schedule != ScheduleType::Default)
    return refuse("maps '" + a.label + "' and '" + b.label + "' have different schedules (" +
                  std::string(to_string(a.schedule)) + " vs " + std::string(to_string(b.schedule)) + ")");
  plan.rename = rename;
  std::set<std::string> renamed_to;
  for (const auto& [k, v] : rename) renamed_to.insert(v.symbol_name());
  for (NodeId n : detail::scope_body(st, tree, entry_b->id()))
    if (const auto* inner = st.node(n).as<MapEntry>())
      for (const auto& p : inner->map->params)
        if (renamed_to.count(p))
          return refuse("map '" + b.label + "' contains map '" + inner->map->label + "' with parameter '" +
                        p + "', which renaming to the parameters of map '" + a.label + "' would shadow");

  // Everything between the maps must be an access node written by A and read by B.
  for (EdgeId e : st.out_edges(exit_a->id()))
    if (st.edge(e).dst == entry_b->id())
      return refuse("map '" + a.label + "' is connected to map '" + b.label +
                    "' without an access node in between");
  std::set<NodeId> fwd = reachable(st, exit_a->id(), true), bwd = reachable(st, entry_b->id(), false);
  std::vector<NodeId> between;
  for (NodeId n : fwd)
    if (bwd.count(n)) between.push_back(n);
  for (NodeId n : between) {
    const Node& node = st.node(n);
    bool from_a = false, to_b = false;
    for (EdgeId e : st.in_edges(n)) from_a = from_a || st.edge(e).src == exit_a->id();
    for (EdgeId e : st.out_edges(n)) to_b = to_b || st.edge(e).dst == entry_b->id();
    if (!node.as<AccessNode>() || !from_a || !to_b)
      return refuse("an intermediate node other than the access node lies between the maps: " +
                    node_text(node));
  }
  if (std::find(between.begin(), between.end(), t_node->id()) == between.end())
    return refuse("access node " + std::to_string(t_node->id()) + " does not lie between the maps");

  const auto& use = ctx.cache.data_use(ctx.sdfg);
  std::set<std::string> inter_data;
  for (NodeId n : between) {
    const auto& an = *st.node(n).as<AccessNode>();
    const std::string& T = an.data;
    if (!inter_data.insert(T).second)
      return refuse("two access nodes of " + quoted(T) + " lie between the maps");
    const DataDescriptor& desc = ctx.sdfg.data(T);
    if (!desc.transient) return refuse(quoted(T) + " is not transient");
    if (desc.is_view()) return refuse(quoted(T) + " is a view");
    Intermediate im;
    im.node = n;
    im.data = T;
    // Writes: only A, one element per iteration, without write-conflict resolution.
    std::vector<EdgeId> writes;
    for (EdgeId e : st.in_edges(n)) {
      const DataflowEdge& d = st.edge(e);
      if (d.src != exit_a->id())
        return refuse(quoted(T) + " is also written by " + node_text(st.node(d.src)));
      if (d.memlet.is_empty()) continue;
      if (!d.memlet.wcr.empty())
        return refuse("map '" + a.label + "' writes " + quoted(T) + " with write-conflict resolution");
      if (d.src_conn.rfind("OUT_", 0) != 0)
        return refuse("map '" + a.label + "' writes " + quoted(T) + " without a connector");
      for (EdgeId w : st.in_edges_by_connector(exit_a->id(), "IN_" + d.src_conn.substr(4)))
        writes.push_back(w);
    }
    if (writes.empty())
      return refuse("map '" + a.label + "' does not write " + quoted(T) + " inside its scope");
    if (writes.size() > 1)
      return refuse("map '" + a.label + "' writes " + quoted(T) + " more than once per iteration");
    const Memlet& wm = st.edge(writes[0]).memlet;
    if (wm.data != T || wm.other_subset || wm.dynamic || !wm.wcr.empty())
      return refuse("map '" + a.label + "' writes " + quoted(T) +
                    " through a copy, dynamic or conflict-resolved memlet");
    if (!wm.subset.is_single_element())
      return refuse("map '" + a.label + "' writes more than one element of " + quoted(T) +
                    " per iteration (" + T + "[" + wm.subset.str() + "])");
    if (auto p = non_distinguishing_param(wm.subset, a.params); !p.empty())
      return refuse("map '" + a.label + "' writes " + T + "[" + wm.subset.str() +
                    "] from several iterations (parameter '" + p + "' does not index it alone)");
    im.write = writes[0];
    im.point = wm.subset;
    if (const auto* src = st.node(st.edge(writes[0]).src).as<AccessNode>()) {
      // A copy inside A's scope writes T: fusing B means reading that copy's source, never the
      // copy edge itself (whose memlet describes T, not the value B needs).
      const DataflowEdge* in =
          st.in_edges(src->id()).size() == 1 ? &st.edge(st.in_edges(src->id()).front()) : nullptr;
      const auto* scalar = in ? st.node(in->src).as<AccessNode>() : nullptr;
      if (src->data != T || !scalar || ctx.sdfg.data(scalar->data).kind != DataKind::Scalar ||
          st.out_edges(src->id()).size() != 1)
        return refuse("map '" + a.label + "' writes " + quoted(T) + " by a copy from " + quoted(src->data) +
                      " that is not a scalar of its scope");
      im.local = scalar->id();
    }
    // Reads by B: exactly the written element, after renaming.
    for (EdgeId e : st.out_edges(n)) {
      const DataflowEdge& d = st.edge(e);
      if (d.dst != entry_b->id()) {
        im.keep = true;
        continue;
      }
      if (d.memlet.is_empty()) continue;
      if (d.dst_conn.rfind("IN_", 0) != 0)
        return refuse("map '" + b.label + "' reads " + quoted(T) + " without a connector");
      for (EdgeId r : st.out_edges_by_connector(entry_b->id(), "OUT_" + d.dst_conn.substr(3))) {
        const Memlet& rm = st.edge(r).memlet;
        if (rm.is_empty() || rm.data != T || rm.other_subset || rm.dynamic)
          return refuse("map '" + b.label + "' reads " + quoted(T) +
                        " through a copy, dynamic or empty memlet");
        Subset at = rm.subset.subs(rename);
        if (!(at == wm.subset))
          return refuse(quoted(T) + " is read at offsets (" + at.str() + ") that map '" + a.label +
                        "' does not write at the same point (it writes " + T + "[" + wm.subset.str() + "])");
      }
    }
    auto u = use.find(T);
    if (u != use.end() &&
        (u->second.access_nodes > 1 || u->second.in_control_flow || u->second.by_name_elsewhere))
      im.keep = true;
    plan.inter.push_back(std::move(im));
  }

  // Other containers both maps touch: fusion interleaves their iterations.
  auto acc_a = boundary_accesses(st, entry_a.id(), exit_a->id(), inter_data, {});
  auto acc_b = boundary_accesses(st, entry_b->id(), entry_b->exit, inter_data, rename);
  for (const auto& [data, bs] : acc_b) {
    auto it = acc_a.find(data);
    if (it == acc_a.end()) continue;
    const auto& as = it->second;
    bool a_writes = std::any_of(as.begin(), as.end(), [](const Access& x) { return x.write; });
    bool b_writes = std::any_of(bs.begin(), bs.end(), [](const Access& x) { return x.write; });
    bool b_reads = std::any_of(bs.begin(), bs.end(), [](const Access& x) { return !x.write; });
    if (a_writes && b_reads)
      return refuse("map '" + b.label + "' reads " + quoted(data) + ", which map '" + a.label +
                    "' writes, from another access node");
    if (!b_writes && !a_writes) continue;
    // Fusion runs B's iteration p right after A's, before A's later iterations: every pair of
    // an A access and a B access, one a write, touches the same single element (the same
    // iteration's point) or elements that never meet (deriche's y1[i, j - 2] read by A,
    // y1[i, j] written by B).
    for (const Access& x : as)
      for (const Access& y : bs) {
        if (!x.write && !y.write) continue;
        bool pointwise = x.subset == y.subset && x.subset.is_single_element();
        if (!pointwise && !detail::never_meet(x.subset, y.subset, a.params))
          return refuse("map '" + b.label + "' writes " + quoted(data) + " at points map '" + a.label +
                        "' accesses in other iterations (" + data + "[" + x.subset.str() + "] and " + data +
                        "[" + y.subset.str() + "])");
      }
  }
  return MatchResult::success();
}

void set_path_to_local(SDFGState& st, const std::vector<EdgeId>& path, std::size_t from, std::size_t to,
                       const std::string& local) {
  for (std::size_t k = from; k < to; ++k) {
    Memlet& m = st.edge(path[k]).memlet;
    m.data = local;
    m.subset = Subset::parse("0");
    m.other_subset.reset();
  }
}

}  // namespace

std::vector<std::vector<std::uint32_t>> MapFusion::expand(const MatchContext& ctx,
                                                          std::uint32_t anchor) const {
  const SDFGState& st = *ctx.state;
  // Map entries reached from an access node written by the exit: directly (the pattern) or
  // within three more hops (so can_apply can say what lies in between).
  std::map<NodeId, std::pair<NodeId, bool>> found;  // entry B -> (access node, direct)
  for (EdgeId e : st.out_edges(anchor)) {
    NodeId t = st.edge(e).dst;
    if (!st.node(t).as<AccessNode>()) continue;
    std::set<NodeId> seen{t};
    std::vector<NodeId> frontier{t};
    for (int hop = 0; hop < 4 && !frontier.empty(); ++hop) {
      std::vector<NodeId> next;
      for (NodeId n : frontier)
        for (EdgeId o : st.out_edges(n)) {
          NodeId m = st.edge(o).dst;
          if (!seen.insert(m).second) continue;
          if (st.node(m).as<MapEntry>()) {
            auto it = found.find(m);
            bool direct = hop == 0;
            if (it == found.end() || (direct && !it->second.second)) found[m] = {t, direct};
          } else if (!st.node(m).as<MapExit>()) {
            next.push_back(m);
          }
        }
      frontier = std::move(next);
    }
  }
  std::vector<std::vector<std::uint32_t>> out;
  for (const auto& [b, tv] : found) out.push_back({anchor, tv.first, b});
  return out;
}

MatchResult MapFusion::can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) const {
  Plan plan;
  return analyze(ctx, sub, plan);
}

void MapFusion::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  Plan plan;
  if (auto r = analyze(ctx, sub, plan); !r) throw TransformError("MapFusion: " + r.reason());
  SDFGState& st = *ctx.state;
  SDFG& sdfg = ctx.sdfg;
  auto& entry_a = *st.node(plan.entry_a).as<MapEntry>();
  auto& exit_a = *st.node(plan.exit_a).as<MapExit>();
  auto& entry_b = *st.node(plan.entry_b).as<MapEntry>();
  Node& exit_b = st.node(plan.exit_b);
  if (!plan.rename.empty()) detail::substitute_in_scope(st, st.scope_tree(), plan.entry_b, plan.rename);
  if (entry_a.map->schedule == ScheduleType::Default) entry_a.map->schedule = entry_b.map->schedule;

  // Each intermediate becomes a scalar inside the fused scope.
  for (const Intermediate& im : plan.inter) {
    DataflowEdge w = st.edge(im.write);
    std::string x = w.dst_conn.substr(3);
    auto drop_output = [&] {  // A no longer writes T out
      for (EdgeId e : st.out_edges_by_connector(exit_a.id(), "OUT_" + x)) st.remove_edge(e);
      exit_a.in_connectors.erase("IN_" + x);
      exit_a.out_connectors.erase("OUT_" + x);
    };
    std::string local;
    NodeId ln = kNoNode;
    if (im.local != kNoNode) {
      // A already holds T's value in a scalar (an earlier fusion with another reader of T): B
      // reads that scalar; the copy out to T stays only while T is still needed outside.
      ln = im.local;
      local = st.node(ln).as<AccessNode>()->data;
      if (!im.keep) {
        drop_output();
        st.remove_node(w.src);
      }
    } else {
      const DataDescriptor t_desc = sdfg.data(im.data);
      local = sdfg.unique_data_name(im.data);
      DataDescriptor desc = DataDescriptor::make_scalar(ScalarType::Float64, true);
      desc.dtype = t_desc.dtype;
      desc.storage = StorageType::Register;
      desc.lifetime = AllocationLifetime::Scope;
      sdfg.add_data(local, desc);
      ln = st.add_access(local).id();
      // Producer side: writer -> local (-> A's exit when T is kept).
      auto wpath = st.memlet_path(im.write);
      std::size_t wpos =
          static_cast<std::size_t>(std::find(wpath.begin(), wpath.end(), im.write) - wpath.begin());
      set_path_to_local(st, wpath, 0, wpos, local);
      st.remove_edge(im.write);
      st.add_edge(w.src, w.src_conn, ln, "", Memlet::simple(local, Subset::parse("0")));
      if (im.keep) {
        // Written out through an access node of T inside the scope (a copy from the scalar).
        NodeId tin = st.add_access(im.data).id();
        Memlet copy = Memlet::simple(im.data, im.point);
        copy.other_subset = Subset::parse("0");
        st.add_edge(ln, "", tin, "", copy);
        st.add_edge(tin, "", exit_a.id(), w.dst_conn, w.memlet);
      } else {
        drop_output();
      }
    }
    Memlet lm = Memlet::simple(local, Subset::parse("0"));
    // Consumer side: local -> each reader of T inside B.
    for (EdgeId e : std::vector<EdgeId>(st.out_edges(im.node))) {
      DataflowEdge d = st.edge(e);
      if (d.dst != entry_b.id()) continue;
      st.remove_edge(e);
      if (d.dst_conn.rfind("IN_", 0) != 0) continue;
      std::string y = d.dst_conn.substr(3);
      for (EdgeId r : st.out_edges_by_connector(entry_b.id(), "OUT_" + y)) {
        auto rpath = st.memlet_path(r);
        std::size_t rpos = static_cast<std::size_t>(std::find(rpath.begin(), rpath.end(), r) - rpath.begin());
        set_path_to_local(st, rpath, rpos + 1, rpath.size(), local);
        DataflowEdge rd = st.edge(r);
        st.remove_edge(r);
        st.add_edge(ln, "", rd.dst, rd.dst_conn, lm);
      }
      entry_b.in_connectors.erase("IN_" + y);
      entry_b.out_connectors.erase("OUT_" + y);
    }
    if (!im.keep) {
      st.remove_node(im.node);
      if (sdfg.has_data(im.data)) {
        bool used = false;
        for (SDFGState* s : sdfg.all_states()) used = used || !s->access_nodes(im.data).empty();
        if (!used) sdfg.remove_data(im.data);
      }
    }
  }

  // B's entry and exit connectors move to A's (renamed where A already has the name); an
  // ordering edge A -> B disappears (one scope now).
  detail::move_scope_edges(st, entry_b, entry_a, exit_a.id());
  detail::move_scope_edges(st, exit_b, exit_a);
  st.remove_node(plan.entry_b);
  st.remove_node(plan.exit_b);
}

}  // namespace weir::transforms
