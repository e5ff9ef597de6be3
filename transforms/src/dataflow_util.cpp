// Helpers shared by the dataflow transformations.
#include "dataflow_util.h"

#include "weir/pycode/parser.h"
#include "weir/pycode/rewrite.h"
#include "weir/pycode/unparse.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/text.h"

namespace weir::transforms::detail {

bool covers_all(const Subset& s, const std::vector<sym::Expr>& shape) {
  if (s.dims() != shape.size()) return false;
  for (std::size_t d = 0; d < shape.size(); ++d)
    if (!(s[d].start == sym::Expr(0) && s[d].end == shape[d] - sym::Expr(1) && s[d].step == sym::Expr(1)))
      return false;
  return true;
}

std::vector<NodeId> scope_body(const SDFGState& st, const ScopeTree& tree, NodeId entry) {
  std::vector<NodeId> out;
  const auto* me = st.node(entry).as<MapEntry>();
  std::vector<NodeId> work{entry};
  while (!work.empty()) {
    NodeId e = work.back();
    work.pop_back();
    for (NodeId c : tree.children(e)) {
      if (c == (me ? me->exit : kNoNode)) continue;
      out.push_back(c);
      if (st.node(c).is_scope_entry()) work.push_back(c);
    }
  }
  return out;
}

NodeId directly_nested_map(const SDFGState& st, const MapEntry& outer, std::string& why) {
  NodeId inner = kNoNode;
  for (EdgeId e : st.out_edges(outer.id())) {
    const Node& d = st.node(st.edge(e).dst);
    if (!d.as<MapEntry>()) {
      // Name the nested map only when there is one: a map of tasklets has none.
      const MapEntry* nested = nullptr;
      for (EdgeId f : st.out_edges(outer.id()))
        if (!nested) nested = st.node(st.edge(f).dst).as<MapEntry>();
      why = nested ? "node " + std::to_string(d.id()) + " ('" + d.label + "') lies between map '" +
                         outer.map->label + "' and the nested map '" + nested->map->label + "'"
                   : "map '" + outer.map->label + "' has no map nested directly inside (it contains node " +
                         std::to_string(d.id()) + " ('" + d.label + "'))";
      return kNoNode;
    }
    if (inner != kNoNode && inner != d.id()) {
      why = "map '" + outer.map->label + "' contains more than one map";
      return kNoNode;
    }
    inner = d.id();
  }
  if (inner == kNoNode) {
    why = "map '" + outer.map->label + "' has no map nested directly inside";
    return kNoNode;
  }
  const auto& ie = *st.node(inner).as<MapEntry>();
  for (EdgeId e : st.in_edges(inner))
    if (st.edge(e).src != outer.id()) {
      why = "the nested map '" + ie.map->label + "' has an input from outside map '" + outer.map->label + "'";
      return kNoNode;
    }
  NodeId inner_exit = ie.exit;
  for (EdgeId e : st.in_edges(outer.exit))
    if (st.edge(e).src != inner_exit) {
      const Node& s = st.node(st.edge(e).src);
      why = "node " + std::to_string(s.id()) + " ('" + s.label + "') lies between the exits of map '" +
            outer.map->label + "' and map '" + ie.map->label + "'";
      return kNoNode;
    }
  if (!st.has_node(inner_exit)) {
    why = "the nested map has no exit";
    return kNoNode;
  }
  for (EdgeId e : st.out_edges(inner_exit))
    if (st.edge(e).dst != outer.exit) {
      why = "the exit of map '" + ie.map->label + "' has an output outside map '" + outer.map->label + "'";
      return kNoNode;
    }
  return inner;
}

std::optional<Memlet> outer_memlet_of_entry(const SDFGState& st, NodeId entry, const std::string& out_conn) {
  if (out_conn.rfind("OUT_", 0) != 0) return std::nullopt;
  auto ins = st.in_edges_by_connector(entry, "IN_" + out_conn.substr(4));
  if (ins.empty()) return std::nullopt;
  return st.edge(ins.front()).memlet;
}

std::optional<Memlet> outer_memlet_of_exit(const SDFGState& st, NodeId exit, const std::string& in_conn) {
  if (in_conn.rfind("IN_", 0) != 0) return std::nullopt;
  auto outs = st.out_edges_by_connector(exit, "OUT_" + in_conn.substr(3));
  if (outs.empty()) return std::nullopt;
  return st.edge(outs.front()).memlet;
}

std::string python_expr(const sym::Expr& e) {
  // sympy's printing of Min/Max/Abs calls, renamed on the syntax tree to Python's builtins.
  return pycode::unparse(*pycode::rename_calls(*pycode::parse_expression(e.str(), "<symbolic>"),
                                               {{"Min", "min"}, {"Max", "max"}, {"Abs", "abs"}}));
}

void substitute_memlet(Memlet& mem, const std::map<std::string, sym::Expr>& m) {
  if (mem.is_empty()) return;
  mem.subset = mem.subset.subs(m);
  if (mem.other_subset) mem.other_subset = mem.other_subset->subs(m);
  mem.volume = mem.volume.subs(m);
}

void substitute_in_scope(SDFGState& st, const ScopeTree& tree, NodeId entry,
                         const std::map<std::string, sym::Expr>& m) {
  auto body = scope_body(st, tree, entry);
  std::set<EdgeId> edges;
  const auto& me = *st.node(entry).as<MapEntry>();
  for (EdgeId e : st.out_edges(entry)) edges.insert(e);
  for (EdgeId e : st.in_edges(me.exit)) edges.insert(e);
  for (NodeId n : body) {
    for (EdgeId e : st.in_edges(n)) edges.insert(e);
    for (EdgeId e : st.out_edges(n)) edges.insert(e);
  }
  for (EdgeId e : edges) substitute_memlet(st.edge(e).memlet, m);
  std::map<std::string, std::string> text;
  for (const auto& [k, v] : m) text[k] = python_expr(v);
  for (NodeId n : body) {
    Node& node = st.node(n);
    if (auto* inner = node.as<MapEntry>()) {
      inner->map->range = inner->map->range.subs(m);
    } else if (auto* t = node.as<Tasklet>()) {
      substitute_in_code(t->code, text);
    } else if (auto* ns = node.as<NestedSDFGNode>()) {
      for (auto& [k, v] : ns->symbol_mapping) v = v.subs(m);
    }
  }
}

std::set<std::string> transients_local_to(const SDFG& sdfg, AnalysisCache& cache, const SDFGState& st,
                                          const std::vector<NodeId>& body) {
  std::map<std::string, int> in_body;
  for (NodeId n : body)
    if (const auto* an = st.node(n).as<AccessNode>()) ++in_body[an->data];
  const auto& use = cache.data_use(sdfg);
  std::set<std::string> out;
  for (const auto& [data, count] : in_body) {
    if (!sdfg.has_data(data)) continue;
    const DataDescriptor& d = sdfg.data(data);
    auto u = use.find(data);
    if (d.transient && !d.is_view() && d.kind != DataKind::Stream && u != use.end() &&
        u->second.access_nodes == count && !u->second.in_control_flow && !u->second.by_name_elsewhere)
      out.insert(data);
  }
  return out;
}

std::string fresh_param(const SDFG& sdfg, const SDFGState& st, const std::string& base) {
  std::set<std::string> used;
  for (const auto& [k, v] : sdfg.arrays) used.insert(k);
  for (const auto& [k, v] : sdfg.symbols) used.insert(k);
  for (Node* n : st.nodes())
    if (auto* me = n->as<MapEntry>())
      for (const auto& p : me->map->params) used.insert(p);
  if (!used.count(base)) return base;
  for (int k = 0;; ++k) {
    std::string c = base + "_" + std::to_string(k);
    if (!used.count(c)) return c;
  }
}

std::string dynamic_inputs(const MapEntry& me) {
  std::string s;
  for (const auto& [k, v] : me.in_connectors)
    if (k.rfind("IN_", 0) != 0) s += (s.empty() ? "'" : ", '") + k + "'";
  return s;
}

std::string too_many_per_parameter(const std::string& option, const std::vector<long long>& values,
                                   const MapInfo& m) {
  if (values.size() <= m.params.size()) return {};
  std::vector<std::string> text;
  for (long long v : values) text.push_back(std::to_string(v));
  const std::string n = std::to_string(m.params.size());
  return option + " has " + std::to_string(values.size()) + " values (" + weir::join(text, ", ") +
         ") but map '" + m.label + "' has " + n + (m.params.size() == 1 ? " parameter (" : " parameters (") +
         weir::join(m.params, ", ") + "); give at most " + n;
}

std::string join(const std::vector<std::string>& v, const std::string& sep) { return weir::join(v, sep); }

}  // namespace weir::transforms::detail

