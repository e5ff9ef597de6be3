// A transient whose values never cross a state boundary (see the header).
#include "state_local_transient.h"

#include <algorithm>

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

}  // namespace weir::transforms::detail
