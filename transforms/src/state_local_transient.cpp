// A transient whose values never cross a state boundary (see the header).
#include "state_local_transient.h"

#include <algorithm>
#include <set>
#include <vector>

namespace weir::transforms::detail {

using sym::Expr;

namespace {

std::string q(const std::string& s) { return "'" + s + "'"; }

}  // namespace

std::string written_whole_first(const SDFG& sdfg, const SDFGState& st, const AccessNode& an) {
  const std::string& T = an.data;
  const DataDescriptor& desc = sdfg.data(T);
  const std::string where = " in state " + q(st.label);
  if (st.in_edges(an.id()).size() != 1) return q(T) + " is not written exactly once" + where;
  const DataflowEdge& out = st.edge(st.in_edges(an.id())[0]);
  const auto* exit = st.node(out.src).as<MapExit>();
  if (!exit || out.memlet.is_empty() || !out.memlet.wcr.empty() || out.src_conn.rfind("OUT_", 0) != 0)
    return q(T) + " is written by something other than a map" + where;
  ScopeTree tree = st.scope_tree();
  if (tree.parent[exit->entry] != kNoNode) return q(T) + " is written by a nested map" + where;
  const MapInfo& m = *st.node(exit->entry).as<MapEntry>()->map;
  auto inner = st.in_edges_by_connector(out.src, "IN_" + out.src_conn.substr(4));
  if (inner.size() != 1 || st.in_edges(out.src).size() != 1)
    return "map " + q(m.label) + " writes more than " + q(T);
  const DataflowEdge& w = st.edge(inner[0]);
  if (!st.node(w.src).as<Tasklet>() || w.memlet.data != T || w.memlet.dynamic || !w.memlet.wcr.empty() ||
      w.memlet.other_subset || !w.memlet.subset.is_single_element())
    return "map " + q(m.label) + " writes " + q(T) +
           " through a copy, dynamic, conflict-resolved or multi-element memlet" + where;
  if (w.memlet.subset.dims() != desc.shape.size() || m.params.size() != desc.shape.size() ||
      m.range.dims() != desc.shape.size())
    return "map " + q(m.label) + " does not write one element of " + q(T) + " per parameter" + where;
  for (std::size_t d = 0; d < desc.shape.size(); ++d) {
    const Expr& idx = w.memlet.subset[d].start;
    auto p =
        idx.is_symbol() ? std::find(m.params.begin(), m.params.end(), idx.symbol_name()) : m.params.end();
    bool zero_offset = d >= desc.offset.size() || desc.offset[d] == Expr(0);
    if (p == m.params.end() || !zero_offset)
      return "map " + q(m.label) + " writes " + T + "[" + w.memlet.subset.str() + "], not T[parameters]" +
             where;
    const Range& r = m.range[static_cast<std::size_t>(p - m.params.begin())];
    if (!(r.start == Expr(0)) || !(r.end == desc.shape[d] - Expr(1)) || !(r.step == Expr(1)))
      return "map " + q(m.label) + " writes " + T + "[" + Subset({r}).str() + "] of " + q(T) +
             "'s 0:" + desc.shape[d].str() + " in dimension " + std::to_string(d) + where;
  }
  // Parameters are distinct names, so one per dimension covers every element.
  return {};
}

std::string state_local_transient(const SDFG& sdfg, const std::string& T) {
  if (!sdfg.has_data(T) || !sdfg.data(T).transient) return q(T) + " is not a transient";
  for (const SDFGState* st : sdfg.all_states()) {
    auto nodes = st->access_nodes(T);
    if (nodes.empty()) continue;
    if (nodes.size() > 1)
      return q(T) + " has " + std::to_string(nodes.size()) + " access nodes in state " + q(st->label);
    if (st->in_edges(nodes[0]->id()).empty())
      return q(T) + " is read in state " + q(st->label) + " without being written there first";
    if (auto why = written_whole_first(sdfg, *st, *nodes[0]); !why.empty()) return why;
  }
  return {};
}

namespace {

/// What running a block (or a path through blocks) does to T's values from before it: every
/// path overwrites them whole first (Killed), some path may read them (Read, with `why`), or
/// neither (Pass: some path leaves them live without reading).
struct Effect {
  enum Kind { Killed, Read, Pass } kind = Pass;
  std::string why;
};

class DeadAfter {
 public:
  DeadAfter(const SDFG& sdfg, std::string t) : sdfg_(sdfg), t_(std::move(t)) {}

