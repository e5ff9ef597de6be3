// Loop-invariant code motion out of a sequential innermost map (docs/adr/0041): which maps
// qualify and which of their tasklet's connectors hold the same value in every iteration. The
// translator (python_to_cpp.cpp, PyContext::hoist) moves the invariant statements and index
// checks; emit_map puts them before the loops, under a guard that the loops run at all.
#include "loop_hoisting.h"

#include "weir/sdfg/code_rewrite.h"

namespace weir::codegen::detail {

std::optional<std::string> hoisting_guard(const SDFGState& st, const MapEntry& e,
                                          const std::vector<NodeId>& nodes,
                                          const std::vector<std::optional<int>>& sign, LoopHoist& loops) {
  const MapInfo& m = *e.map;
  // Exactly one Python tasklet between the entry and its exit: a nested map, a copy or a
  // transient inside would need their own analysis.
  if (nodes.size() != 3) return std::nullopt;
  const Tasklet* t = nullptr;
  for (NodeId n : nodes)
    if (auto* k = st.node(n).as<Tasklet>()) t = k;
  if (!t || t->code.language != Language::Python) return std::nullopt;
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