namespace weir::transforms::detail {

namespace {

void ensure_pair(Node& n, const std::string& suffix) {
  n.in_connectors.emplace("IN_" + suffix, std::nullopt);
  n.out_connectors.emplace("OUT_" + suffix, std::nullopt);
}

}  // namespace

void insert_map_inside(SDFGState& st, MapEntry& entry, MapEntry& inner) {
  NodeId ex = entry.exit, iex = inner.exit;
  bool linked = false;
  std::set<std::string> done;
  for (EdgeId e : std::vector<EdgeId>(st.out_edges(entry.id()))) {
    DataflowEdge d = st.edge(e);
    st.remove_edge(e);
    st.add_edge(inner.id(), d.src_conn, d.dst, d.dst_conn, d.memlet);
    if (d.src_conn.rfind("OUT_", 0) == 0) {
      std::string x = d.src_conn.substr(4);
      ensure_pair(inner, x);
      if (done.insert(x).second) {
        Memlet m = outer_memlet_of_entry(st, entry.id(), d.src_conn).value_or(d.memlet);
        st.add_edge(entry.id(), d.src_conn, inner.id(), "IN_" + x, m);
        linked = true;
      }
    }
  }
  if (!linked) st.add_edge(entry.id(), "", inner.id(), "", Memlet{});
  linked = false;
  done.clear();
  for (EdgeId e : std::vector<EdgeId>(st.in_edges(ex))) {
    DataflowEdge d = st.edge(e);
    st.remove_edge(e);
    st.add_edge(d.src, d.src_conn, iex, d.dst_conn, d.memlet);
    if (d.dst_conn.rfind("IN_", 0) == 0) {
      std::string x = d.dst_conn.substr(3);
      ensure_pair(st.node(iex), x);
      if (done.insert(x).second) {
        Memlet m = outer_memlet_of_exit(st, ex, d.dst_conn).value_or(d.memlet);
        st.add_edge(iex, "OUT_" + x, ex, d.dst_conn, m);
        linked = true;
      }
    }
  }
  if (!linked) st.add_edge(iex, "", ex, "", Memlet{});
}

void insert_map_outside(SDFGState& st, MapEntry& entry, MapEntry& outer) {
  NodeId ex = entry.exit, oex = outer.exit;
  bool linked = false;
  for (EdgeId e : std::vector<EdgeId>(st.in_edges(entry.id()))) {
    DataflowEdge d = st.edge(e);
    st.remove_edge(e);
    st.add_edge(d.src, d.src_conn, outer.id(), d.dst_conn, d.memlet);
    if (d.dst_conn.rfind("IN_", 0) == 0) {
      std::string x = d.dst_conn.substr(3);
      ensure_pair(outer, x);
      st.add_edge(outer.id(), "OUT_" + x, entry.id(), d.dst_conn, d.memlet);
      linked = true;
    }
  }
  if (!linked) st.add_edge(outer.id(), "", entry.id(), "", Memlet{});
  linked = false;
  for (EdgeId e : std::vector<EdgeId>(st.out_edges(ex))) {
    DataflowEdge d = st.edge(e);
    st.remove_edge(e);
    st.add_edge(oex, d.src_conn, d.dst, d.dst_conn, d.memlet);
    if (d.src_conn.rfind("OUT_", 0) == 0) {
      std::string x = d.src_conn.substr(4);
      ensure_pair(st.node(oex), x);
      st.add_edge(ex, d.src_conn, oex, "IN_" + x, d.memlet);
      linked = true;
    }
  }
  if (!linked) st.add_edge(ex, "", oex, "", Memlet{});
}

void copy_dataflow(const SDFGState& from, SDFGState& into, std::map<NodeId, NodeId>& id) {
  for (const Node* n : from.nodes())
    if (!id.count(n->id())) id[n->id()] = into.add_node(n->clone()).id();
  for (const Node* n : from.nodes())
    if (const auto* me = n->as<MapEntry>()) {
      auto& ne = *into.node(id.at(me->id())).as<MapEntry>();
      auto& nx = *into.node(id.at(me->exit)).as<MapExit>();
      ne.exit = nx.id();
      nx.entry = ne.id();
      nx.map = ne.map;
    }
  for (const DataflowEdge* e : from.edges())
    into.add_edge(id.at(e->src), e->src_conn, id.at(e->dst), e->dst_conn, e->memlet);
}

const MapEntry* nested_static_map(const SDFGState& st, const MapEntry& outer,
                                  const std::vector<std::uint32_t>& sub, std::string& why) {
  NodeId inner_id = directly_nested_map(st, outer, why);
  if (inner_id == kNoNode) return nullptr;
  if (sub.size() != 2 || sub[1] != inner_id) {
    why = "the second node is not the map nested in '" + outer.map->label + "'";
    return nullptr;
  }
  const auto& inner = *st.node(inner_id).as<MapEntry>();
  for (const MapEntry* m : {&outer, &inner})
    if (auto dyn = dynamic_inputs(*m); !dyn.empty()) {
      why = "map '" + m->map->label + "' has dynamic range inputs (" + dyn + ")";
      return nullptr;
    }
  return &inner;
}

}  // namespace weir::transforms::detail
