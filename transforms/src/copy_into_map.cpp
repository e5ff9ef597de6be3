// CopyIntoMap: a map's result copied after the map: each point writes its element of the copy's
// destination itself (see the header).
#include "weir/transforms/copy_into_map.h"

#include <map>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "view_indexing.h"
#include "weir/sdfg/view_binding.h"
#include "weir/transforms/analysis.h"

namespace weir::transforms {

CopyIntoMap::CopyIntoMap()
    : PatternTransformation(
          "CopyIntoMap",
          "Let the map that writes an array copied after it write the copy's destination too, "
          "element by element (removes the copy outside the map)",
          {}, Effects{.converges = true}) {}

std::vector<std::vector<std::uint32_t>> CopyIntoMap::expand(const MatchContext& ctx,
                                                            std::uint32_t anchor) const {
  const SDFGState& st = *ctx.state;
  std::vector<std::vector<std::uint32_t>> out;
  for (EdgeId e : st.out_edges(anchor))
    if (st.node(st.edge(e).dst).as<AccessNode>()) out.push_back({anchor, st.edge(e).dst});
  return out;
}

namespace {

bool equal(const sym::Expr& a, const sym::Expr& b) {
  auto d = (a - b).as_integer();
  return d && *d == 0;
}

/// A tasklet's read of B at another element of the copied part than its point's (`at`, in B's
/// indices, also where the read goes through a view of B), and the part of B the map's points
/// read there together (taken into a snapshot before the map, copied from B's node `from`).
struct Snapshot {
  EdgeId read = 0;
  Subset at;
  Subset whole;
  NodeId from = kNoNode;
};

/// What can be decided about a match, for can_apply and apply alike.
struct Plan {
  EdgeId copy = 0;       // A -> B
  EdgeId into_exit = 0;  // tasklet -> M's exit, writing A[p]
  NodeId tasklet = kNoNode;
  NodeId entry = kNoNode, exit = kNoNode;
  Subset point_b;  // B[p']
  Subset part_b;   // the copy's part of B
  std::vector<Snapshot> snapshots;
};

/// The element of B each point writes: B's dimensions of the copied part, in order, take A's
/// (the point's index minus the part's start, plus B's start); B's dimensions of extent 1 not
/// paired keep their index. Nullopt where the extents differ.
std::optional<Subset> point_in_b(const Subset& part_a, const Subset& part_b, const Subset& point_a) {
  auto wide = [](const Subset& s) {
    std::vector<std::size_t> d;
    for (std::size_t i = 0; i < s.dims(); ++i)
      if (!equal(s[i].start, s[i].end)) d.push_back(i);
    return d;
  };
  std::vector<std::size_t> wa = wide(part_a), wb = wide(part_b);
  if (wa.size() != wb.size()) return std::nullopt;
  std::vector<Range> out;
  std::size_t k = 0;
  for (std::size_t i = 0; i < part_b.dims(); ++i) {
    if (k < wb.size() && wb[k] == i) {
      std::size_t a = wa[k++];
      if (!equal(part_a[a].end - part_a[a].start, part_b[i].end - part_b[i].start)) return std::nullopt;
      out.push_back(Range::index(point_a[a].start - part_a[a].start + part_b[i].start));
    } else {
      out.push_back(Range::index(part_b[i].start));
    }
  }
  return Subset(out);
}

/// Whether `point` (a tasklet's single element) covers `part` exactly as the map's points run:
/// each index a parameter plus a constant, each parameter used once, over unit steps.
bool writes_exactly(const MapInfo& map, const Subset& point, const Subset& part) {
  if (point.dims() != part.dims()) return false;
  std::set<std::string> used;
  for (std::size_t i = 0; i < point.dims(); ++i) {
    bool found = false;
    for (std::size_t p = 0; p < map.params.size() && !found; ++p) {
      auto c = (point[i].start - sym::Expr::symbol(map.params[p])).as_integer();
      if (!c || used.count(map.params[p])) continue;
      const Range& r = map.range[p];
      if (r.step.as_integer() != 1 || !equal(r.start + sym::Expr(*c), part[i].start) ||
          !equal(r.end + sym::Expr(*c), part[i].end))
        return false;
      used.insert(map.params[p]);
      found = true;
    }
    if (!found) return false;
  }
  return used.size() == map.params.size();
}

/// Whether the element read `r` of B lies outside the copied part (some dimension provably apart).
bool apart(const Subset& r, const Subset& part) {
  if (r.dims() != part.dims()) return false;
  for (std::size_t i = 0; i < r.dims(); ++i) {
    auto below = (r[i].end - part[i].start).as_integer();
    auto above = (r[i].start - part[i].end).as_integer();
    if ((below && *below < 0) || (above && *above > 0)) return true;
  }
  return false;
}

/// The dimensions of `s` that hold more than one index (not provably single).
std::size_t wide_dims(const Subset& s) {
  std::size_t n = 0;
  for (std::size_t i = 0; i < s.dims(); ++i) n += equal(s[i].start, s[i].end) ? 0 : 1;
  return n;
}

/// What the points of `map` read together where each reads the element `r`: each index free of
/// the map's parameters or one parameter plus a constant (its range then shifted), the result free
/// of the parameters; nullopt otherwise.
std::optional<Subset> read_over_map(const MapInfo& map, const Subset& r) {
  std::vector<Range> out;
  for (std::size_t i = 0; i < r.dims(); ++i) {
    const sym::Expr& e = r[i].start;
    if (!equal(e, r[i].end)) return std::nullopt;
    const std::set<std::string> used = e.free_symbols();
    std::optional<Range> range;
    for (std::size_t p = 0; p < map.params.size(); ++p) {
      if (!used.count(map.params[p])) continue;
      auto c = (e - sym::Expr::symbol(map.params[p])).as_integer();
      if (!c || range) return std::nullopt;
      range = Range(map.range[p].start + sym::Expr(*c), map.range[p].end + sym::Expr(*c));
    }
    out.push_back(range ? *range : Range::index(e));
  }
  Subset whole(out);
  for (const std::string& p : map.params)
    if (whole.free_symbols().count(p)) return std::nullopt;
  return whole;
}

/// Nodes of M's scope from which `to` is reached (its predecessors inside the map), and `to`.
std::set<NodeId> before(const SDFGState& st, NodeId to, NodeId entry) {
  std::set<NodeId> seen{to};
  std::vector<NodeId> todo{to};
  while (!todo.empty()) {
    NodeId n = todo.back();
    todo.pop_back();
    for (EdgeId e : st.in_edges(n)) {
      NodeId s = st.edge(e).src;
      if (s != entry && seen.insert(s).second) todo.push_back(s);
    }
  }
  return seen;
}

bool same(const Subset& a, const Subset& b) {
  if (a.dims() != b.dims()) return false;
  for (std::size_t i = 0; i < a.dims(); ++i)
    if (!equal(a[i].start, b[i].start) || !equal(a[i].end, b[i].end)) return false;
  return true;
}

/// Why the map's read of B's node `from` (directly, or through view `view` when given) on
/// `d`, an edge into the map's entry, stops the copy from moving into M, or empty. Reads
/// elsewhere in the copied part that fewer dimensions than the part's span together become
/// snapshots.
std::string map_read(const SDFGState& st, Plan& p, const std::set<NodeId>& pred, const DataflowEdge& d,
                     NodeId from, const std::string& b, const detail::ViewIndexing* view) {
  const MapInfo& map = *st.node(p.entry).as<MapEntry>()->map;
  const std::string via = view ? " through view '" + st.node(d.src).as<AccessNode>()->data + "'" : "";
  if (d.dst != p.entry || d.dst_conn.rfind("IN_", 0) != 0)
    return "'" + b + "' is read in the state by '" + st.node(d.dst).label + "'" + via + ", not by the map";
  const std::string name = view ? st.node(d.src).as<AccessNode>()->data : b;
  for (EdgeId in : st.out_edges_by_connector(p.entry, "OUT_" + d.dst_conn.substr(3))) {
    const DataflowEdge& r = st.edge(in);
    if (!st.node(r.dst).as<Tasklet>() || r.memlet.data != name)
      return "the map reads '" + b + "'" + via + " other than by a tasklet";
    const std::optional<Subset> at = view ? view->to_viewed(r.memlet.subset) : r.memlet.subset;
    if (!at)
      return "the map reads view '" + name + "' at [" + r.memlet.subset.str() +
             "], outside its dimensions along '" + b + "'";
    if (apart(*at, p.part_b)) continue;
    // Elsewhere in the part, along fewer dimensions than the part (floyd_warshall's row and
    // column k of `path`): the points read a snapshot of those elements taken before the map.
    auto whole = same(*at, p.point_b) ? std::nullopt : read_over_map(map, *at);
    if (whole && wide_dims(*whole) < wide_dims(p.part_b) && map.schedule != ScheduleType::GPU_Device) {
      p.snapshots.push_back({in, *at, *whole, from});
      continue;
    }
    if (!same(*at, p.point_b))
      return "the map reads '" + b + "[" + at->str() + "]'" + via + ", not only the element [" +
             p.point_b.str() + "] each point would write (nor a part of fewer dimensions than the copy's)";
    if (!pred.count(r.dst))
      return "tasklet '" + st.node(r.dst).label + "' reads '" + b +
             "' at the point without coming before the write of the copied value";
  }
  return {};
}

/// Why B's other access nodes in the state stop the copy from moving into M, or empty. Each is
/// read by the map directly or through views of B (ADR 0053, session 37) defined by its edges.
std::string other_uses_of_b(const MatchContext& ctx, const ScopeTree& tree, Plan& p, NodeId b_node,
                            const std::string& b) {
  const SDFGState& st = *ctx.state;
  std::set<NodeId> pred = before(st, p.tasklet, p.entry);
  for (const AccessNode* o : st.access_nodes(b)) {
    if (o->id() == b_node) continue;
    if (tree.parent[o->id()] != kNoNode) return "'" + b + "' has an access node inside a map";
    if (!st.in_edges(o->id()).empty()) return "'" + b + "' is written elsewhere in the state";
    for (EdgeId e : st.out_edges(o->id())) {
      const DataflowEdge& d = st.edge(e);
      const auto* v = st.node(d.dst).as<AccessNode>();
      if (!v || !ctx.sdfg.has_data(v->data) || !ctx.sdfg.data(v->data).is_view() || view_edge(st, *v) != &d) {
        if (auto why = map_read(st, p, pred, d, o->id(), b, nullptr); !why.empty()) return why;
        continue;
      }
      auto indexing = detail::view_indexing(ctx.sdfg, st, *v);
      if (const auto* why = std::get_if<std::string>(&indexing))
        return "the map reads '" + b + "' through a view that is not its elements one by one: " + *why;
      if (st.in_edges(v->id()).size() != 1) return "view '" + v->data + "' of '" + b + "' is also written";
      for (EdgeId ve : st.out_edges(v->id()))
        if (auto why =
                map_read(st, p, pred, st.edge(ve), o->id(), b, &std::get<detail::ViewIndexing>(indexing));
            !why.empty())
          return why;
    }
  }
  return {};
}

/// The plan for A -> B, or why not.
std::string plan(const MatchContext& ctx, const AccessNode& a, const AccessNode& b, Plan& p) {
  const SDFGState& st = *ctx.state;
  const ScopeTree& tree = ctx.cache.scope_tree(st);
  if (a.data == b.data) return "the copy stays in '" + a.data + "'";
  if (tree.parent[a.id()] != kNoNode || tree.parent[b.id()] != kNoNode)
    return "an access node is inside a map";
  if (!ctx.sdfg.has_data(a.data) || !ctx.sdfg.has_data(b.data)) return "a container does not exist";
  const DataDescriptor &da = ctx.sdfg.data(a.data), &db = ctx.sdfg.data(b.data);
  if (da.is_view() || db.is_view())
    return "'" + (da.is_view() ? a.data : b.data) +
           "' is a view (its edge defines it; a view is not a map's result)";
  if (!(da.dtype == db.dtype)) return "the copy converts the element type";
  // A copy between GPU and host memory moves data: a kernel must not write host memory.
  auto on_gpu = [](const DataDescriptor& d) {
    return d.storage == StorageType::GPU_Global || d.storage == StorageType::GPU_Shared;
  };
  if (on_gpu(da) != on_gpu(db)) return "the copy moves data between host and GPU memory";
  std::vector<EdgeId> copies;
  for (EdgeId e : st.out_edges(a.id()))
    if (st.edge(e).dst == b.id()) copies.push_back(e);
  if (copies.size() != 1) return "'" + a.data + "' is not copied to '" + b.data + "' by one edge";
  p.copy = copies.front();
  const Memlet& m = st.edge(p.copy).memlet;
  if (m.is_empty() || !m.wcr.empty() || m.dynamic) return "the copy is empty, dynamic or accumulates";
  if (st.in_edges(b.id()).size() != 1) return "'" + b.data + "' has other writers in this node";
  CopySubsets ends = copy_subsets(m, a.data, b.data);
  if (!ends.src && !ends.dst) return "the copy's memlet refers to '" + m.data + "'";
  const Subset part_a = ends.src ? *ends.src : *ends.dst;
  p.part_b = ends.dst ? *ends.dst : *ends.src;
  if (part_a.dims() != da.shape.size() || p.part_b.dims() != db.shape.size())
    return "the copy's subsets do not match the containers' dimensions";
  // A's writer: one map, one tasklet directly inside it, one element per point.
  if (st.in_edges(a.id()).empty()) return "'" + a.data + "' is not written in this state (the copy reads it)";
  if (st.in_edges(a.id()).size() != 1) return "'" + a.data + "' has several writers";
  const DataflowEdge& w = st.edge(st.in_edges(a.id()).front());
  const auto* mx = st.node(w.src).as<MapExit>();
  if (!mx || w.src_conn.rfind("OUT_", 0) != 0) return "'" + a.data + "' is not written by a map";
  if (st.out_edges_by_connector(mx->id(), w.src_conn).size() != 1)
    return "the map's exit has several outputs for '" + a.data + "'";
  auto inner = st.in_edges_by_connector(mx->id(), "IN_" + w.src_conn.substr(4));
  if (inner.size() != 1) return "the map writes '" + a.data + "' through several edges";
  p.into_exit = inner.front();
  p.exit = mx->id();
  p.entry = mx->entry;
  const DataflowEdge& ie = st.edge(p.into_exit);
  p.tasklet = ie.src;
  if (!st.node(ie.src).as<Tasklet>() || tree.parent[ie.src] != p.entry)
    return "'" + a.data + "' is not written by a tasklet directly inside the map";
  if (tree.parent[p.entry] != kNoNode) return "the map is inside another map";
  if (mx->map->schedule == ScheduleType::GPU_Device && !on_gpu(db))
    return "the map is a GPU kernel and '" + b.data + "' is in host memory";
  const Memlet& im = ie.memlet;
  if (im.data != a.data || im.other_subset || im.dynamic || !im.wcr.empty() || !im.subset.is_single_element())
    return "the tasklet does not write one element of '" + a.data + "'";
  if (!writes_exactly(*mx->map, im.subset, part_a))
    return "the map does not write each element of the copied part [" + part_a.str() + "] once";
  auto pb = point_in_b(part_a, p.part_b, im.subset);
  if (!pb) return "the copy's parts of '" + a.data + "' and '" + b.data + "' differ in extent";
  p.point_b = *pb;
  for (const auto& [conn, ty] : st.node(p.exit).in_connectors)
    for (EdgeId e : st.in_edges_by_connector(p.exit, conn))
      if (st.edge(e).memlet.data == b.data) return "the map already writes '" + b.data + "'";
  return other_uses_of_b(ctx, tree, p, b.id(), b.data);
}

/// A new connector pair `IN_<base>` / `OUT_<base>` (numbered where taken) on `n`; its name.
std::string fresh_connector(Node& n, const std::string& base) {
  std::string conn = base;
  for (int i = 0; n.in_connectors.count("IN_" + conn); ++i) conn = base + "_" + std::to_string(i);
  n.in_connectors["IN_" + conn] = std::nullopt;
  n.out_connectors["OUT_" + conn] = std::nullopt;
  return conn;
}

/// Each snapshot read of B goes to a transient holding `whole` (its dimensions of one index
/// dropped), copied from B's node that fed the read (directly or through a view) before the map;
/// one transient per part. A connector of the entry that no longer carries a read goes with its
/// outer edge, and a view of B then read by nothing with its node (and B's node left alone).
void take_snapshots(const MatchContext& ctx, SDFGState& st, const Plan& p, const std::string& b) {
  std::map<std::string, std::pair<std::string, std::string>> made;  // part -> (transient, connector)
  std::set<std::string> emptied;
  for (const Snapshot& s : p.snapshots) {
    const DataflowEdge r = st.edge(s.read);
    const std::string old = r.src_conn.substr(4);
    std::vector<sym::Expr> index, shape;
    for (std::size_t i = 0; i < s.whole.dims(); ++i)
      if (!equal(s.whole[i].start, s.whole[i].end)) {
        index.push_back(s.at[i].start - s.whole[i].start);
        shape.push_back(s.whole[i].end - s.whole[i].start + sym::Expr(1));
      }
    if (shape.empty()) {
      index.push_back(sym::Expr(0));
      shape.push_back(sym::Expr(1));
    }
    auto it = made.find(s.whole.str());
    if (it == made.end()) {
      std::string name = ctx.sdfg.unique_data_name(b + "_snapshot");
      DataDescriptor desc = DataDescriptor::make_array(ScalarType::Float64, shape, true);
      desc.dtype = ctx.sdfg.data(b).dtype;
      ctx.sdfg.add_data(name, desc);
      NodeId node = st.add_access(name).id();
      Memlet copy = Memlet::simple(b, s.whole);
      copy.other_subset = Subset::full(shape);
      st.add_edge(s.from, "", node, "", copy);
      std::string conn = fresh_connector(st.node(p.entry), name);
      st.add_edge(node, "", p.entry, "IN_" + conn, Memlet::simple(name, Subset::full(shape)));
      it = made.emplace(s.whole.str(), std::make_pair(name, conn)).first;
    }
    st.remove_edge(s.read);
    std::vector<Range> at;
    for (const sym::Expr& i : index) at.push_back(Range::index(i));
    st.add_edge(p.entry, "OUT_" + it->second.second, r.dst, r.dst_conn,
                Memlet::simple(it->second.first, Subset(at)));
    emptied.insert(old);
  }
  for (const std::string& conn : emptied) {
    if (!st.out_edges_by_connector(p.entry, "OUT_" + conn).empty()) continue;
    for (EdgeId e : st.in_edges_by_connector(p.entry, "IN_" + conn)) {
      const NodeId src = st.edge(e).src;
      st.remove_edge(e);
      const auto* v = st.node(src).as<AccessNode>();
      if (!v || v->data == b || !st.out_edges(src).empty() || st.in_edges(src).size() != 1) continue;
      const NodeId viewed = st.edge(st.in_edges(src).front()).src;
      st.remove_node(src);
      if (st.in_edges(viewed).empty() && st.out_edges(viewed).empty()) st.remove_node(viewed);
    }
    st.node(p.entry).in_connectors.erase("IN_" + conn);
    st.node(p.entry).out_connectors.erase("OUT_" + conn);
  }
}

}  // namespace

MatchResult CopyIntoMap::can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) const {
  const AccessNode& a = pattern(ctx, sub).get<0>();
  const AccessNode& b = pattern(ctx, sub).get<1>();
  Plan p;
  if (auto why = plan(ctx, a, b, p); !why.empty()) return refuse(why);
  return MatchResult::success();
}

