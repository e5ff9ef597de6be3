// Writes that always follow a write to a transient and cover every read of it (see the header).
#include "overwritten_before_read.h"

#include <set>
#include <vector>

#include "control_flow_mentions.h"

namespace weir::transforms::detail {
namespace {

// The subset of `data` a memlet describes, if it names it.
std::optional<Subset> subset_of(const Memlet& m, const std::string& data) {
  if (m.data == data) return m.subset;
  if (m.other_subset) return *m.other_subset;
  return std::nullopt;
}

bool at_least(const sym::Expr& a, const sym::Expr& b) {
  auto d = (a - b).as_integer();
  return d && *d >= 0;
}

// Whether `inner` lies inside `outer`, bound by bound (integer differences only).
bool covers(const Subset& outer, const Subset& inner) {
  if (outer.dims() != inner.dims()) return false;
  for (std::size_t d = 0; d < outer.dims(); ++d) {
    const Range &o = outer[d], &i = inner[d];
    if (o.step.as_integer() != 1 || o.tile.as_integer() != 1) return false;
    if (!at_least(i.start, o.start) || !at_least(o.end, i.end)) return false;
  }
  return true;
}

// The elements a map writes exactly through the edge `into_exit` (a tasklet or an access node
// inside the map -> its exit): each
// index is one parameter plus an integer constant, each parameter used once, over unit steps.
std::optional<Subset> map_write(const SDFGState& st, const DataflowEdge& into_exit, const std::string& data) {
  const auto* exit = st.node(into_exit.dst).as<MapExit>();
  const Node& src = st.node(into_exit.src);
  if (!exit || !(src.as<Tasklet>() || src.as<AccessNode>()) || into_exit.memlet.dynamic ||
      !into_exit.memlet.wcr.empty())
    return std::nullopt;
  auto point = subset_of(into_exit.memlet, data);
  if (!point || !point->is_single_element()) return std::nullopt;
  const MapInfo& map = *exit->map;
  std::vector<Range> out;
  std::set<std::string> used;
  for (const Range& r : point->ranges()) {
    std::optional<Range> dim;
    for (std::size_t p = 0; p < map.params.size() && !dim; ++p) {
      auto c = (r.start - sym::Expr::symbol(map.params[p])).as_integer();
      if (!c || !used.insert(map.params[p]).second) continue;
      const Range& pr = map.range[p];
      if (pr.step.as_integer() != 1) return std::nullopt;
      dim = Range(pr.start + sym::Expr(*c), pr.end + sym::Expr(*c));
    }
    if (!dim) return std::nullopt;
    out.push_back(*dim);
  }
  return Subset(out);
}

// What the in-edges of access node `n` write of `data` exactly.
void exact_writes(const SDFGState& st, NodeId n, const std::string& data, std::vector<Subset>& out) {
  for (EdgeId e : st.in_edges(n)) {
    const DataflowEdge& d = st.edge(e);
    const Memlet& m = d.memlet;
    if (m.is_empty() || m.dynamic || !m.wcr.empty()) continue;
    if (const auto* exit = st.node(d.src).as<MapExit>()) {
      if (d.src_conn.rfind("OUT_", 0) != 0) continue;
      auto inner = st.in_edges_by_connector(exit->id(), "IN_" + d.src_conn.substr(4));
      if (inner.size() != 1) continue;
      if (auto w = map_write(st, st.edge(inner.front()), data)) out.push_back(*w);
    } else if (st.node(d.src).as<AccessNode>() || st.node(d.src).as<Tasklet>()) {
      if (auto w = subset_of(m, data)) out.push_back(*w);
    }
  }
}

// Whether the read `d` (from an access node nothing writes in its state) only passes the
// container into nested SDFGs (through map entries) that read no value they did not write.
bool feeds_only_nested_writers(const SDFGState& st, const DataflowEdge& d) {
  const Node& dst = st.node(d.dst);
  if (dst.as<MapEntry>()) {
    if (d.dst_conn.rfind("IN_", 0) != 0) return false;
    for (EdgeId o : st.out_edges_by_connector(d.dst, "OUT_" + d.dst_conn.substr(3)))
      if (!feeds_only_nested_writers(st, st.edge(o))) return false;
    return true;
  }
  if (const auto* ns = dst.as<NestedSDFGNode>())
    return ns->sdfg && ns->sdfg->has_data(d.dst_conn) && read_only_where_written(*ns->sdfg, d.dst_conn);
  return false;
}

}  // namespace

bool read_only_where_written(const SDFG& sdfg, const std::string& T) {
  auto cf = control_flow_mentions(sdfg);
  if (auto c = cf.find(T); c != cf.end() && c->second > 0) return false;
  for (const SDFGState* s : sdfg.all_states())
    for (const AccessNode* a : s->access_nodes(T)) {
      std::vector<Subset> here;
      exact_writes(*s, a->id(), T, here);
      for (EdgeId e : s->out_edges(a->id())) {
        const DataflowEdge& d = s->edge(e);
        if (d.memlet.is_empty()) continue;
        if (s->in_edges(a->id()).empty()) {
          if (feeds_only_nested_writers(*s, d)) continue;
          return false;
        }
        auto r = subset_of(d.memlet, T);
        if (!r) return false;
        bool covered = false;
        for (const Subset& w : here) covered = covered || covers(w, *r);
        if (!covered) return false;
      }
    }
  return true;
}

std::optional<std::string> overwritten_before_read(const SDFG& sdfg, const ControlFlowRegion& region,
                                                   const SDFGState& st, const AccessNode& written) {
  const std::string& T = written.data;
  if (st.access_nodes(T).size() != 1) return std::string();
  // The chain of states after `st` that write T without reading it.
  std::vector<Subset> writes;
  std::set<const SDFGState*> chain{&st};
  BlockId cur = st.id();
  for (;;) {
    auto outs = region.out_edges(cur);
    if (outs.size() != 1 || !outs.front()->data.is_unconditional()) break;
    BlockId next = outs.front()->dst;
    const auto* s = region.block(next).as<SDFGState>();
    if (!s || region.in_edges(next).size() != 1 || chain.count(s)) break;
    bool reads = false;
    for (const AccessNode* a : s->access_nodes(T)) reads = reads || !s->out_edges(a->id()).empty();
    if (reads) break;
    for (const AccessNode* a : s->access_nodes(T)) exact_writes(*s, a->id(), T, writes);
    chain.insert(s);
    cur = next;
  }
  if (writes.empty()) return std::string();
  // Every read anywhere inside one of them.
  for (const SDFGState* s : sdfg.all_states())
    for (const AccessNode* a : s->access_nodes(T))
      for (EdgeId e : s->out_edges(a->id())) {
        const Memlet& m = s->edge(e).memlet;
        if (m.is_empty()) continue;
        auto r = subset_of(m, T);
        if (!r) return " (a memlet of state '" + s->label + "' reads it without naming its subset)";
        bool covered = false;
        for (const Subset& w : writes) covered = covered || covers(w, *r);
        if (!covered)
          return " (at " + T + "[" + r->str() + "] in state '" + s->label + "', which the " +
                 std::to_string(writes.size()) + " write(s) that always follow do not cover)";
      }
  return std::nullopt;
}

}  // namespace weir::transforms::detail
