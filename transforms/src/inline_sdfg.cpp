// InlineSDFG: move the single state of a nested SDFG into the parent state.
#include "weir/transforms/inline_sdfg.h"

#include "dataflow_util.h"
#include "nest_util.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/transforms/analysis.h"

namespace weir::transforms {

InlineSDFG::InlineSDFG()
    : PatternTransformation("InlineSDFG",
                            "Inline a nested SDFG with a single state into its parent state (connectors "
                            "become outer memlets)") {}

std::vector<std::vector<std::uint32_t>> InlineSDFG::expand(const MatchContext&, std::uint32_t anchor) const {
  return {{anchor}};
}

namespace {

/// How inner indices of a connector's container map to the outer container: outer dimension
/// `dims[k]` gets inner dimension k plus the outer start; other outer dimensions are fixed.
struct Translation {
  std::string outer;
  Subset outer_subset;
  std::vector<std::size_t> dims;
  bool rename_only = false;  // transients: same indices, new name
};

std::optional<Translation> translation_for(const DataDescriptor& inner, const Memlet& m, std::string& why) {
  Translation t;
  t.outer = m.data;
  t.outer_subset = m.subset;
  for (const Range& r : m.subset.ranges())
    if (r.step != sym::Expr(1) && r.start != r.end) {
      why = "outer subset [" + m.subset.str() + "] of '" + m.data + "' has a step";
      return std::nullopt;
    }
  std::size_t inner_dims = inner.shape.size();
  if (m.subset.dims() == inner_dims) {
    for (std::size_t d = 0; d < inner_dims; ++d) t.dims.push_back(d);
    return t;
  }
  std::vector<std::size_t> keep;
  for (std::size_t d = 0; d < m.subset.dims(); ++d)
    if (m.subset[d].start != m.subset[d].end) keep.push_back(d);
  if (keep.size() == inner_dims) {
    t.dims = keep;
    return t;
  }
  if (keep.empty() && inner_dims == 1 && inner.shape[0] == sym::Expr(1)) return t;  // scalar-like
  why = "outer subset [" + m.subset.str() + "] of '" + m.data + "' does not match the " +
        std::to_string(inner_dims) + " dimension(s) of the inner container";
  return std::nullopt;
}

Subset translate(const Subset& s, const Translation& t) {
  if (t.rename_only) return s;
  std::vector<Range> out;
  for (const Range& r : t.outer_subset.ranges()) out.push_back(Range::index(r.start));
  for (std::size_t k = 0; k < t.dims.size() && k < s.dims(); ++k) {
    const Range& o = t.outer_subset[t.dims[k]];
    out[t.dims[k]] = Range(s[k].start + o.start, s[k].end + o.start, s[k].step, s[k].tile);
  }
  return Subset(out);
}

struct Plan {
  const NestedSDFGNode* node = nullptr;
  const SDFGState* inner = nullptr;
  std::map<std::string, EdgeId> in_edge, out_edge;  // connector -> outer edge
};

/// DaCe's InlineSDFG refuses these in a map scope, and DaCe's code generator gives an inlined
/// one another meaning than weir's (npbench after --auto cpu: half of a returned array wrong
/// when DaCe ran it): an outer container the nested SDFG writes and reads back (its access
/// node inside the map would be both), and a copy from an input straight into a connector's
/// container. Empty when neither occurs.
std::string in_scope_refusal(const Plan& p) {
  for (const Node* n : p.inner->nodes()) {
    const auto* a = n->as<AccessNode>();
    if (!a) continue;
    const bool in = p.in_edge.count(a->data) != 0, out = p.out_edge.count(a->data) != 0;
    const auto& outs = p.inner->out_edges(n->id());
    if (out && !outs.empty() && (!in || !p.inner->in_edges(n->id()).empty()))
      return " is in a map scope and reads back its output '" + a->data +
             "' (inlined, the outer container would be written and read inside the map)";
    if (!in) continue;
    for (EdgeId e : outs)
      if (const auto* dst = p.inner->node(p.inner->edge(e).dst).as<AccessNode>();
          dst && (p.in_edge.count(dst->data) || p.out_edge.count(dst->data)))
        return " is in a map scope and copies its input '" + a->data + "' straight into '" + dst->data +
               "', another outer container";
  }
  return {};
}

std::variant<Plan, std::string> plan_inline(const SDFGState& st, NodeId id) {
  Plan p;
  const auto* ns = st.node(id).as<NestedSDFGNode>();
  if (!ns) return std::string("node " + std::to_string(id) + " is not a nested SDFG");
  p.node = ns;
  std::string what = "nested SDFG '" + ns->label + "'";
  if (!ns->sdfg) return what + " has no SDFG";
  const SDFG& in = *ns->sdfg;
  if (in.num_blocks() != 1 || !in.blocks()[0]->as<SDFGState>())
    return what + " has " + std::to_string(in.num_blocks()) + " blocks; only a single state is inlined";
  p.inner = in.blocks()[0]->as<SDFGState>();
  for (EdgeId e : st.in_edges(id)) {
    const DataflowEdge& d = st.edge(e);
    if (d.memlet.is_empty() || d.dst_conn.empty()) return what + " has an ordering-only in-edge";
    if (p.in_edge.count(d.dst_conn)) return what + ": connector '" + d.dst_conn + "' has several edges";
    p.in_edge[d.dst_conn] = e;
  }
  for (EdgeId e : st.out_edges(id)) {
    const DataflowEdge& d = st.edge(e);
    if (d.memlet.is_empty() || d.src_conn.empty()) return what + " has an ordering-only out-edge";
    if (p.out_edge.count(d.src_conn)) return what + ": connector '" + d.src_conn + "' has several edges";
    if (!d.memlet.wcr.empty()) return what + ": output '" + d.src_conn + "' has write-conflict resolution";
    p.out_edge[d.src_conn] = e;
  }
  for (const auto& [k, v] : ns->symbol_mapping)
    for (Node* n : p.inner->nodes())
      if (auto* me = n->as<MapEntry>())
        for (const auto& prm : me->map->params)
          if (prm == k && v != sym::Expr::symbol(k))
            return what + ": inner map parameter '" + prm + "' is renamed by the symbol mapping";
  for (Node* n : p.inner->nodes()) {
    auto* a = n->as<AccessNode>();
    if (!a) continue;
    auto it = in.arrays.find(a->data);
    if (it == in.arrays.end()) return what + ": unknown container '" + a->data + "'";
    if (it->second.transient) continue;
    if (!p.in_edge.count(a->data) && !p.out_edge.count(a->data))
      return what + ": container '" + a->data + "' has no connector edge";
    bool reads = false, writes = false;
    for (EdgeId e : p.inner->out_edges(n->id())) reads |= !p.inner->edge(e).memlet.is_empty();
    for (EdgeId e : p.inner->in_edges(n->id())) writes |= !p.inner->edge(e).memlet.is_empty();
    if (reads && !writes && !p.in_edge.count(a->data))
      return what + " reads '" + a->data + "', which it only has as an output";
  }
  if (st.scope_tree().parent[id] != kNoNode)
    if (auto why = in_scope_refusal(p); !why.empty()) return what + why;
  for (const auto& [c, e] : p.in_edge) {
    std::string why;
    if (!in.arrays.count(c)) return what + ": connector '" + c + "' is not a container";
    if (!translation_for(in.arrays.at(c), st.edge(e).memlet, why)) return what + ": " + why;
  }
  for (const auto& [c, e] : p.out_edge) {
    std::string why;
    if (!in.arrays.count(c)) return what + ": connector '" + c + "' is not a container";
    if (!translation_for(in.arrays.at(c), st.edge(e).memlet, why)) return what + ": " + why;
  }
  return p;
}

}  // namespace

MatchResult InlineSDFG::can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) const {
  auto p = plan_inline(*ctx.state, sub[0]);
  if (auto* why = std::get_if<std::string>(&p)) return refuse(*why);
  return MatchResult::success();
}

