// Bounds checks of a nested SDFG's loop body hoisted before the loop (docs/adr/0044, session 37).
//
// A scan after LoopMapInterchange and ScanColumnBlocking runs `loop K { state: map q { tasklet } }`
// inside the column block's nested SDFG; the level state's checks (its memlets at `K` against
// the fields' K extent, the carries and the c'/d' buffers against their shapes) ran at every
// level, about twenty compares, and made the state's function one that may record a fault, so
// a fault poll (an atomic load) followed every level. Every such check tests `lo <= hi` or
// `0 <= lo + offset && hi + offset < extent`, where the extent and the offset do not depend on
// the loop variable and `lo`, `hi` move with it by the same affine amount (the map corners of
// BoundsCheckGen::extreme_over_map keep that: every corner moves by the same amount when the
// map's ranges do not use the variable). Then `lo <= hi` is the same at every value, and `lo` and
// `hi` are monotone in the variable: a check that holds at the lowest and the highest value holds
// at every value between, so checking the two ends before the loop checks every iteration.
#include "loop_check_hoisting.h"

#include <stdexcept>

#include "bounds_check_gen.h"
#include "state_codegen.h"
#include "weir/sdfg/checked_accesses.h"
#include "weir/sdfg/for_loop.h"

namespace weir::codegen::detail {

namespace {

bool uses(const sym::Expr& e, const std::string& var) { return e.free_symbols().count(var) > 0; }

// A range whose start is affine in `var` and whose length does not depend on it.
bool moves_rigidly(const Range& r, const std::string& var) {
  if (uses(r.step, var)) return false;
  if (!uses(r.start, var) && !uses(r.end, var)) return true;
  const sym::Expr shift = r.start.subs({{var, sym::Expr::symbol(var) + 1}}) - r.start;
  return !uses(shift, var) && !uses(r.end - r.start, var);
}

bool subset_moves_rigidly(const Subset& s, const std::string& var) {
  for (const Range& r : s.ranges())
    if (!moves_rigidly(r, var)) return false;
  return true;
}

bool descriptor_fixed(const DataDescriptor& d, const std::string& var) {
  if (d.is_view()) return false;  // checked against its own shape where it is defined
  for (const auto* list : {&d.shape, &d.offset})
    for (const sym::Expr& e : *list)
      if (uses(e, var)) return false;
  return true;
}

// Whether every check BoundsCheckGen emits for state `st` holds at every value of `var` in a
// range once it holds at both ends (the header's conditions).
bool checks_hoistable(const SdfgGen& sg, const SDFGState& st, const std::string& var) {
  if (sg.state_reach_checks.count(&st)) return false;
  for (const Node* n : st.nodes()) {
    if (const auto* a = n->as<AccessNode>()) {
      auto it = sg.sdfg.arrays.find(a->data);
      if (it != sg.sdfg.arrays.end() && !descriptor_fixed(it->second, var)) return false;
    }
    const auto* e = n->as<MapEntry>();
    if (!e) continue;
    for (const Range& r : e->map->range.ranges())
      for (const sym::Expr* b : {&r.start, &r.end, &r.step})
        if (uses(*b, var)) return false;
    try {
      for (const CheckedAccess& c : checked_accesses(*e->map)) {
        if (!subset_moves_rigidly(c.subset, var)) return false;
        for (const auto* list : {&c.shape, &c.offset})
          for (const sym::Expr& x : *list)
            if (uses(x, var)) return false;
      }
    } catch (const std::invalid_argument&) {
      return false;  // the state's own generation reports the malformed attribute
    }
  }
  for (const DataflowEdge* e : st.edges()) {
    const Memlet& m = e->memlet;
    if (m.is_empty()) continue;
    auto it = sg.sdfg.arrays.find(m.data);
    if (it != sg.sdfg.arrays.end() && !descriptor_fixed(it->second, var)) return false;
    if (!subset_moves_rigidly(m.subset, var)) return false;
    if (m.other_subset && !subset_moves_rigidly(*m.other_subset, var)) return false;
  }
  return true;
}

// The body's states in the order they run (a chain from the start block), or empty when the
// body is anything else.
std::vector<const SDFGState*> state_chain(const LoopRegion& loop) {
  std::vector<const SDFGState*> chain;
  BlockId cur = loop.start_block();
  while (cur != kNoBlock) {
    const auto* st = loop.block(cur).as<SDFGState>();
    if (!st || chain.size() == loop.num_blocks()) return {};
    chain.push_back(st);
    auto outs = loop.out_edges(cur);
    if (outs.empty()) break;
    if (outs.size() > 1 || !outs[0]->data.is_unconditional() || !outs[0]->data.assignments.empty()) return {};
    cur = outs[0]->dst;
  }
  if (chain.size() != loop.num_blocks()) return {};
  return chain;
}

}  // namespace

bool emit_hoisted_loop_checks(SdfgGen& sg, const LoopRegion& loop, Writer& w) {
  if (sg.top_level || sg.device_code() || !sg.prog.opts.bounds_checks) return false;
  auto bounds = loop_variable_bounds(loop);
  const std::string& var = loop.loop_variable;
  if (!bounds || !sg.symbols.count(var)) return false;
  for (const sym::Expr* b : {&bounds->first, &bounds->second})
    for (const auto& s : b->free_symbols())
      if (s == var || !sg.symbols.count(s) || sg.sdfg.arrays.count(s)) return false;
  std::vector<const SDFGState*> states = state_chain(loop);
  if (states.empty()) return false;
  for (const SDFGState* st : states)
    if (!checks_hoistable(sg, *st, var)) return false;
  Writer checks;
  for (const SDFGState* st : states) {
    if (st->num_nodes() == 0) continue;
    StateGen g(sg, *st);
    BoundsCheckGen gen(g);
    const ScopeTree scopes = st->scope_tree();
    for (NodeId n : st->topological_order())
      if (scopes.parent[n] == kNoNode && st->node(n).kind() != NodeKind::MapExit)
        gen.emit_bounds_checks(st->node(n), checks);
  }
  for (const SDFGState* st : states) sg.hoisted_check_states.insert(st);
  if (checks.empty()) return true;
  const std::string lo = sym_cpp(bounds->first), hi = sym_cpp(bounds->second), v = cpp_ident(var);
  if (sg.prog.opts.emit_comments)
    w.line("// bounds checks of the states of loop '" + loop.label + "' at the first and the last value of " +
           var + " (hoisted out of the loop: docs/adr/0044, session 37)");
  w.open("if ((" + lo + ") <= (" + hi + ")) {");
  w.open("for (int weir_end = 0; weir_end < 2; ++weir_end) {");
  w.line(v + " = weir_end == 0 ? (" + lo + ") : (" + hi + ");");
  w.append(checks);
  w.close();
  w.close();
  return true;
}

}  // namespace weir::codegen::detail
