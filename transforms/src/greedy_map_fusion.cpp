// Greedy map fusion pass (see the header).
#include "weir/transforms/greedy_map_fusion.h"

#include <algorithm>

#include "code_read_recompute.h"
#include "fusion_util.h"
#include "weir/sdfg/cfg_list.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/map_fusion.h"

namespace weir::transforms {

GreedyMapFusion::GreedyMapFusion()
    : Pass("greedy-map-fusion",
           "Fuse maps greedily: producers into consumers by recomputation (consumer first), then siblings, "
           "then producers their consumers read at the same points (MapFusion)",
           {{"max_points", 9LL,
             "most distinct points of an intermediate one fusion may recompute (0: no limit)", 0},
            {"max_tasklets", 256LL, "most tasklets a fused map may hold (0: no limit)", 0},
            {"max_code_reads", 16LL,
             "cost rule of recomputation at neighbour reads in code (CodeReadFusion's max_reads; 0: no "
             "limit, negative: never)"},
            {"horizontal", true, "also fuse independent sibling maps over equal ranges"},
            {"broadcast", false,
             "also recompute a producer that the consumer reads independently of one of its parameters "
             "(every element recomputed at each iteration of that parameter)"}}) {}

namespace {

struct StateFuser {
  SDFG& sdfg;
  SDFGState& st;
  const std::map<std::string, DataUse>& use;
  std::map<std::string, int> writes;  // written access nodes per container in the state
  detail::OtfLimits limits;
  detail::CodeReadLimits code_limits;
  std::vector<bool> top;  // top-level map entries (by id; new ids are never top-level maps)
  std::size_t counter = 0;
  std::size_t fused = 0;

  bool is_top(NodeId n) const { return n < top.size() && top[n] && st.has_node(n); }

  /// Producers (exit, transient access node) of B's inputs.
  std::vector<std::pair<NodeId, NodeId>> producers(NodeId entry_b) const {
    std::vector<std::pair<NodeId, NodeId>> out;
    for (EdgeId e : st.in_edges(entry_b)) {
      NodeId t = st.edge(e).src;
      if (!st.node(t).as<AccessNode>() || st.in_edges(t).size() != 1) continue;
      NodeId x = st.edge(st.in_edges(t)[0]).src;
      const auto* ex = st.node(x).as<MapExit>();
      if (!ex || !is_top(ex->entry)) continue;
      if (std::find(out.begin(), out.end(), std::make_pair(x, t)) == out.end()) out.emplace_back(x, t);
    }
    return out;
  }

  /// Step 1 for one consumer: absorb sole-reader producers until none is left.
  void absorb(NodeId entry_b) {
    for (bool progress = true; progress && st.has_node(entry_b);) {
      progress = false;
      for (auto [x, t] : producers(entry_b)) {
        detail::OtfPlan plan;
        if (detail::analyze_otf(sdfg, st, x, t, entry_b, use, writes, limits, plan) && !plan.keep) {
          detail::apply_otf(sdfg, st, plan, counter);
        } else if (detail::CodeReadPlan cr;
                   code_limits.max_reads >= 0 &&
                   detail::analyze_code_read(sdfg, st, x, t, entry_b, use, writes, code_limits, cr)) {
          detail::apply_code_read(sdfg, st, cr);
        } else {
          continue;
        }
        ++fused;
        progress = true;
        break;
      }
    }
  }

  /// Step 2: a transient read by several maps is recomputed in all of them, or in none.
  bool spread(const std::vector<NodeId>& order) {
    bool any = false;
    for (NodeId n : order) {
      if (!st.has_node(n)) continue;
      const auto* ex = st.node(n).as<MapExit>();
      if (!ex || !is_top(ex->entry) || st.out_edges(n).size() != 1) continue;
      NodeId t = st.edge(st.out_edges(n)[0]).dst;
      std::vector<NodeId> readers;
      bool ok = st.node(t).as<AccessNode>() != nullptr;
      for (EdgeId e : ok ? st.out_edges(t) : std::vector<EdgeId>{}) {
        NodeId r = st.edge(e).dst;
        ok = ok && st.node(r).as<MapEntry>() && is_top(r);
        if (ok && std::find(readers.begin(), readers.end(), r) == readers.end()) readers.push_back(r);
      }
      if (!ok || readers.size() < 2) continue;
      for (NodeId r : readers) {
        detail::OtfPlan plan;
        ok = ok && detail::analyze_otf(sdfg, st, n, t, r, use, writes, limits, plan);
      }
      if (!ok) continue;
      for (NodeId r : readers) {
        detail::OtfPlan plan;
        if (!detail::analyze_otf(sdfg, st, n, t, r, use, writes, limits, plan))
          break;  // cannot happen: checked above
        detail::apply_otf(sdfg, st, plan, counter);
        ++fused;
        any = true;
        if (!plan.keep) break;
      }
    }
    return any;
  }

