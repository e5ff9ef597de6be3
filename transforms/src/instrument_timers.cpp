// InstrumentTimers (see the header).
#include "weir/transforms/instrument_timers.h"

#include "weir/sdfg/errors.h"
#include "weir/sdfg/instrumented.h"
#include "weir/sdfg/whole_body_timer.h"

namespace weir::transforms {

InstrumentTimers::InstrumentTimers()
    : Pass("instrument-timers",
           "wall-clock timers (instrument = Timer) on states, maps, library nodes, nested SDFG calls "
           "(inside maps) and copies, at every level (inside maps: per thread)",
           {{"depth", 0LL,
             "deepest nesting level timed: 1 times the elements outside map scopes only, 2 also those "
             "directly inside one map, ...; 0: every level",
             0},
            {"bounded", false,
             "time only what runs a bounded number of times per call: inside map scopes, only the element "
             "that is the whole body of a top-level map (timed once per thread), nothing deeper"}}) {}

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

/// Option `bounded`: whether node `n` (inside `depth` maps of the program in all) may be timed.
/// Only the whole body of a top-level map that codegen times once per thread (its only child, and
/// the map no SIMD loop: whole_body_timed_once, the code generator's own rule); anything deeper,
/// or inside a vectorized map, runs its timer per point of a map.
bool bounded_ok(const SDFGState& st, const ScopeTree& scopes, NodeId n, int depth) {
  if (depth == 0) return true;
  if (depth > 1 || scopes.parent[n] == kNoNode) return false;
  return whole_body_timed_once(st, scopes, scopes.parent[n]) == n;
}

/// Timers in `sdfg`, an SDFG called inside `outer` maps (0: the program, or an SDFG called outside
/// any map scope). An element inside `d` maps in all (those around its SDFG's call included) is
/// at nesting level d + 1; a state of an SDFG called inside `outer` maps at level outer + 1.
/// At the top level: states, maps, library nodes and copies (a nested SDFG call is timed by its
/// states). Inside map scopes, down to `max_depth`: the same and nested SDFG calls, each timed on
/// the running thread's own accumulators (codegen/prelude/weir_profile.h).
/// `bounded` (option `bounded`): only elements executed a bounded number of times per call
/// (bounded_ok); SDFGs called inside maps are not entered.
std::size_t instrument_sdfg(SDFG& sdfg, int outer, long long max_depth, bool bounded) {
  std::size_t n = 0;
  for (SDFGState* st : sdfg.all_states()) {
    if (st->num_nodes() == 0) continue;  // no code to time (an orchestration's assignments)
    if (within(outer + 1, max_depth)) n += set_timer(st->extra, where_in(*st, -1, -1));
    const ScopeTree scopes = st->scope_tree();
    for (Node* node : st->nodes()) {
      const int depth = outer + maps_around(*st, scopes, node->id());
      if (!within(depth + 1, max_depth) || (bounded && !bounded_ok(*st, scopes, node->id(), depth))) continue;
      auto* nested = node->as<NestedSDFGNode>();
      if (node->kind() == NodeKind::MapEntry || node->kind() == NodeKind::Library || (nested && depth > 0))
        n += set_timer(node->extra, where_in(*st, node->id(), -1));
      if (nested && nested->sdfg && !(bounded && depth > 0))
        n += instrument_sdfg(*nested->sdfg, depth, max_depth, bounded);
    }
    for (const DataflowEdge* e : st->edges())
      if (st->node(e->src).kind() == NodeKind::Access && st->node(e->dst).kind() == NodeKind::Access &&
          !e->memlet.is_empty() && within(outer + maps_around(*st, scopes, e->src) + 1, max_depth) &&
          !(bounded && outer + maps_around(*st, scopes, e->src) > 0))
        n += set_timer(st->edge(e->id).memlet.extra, where_in(*st, -1, e->id));
  }
  return n;
}

}  // namespace

std::size_t InstrumentTimers::run_pass(SDFG& sdfg, Transaction& tx) {
  const long long max_depth = options().get_int("depth");
  const bool bounded = options().get_bool("bounded");
  return tx.modify_all([&] { return instrument_sdfg(sdfg, 0, max_depth, bounded); });
}

}  // namespace weir::transforms