void InlineSDFG::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  SDFGState& st = *ctx.state;
  SDFG& sdfg = ctx.sdfg;
  Plan p = std::get<Plan>(plan_inline(st, sub[0]));
  const NestedSDFGNode& ns = *p.node;
  const SDFG& in = *ns.sdfg;
  const SDFGState& I = *p.inner;
  const auto& mapping = ns.symbol_mapping;
  std::map<std::string, std::string> code_map;
  for (const auto& [k, v] : mapping)
    if (v != sym::Expr::symbol(k)) code_map[k] = detail::python_expr(v);

  // Containers: connectors translate into the outer container, transients move (renamed).
  std::map<std::string, Translation> tr;
  for (const auto& [name, desc] : in.arrays) {
    std::string why;
    if (p.in_edge.count(name))
      tr[name] = *translation_for(desc, st.edge(p.in_edge.at(name)).memlet, why);
    else if (p.out_edge.count(name))
      tr[name] = *translation_for(desc, st.edge(p.out_edge.at(name)).memlet, why);
    else if (desc.transient) {
      Translation t;
      t.rename_only = true;
      t.outer = sdfg.has_data(name) || sdfg.symbols.count(name) ? sdfg.unique_data_name(name) : name;
      DataDescriptor d = desc;
      for (auto* v : {&d.shape, &d.strides, &d.offset})
        for (auto& e : *v) e = e.subs(mapping);
      d.total_size = d.total_size.subs(mapping);
      sdfg.add_data(t.outer, d);
      tr[name] = t;
    }
  }
  auto translate_memlet = [&](Memlet m, const std::string& other_data) {
    if (m.is_empty()) return m;
    const Translation* other = !other_data.empty() && tr.count(other_data) ? &tr.at(other_data) : nullptr;
    // A copy without an other subset copies the whole other container: a connector's is a part
    // of the outer container, which only an explicit subset names once translated.
    if (!m.other_subset && other && !other->rename_only)
      m.other_subset = Subset::full(in.arrays.at(other_data).shape);
    detail::substitute_memlet(m, mapping);
    const Translation& t = tr.at(m.data);
    m.subset = translate(m.subset, t);
    m.data = t.outer;
    if (m.other_subset && other) m.other_subset = translate(*m.other_subset, *other);
    return m;
  };

  // Clone the inner nodes.
  std::map<NodeId, NodeId> nm;
  for (Node* n : I.nodes()) {
    auto c = n->clone();
    if (auto* a = c->as<AccessNode>()) {
      a->data = tr.at(a->data).outer;
      a->label = a->data;
    } else if (auto* t = c->as<Tasklet>()) {
      substitute_in_code(t->code, code_map);
    } else if (auto* me = c->as<MapEntry>()) {
      me->map->range = me->map->range.subs(mapping);
    } else if (auto* inner_ns = c->as<NestedSDFGNode>()) {
      for (auto& [k, v] : inner_ns->symbol_mapping) v = v.subs(mapping);
    }
    nm[n->id()] = st.add_node(std::move(c)).id();
  }
  detail::relink_cloned_maps(I, st, nm);
  auto other_of = [&](const DataflowEdge& e) -> std::string {
    const auto* s = I.node(e.src).as<AccessNode>();
    const auto* d = I.node(e.dst).as<AccessNode>();
    if (!s || !d) return {};
    return s->data == e.memlet.data ? d->data : s->data;
  };
  for (const DataflowEdge* e : I.edges())
    st.add_edge(nm[e->src], e->src_conn, nm[e->dst], e->dst_conn, translate_memlet(e->memlet, other_of(*e)));

  // Connector access nodes: replaced by the outer edges, or kept as outer access nodes.
  std::vector<NodeId> to_remove;
  for (Node* n : I.nodes()) {
    auto* a = n->as<AccessNode>();
    if (!a || in.arrays.at(a->data).transient) continue;
    NodeId c = nm[n->id()];
    bool reads = false, writes = false;
    for (EdgeId e : st.out_edges(c)) reads |= !st.edge(e).memlet.is_empty();
    for (EdgeId e : st.in_edges(c)) writes |= !st.edge(e).memlet.is_empty();
    // Copies: adding edges may move the state's edge storage.
    std::optional<DataflowEdge> oin, oout;
    if (p.in_edge.count(a->data)) oin = st.edge(p.in_edge.at(a->data));
    if (p.out_edge.count(a->data)) oout = st.edge(p.out_edge.at(a->data));
    if (reads && writes) {
      if (oin) {
        bool access = st.node(oin->src).as<AccessNode>() != nullptr;
        st.add_edge(oin->src, oin->src_conn, c, "", access ? Memlet{} : oin->memlet);
      }
      if (oout) {
        bool access = st.node(oout->dst).as<AccessNode>() != nullptr;
        st.add_edge(c, "", oout->dst, oout->dst_conn, access ? Memlet{} : oout->memlet);
      }
      continue;
    }
    if (reads && oin) {
      for (EdgeId e : std::vector<EdgeId>(st.out_edges(c))) {
        DataflowEdge d = st.edge(e);
        st.add_edge(oin->src, oin->src_conn, d.dst, d.dst_conn, d.memlet);
      }
    } else if (writes && oout) {
      for (EdgeId e : std::vector<EdgeId>(st.in_edges(c))) {
        DataflowEdge d = st.edge(e);
        st.add_edge(d.src, d.src_conn, oout->dst, oout->dst_conn, d.memlet);
      }
    }
    to_remove.push_back(c);
  }
  // Inside a map, nodes left without inputs (outputs) hang off the scope's entry (exit).
  NodeId entry = kNoNode, exit = kNoNode;
  for (EdgeId e : st.in_edges(ns.id()))
    if (auto* me = st.node(st.edge(e).src).as<MapEntry>()) entry = me->id(), exit = me->exit;
  for (EdgeId e : st.out_edges(ns.id()))
    if (auto* mx = st.node(st.edge(e).dst).as<MapExit>()) exit = mx->id(), entry = mx->entry;
  for (NodeId c : to_remove) st.remove_node(c);
  st.remove_node(ns.id());
  if (entry != kNoNode) {
    for (const auto& [old, c] : nm) {
      if (!st.has_node(c)) continue;
      if (st.in_edges(c).empty() && !st.node(c).is_scope_exit()) st.add_edge(entry, "", c, "", Memlet{});
      if (st.out_edges(c).empty() && !st.node(c).is_scope_entry()) st.add_edge(c, "", exit, "", Memlet{});
    }
  }
  sdfg.relink_nested();
}

InlineSDFGs::InlineSDFGs()
    : Pass("inline-sdfgs",
           "Inline every nested SDFG of a single state (InlineSDFG), at every depth, to a fixed point") {}

std::size_t InlineSDFGs::run_pass(SDFG& sdfg, Transaction& tx) {
  AnalysisCache& cache = tx.cache();
  InlineSDFG inliner;
  std::size_t applied = 0;
  for (bool changed = true; changed;) {
    changed = false;
    std::vector<Candidate> found = find_matches(sdfg, inliner, cache);
    for (auto it = found.rbegin(); it != found.rend(); ++it)
      if (it->result && check_match(sdfg, inliner, it->match, cache)) {
        apply_transactional(sdfg, inliner, it->match, cache);
        ++applied;
        changed = true;
      }
  }
  return applied;
}

}  // namespace weir::transforms