void CopyIntoMap::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  SDFGState& st = *ctx.state;
  const AccessNode& a = pattern(ctx, sub).get<0>();
  const AccessNode& b = pattern(ctx, sub).get<1>();
  const std::string a_name = a.data, b_name = b.data;
  const NodeId b_node = b.id();
  Plan p;
  plan(ctx, a, b, p);
  take_snapshots(ctx, st, p, b_name);
  const DataflowEdge ie = st.edge(p.into_exit);
  // The point's value: a transient scalar the two copies read.
  std::string value = ctx.sdfg.unique_data_name(a_name + "_value");
  DataDescriptor desc = DataDescriptor::make_scalar(ScalarType::Float64, true);
  desc.dtype = ctx.sdfg.data(a_name).dtype;
  desc.storage = StorageType::Register;
  desc.lifetime = AllocationLifetime::Scope;
  ctx.sdfg.add_data(value, desc);
  st.remove_edge(p.into_exit);
  NodeId v = st.add_access(value).id();
  const Memlet one = Memlet::simple(value, Subset::parse("0"));
  st.add_edge(ie.src, ie.src_conn, v, "", one);
  NodeId to_a =
      st.add_tasklet("copy_to_" + a_name, CodeBlock{"__out = __inp", Language::Python}, {"__inp"}, {"__out"})
          .id();
  st.add_edge(v, "", to_a, "__inp", one);
  st.add_edge(to_a, "__out", p.exit, ie.dst_conn, ie.memlet);
  NodeId to_b =
      st.add_tasklet("copy_to_" + b_name, CodeBlock{"__out = __inp", Language::Python}, {"__inp"}, {"__out"})
          .id();
  st.add_edge(v, "", to_b, "__inp", one);
  const std::string conn = fresh_connector(st.node(p.exit), b_name);
  st.add_edge(to_b, "__out", p.exit, "IN_" + conn, Memlet::simple(b_name, p.point_b));
  st.remove_edge(p.copy);
  st.add_edge(p.exit, "OUT_" + conn, b_node, "", Memlet::simple(b_name, p.part_b));
}

}  // namespace weir::transforms