  Effect block(const ControlFlowBlock& b) const {
    if (const auto* st = b.as<SDFGState>()) return state(*st);
    if (const auto* loop = b.as<LoopRegion>()) {
      for (const SDFGState* s : loop->all_states())
        if (!s->access_nodes(t_).empty())
          return {Effect::Read,
                  q(t_) + " is accessed in loop " + q(loop->label) + " (state " + q(s->label) + ")"};
      return {};
    }
    if (const auto* cond = b.as<ConditionalBlock>()) {
      bool all_kill = true, has_else = false;
      for (const auto& br : cond->branches()) {
        has_else = has_else || !br.condition;
        Effect e = br.body ? region(*br.body, {br.body->start_block()}) : Effect{};
        if (e.kind == Effect::Read) return e;
        all_kill = all_kill && e.kind == Effect::Killed;
      }
      return {all_kill && has_else ? Effect::Killed : Effect::Pass, ""};
    }
    if (const auto* r = b.as<ControlFlowRegion>()) return region(*r, {r->start_block()});
    return {Effect::Read, "a path reaches " + q(b.label) + " (a break, continue or return)"};
  }

  /// The paths through `r` from `starts`: Read if one reads, Pass if one reaches the end of
  /// `r` without a whole write, else Killed.
  Effect region(const ControlFlowRegion& r, const std::vector<BlockId>& starts) const {
    std::set<BlockId> seen;
    std::vector<BlockId> work;
    for (BlockId b : starts)
      if (b != kNoBlock && seen.insert(b).second) work.push_back(b);
    bool reaches_end = false;
    while (!work.empty()) {
      BlockId id = work.back();
      work.pop_back();
      Effect e = block(r.block(id));
      if (e.kind == Effect::Read) return e;
      if (e.kind == Effect::Killed) continue;
      auto out = r.out_edges(id);
      reaches_end = reaches_end || out.empty();
      for (const ControlFlowEdge* x : out)
        if (seen.insert(x->dst).second) work.push_back(x->dst);
    }
    return {reaches_end ? Effect::Pass : Effect::Killed, ""};
  }

  /// The paths from the end of block `b`, up through the regions around it.
  std::string after(const ControlFlowBlock& b) const {
    const ControlFlowRegion* r = b.parent_region();
    if (!r) {
      const ControlFlowBlock* up = b.parent_block();
      if (!up) return {};  // the end of the SDFG: T's values are no output
      if (up->as<ConditionalBlock>()) return after(*up);
      return "a path reaches the end of " + q(up->label);
    }
    std::vector<BlockId> next;
    for (const ControlFlowEdge* x : r->out_edges(b.id())) next.push_back(x->dst);
    Effect e = region(*r, next);
    if (e.kind == Effect::Read) return e.why;
    if (e.kind == Effect::Killed && !next.empty()) return {};
    // Some path reaches the end of r.
    if (r->as<SDFG>()) return {};
    if (const auto* loop = r->as<LoopRegion>()) {
      // From the end of the body a path either runs the body again from its start or leaves.
      Effect again = region(*loop, {loop->start_block()});
      if (again.kind == Effect::Read) return again.why;
      if (again.kind == Effect::Pass)
        return "a path runs loop " + q(loop->label) + "'s body again without a whole write of " + q(t_);
    }
    return after(*r);
  }

 private:
  Effect state(const SDFGState& st) const {
    auto nodes = st.access_nodes(t_);
    if (nodes.empty()) return {};
    if (nodes.size() == 1 && written_whole_first(sdfg_, st, *nodes[0]).empty()) return {Effect::Killed, ""};
    bool reads = false;
    for (const AccessNode* an : nodes) reads = reads || !st.out_edges(an->id()).empty();
    if (!reads) return {};
    return {Effect::Read, q(t_) + " is read in state " + q(st.label) + " before a whole write"};
  }

  const SDFG& sdfg_;
  std::string t_;
};

}  // namespace

std::string dead_after_state(const SDFG& sdfg, const SDFGState& st, const std::string& T) {
  if (!sdfg.has_data(T) || !sdfg.data(T).transient) return q(T) + " is not a transient";
  if (st.access_nodes(T).size() != 1) return q(T) + " has several access nodes in state " + q(st.label);
  return DeadAfter(sdfg, T).after(st);
}

}  // namespace weir::transforms::detail
