// Free symbols of an SDFG as DaCe 2.0 computes them (SDFG.free_symbols): the rule DaCe's
// validation applies to a nested SDFG's symbol mapping. It differs from SDFG::free_symbols()
// where DaCe is stricter: a declared symbol is free unless the control flow defines it, map
// parameters define a symbol only inside their state, and an interstate assignment defines
// nothing when its symbol was read before (in blocks visited breadth-first from the start).
#include <deque>

#include "weir/pycode/source.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/dace_symbols.h"

namespace weir {

namespace {

using Names = std::set<std::string>;

/// Names Python code reads (DaCe's symbols_in_ast); invalid Python reads nothing here.
Names code_reads(const CodeBlock& code) {
  if (code.language != Language::Python || code.code.empty()) return {};
  try {
    return code_names(code).reads;
  } catch (const pycode::SourceError&) {
    return {};
  }
}

/// DaCe's SDFGState.used_symbols(all_symbols=True): what the state's nodes and memlets read,
/// minus the symbols its scopes define (map parameters and dynamic map inputs). weir also
/// counts the names Python tasklets read, which its code generator passes as symbols.
Names state_used(const SDFG& sdfg, const SDFGState& st) {
  Names used, scoped;
  for (const Node* n : st.nodes()) {
    if (const auto* e = n->as<MapEntry>(); e && e->map) {
      scoped.insert(e->map->params.begin(), e->map->params.end());
      for (const auto& [conn, type] : e->in_connectors)
        if (conn.rfind("IN_", 0) != 0) scoped.insert(conn);
      used.merge(e->map->range.free_symbols());
    } else if (const auto* ns = n->as<NestedSDFGNode>()) {
      for (const auto& [inner, outer] : ns->symbol_mapping) used.merge(outer.free_symbols());
    } else if (const auto* a = n->as<AccessNode>()) {
      if (auto it = sdfg.arrays.find(a->data); it != sdfg.arrays.end()) used.merge(it->second.free_symbols());
    } else if (const auto* t = n->as<Tasklet>(); t && t->code.language == Language::Python) {
      pycode::NameUse u;
      try {
        u = code_names(t->code);
      } catch (const pycode::SourceError&) {
      }
      for (const auto& s : u.reads)
        if (!t->in_connectors.count(s) && !t->out_connectors.count(s) && !u.writes.count(s) && s != "inf" &&
            s != "nan")
          used.insert(s);
    }
  }
  for (const DataflowEdge* e : st.edges()) {
    used.merge(e->memlet.subset.free_symbols());
    if (e->memlet.other_subset) used.merge(e->memlet.other_subset->free_symbols());
    used.merge(e->memlet.volume.free_symbols());
  }
  Names out;
  for (const auto& s : used)
    if (!scoped.count(s)) out.insert(s);
  return out;
}

/// DaCe's InterstateEdge.used_symbols: the condition's and the assignments' reads, minus the
/// targets not read before on the edge; containers read by name add their descriptors' symbols.
Names edge_used(const SDFG& sdfg, const InterstateEdge& e) {
  Names cond = code_reads(e.condition), rhs, lhs;
  for (const auto& [target, value] : e.assignments) {
    rhs.merge(code_reads(value));
    if (!cond.count(target) && !rhs.count(target)) lhs.insert(target);
  }
  Names out;
  for (const auto* part : {&cond, &rhs})
    for (const auto& s : *part)
      if (!lhs.count(s)) out.insert(s);
  for (const auto& s : Names(out))
    if (auto it = sdfg.arrays.find(s); it != sdfg.arrays.end()) out.merge(it->second.free_symbols());
  return out;
}

/// DaCe's _used_symbols_internal: free, defined and used-before-assignment sets, shared by a
/// region and the regions and conditional blocks inside it (a loop's body starts afresh).
struct SymbolSets {
  Names free, defined, before;
};

class DaceSymbols {
 public:
  explicit DaceSymbols(const SDFG& sdfg) : sdfg_(sdfg) {}

