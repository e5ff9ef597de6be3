// InstrumentTimers (see the header).
#include "weir/transforms/instrument_timers.h"

#include "weir/sdfg/errors.h"
#include "weir/sdfg/instrumented.h"

namespace weir::transforms {

InstrumentTimers::InstrumentTimers()
    : Pass("instrument-timers",
           "wall-clock timers (instrument = Timer) on states, maps (nested ones too, per-thread), library "
           "nodes and copies",
           {{"depth", 0LL,
             "deepest map nesting level timed: 1 times top-level maps only, 2 also the maps directly inside "
             "them, ...; 0: every level",
             0}}) {}

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

/// Map entries enclosing `n` in its state (0 at the top level).
int maps_around(const SDFGState& st, const ScopeTree& scopes, NodeId n) {
  int d = 0;
  for (NodeId p = scopes.parent[n]; p != kNoNode; p = scopes.parent[p])
    if (st.node(p).kind() == NodeKind::MapEntry) ++d;
  return d;
}

/// `max_depth` 0: no limit.
bool within(int depth, long long max_depth) { return max_depth == 0 || depth <= max_depth; }

/// Timers on the maps of `sdfg`, an SDFG called inside `outer` maps (per point): its maps only
/// (a state, library node or copy there would be timed once per point by many threads).
std::size_t instrument_maps_inside(SDFG& sdfg, int outer, long long max_depth) {
  std::size_t n = 0;
  for (SDFGState* st : sdfg.all_states()) {
    const ScopeTree scopes = st->scope_tree();
    for (Node* node : st->nodes()) {
      const int depth = outer + maps_around(*st, scopes, node->id());
      if (node->kind() == NodeKind::MapEntry && within(depth + 1, max_depth))
        n += set_timer(node->extra, where_in(*st, node->id(), -1));
      if (auto* nested = node->as<NestedSDFGNode>(); nested && nested->sdfg && within(depth + 1, max_depth))
        n += instrument_maps_inside(*nested->sdfg, depth, max_depth);
    }
  }
  return n;
}

std::size_t instrument_sdfg(SDFG& sdfg, long long max_depth) {
  std::size_t n = 0;
  for (SDFGState* st : sdfg.all_states()) {
    if (st->num_nodes() == 0) continue;  // no code to time (an orchestration's assignments)
    n += set_timer(st->extra, where_in(*st, -1, -1));
    const ScopeTree scopes = st->scope_tree();
    for (Node* node : st->nodes()) {
      const ElementRef where = where_in(*st, node->id(), -1);
      const int depth = maps_around(*st, scopes, node->id());
      auto* nested = node->as<NestedSDFGNode>();
      if (depth > 0) {
        // Inside a map: maps only, each on per-thread accumulators (codegen/prelude/weir_profile.h).
        if (node->kind() == NodeKind::MapEntry && within(depth + 1, max_depth))
          n += set_timer(node->extra, where);
        if (nested && nested->sdfg && within(depth + 1, max_depth))
          n += instrument_maps_inside(*nested->sdfg, depth, max_depth);
        continue;
      }
      if (node->kind() == NodeKind::MapEntry || node->kind() == NodeKind::Library)
        n += set_timer(node->extra, where);
      if (nested && nested->sdfg) n += instrument_sdfg(*nested->sdfg, max_depth);
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
  const long long max_depth = options().get_int("depth");
  return tx.modify_all([&] { return instrument_sdfg(sdfg, max_depth); });
}

}  // namespace weir::transforms
