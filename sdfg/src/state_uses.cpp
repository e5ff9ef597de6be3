// state_uses: the containers and names a state reads or writes, from the IR.
#include "weir/sdfg/state_uses.h"

#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/nodes.h"

namespace weir {

StateUses state_uses(const SDFG& sdfg, const SDFGState& st) {
  StateUses u;
  for (const Node* n : st.nodes()) {
    if (const auto* a = n->as<AccessNode>()) {
      u.containers.insert(a->data);
    } else if (const auto* e = n->as<MapEntry>()) {
      u.names.merge(e->map->range.free_symbols());
    } else if (const auto* t = n->as<Tasklet>()) {
      u.names.merge(code_names(t->code).data());
    } else if (const auto* ns = n->as<NestedSDFGNode>()) {
      for (const auto& [inner, outer] : ns->symbol_mapping) u.names.merge(outer.free_symbols());
    }
  }
  for (const DataflowEdge* e : st.edges()) {
    const Memlet& m = e->memlet;
    if (m.is_empty()) continue;
    u.containers.insert(m.data);
    u.names.merge(m.subset.free_symbols());
    if (m.other_subset) u.names.merge(m.other_subset->free_symbols());
    u.names.merge(m.volume.free_symbols());
  }
  for (const std::string& c : u.containers) {
    auto it = sdfg.arrays.find(c);
    if (it != sdfg.arrays.end()) u.names.merge(it->second.free_symbols());
  }
  return u;
}

}  // namespace weir