  void region(const ControlFlowRegion& r, SymbolSets& s) {
    for (BlockId id : bfs(r)) {
      const ControlFlowBlock& b = r.block(id);
      Names block_syms;
      if (const auto* loop = b.as<LoopRegion>()) {
        this->loop(*loop, s);
        block_syms = s.free;
      } else if (const auto* cond = b.as<ConditionalBlock>()) {
        conditional(*cond, s);
        block_syms = s.free;
      } else if (const auto* sub = b.as<ControlFlowRegion>()) {
        region(*sub, s);
        block_syms = s.free;
      } else if (const auto* st = b.as<SDFGState>()) {
        block_syms = state_used(sdfg_, *st);
        s.free.insert(block_syms.begin(), block_syms.end());
      }
      for (const ControlFlowEdge* e : r.out_edges(id)) {
        Names ef = edge_used(sdfg_, e->data);
        for (const auto& [target, value] : e->data.assignments)
          if (!ef.count(target) && !block_syms.count(target)) s.defined.insert(target);
        for (const auto& x : ef)
          if (!s.defined.count(x)) s.before.insert(x);
        s.free.insert(ef.begin(), ef.end());
      }
    }
    for (const auto& x : s.before) s.defined.erase(x);
    for (const auto& x : s.defined) s.free.erase(x);
  }

 private:
  void loop(const LoopRegion& L, SymbolSets& s) {
    if (!L.init_statement.code.empty()) {
      // A loop without an initialization does not define its variable.
      s.defined.insert(L.loop_variable);
      s.free.merge(code_reads(L.init_statement));
    }
    s.free.merge(code_reads(L.update_statement));
    Names cond = code_reads(L.loop_condition);
    cond.erase(L.loop_variable);
    SymbolSets body;
    region(L, body);
    Names outside_defined;
    for (const auto& x : s.defined)
      if (!s.before.count(x)) outside_defined.insert(x);
    for (const auto& x : body.before)
      if (x != L.loop_variable && !outside_defined.count(x)) s.before.insert(x);
    s.free.insert(body.free.begin(), body.free.end());
    s.defined.insert(body.defined.begin(), body.defined.end());
    for (const auto& x : s.before) s.defined.erase(x);
    for (const auto& x : s.defined) s.free.erase(x);
    s.free.merge(cond);
  }

  void conditional(const ConditionalBlock& c, SymbolSets& s) {
    for (const auto& br : c.branches()) {
      if (br.condition)
        for (const auto& x : code_reads(*br.condition))
          if (!s.defined.count(x)) s.free.insert(x);
      if (br.body) region(*br.body, s);
    }
    for (const auto& x : s.before) s.defined.erase(x);
    for (const auto& x : s.defined) s.free.erase(x);
  }

  /// Blocks reachable from the start, breadth first (DaCe's bfs_nodes).
  static std::vector<BlockId> bfs(const ControlFlowRegion& r) {
    std::vector<BlockId> order;
    BlockId start = r.start_block();
    if (start == kNoBlock) return order;
    std::set<BlockId> seen{start};
    std::deque<BlockId> queue{start};
    while (!queue.empty()) {
      BlockId id = queue.front();
      queue.pop_front();
      order.push_back(id);
      for (const ControlFlowEdge* e : r.out_edges(id))
        if (seen.insert(e->dst).second) queue.push_back(e->dst);
    }
    return order;
  }

  const SDFG& sdfg_;
};

}  // namespace

std::set<std::string> dace_free_symbols(const SDFG& sdfg) {
  SymbolSets s;
  // Container names are data, not symbols.
  for (const auto& [n, desc] : sdfg.arrays) s.defined.insert(n);
  DaceSymbols(sdfg).region(sdfg, s);
  // Every declared symbol is free unless the control flow defines it; descriptors' symbols too.
  for (const auto& [n, type] : sdfg.symbols) s.free.insert(n);
  for (const auto& [n, desc] : sdfg.arrays) s.free.merge(desc.free_symbols());
  for (const auto& x : s.defined) s.free.erase(x);
  return s.free;
}

}  // namespace weir
