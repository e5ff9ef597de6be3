// The state-fusion pass: chains of states fused in linear time (see the header).
#include "weir/transforms/state_fusion_pass.h"

#include <map>
#include <set>

#include "dataflow_util.h"
#include "state_fusion_order.h"
#include "weir/sdfg/state.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/state_fusion.h"
#include "weir/transforms/transaction.h"

namespace weir::transforms {

// The transformation's description: the pass is how the registry runs it.
StateFusionPass::StateFusionPass() : Pass("state-fusion", StateFusion().description()) {}

namespace {

/// The access nodes of one state by container (id order), whether the container is read or
/// written there, and whether its first / all of its nodes are outside every map.
struct StateAccesses {
  struct Of {
    std::vector<NodeId> nodes;
    bool read = false, written = false, first_top = true, all_top = true;
  };
  std::map<std::string, Of> of;
};

StateAccesses accesses_of(const SDFGState& st) {
  StateAccesses a;
  for (Node* n : st.nodes())
    if (auto* an = n->as<AccessNode>()) {
      auto& o = a.of[an->data];
      o.nodes.push_back(an->id());
      if (!st.out_edges(an->id()).empty()) o.read = true;
      if (!st.in_edges(an->id()).empty()) o.written = true;
    }
  if (a.of.empty()) return a;
  const ScopeTree tree = st.scope_tree();
  for (auto& [d, o] : a.of) {
    o.first_top = tree.parent[o.nodes.front()] == kNoNode;
    for (NodeId n : o.nodes)
      if (tree.parent[n] != kNoNode) o.all_top = false;
  }
  return a;
}

/// The state a chain has fused so far, per container: how many access nodes it has, whether
/// the first one is outside every map, whether it is read, written.
struct Fused {
  struct Of {
    std::size_t nodes = 0;
    bool first_top = false, read = false, written = false;
  };
  std::map<std::string, Of> of;

