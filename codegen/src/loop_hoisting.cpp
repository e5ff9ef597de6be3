// Loop-invariant code motion out of a sequential innermost map (docs/adr/0041): which maps
// qualify and which of their tasklet's connectors hold the same value in every iteration. The
// translator (python_to_cpp.cpp, PyContext::hoist) moves the invariant statements and index
// checks; emit_map puts them before the loops, under a guard that the loops run at all.
#include "loop_hoisting.h"

#include "weir/sdfg/code_rewrite.h"

namespace weir::codegen::detail {

NodeId hoisted_tasklet(const SDFG& sdfg, const SDFGState& st, const MapEntry& e,
                       const std::vector<NodeId>& nodes) {
  // Python tasklets and the scalars between them (a fusion's copy of the producer feeding the
  // consumer through a scalar, ADR 0052): a nested map, a copy or an array inside would need
  // their own analysis.
  std::vector<const Tasklet*> tasklets;
  std::set<std::string> written_inside;  // containers the scope's tasklets write
  for (NodeId n : nodes) {
    const Node& node = st.node(n);
    if (n == e.id() || n == e.exit) continue;
    if (const auto* an = node.as<AccessNode>()) {
      auto it = sdfg.arrays.find(an->data);
      if (it == sdfg.arrays.end() || !it->second.is_scalar() || !it->second.transient) return kNoNode;
      continue;
    }
    const auto* t = node.as<Tasklet>();
    if (!t || t->code.language != Language::Python) return kNoNode;
    tasklets.push_back(t);
  }
  if (tasklets.empty()) return kNoNode;
  // The tasklet with the most inputs (the neighbour reads of the producer's copy); its reads
  // are invariant only if no other tasklet of the scope writes what it reads.
  const Tasklet* best = tasklets.front();
  for (const Tasklet* t : tasklets)
    if (st.in_edges(t->id()).size() > st.in_edges(best->id()).size()) best = t;
  for (const Tasklet* t : tasklets)
    if (t != best)
      for (EdgeId x : st.out_edges(t->id())) written_inside.insert(st.edge(x).memlet.data);
  for (EdgeId x : st.in_edges(best->id()))
    if (written_inside.count(st.edge(x).memlet.data)) return kNoNode;
  return best->id();
}

std::optional<std::string> hoisting_guard(const MapEntry& e, const std::vector<std::optional<int>>& sign,
                                          LoopHoist& loops) {
  const MapInfo& m = *e.map;
  const std::set<std::string> own(m.params.begin(), m.params.end());
  std::string guard;
  const auto& ranges = m.range.ranges();
  for (std::size_t d = 0; d < ranges.size(); ++d) {
    const Range& r = ranges[d];
    // First and last values are the bounds only with unit steps.
    if (!sign[d] || !r.step.is_integer() || (r.step.value() != 1 && r.step.value() != -1))
      return std::nullopt;
    for (const sym::Expr* b : {&r.start, &r.end})
      for (const std::string& s : b->free_symbols())
        if (own.count(s)) return std::nullopt;
    std::string start = sym_cpp(r.start), end = sym_cpp(r.end);
    loops.params[m.params[d]] = {start, end};
    // weir_le: equal sides would be a -Wtautological-compare warning.
    guard += std::string(guard.empty() ? "" : " && ") +
             (*sign[d] > 0 ? "weir_le(" + start + ", " + end + ")" : "weir_le(" + end + ", " + start + ")");
  }
  return guard;
}

std::set<std::string> invariant_connectors(const Tasklet& t, const std::vector<Conn>& ins,
                                           const std::vector<Conn>& outs, LoopHoist& loops) {
  for (const auto& [p, ends] : loops.params) loops.variant.insert(p);
  std::set<std::string> written_data;
  for (const auto& cn : outs) {
    loops.variant.insert(cn.name);
    for (const Location& loc : cn.locs) written_data.insert(loc.data);
  }
  const std::set<std::string> assigned = code_names(t.code).writes;
  std::set<std::string> invariant;
  for (const auto& cn : ins) {
    bool same = (cn.kind == ConnKind::Value || cn.kind == ConnKind::Pointer) && cn.locs.size() == 1 &&
                !cn.locs[0].data.empty() && !written_data.count(cn.locs[0].data) && !assigned.count(cn.name);
    if (same)
      for (const std::string& s : cn.locs[0].subset.free_symbols()) same = same && !loops.params.count(s);
    (same ? invariant : loops.variant).insert(cn.name);
  }
  return invariant;
}

}  // namespace weir::codegen::detail
