// InstrumentTimers (see the header).
#include "weir/transforms/instrument_timers.h"

#include "weir/sdfg/errors.h"
#include "weir/sdfg/instrumented.h"

namespace weir::transforms {

InstrumentTimers::InstrumentTimers()
    : Pass("instrument-timers",
           "wall-clock timers (instrument = Timer) on states, top-level maps, library nodes and copies") {}

namespace {

ElementRef where_in(const SDFGState& st, long node, long edge) {
  ElementRef r;
  if (const SDFG* s = st.sdfg()) r.sdfg = s->name;
  r.block_path = st.path();
  r.node = node;
  r.edge = edge;
  return r;
}

/// Sets Timer on `attrs` unless it has a type already; true when it set it.
bool set_timer(UnknownAttributes& attrs, const ElementRef& where) {
  if (!instrument_of(attrs, where).empty()) return false;
  set_instrument(attrs, kTimerInstrument);
  return true;
}

std::size_t instrument_sdfg(SDFG& sdfg) {
  std::size_t n = 0;
  for (SDFGState* st : sdfg.all_states()) {
    if (st->num_nodes() == 0) continue;  // no code to time (an orchestration's assignments)
    n += set_timer(st->extra, where_in(*st, -1, -1));
    const ScopeTree scopes = st->scope_tree();
    for (Node* node : st->nodes()) {
      if (scopes.parent[node->id()] != kNoNode) continue;  // inside a map: runs per point
      const ElementRef where = where_in(*st, node->id(), -1);
      if (node->kind() == NodeKind::MapEntry || node->kind() == NodeKind::Library)
        n += set_timer(node->extra, where);
      if (auto* nested = node->as<NestedSDFGNode>(); nested && nested->sdfg)
        n += instrument_sdfg(*nested->sdfg);
    }
    for (const DataflowEdge* e : st->edges())
      if (st->node(e->src).kind() == NodeKind::Access && st->node(e->dst).kind() == NodeKind::Access &&
          !e->memlet.is_empty() && scopes.parent[e->src] == kNoNode)
        n += set_timer(st->edge(e->id).memlet.extra, where_in(*st, -1, e->id));
  }
  return n;
}

}  // namespace

std::size_t InstrumentTimers::run_pass(SDFG& sdfg, Transaction& tx) {
  return tx.modify_all([&] { return instrument_sdfg(sdfg); });
}

}  // namespace weir::transforms