  void horizontal(const std::vector<NodeId>& entries) {
    for (NodeId b : entries) {
      if (!is_top(b)) continue;
      for (bool progress = true; progress;) {
        progress = false;
        std::vector<NodeId> others;
        for (EdgeId e : st.in_edges(b)) {
          NodeId src = st.edge(e).src;
          if (!st.node(src).as<AccessNode>()) continue;
          for (EdgeId o : st.out_edges(src)) {
            NodeId c = st.edge(o).dst;
            if (c != b && is_top(c) && std::find(others.begin(), others.end(), c) == others.end())
              others.push_back(c);
          }
        }
        for (NodeId c : others) {
          std::map<std::string, sym::Expr> rename;
          const auto& mb = *st.node(b).as<MapEntry>()->map;
          const auto& mc = *st.node(c).as<MapEntry>()->map;
          if (!(mb.range.size() == mc.range.size())) continue;  // cheap pre-check before the walk
          if (!detail::analyze_horizontal(st, b, c, rename)) continue;
          detail::apply_horizontal(st, b, c, rename);
          ++fused;
          progress = true;
          break;
        }
      }
    }
  }

  void run() {
    ScopeTree tree = st.scope_tree();
    writes = detail::written_access_nodes(st);
    std::vector<NodeId> order = st.topological_order();
    top.assign(st.node_capacity(), false);
    std::vector<NodeId> entries, exits;
    for (NodeId n : order)
      if (st.node(n).as<MapEntry>() && tree.parent[n] == kNoNode) {
        top[n] = true;
        entries.push_back(n);
        exits.push_back(st.node(n).as<MapEntry>()->exit);
      }
    for (auto it = entries.rbegin(); it != entries.rend(); ++it)
      if (is_top(*it)) absorb(*it);
    if (spread(exits))
      for (auto it = entries.rbegin(); it != entries.rend(); ++it)
        if (is_top(*it)) absorb(*it);
  }
};

/// Whether map B (entry `entry_b`) alone reads the transient that map A (exit `exit_a`) writes
/// into access node `t`, and only at the single point A writes it in the same iteration: a local
/// look at the two maps' memlets (their degree, not the state) before MapFusion's full check,
/// which walks the state.
bool reads_at_written_point(const SDFGState& st, NodeId exit_a, NodeId t, NodeId entry_b) {
  const auto& a = *st.node(st.node(exit_a).as<MapExit>()->entry).as<MapEntry>()->map;
  const auto& b = *st.node(entry_b).as<MapEntry>()->map;
  if (a.params.size() != b.params.size() || st.in_edges(t).size() != 1) return false;
  const DataflowEdge& out = st.edge(st.in_edges(t)[0]);
  if (out.src_conn.rfind("OUT_", 0) != 0) return false;
  auto writes = st.in_edges_by_connector(exit_a, "IN_" + out.src_conn.substr(4));
  if (writes.size() != 1 || !st.edge(writes[0]).memlet.subset.is_single_element()) return false;
  const Subset& point = st.edge(writes[0]).memlet.subset;
  std::map<std::string, sym::Expr> rename;
  for (std::size_t d = 0; d < a.params.size(); ++d)
    if (a.params[d] != b.params[d]) rename[b.params[d]] = sym::Expr::symbol(a.params[d]);
  bool any = false;
  for (EdgeId e : st.out_edges(t)) {
    const DataflowEdge& in = st.edge(e);
    if (in.dst != entry_b || in.dst_conn.rfind("IN_", 0) != 0) return false;
    for (EdgeId r : st.out_edges_by_connector(entry_b, "OUT_" + in.dst_conn.substr(3))) {
      const Memlet& m = st.edge(r).memlet;
      if (m.is_empty() || !(m.subset.subs(rename) == point)) return false;
      any = true;
    }
  }
  return any;
}

/// Whether transient `data` has no use in the SDFG but the access node between the two maps
/// (MapFusion would keep writing it out otherwise, and recomputation keeps such producers apart
/// too: steps 1-2 leave a transient read in a later state to its producer).
bool used_only_here(const std::map<std::string, DataUse>& use, const std::string& data) {
  auto u = use.find(data);
  return u != use.end() && u->second.access_nodes == 1 && !u->second.in_control_flow &&
         !u->second.by_name_elsewhere;
}

/// Step 4: a top-level producer map whose transient output only a top-level consumer reads, at
/// the points it writes, which recomputation left (the consumer reads the transient into a
/// nested SDFG), is fused into it by MapFusion: one map, the intermediate a scalar. Each application
/// goes through apply_transactional, which keeps the pass's analyses (scope trees, container
/// use) current, so each candidate is judged on the graph as it is then; candidates are
/// screened by their memlets first.
std::size_t fuse_pointwise(SDFG& root, SDFG& sdfg, SDFGState& st, AnalysisCache& cache) {
  ControlFlowRegion& region = *st.parent_region();
  const auto& cfgs = cache.cfg_list(root);
  const std::size_t cfg =
      static_cast<std::size_t>(std::find(cfgs.begin(), cfgs.end(), &region) - cfgs.begin());
  if (cfg == cfgs.size()) return 0;
  MapFusion fusion;
  std::size_t fused = 0;
  for (bool progress = true; progress;) {
    progress = false;
    std::vector<std::vector<std::uint32_t>> candidates;
    const ScopeTree& tree = cache.scope_tree(st);
    for (NodeId x : cache.nodes_of_kind(st, NodeKind::MapExit)) {
      if (tree.parent[st.node(x).as<MapExit>()->entry] != kNoNode) continue;
      for (EdgeId e : st.out_edges(x)) {
        NodeId t = st.edge(e).dst;
        const auto* an = st.node(t).as<AccessNode>();
        if (!an || !sdfg.data(an->data).transient || !used_only_here(cache.data_use(sdfg), an->data))
          continue;
        for (EdgeId r : st.out_edges(t)) {
          NodeId b = st.edge(r).dst;
          if (st.node(b).as<MapEntry>() && tree.parent[b] == kNoNode && reads_at_written_point(st, x, t, b))
            candidates.push_back({x, t, b});
        }
      }
    }
    for (const auto& sub : candidates) {
      MatchContext ctx{root, sdfg, region, &st, cache};
      if (!std::all_of(sub.begin(), sub.end(), [&](std::uint32_t n) { return st.has_node(n); }) ||
          !used_only_here(cache.data_use(sdfg), st.node(sub[1]).as<AccessNode>()->data) ||
          !judge(fusion, ctx, sub))
        continue;
      apply_transactional(root, fusion, Match{cfg, st.id(), sub}, cache);
      ++fused;
      progress = true;  // the fused map may meet a consumer of its own now: look again
    }
  }
  return fused;
}

/// Steps 1-4 in every state of `sdfg` (not of the SDFGs nested in it).
std::size_t fuse_states(SDFG& root, SDFG& sdfg, Transaction& tx, const detail::OtfLimits& limits,
                        const detail::CodeReadLimits& code_limits, bool horizontal) {
  std::size_t total = 0;
  for (SDFGState* st : sdfg.all_states()) {
    total += tx.modify_state(*st, [&] {
      const std::map<std::string, DataUse> use = tx.cache().data_use(sdfg);
      StateFuser f{sdfg, *st, use, {}, limits, code_limits, {}, 0, 0};
      f.run();
      if (horizontal) {
        std::vector<NodeId> entries;
        for (NodeId n = 0; n < f.top.size(); ++n)
          if (f.is_top(n)) entries.push_back(n);
        f.horizontal(entries);
      }
      return f.fused;
    });
    total += fuse_pointwise(root, sdfg, *st, tx.cache());
  }
  return total;
}

}  // namespace

std::size_t GreedyMapFusion::run_pass(SDFG& sdfg, Transaction& tx) {
  std::size_t total = 0;
  detail::OtfLimits limits{options().get_int("max_points"), options().get_int("max_tasklets"),
                           options().get_bool("broadcast")};
  detail::CodeReadLimits code_limits{options().get_int("max_code_reads")};
  // Nested SDFGs too (a loop LoopToMap made a map keeps its body's maps in one), deepest first:
  // fusing in an SDFG may drop SDFGs nested in its maps, never one already behind in this order.
  std::vector<SDFG*> sdfgs;
  for (ControlFlowRegion* r : weir::cfg_list(sdfg))
    if (auto* g = dynamic_cast<SDFG*>(r)) sdfgs.push_back(g);
  for (auto g = sdfgs.rbegin(); g != sdfgs.rend(); ++g)
    total += fuse_states(sdfg, **g, tx, limits, code_limits, options().get_bool("horizontal"));
  return total;
}

}  // namespace weir::transforms
