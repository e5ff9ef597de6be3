// state_uses: the containers and names a state (or part of one) reads or writes, from the IR.
#include "weir/sdfg/state_uses.h"
#include "weir/sdfg/checked_accesses.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/nodes.h"

namespace weir {

namespace {

void add_node(StateUses& u, const Node& n) {
  if (const auto* a = n.as<AccessNode>()) {
    u.containers.insert(a->data);
  } else if (const auto* e = n.as<MapEntry>()) {
    u.names.merge(e->map->range.free_symbols());
    u.names.merge(checked_access_symbols(*e->map));  // the fused-away accesses it still checks
  } else if (const auto* t = n.as<Tasklet>()) {
    u.names.merge(code_names(t->code).data());
  } else if (const auto* ns = n.as<NestedSDFGNode>()) {
    for (const auto& [inner, outer] : ns->symbol_mapping) u.names.merge(outer.free_symbols());
  }
}

void add_edge(StateUses& u, const DataflowEdge& e) {
  const Memlet& m = e.memlet;
  if (m.is_empty()) return;
  u.containers.insert(m.data);
  u.names.merge(m.subset.free_symbols());
  if (m.other_subset) u.names.merge(m.other_subset->free_symbols());
  u.names.merge(m.volume.free_symbols());
}

// The symbols of the containers' descriptors (shapes, strides, offsets, sizes).
void add_descriptors(StateUses& u, const SDFG& sdfg) {
  for (const std::string& c : u.containers) {
    auto it = sdfg.arrays.find(c);
    if (it != sdfg.arrays.end()) u.names.merge(it->second.free_symbols());
  }
}

}  // namespace

StateUses state_uses(const SDFG& sdfg, const SDFGState& st) {
  StateUses u;
  for (const Node* n : st.nodes()) add_node(u, *n);
  for (const DataflowEdge* e : st.edges()) add_edge(u, *e);
  add_descriptors(u, sdfg);
  return u;
}

StateUses node_uses(const SDFG& sdfg, const SDFGState& st, const std::vector<NodeId>& nodes) {
  StateUses u;
  for (NodeId id : nodes) {
    add_node(u, st.node(id));
    for (EdgeId e : st.in_edges(id)) add_edge(u, st.edge(e));
    for (EdgeId e : st.out_edges(id)) add_edge(u, st.edge(e));
  }
  add_descriptors(u, sdfg);
  return u;
}

}  // namespace weir
