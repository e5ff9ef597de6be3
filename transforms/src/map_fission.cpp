// MapFission: split a map's body into consecutive maps, expanding the transients that link them.
#include "weir/transforms/map_fission.h"

#include <algorithm>
#include <map>
#include <numeric>
#include <set>

#include "dataflow_util.h"
#include "weir/transforms/memlet_propagation.h"

namespace weir::transforms {

MapFission::MapFission()
    : PatternTransformation("MapFission",
                            "Split a map whose body has independent parts (or parts linked through "
                            "transients, expanded by the map's range) into consecutive maps") {}

std::vector<std::vector<std::uint32_t>> MapFission::expand(const MatchContext&, std::uint32_t anchor) const {
  return {{anchor}};
}

namespace {

/// What a fission does: the parts in execution order, and the transients that link parts.
struct Plan {
  std::vector<std::vector<NodeId>> parts;  // in order; node ids in id order
  std::map<NodeId, std::size_t> part_of;   // body node -> index into parts
  std::set<std::string> expanded;          // transients that get the map's range as dimensions
  std::string error;                       // non-empty: the refusal
};

/// Whether data flows into `n` (an ordering edge from the map entry writes nothing).
bool written(const SDFGState& st, NodeId n) {
  const auto& in = st.in_edges(n);
  return std::any_of(in.begin(), in.end(), [&](EdgeId e) { return !st.edge(e).memlet.is_empty(); });
}

std::size_t find(std::vector<std::size_t>& up, std::size_t x) {
  while (up[x] != x) x = up[x] = up[up[x]];
  return x;
}

/// "part of 'compute'": a part named by its first tasklet (else its first node).
std::string part_name(const SDFGState& st, const std::vector<NodeId>& part) {
  for (NodeId n : part)
    if (st.node(n).kind() == NodeKind::Tasklet) return "the part of '" + st.node(n).label + "'";
  return "the part of '" + st.node(part.front()).label + "'";
}

/// Access nodes directly in the map whose transient the SDFG uses only in this body, and which
/// are written there: the places where the body may be cut.
std::set<NodeId> cut_points(const MatchContext& ctx, const ScopeTree& tree, const MapEntry& me,
                            const std::vector<NodeId>& body) {
  const SDFGState& st = *ctx.state;
  const std::set<std::string> local = detail::transients_local_to(ctx.sdfg, ctx.cache, st, body);
  std::set<NodeId> out;
  for (NodeId n : body) {
    const auto* an = st.node(n).as<AccessNode>();
    if (an && tree.parent[n] == me.id() && written(st, n) && local.count(an->data)) out.insert(n);
  }
  return out;
}

/// Orders the parts by the edges that cross them (writer before reader); false on a cycle.
bool order_parts(const SDFGState& st, const std::vector<NodeId>& body, const std::set<NodeId>& cuts,
                 Plan& p) {
  std::size_t k = p.parts.size();
  std::vector<std::set<std::size_t>> succ(k);
  std::vector<int> indeg(k, 0);
  for (NodeId n : body) {
    if (!cuts.count(n)) continue;
    for (EdgeId e : st.out_edges(n)) {
      auto it = p.part_of.find(st.edge(e).dst);
      if (it == p.part_of.end() || it->second == p.part_of.at(n)) continue;
      if (succ[p.part_of.at(n)].insert(it->second).second) ++indeg[it->second];
    }
  }
  std::vector<std::size_t> order;
  std::set<std::size_t> ready;
  for (std::size_t i = 0; i < k; ++i)
    if (indeg[i] == 0) ready.insert(i);
  while (!ready.empty()) {
    std::size_t i = *ready.begin();
    ready.erase(ready.begin());
    order.push_back(i);
    for (std::size_t s : succ[i])
      if (--indeg[s] == 0) ready.insert(s);
  }
  if (order.size() != k) return false;
  std::vector<std::vector<NodeId>> parts;
  for (std::size_t i : order) parts.push_back(std::move(p.parts[i]));
  p.parts = std::move(parts);
  for (std::size_t i = 0; i < k; ++i)
    for (NodeId n : p.parts[i]) p.part_of[n] = i;
  return true;
}

/// Why a linking transient cannot be expanded; empty if it can.
std::string expansion_problem(const SDFGState& st, const std::vector<NodeId>& body, const Plan& p,
                              const std::string& data) {
  std::set<std::size_t> writers;
  for (NodeId n : body) {
    const auto* an = st.node(n).as<AccessNode>();
    if (!an || an->data != data) continue;
    if (!written(st, n))
      return "transient '" + data + "' is read before it is written in an iteration (" +
             part_name(st, p.parts[p.part_of.at(n)]) +
             "): its value is carried across iterations, a write-after-read that splitting the map "
             "would break";
    writers.insert(p.part_of.at(n));
    for (const auto& list : {st.in_edges(n), st.out_edges(n)})
      for (EdgeId e : list) {
        const DataflowEdge& d = st.edge(e);
        const Node& other = st.node(d.src == n ? d.dst : d.src);
        if (other.kind() == NodeKind::NestedSDFG || other.kind() == NodeKind::Library)
          return "transient '" + data + "' is accessed by " + std::string(to_string(other.kind())) + " '" +
                 other.label + "', whose container would change shape";
        if (other.kind() == NodeKind::Access || d.memlet.other_subset)
          return "transient '" + data + "' is copied to or from another container inside the map";
      }
  }
  if (writers.size() > 1)
    return "transient '" + data + "' is written in two parts (" + part_name(st, p.parts[*writers.begin()]) +
           " and " + part_name(st, p.parts[*writers.rbegin()]) + ")";
  return {};
}

bool is_gpu(ScheduleType s) {
  return s == ScheduleType::GPU_Default || s == ScheduleType::GPU_Device ||
         s == ScheduleType::GPU_Persistent || s == ScheduleType::GPU_ThreadBlock ||
         s == ScheduleType::GPU_ThreadBlock_Dynamic;
}

/// Why the map's range cannot give an expanded transient its leading dimensions; empty if it can.
std::string range_problem(const SDFGState& st, const ScopeTree& tree, const MapEntry& me) {
  std::set<std::string> enclosing;
  const MapInfo& m = *me.map;
  for (NodeId s = tree.parent[me.id()]; s != kNoNode; s = tree.parent[s]) {
    const MapInfo& outer = *st.node(s).as<MapEntry>()->map;
    if (is_gpu(outer.schedule))
      return "map '" + m.label + "' is inside GPU kernel '" + outer.label +
             "': a linking transient expanded there would have no storage both kernels reach";
    for (const auto& q : outer.params) enclosing.insert(q);
  }
  for (std::size_t d = 0; d < m.params.size(); ++d) {
    const Range& r = m.range[d];
    if (r.step != sym::Expr(1))
      return "dimension " + std::to_string(d) + " of map '" + m.label + "' has step " + r.step.str() +
             "; a linking transient is expanded only by unit-step ranges";
    for (const sym::Expr* e : {&r.start, &r.end})
      for (const auto& s : e->free_symbols())
        if (enclosing.count(s))
          return "the range of parameter '" + m.params[d] + "' uses '" + s +
                 "', a parameter of an enclosing map: an expanded transient would have no fixed shape";
  }
  return {};
}

/// Why one part writes a datum another part accesses (fission would reorder them); empty if none.
std::string conflict(const SDFGState& st, const MapEntry& me, const Plan& p) {
  std::map<std::string, std::set<std::size_t>> reads, writes;
  for (std::size_t i = 0; i < p.parts.size(); ++i)
    for (NodeId n : p.parts[i]) {
      for (EdgeId e : st.in_edges(n)) {
        const DataflowEdge& d = st.edge(e);
        if (d.src == me.id() && !d.memlet.is_empty()) reads[d.memlet.data].insert(i);
      }
      for (EdgeId e : st.out_edges(n)) {
        const DataflowEdge& d = st.edge(e);
        if (d.dst == me.exit && !d.memlet.is_empty()) writes[d.memlet.data].insert(i);
      }
      if (const auto* an = st.node(n).as<AccessNode>()) {
        if (written(st, n)) writes[an->data].insert(i);
        if (!st.out_edges(n).empty()) reads[an->data].insert(i);
      }
    }
  for (const auto& [data, w] : writes) {
    if (p.expanded.count(data)) continue;
    std::set<std::size_t> all = w;
    if (auto r = reads.find(data); r != reads.end()) all.insert(r->second.begin(), r->second.end());
    if (all.size() < 2) continue;
    std::size_t a = *w.begin();
    std::size_t b = *all.begin() == a ? *std::next(all.begin()) : *all.begin();
    return part_name(st, p.parts[a]) + " writes '" + data + "', which " + part_name(st, p.parts[b]) +
           " also accesses: consecutive maps would run every iteration of one before the other";
  }
  return {};
}

Plan make_plan(const MatchContext& ctx, const MapEntry& me) {
  Plan p;
  const SDFGState& st = *ctx.state;
  const MapInfo& m = *me.map;
  if (auto dyn = detail::dynamic_inputs(me); !dyn.empty()) {
    p.error = "map '" + m.label + "' has dynamic range inputs (" + dyn + ")";
    return p;
  }
  const ScopeTree& tree = ctx.cache.scope_tree(st);
  std::vector<NodeId> body = detail::scope_body(st, tree, me.id());
  std::sort(body.begin(), body.end());
  for (EdgeId e : st.out_edges(me.id()))
    if (st.edge(e).dst == me.exit) {
      p.error = "an edge of map '" + m.label + "' goes straight from its entry to its exit";
      return p;
    }
  std::set<NodeId> cuts = cut_points(ctx, tree, me, body);
  std::map<NodeId, std::size_t> index;
  for (std::size_t i = 0; i < body.size(); ++i) index[body[i]] = i;
  std::vector<std::size_t> up(body.size());
  std::iota(up.begin(), up.end(), 0);
  for (NodeId n : body) {
    if (cuts.count(n)) continue;  // edges that read a cut point do not join its part
    for (EdgeId e : st.out_edges(n)) {
      auto it = index.find(st.edge(e).dst);
      if (it != index.end()) up[find(up, index[n])] = find(up, it->second);
    }
  }
  // Edges into a cut point join it to its writers.
  for (NodeId n : cuts)
    for (EdgeId e : st.in_edges(n)) {
      auto it = index.find(st.edge(e).src);
      if (it != index.end()) up[find(up, index[n])] = find(up, it->second);
    }
  std::map<std::size_t, std::size_t> root_part;
  for (NodeId n : body) {
    std::size_t r = find(up, index[n]);
    auto [it, fresh] = root_part.emplace(r, p.parts.size());
    if (fresh) p.parts.emplace_back();
    p.parts[it->second].push_back(n);
    p.part_of[n] = it->second;
  }
  if (p.parts.size() < 2) {
    if (body.size() == 1 && st.node(body.front()).kind() == NodeKind::NestedSDFG)
      p.error = "the body of map '" + m.label + "' is one nested SDFG ('" + st.node(body.front()).label +
                "'); splitting its states is not supported";
    else
      p.error = "the body of map '" + m.label + "' is one connected piece: nothing to split";
    return p;
  }
  if (!order_parts(st, body, cuts, p)) {
    p.error = "the parts of map '" + m.label + "' depend on each other in a cycle through transients";
    return p;
  }
  // A transient whose access nodes lie in several parts links them: it is expanded.
  std::map<std::string, std::set<std::size_t>> parts_of_data;
  for (NodeId n : body)
    if (const auto* an = st.node(n).as<AccessNode>()) parts_of_data[an->data].insert(p.part_of.at(n));
  std::set<std::string> cut_data;
  for (NodeId n : cuts) {
    const std::string& data = st.node(n).as<AccessNode>()->data;
    cut_data.insert(data);
    for (EdgeId e : st.out_edges(n)) {
      auto it = p.part_of.find(st.edge(e).dst);
      if (it != p.part_of.end() && it->second != p.part_of.at(n)) p.expanded.insert(data);
    }
  }
  for (const auto& [data, parts] : parts_of_data)
    if (parts.size() > 1 && cut_data.count(data)) p.expanded.insert(data);
  for (const auto& data : p.expanded) {
    if (auto why = expansion_problem(st, body, p, data); !why.empty()) {
      p.error = why;
      return p;
    }
  }
  if (!p.expanded.empty())
    if (auto why = range_problem(st, tree, me); !why.empty()) {
      p.error = why;
      return p;
    }
  p.error = conflict(st, me, p);
  return p;
}

/// A fresh connector pair name on `entry`/`exit` for container `data`.
std::string fresh_conn(const Node& n, const std::string& data, bool in) {
  std::string base = data;
  for (int k = 1;; ++k) {
    const auto& conns = in ? n.in_connectors : n.out_connectors;
    if (!conns.count((in ? "IN_" : "OUT_") + base)) return base;
    base = data + "_" + std::to_string(k);
  }
}

/// Rewrites memlets of the expanded transients inside the body: the map's parameters (minus the
/// range starts) become leading indices.
std::vector<Range> expand_transients(const MatchContext& ctx, const MapEntry& me,
                                     const std::vector<NodeId>& body, const std::set<std::string>& expanded) {
  SDFGState& st = *ctx.state;
  const MapInfo& m = *me.map;
  std::vector<Range> lead;
  std::vector<sym::Expr> sizes;
  for (std::size_t d = 0; d < m.params.size(); ++d) {
    lead.push_back(Range::index(sym::Expr::symbol(m.params[d]) - m.range[d].start));
    sizes.push_back(m.range[d].end - m.range[d].start + sym::Expr(1));
  }
  for (const auto& data : expanded) {
    DataDescriptor& old = ctx.sdfg.data(data);
    std::vector<sym::Expr> shape = sizes;
    if (!old.is_scalar()) shape.insert(shape.end(), old.shape.begin(), old.shape.end());
    DataDescriptor desc = DataDescriptor::make_array(old.dtype.base, shape, true);
    desc.dtype = old.dtype;
    // Between two kernels the expanded transient lives in device memory, else in the host's.
    desc.storage = is_gpu(m.schedule)                     ? StorageType::GPU_Global
                   : old.storage == StorageType::Register ? StorageType::Default
                                                          : old.storage;
    old = desc;
  }
  std::set<EdgeId> seen;
  for (NodeId n : body)
    for (const auto& list : {st.in_edges(n), st.out_edges(n)})
      for (EdgeId e : list) {
        Memlet& mem = st.edge(e).memlet;
        if (!seen.insert(e).second || !expanded.count(mem.data)) continue;
        std::vector<Range> r = lead;
        const auto& tail = mem.subset.ranges();
        bool scalar_index = tail.size() == 1 && tail[0] == Range::index(sym::Expr(0)) &&
                            ctx.sdfg.data(mem.data).shape.size() == lead.size();
        if (!scalar_index) r.insert(r.end(), tail.begin(), tail.end());
        mem.subset = Subset(r);
      }
  return lead;
}

}  // namespace

MatchResult MapFission::can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) const {
  Plan p = make_plan(ctx, pattern(ctx, sub).get<0>());
  if (!p.error.empty()) return refuse(p.error);
  return MatchResult::success();
}

