// StateFusion: merge two consecutive states into one when that cannot reorder accesses.
#include "weir/transforms/state_fusion.h"

#include <map>
#include <set>
#include <string>
#include <vector>

#include "dataflow_util.h"
#include "state_fusion_order.h"
#include "weir/sdfg/state.h"

namespace weir::transforms {

StateFusion::StateFusion()
    : PatternTransformation(
          "StateFusion",
          "Fuse two states joined by an unconditional edge without assignments when no access conflicts", {},
          Effects{.converges = true, .no_data = true, .matched_blocks_only = true}) {}

std::vector<std::vector<std::uint32_t>> StateFusion::expand(const MatchContext& ctx,
                                                            std::uint32_t anchor) const {
  if (!ctx.region.block(anchor).as<SDFGState>()) return {};
  auto outs = ctx.region.out_edges(anchor);
  if (outs.size() != 1) return {{anchor}};
  return {{anchor, outs.front()->dst}};
}

namespace {

/// Access nodes of a state by container, split into reads and writes.
struct Accesses {
  std::map<std::string, std::vector<NodeId>> nodes;
  std::set<std::string> read, written;
};

Accesses accesses(const SDFGState& st) {
  Accesses a;
  for (Node* n : st.nodes())
    if (auto* an = n->as<AccessNode>()) {
      a.nodes[an->data].push_back(an->id());
      if (!st.out_edges(an->id()).empty()) a.read.insert(an->data);
      if (!st.in_edges(an->id()).empty()) a.written.insert(an->data);
    }
  return a;
}

std::string q(const std::string& s) { return "'" + s + "'"; }

}  // namespace

MatchResult StateFusion::can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) const {
  const ControlFlowRegion& r = ctx.region;
  const auto* first = &pattern(ctx, sub).get<0>();
  auto outs = r.out_edges(sub[0]);
  if (outs.size() != 1)
    return refuse("state " + q(first->label) + " has " + std::to_string(outs.size()) +
                  " out-edges (fusion needs exactly one)");
  if (sub.size() != 2 || outs.front()->dst != sub[1])
    return refuse("the second block is not the successor of " + q(first->label));
  const ControlFlowBlock& b = r.block(sub[1]);
  const auto* second = b.as<SDFGState>();
  if (!second)
    return refuse("successor " + q(b.label) + " is a " + std::string(to_string(b.kind())) + ", not a state");
  if (sub[0] == sub[1]) return refuse("state " + q(first->label) + " loops to itself");
  if (r.in_edges(sub[1]).size() != 1)
    return refuse("state " + q(second->label) + " has " + std::to_string(r.in_edges(sub[1]).size()) +
                  " in-edges");
  const InterstateEdge& e = outs.front()->data;
  if (!e.is_unconditional())
    return refuse("the edge between the states has the condition '" + e.condition.code + "'");
  if (!e.assignments.empty())
    return refuse("the edge between the states assigns '" + e.assignments.front().first + "'");
  if (r.explicit_start() == sub[1])
    return refuse("state " + q(second->label) + " is the region's start block");

  Accesses a = accesses(*first), c = accesses(*second);
  for (const auto& d : a.read)
    if (c.written.count(d) && !detail::writes_follow_reads(ctx.sdfg, *first, *second, d))
      return refuse("container " + q(d) + " is read in " + q(first->label) + " and written in " +
                    q(second->label) + " (write after read)");
  for (const auto& d : a.written)
    if (c.written.count(d))
      return refuse("container " + q(d) + " is written in both " + q(first->label) + " and " +
                    q(second->label) + " (write after write)");
  for (const auto& d : a.written)
    if (c.read.count(d)) {
      if (a.nodes[d].size() != 1)
        return refuse("container " + q(d) + " is written in " + q(first->label) + " through " +
                      std::to_string(a.nodes[d].size()) + " access nodes and read in " + q(second->label));
      const ScopeTree t = first->scope_tree();
      if (t.parent[a.nodes[d].front()] != kNoNode)
        return refuse("the access node of " + q(d) + " in " + q(first->label) + " is inside a map");
      const ScopeTree t2 = second->scope_tree();
      for (NodeId n : c.nodes[d])
        if (t2.parent[n] != kNoNode)
          return refuse("an access node of " + q(d) + " in " + q(second->label) + " is inside a map");
    }
  return MatchResult::success();
}

void StateFusion::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  ControlFlowRegion& r = ctx.region;
  auto& first = pattern(ctx, sub).get<0>();
  auto& second = pattern(ctx, sub).get<1>();
  Accesses a = accesses(first), c = accesses(second);
  // Containers written in the first state and read in the second: the second state's nodes of
  // them merge into the first state's single node, which orders the reads after the writes.
  std::map<NodeId, NodeId> id;  // second-state id -> first-state id
  for (const auto& d : a.written)
    if (c.read.count(d))
      for (NodeId n : c.nodes[d]) id[n] = a.nodes[d].front();
  detail::copy_dataflow(second, first, id);
  std::vector<std::pair<BlockId, InterstateEdge>> succ;
  for (const ControlFlowEdge* e : r.out_edges(sub[1])) succ.emplace_back(e->dst, e->data);
  r.remove_block(sub[1]);
  for (auto& [dst, data] : succ) r.add_edge(sub[0], dst, data);
}

}  // namespace weir::transforms
