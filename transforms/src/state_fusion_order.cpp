// The write-after-read rule of state fusion (see the header).
#include "state_fusion_order.h"

#include <map>
#include <set>
#include <vector>

namespace weir::transforms::detail {

namespace {

/// `node` and every node upstream of it in `st`.
std::set<NodeId> upstream(const SDFGState& st, NodeId node) {
  std::set<NodeId> seen{node};
  std::vector<NodeId> todo{node};
  while (!todo.empty()) {
    NodeId n = todo.back();
    todo.pop_back();
    for (EdgeId e : st.in_edges(n))
      if (seen.insert(st.edge(e).src).second) todo.push_back(st.edge(e).src);
  }
  return seen;
}

/// Whether every node that reads through the nodes `reads` (their consumers, and the consumers
/// of views of them) is in `up`.
bool readers_upstream(const SDFG& sdfg, const SDFGState& st, const std::vector<NodeId>& reads,
                      const std::set<NodeId>& up) {
  std::vector<NodeId> todo(reads.begin(), reads.end());
  std::set<NodeId> seen(reads.begin(), reads.end());
  while (!todo.empty()) {
    NodeId n = todo.back();
    todo.pop_back();
    for (EdgeId e : st.out_edges(n)) {
      NodeId dst = st.edge(e).dst;
      if (!up.count(dst)) return false;
      const auto* v = st.node(dst).as<AccessNode>();
      if (v && sdfg.has_data(v->data) && sdfg.data(v->data).is_view() && seen.insert(dst).second)
        todo.push_back(dst);
    }
  }
  return true;
}

}  // namespace

bool writes_follow_reads(const SDFG& sdfg, const SDFGState& first, const SDFGState& second,
                         const std::string& d) {
  // Access nodes by container; which containers each state reads and writes.
  struct Of {
    std::vector<NodeId> nodes;
    bool read = false, written = false;
  };
  auto collect = [](const SDFGState& st) {
    std::map<std::string, Of> of;
    for (Node* n : st.nodes())
      if (auto* an = n->as<AccessNode>()) {
        Of& o = of[an->data];
        o.nodes.push_back(an->id());
        o.read = o.read || !st.out_edges(an->id()).empty();
        o.written = o.written || !st.in_edges(an->id()).empty();
      }
    return of;
  };
  std::map<std::string, Of> a = collect(first), c = collect(second);
  const ScopeTree t = first.scope_tree();
  // Containers whose second-state nodes merge into the first state's one top-level node ->
  // whether every reader of d in the first state is upstream of that node.
  std::map<std::string, bool> after_reads;
  for (const auto& [m, o] : a) {
    auto in_c = c.find(m);
    if (!o.written || o.nodes.size() != 1 || in_c == c.end() || !in_c->second.read || in_c->second.written)
      continue;
    NodeId merged = o.nodes.front();
    if (t.parent[merged] != kNoNode) continue;
    after_reads[m] = readers_upstream(sdfg, first, a[d].nodes, upstream(first, merged));
  }
  for (NodeId w : c[d].nodes) {
    if (second.in_edges(w).empty()) continue;
    bool ordered = false;
    for (NodeId n : upstream(second, w))
      if (const auto* an = second.node(n).as<AccessNode>(); an && n != w) {
        auto it = after_reads.find(an->data);
        ordered = ordered || (it != after_reads.end() && it->second);
      }
    if (!ordered) return false;
  }
  return true;
}

}  // namespace weir::transforms::detail
