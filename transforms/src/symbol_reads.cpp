// Names read as symbols by blocks, edges and whole SDFGs.
#include "symbol_reads.h"

#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/state.h"

namespace weir::transforms::detail {

namespace {

void identifiers(const CodeBlock& code, std::set<std::string>& out) { out.merge(code_names(code).data()); }

void names_read_in_state(const SDFGState& st, std::set<std::string>& used) {
  for (Node* n : st.nodes()) {
    if (auto* me = n->as<MapEntry>())
      used.merge(me->map->range.free_symbols());
    else if (auto* t = n->as<Tasklet>())
      identifiers(t->code, used);
    else if (auto* ns = n->as<NestedSDFGNode>())
      for (const auto& [k, v] : ns->symbol_mapping) used.merge(v.free_symbols());
  }
  for (const DataflowEdge* e : st.edges()) {
    used.merge(e->memlet.subset.free_symbols());
    if (e->memlet.other_subset) used.merge(e->memlet.other_subset->free_symbols());
    used.merge(e->memlet.volume.free_symbols());
  }
}

}  // namespace

void names_read_in_block(const ControlFlowBlock& b, std::set<std::string>& used) {
  if (const auto* st = b.as<SDFGState>()) {
    names_read_in_state(*st, used);
    return;
  }
  if (const auto* c = b.as<ConditionalBlock>()) {
    for (const auto& br : c->branches()) {
      if (br.condition) identifiers(*br.condition, used);
      if (br.body) names_read_in_block(*br.body, used);
    }
    return;
  }
  const auto* r = b.as<ControlFlowRegion>();
  if (!r) return;  // break, continue, return: they read nothing
  if (const auto* L = r->as<LoopRegion>()) {
    identifiers(L->init_statement, used);
    identifiers(L->loop_condition, used);
    identifiers(L->update_statement, used);
  }
  for (const ControlFlowEdge* e : r->edges()) {
    identifiers(e->data.condition, used);
    for (const auto& [k, v] : e->data.assignments) identifiers(v, used);
  }
  for (ControlFlowBlock* sub : r->blocks()) names_read_in_block(*sub, used);
}

std::set<std::string> names_read(const SDFG& sdfg) {
  std::set<std::string> used;
  for (const auto& [n, d] : sdfg.arrays) used.merge(d.free_symbols());
  names_read_in_block(sdfg, used);
  return used;
}

bool edge_reads(const InterstateEdge& e, const std::string& name) {
  std::set<std::string> r;
  identifiers(e.condition, r);
  for (const auto& [k, v] : e.assignments) identifiers(v, r);
  return r.count(name) > 0;
}

}  // namespace weir::transforms::detail