void MapFission::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  SDFGState& st = *ctx.state;
  MapEntry& me = pattern(ctx, sub).get<0>();
  Plan p = make_plan(ctx, me);
  if (!p.error.empty()) throw TransformError("MapFission: " + p.error);
  const ScopeTree tree = st.scope_tree();
  std::vector<NodeId> body = detail::scope_body(st, tree, me.id());
  NodeId enclosing = tree.parent[me.id()];
  NodeId orig_entry = me.id(), orig_exit = me.exit;
  MapInfo info = *me.map;
  const std::vector<Range> lead = expand_transients(ctx, me, body, p.expanded);

  std::vector<MapEntry*> entries;
  for (std::size_t k = 0; k < p.parts.size(); ++k) {
    MapEntry& ne = st.add_map(info.label + "_" + std::to_string(k), info.params, info.range, info.schedule);
    std::string label = ne.map->label;
    *ne.map = info;
    ne.map->label = label;
    entries.push_back(&ne);
  }
  auto add_conn = [](Node& n, const std::string& name, bool in) {
    (in ? n.in_connectors : n.out_connectors).emplace(name, std::nullopt);
  };
  // Entry edges: each part's map gets the connectors its nodes read through.
  std::vector<EdgeId> entry_out(st.out_edges(orig_entry));
  for (EdgeId e : entry_out) {
    DataflowEdge d = st.edge(e);
    MapEntry& ne = *entries[p.part_of.at(d.dst)];
    if (d.src_conn.empty()) {
      st.add_edge(ne.id(), "", d.dst, d.dst_conn, d.memlet);
      continue;
    }
    std::string x = d.src_conn.substr(4);
    if (!ne.out_connectors.count(d.src_conn)) {
      add_conn(ne, "IN_" + x, true);
      add_conn(ne, d.src_conn, false);
      for (EdgeId oe : st.in_edges_by_connector(orig_entry, "IN_" + x)) {
        DataflowEdge o = st.edge(oe);
        st.add_edge(o.src, o.src_conn, ne.id(), "IN_" + x, o.memlet);
      }
    }
    st.add_edge(ne.id(), d.src_conn, d.dst, d.dst_conn, d.memlet);
  }
  std::vector<EdgeId> exit_in(st.in_edges(orig_exit));
  for (EdgeId e : exit_in) {
    DataflowEdge d = st.edge(e);
    MapExit& nx = *st.node(entries[p.part_of.at(d.src)]->exit).as<MapExit>();
    if (d.dst_conn.empty()) {
      st.add_edge(d.src, d.src_conn, nx.id(), "", d.memlet);
      continue;
    }
    std::string x = d.dst_conn.substr(3);
    if (!nx.in_connectors.count(d.dst_conn)) {
      add_conn(nx, d.dst_conn, true);
      add_conn(nx, "OUT_" + x, false);
      for (EdgeId oe : st.out_edges_by_connector(orig_exit, "OUT_" + x)) {
        DataflowEdge o = st.edge(oe);
        st.add_edge(nx.id(), "OUT_" + x, o.dst, o.dst_conn, o.memlet);
      }
    }
    st.add_edge(d.src, d.src_conn, nx.id(), d.dst_conn, d.memlet);
  }
  // Edges that read a linking transient in another part: the writer's map stores it into an
  // access node between the maps, the reader's map loads it into a node of its own.
  std::map<std::string, NodeId> between;
  std::map<NodeId, std::string> stored;                     // writer node -> its exit connector
  std::map<std::pair<NodeId, std::size_t>, NodeId> loaded;  // (writer node, reader part) -> node
  for (NodeId n : body) {
    const auto* an = st.node(n).as<AccessNode>();
    if (!an || !p.expanded.count(an->data)) continue;
    std::string data = an->data;
    const auto& shape = ctx.sdfg.data(data).shape;
    Memlet whole = Memlet::simple(data, Subset::full(shape));
    std::vector<Range> per_iteration = lead;
    for (std::size_t k = lead.size(); k < shape.size(); ++k)
      per_iteration.emplace_back(sym::Expr(0), shape[k] - sym::Expr(1));
    Memlet one = Memlet::simple(data, Subset(per_iteration));
    std::vector<EdgeId> outs(st.out_edges(n));
    for (EdgeId e : outs) {
      DataflowEdge d = st.edge(e);
      std::size_t rp = p.part_of.at(d.dst), wp = p.part_of.at(n);
      if (rp == wp) continue;
      if (!between.count(data)) between[data] = st.add_access(data).id();
      if (!stored.count(n)) {
        MapExit& nx = *st.node(entries[wp]->exit).as<MapExit>();
        std::string c = fresh_conn(nx, data, true);
        add_conn(nx, "IN_" + c, true);
        add_conn(nx, "OUT_" + c, false);
        st.add_edge(n, "", nx.id(), "IN_" + c, one);
        st.add_edge(nx.id(), "OUT_" + c, between[data], "", whole);
        stored[n] = c;
      }
      auto key = std::make_pair(n, rp);
      if (!loaded.count(key)) {
        MapEntry& ne = *entries[rp];
        std::string c = fresh_conn(ne, data, false);
        add_conn(ne, "IN_" + c, true);
        add_conn(ne, "OUT_" + c, false);
        NodeId copy = st.add_access(data).id();
        st.add_edge(between[data], "", ne.id(), "IN_" + c, whole);
        st.add_edge(ne.id(), "OUT_" + c, copy, "", one);
        loaded[key] = copy;
      }
      st.add_edge(loaded[key], "", d.dst, d.dst_conn, d.memlet);
      st.remove_edge(e);
    }
  }
  // Edges that kept the original scopes in place (ordering edges from an enclosing map).
  for (EdgeId e : std::vector<EdgeId>(st.in_edges(orig_entry))) {
    const DataflowEdge& d = st.edge(e);
    if (!d.dst_conn.empty()) continue;
    for (MapEntry* ne : entries) st.add_edge(d.src, d.src_conn, ne->id(), "", d.memlet);
  }
  for (EdgeId e : std::vector<EdgeId>(st.out_edges(orig_exit))) {
    const DataflowEdge& d = st.edge(e);
    if (!d.src_conn.empty()) continue;
    for (MapEntry* ne : entries) st.add_edge(ne->exit, "", d.dst, d.dst_conn, d.memlet);
  }
  st.remove_node(orig_entry);
  st.remove_node(orig_exit);
  if (enclosing != kNoNode) {
    NodeId enclosing_exit = st.node(enclosing).as<MapEntry>()->exit;
    for (MapEntry* ne : entries) {
      if (st.in_edges(ne->id()).empty()) st.add_edge(enclosing, "", ne->id(), "", Memlet{});
      if (st.out_edges(ne->exit).empty()) st.add_edge(ne->exit, "", enclosing_exit, "", Memlet{});
    }
  }
  for (MapEntry* ne : entries) propagate_memlets_scope(st, ne->id());
}

}  // namespace weir::transforms
