// Transient reuse (see the header).
#include "weir/transforms/transient_reuse.h"

#include <algorithm>

#include "memlet_tree.h"

namespace weir::transforms {

TransientReuse::TransientReuse()
    : Pass("transient-reuse", "Let transient arrays with disjoint lifetimes share one allocation",
           {{"max_candidates", 8LL, "earlier buffers each transient is checked against", 0}}) {}

namespace {

bool same_layout(const DataDescriptor& a, const DataDescriptor& b) {
  return a.kind == b.kind && a.dtype == b.dtype && a.shape == b.shape && a.strides == b.strides &&
         a.offset == b.offset && a.total_size == b.total_size && a.start_offset == b.start_offset &&
         a.storage == b.storage && a.lifetime == b.lifetime && a.alignment == b.alignment;
}

/// Whether every node of `from` reaches every node of `to` by a non-empty path. One backward
/// walk per target, over predecessors no earlier in topological order (`topo`) than the
/// earliest source: a path from a source only passes such nodes, so the walk covers what lies
/// between the buffers, not the whole state (a walk over the state per check made the pass
/// O(N^2) on a chain of N stencils). `mark`/`epoch`: visited marks reused across calls.
bool all_reach(const SDFGState& st, const std::vector<NodeId>& from, const std::vector<NodeId>& to,
               const std::vector<std::size_t>& topo, std::vector<unsigned>& mark, unsigned& epoch) {
  if (from.empty()) return true;
  std::size_t lo = topo[from.front()];
  for (NodeId f : from) lo = std::min(lo, topo[f]);
  for (NodeId t : to) {
    ++epoch;
    std::vector<NodeId> work{t};  // t itself is not marked: reaching means a path of length > 0
    while (!work.empty()) {
      NodeId n = work.back();
      work.pop_back();
      for (EdgeId e : st.in_edges(n)) {
        NodeId m = st.edge(e).src;
        if (mark[m] != epoch && topo[m] >= lo) {
          mark[m] = epoch;
          work.push_back(m);
        }
      }
    }
    for (NodeId f : from)
      if (mark[f] != epoch) return false;
  }
  return true;
}

/// Renames `from` to `to` on the access node and along every memlet tree through it (all
/// branches: a fused map's entry may hand the container to several tasklets).
void rename_at(SDFGState& st, NodeId node, const std::string& from, const std::string& to) {
  st.node(node).as<AccessNode>()->data = to;
  st.node(node).label = to;
  std::vector<EdgeId> edges(st.in_edges(node));
  edges.insert(edges.end(), st.out_edges(node).begin(), st.out_edges(node).end());
  for (EdgeId e : edges)
    for (EdgeId p : detail::memlet_tree(st, e))
      if (st.edge(p).memlet.data == from) st.edge(p).memlet.data = to;
}

}  // namespace

std::size_t TransientReuse::run_pass(SDFG& sdfg, Transaction& tx) {
  std::size_t removed = 0;
  const auto use = tx.cache().data_use(sdfg);
  std::size_t max_cand = static_cast<std::size_t>(std::max(0LL, options().get_int("max_candidates")));
  for (SDFGState* stp : sdfg.all_states())
    tx.modify_state(*stp, [&] {
      SDFGState& st = *stp;
      struct Buffer {
        std::string name;
        std::vector<NodeId> users;  // nodes that read or write it (all must be done before reuse)
      };
      std::vector<Buffer> buffers;
      const std::vector<NodeId> order = st.topological_order();
      std::vector<std::size_t> topo(st.node_capacity(), 0);
      for (std::size_t k = 0; k < order.size(); ++k) topo[order[k]] = k;
      std::vector<unsigned> mark(st.node_capacity(), 0);
      unsigned epoch = 0;
      for (NodeId n : order) {
        const auto* an = st.node(n).as<AccessNode>();
        if (!an) continue;
        const std::string name = an->data;
        const DataDescriptor& d = sdfg.data(name);
        auto u = use.find(name);
        if (!d.transient || d.kind != DataKind::Array || d.storage == StorageType::Register ||
            (d.lifetime != AllocationLifetime::Scope && d.lifetime != AllocationLifetime::State) ||
            u == use.end() || u->second.access_nodes != 1 || u->second.in_control_flow ||
            u->second.by_name_elsewhere)
          continue;
        // A reading map is done at its exit; a writing map starts at its entry.
        std::vector<NodeId> users, writers;
        for (EdgeId e : st.in_edges(n)) {
          NodeId w = st.edge(e).src;
          users.push_back(w);
          if (const auto* x = st.node(w).as<MapExit>()) w = x->entry;
          writers.push_back(w);
        }
        for (EdgeId e : st.out_edges(n)) {
          NodeId r = st.edge(e).dst;
          if (const auto* me = st.node(r).as<MapEntry>()) r = me->exit;
          users.push_back(r);
        }
        bool merged = false;
        if (!writers.empty()) {
          std::size_t checked = 0;
          for (auto it = buffers.rbegin(); it != buffers.rend() && checked < max_cand; ++it) {
            if (!same_layout(sdfg.data(it->name), d)) continue;
            ++checked;
            if (!all_reach(st, it->users, writers, topo, mark, epoch)) continue;
            rename_at(st, n, name, it->name);
            sdfg.remove_data(name);
            // The earlier users reach every writer of `name` (just checked), so whatever the
            // writers reach they reach too: the writers and the new users stand for them, and
            // the list (and the walks of later checks) stays as short as one occupant's.
            it->users = users;
            it->users.insert(it->users.end(), writers.begin(), writers.end());
            ++removed;
            merged = true;
            break;
          }
        }
        if (!merged) buffers.push_back({name, users});
      }
    });
  return removed;
}

}  // namespace weir::transforms
