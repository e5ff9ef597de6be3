// Where a view points (view_binding.h).
#include "weir/sdfg/view_binding.h"

namespace weir {

namespace {

/// The only non-empty edge between `n` and another access node among `edges`, when `edges`
/// has exactly one element.
const DataflowEdge* only_access_edge(const SDFGState& st, const std::vector<EdgeId>& edges, bool incoming) {
  if (edges.size() != 1) return nullptr;
  const DataflowEdge& e = st.edge(edges.front());
  const Node& other = st.node(incoming ? e.src : e.dst);
  return other.kind() == NodeKind::Access && !e.memlet.is_empty() ? &e : nullptr;
}

}  // namespace

const DataflowEdge* view_edge(const SDFGState& st, const AccessNode& n) {
  for (EdgeId id : st.in_edges(n.id()))
    if (st.edge(id).dst_conn == "views") return &st.edge(id);
  for (EdgeId id : st.out_edges(n.id()))
    if (st.edge(id).src_conn == "views") return &st.edge(id);
  // Without connector names: the only edge from / to another access node.
  if (const DataflowEdge* e = only_access_edge(st, st.in_edges(n.id()), true)) return e;
  return only_access_edge(st, st.out_edges(n.id()), false);
}

std::optional<ViewBinding> view_binding(const SDFG& sdfg, const SDFGState& st, const AccessNode& n) {
  const DataflowEdge* e = view_edge(st, n);
  if (!e) return std::nullopt;
  ViewBinding b;
  b.edge = e;
  if (e->memlet.data != n.data) {
    b.viewed = e->memlet.data;
    b.subset = e->memlet.subset;
    return b;
  }
  const auto* other = st.node(e->dst == n.id() ? e->src : e->dst).as<AccessNode>();
  if (!other) return std::nullopt;
  b.viewed = other->data;
  if (e->memlet.other_subset) {
    b.subset = *e->memlet.other_subset;
  } else {
    auto it = sdfg.arrays.find(b.viewed);
    if (it == sdfg.arrays.end()) return std::nullopt;
    b.subset = Subset::full(it->second.shape);
  }
  return b;
}

}  // namespace weir
