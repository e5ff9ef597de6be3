// DaCe's memlet propagation rule: what a map's body accesses through a connector, over the
// whole map range, lies inside the subset of the memlet outside the map on that connector.
// The outer memlets are what schedules, bounds checks and copies trust; a map whose range runs
// past them would write outside the data they name. Checked where it is provable (assuming
// symbols >= 0, as sizes are): a difference of unknown sign is not reported.
#include "validate_internal.h"
#include "weir/sdfg/state.h"

namespace weir::detail {

namespace {

/// The values of `e` at the corners of the map's range (unit-step dimensions of the
/// parameters `e` uses, at most 3); nullopt when a used parameter's range has another step.
std::optional<std::vector<sym::Expr>> corner_values(const sym::Expr& e, const MapInfo& m) {
  std::set<std::string> fs = e.free_symbols();
  std::vector<std::size_t> used;
  for (std::size_t d = 0; d < m.params.size() && d < m.range.dims(); ++d) {
    if (!fs.count(m.params[d])) continue;
    if (!(m.range[d].step.is_integer() && m.range[d].step.value() == 1)) return std::nullopt;
    used.push_back(d);
  }
  if (used.size() > 3) return std::nullopt;
  std::vector<sym::Expr> out;
  for (std::size_t mask = 0; mask < (std::size_t{1} << used.size()); ++mask) {
    std::map<std::string, sym::Expr> at;
    for (std::size_t k = 0; k < used.size(); ++k) {
      const Range& r = m.range[used[k]];
      at[m.params[used[k]]] = (mask >> k) & 1 ? r.end : r.start;
    }
    out.push_back(e.subs(at));
  }
  return out;
}

/// The first corner where `inner` provably leaves [lo, hi] (as text), or "".
std::string escape(const sym::Expr& inner, const sym::Expr& lo, const sym::Expr& hi, const MapInfo& m) {
  auto corners = corner_values(inner, m);
  if (!corners) return "";
  for (const sym::Expr& c : *corners) {
    auto below = (c - lo).sign_if_symbols_nonnegative();
    if (below && *below < 0) return c.str() + " < " + lo.str();
    auto above = (hi - c).sign_if_symbols_nonnegative();
    if (above && *above < 0) return c.str() + " > " + hi.str();
  }
  return "";
}

void check_pair(Validator& v, const SDFGState& st, const MapInfo& m, const DataflowEdge& inner,
                const DataflowEdge& outer, const std::string& what) {
  const Memlet& im = inner.memlet;
  const Memlet& om = outer.memlet;
  if (im.is_empty() || om.is_empty() || im.data != om.data || im.dynamic || om.dynamic || im.allow_oob ||
      om.allow_oob || im.subset.dims() != om.subset.dims())
    return;
  // An inner memlet with a provably empty range (K 3:3 of an empty domain) accesses nothing.
  for (std::size_t d = 0; d < im.subset.dims(); ++d) {
    const Range& r = im.subset[d];
    if (!(r.step.is_integer() && r.step.value() > 0)) continue;
    auto size = (r.end - r.start).sign_if_symbols_nonnegative();
    if (size && *size < 0) return;
  }
  for (std::size_t d = 0; d < im.subset.dims(); ++d) {
    const Range& ir = im.subset[d];
    const Range& orr = om.subset[d];
    if (!(ir.step.is_integer() && ir.step.value() == 1 && orr.step.is_integer() && orr.step.value() == 1))
      continue;
    std::string bad = escape(ir.start, orr.start, orr.end, m);
    if (bad.empty()) bad = escape(ir.end, orr.start, orr.end, m);
    if (bad.empty()) continue;
    v.report("memlet-propagation",
             what + ": over the range of map '" + m.label + "' [" + m.range.str() + "], the inner memlet [" +
                 im.subset.str() + "] of '" + im.data + "' leaves the outer memlet [" + om.subset.str() +
                 "] in dimension " + std::to_string(d) + " (" + bad +
                 "); the outer memlet must cover every access of the map",
             v.at_edge(st, inner.id));
    return;
  }
}

}  // namespace

void validate_propagation(Validator& v, const SDFGState& st) {
  for (const Node* n : st.nodes()) {
    const auto* me = n->as<MapEntry>();
    if (!me || !me->map || me->exit == kNoNode || !st.has_node(me->exit)) continue;
    const MapInfo& m = *me->map;
    // A map with a provably empty dimension (a domain (2, 2)) accesses nothing.
    bool empty = false;
    for (std::size_t d = 0; d < m.range.dims(); ++d) {
      const Range& r = m.range[d];
      if (!(r.step.is_integer() && r.step.value() > 0)) continue;
      auto size = (r.end - r.start).sign_if_symbols_nonnegative();
      empty = empty || (size && *size < 0);
    }
    if (empty) continue;
    // Entry: IN_x (outside) -> OUT_x (inside); exit: IN_x (inside) -> OUT_x (outside).
    for (EdgeId id : st.out_edges(me->id())) {
      const DataflowEdge& in = st.edge(id);
      if (in.src_conn.rfind("OUT_", 0) != 0) continue;
      for (EdgeId oid : st.in_edges_by_connector(me->id(), "IN_" + in.src_conn.substr(4)))
        check_pair(v, st, m, in, st.edge(oid), describe_node(*me));
    }
    const Node& exit = st.node(me->exit);
    for (EdgeId id : st.in_edges(exit.id())) {
      const DataflowEdge& in = st.edge(id);
      if (in.dst_conn.rfind("IN_", 0) != 0) continue;
      for (EdgeId oid : st.out_edges_by_connector(exit.id(), "OUT_" + in.dst_conn.substr(3)))
        check_pair(v, st, m, in, st.edge(oid), describe_node(exit));
    }
  }
}

}  // namespace weir::detail