  /// StateFusion::can_apply's access rule for this state followed by `c`; `ordered` holds
  /// containers whose writes in `c` follow every read here (detail::writes_follow_reads).
  bool fusable(const StateAccesses& c, const std::set<std::string>& ordered = {}) const {
    for (const auto& [d, o] : c.of) {
      auto it = of.find(d);
      if (it == of.end()) continue;
      const Of& x = it->second;
      if (o.written && x.written) return false;                    // write after write
      if (o.written && x.read && !ordered.count(d)) return false;  // write after read
      if (x.written && o.read && (x.nodes != 1 || !x.first_top || !o.all_top)) return false;
    }
    return true;
  }
  /// The counts after StateFusion::apply moved `c` in: a container written here and read in
  /// `c` keeps its one node (c's nodes merge into it, so it is read now).
  void absorb(const StateAccesses& c) {
    for (const auto& [d, o] : c.of) {
      Of& x = of[d];
      if (x.written && o.read) {
        x.read = true;
        continue;
      }
      if (x.nodes == 0) x.first_top = o.first_top;
      x.nodes += o.nodes.size();
      x.read = x.read || o.read;
      x.written = x.written || o.written;
    }
  }
};

/// Whether StateFusion's control-flow conditions hold for `cur` (the chain's last state) and
/// its successor; returns the successor or kNoBlock. A successor in this chain (a cycle) or in
/// an earlier one (`taken`: it fuses with that chain's result in the next round) ends it.
BlockId next_in_chain(const ControlFlowRegion& r, BlockId cur, const std::set<BlockId>& chain,
                      const std::set<BlockId>& taken) {
  auto outs = r.out_edges(cur);
  if (outs.size() != 1) return kNoBlock;
  BlockId nx = outs.front()->dst;
  if (chain.count(nx) || taken.count(nx)) return kNoBlock;
  if (!r.block(nx).as<SDFGState>() || r.in_edges(nx).size() != 1) return kNoBlock;
  const InterstateEdge& e = outs.front()->data;
  if (!e.is_unconditional() || !e.assignments.empty() || r.explicit_start() == nx) return kNoBlock;
  return nx;
}

/// The containers `first` reads and `second` writes whose writes the fused state orders after
/// the reads (detail::writes_follow_reads).
std::set<std::string> war_ordered(const SDFG& sdfg, const SDFGState& first, const SDFGState& second,
                                  const Fused& f, const StateAccesses& c) {
  std::set<std::string> out;
  for (const auto& [d, o] : c.of) {
    auto it = f.of.find(d);
    if (o.written && it != f.of.end() && it->second.read && !it->second.written &&
        detail::writes_follow_reads(sdfg, first, second, d))
      out.insert(d);
  }
  return out;
}

/// The containers `c` writes that the chain so far reads and does not write: what a write after
/// read that the dataflow may order leaves to detail::writes_follow_reads.
std::set<std::string> war_candidates(const Fused& f, const StateAccesses& c) {
  std::set<std::string> out;
  for (const auto& [d, o] : c.of)
    if (auto it = f.of.find(d); o.written && it != f.of.end() && it->second.read && !it->second.written)
      out.insert(d);
  return out;
}

/// Maximal chains in block-id order: each starts at a state no earlier chain took.
std::vector<std::vector<BlockId>> chains_of(const SDFG& sdfg, const ControlFlowRegion& r) {
  std::vector<std::vector<BlockId>> out;
  std::set<BlockId> taken, deferred;
  for (ControlFlowBlock* b : r.blocks()) {
    if (taken.count(b->id()) || deferred.count(b->id()) || !b->as<SDFGState>()) continue;
    std::vector<BlockId> chain{b->id()};
    std::set<BlockId> in_chain{b->id()};
    Fused f;
    f.absorb(accesses_of(*b->as<SDFGState>()));
    for (BlockId nx = next_in_chain(r, b->id(), in_chain, taken); nx != kNoBlock;
         nx = next_in_chain(r, chain.back(), in_chain, taken)) {
      StateAccesses c = accesses_of(*r.block(nx).as<SDFGState>());
      // A write after read may be ordered by the dataflow that merges: decided on the two
      // states themselves, so only while the chain is one state (a later round, after the
      // chain so far has been fused, continues it).
      if (!f.fusable(c)) {
        const bool single = chain.size() == 1;
        if (!(single &&
              f.fusable(c, war_ordered(sdfg, *b->as<SDFGState>(), *r.block(nx).as<SDFGState>(), f, c)))) {
          // Decided against the fused chain in the next round, as pair-wise StateFusion
          // decides it: `nx` starts no chain of its own in this one.
          if (!single && f.fusable(c, war_candidates(f, c))) deferred.insert(nx);
          break;
        }
      }
      f.absorb(c);
      chain.push_back(nx);
      in_chain.insert(nx);
    }
    if (chain.size() == 1) continue;  // a predecessor's chain may still take this state
    for (BlockId id : chain) taken.insert(id);
    out.push_back(std::move(chain));
  }
  return out;
}

/// Moves the dataflow of chain[1..] into chain[0], as StateFusion::apply does pair by pair.
void fuse_chain(ControlFlowRegion& r, const std::vector<BlockId>& chain) {
  SDFGState& first = *r.block(chain[0]).as<SDFGState>();
  std::map<std::string, NodeId> first_node;  // container -> first access node in `first`
  std::set<std::string> written;
  for (Node* n : first.nodes())
    if (auto* an = n->as<AccessNode>()) {
      first_node.emplace(an->data, an->id());
      if (!first.in_edges(an->id()).empty()) written.insert(an->data);
    }
  for (std::size_t k = 1; k < chain.size(); ++k) {
    const SDFGState& second = *r.block(chain[k]).as<SDFGState>();
    StateAccesses c = accesses_of(second);
    std::map<NodeId, NodeId> id;  // second-state id -> first-state id
    for (const auto& [d, o] : c.of)
      if (written.count(d) && o.read)
        for (NodeId n : o.nodes) id[n] = first_node.at(d);
    detail::copy_dataflow(second, first, id);
    for (const auto& [d, o] : c.of) {
      first_node.emplace(d, id[o.nodes.front()]);
      if (o.written) written.insert(d);
    }
  }
  std::vector<std::pair<BlockId, InterstateEdge>> succ;
  for (const ControlFlowEdge* e : r.out_edges(chain.back())) succ.emplace_back(e->dst, e->data);
  for (std::size_t k = 1; k < chain.size(); ++k) r.remove_block(chain[k]);
  for (auto& [dst, data] : succ) r.add_edge(chain[0], dst, data);
}

}  // namespace

std::size_t StateFusionPass::run_pass(SDFG& sdfg, Transaction& tx) {
  std::size_t fused = 0;
  bool changed = true;
  while (changed) {
    changed = false;
    // Regions by index: fusing clones nested SDFGs, so the list is read again after a change.
    for (std::size_t c = 0; c < tx.cache().cfg_list(sdfg).size(); ++c) {
      ControlFlowRegion& r = *tx.cache().cfg_list(sdfg)[c];
      // The region's own SDFG (a nested one's containers are its own): views are looked up there.
      auto chains = chains_of(r.sdfg() ? *r.sdfg() : sdfg, r);
      if (chains.empty()) continue;
      tx.modify_all([&] {
        for (const auto& chain : chains) fuse_chain(r, chain);
      });
      for (const auto& chain : chains) fused += chain.size() - 1;
      changed = true;
    }
  }
  return fused;
}

}  // namespace weir::transforms
