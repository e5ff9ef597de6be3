// Per-thread partials and per-thread copies of a parallel map's reductions (see the header).
#include "weir/sdfg/reduction_choice.h"

#include <map>
#include <nlohmann/json.hpp>
#include <stdexcept>

#include "weir/pycode/ast.h"
#include "weir/pycode/parser.h"
#include "weir/sdfg/dependence.h"

namespace weir {

namespace py = weir::pycode;

namespace {

bool is_float_type(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::Float32 || t == ScalarType::Float64;
}

bool only_reduced_writes(const SDFG& s, const std::string& name, const std::string& op, ScalarType t);

/// Every edge of `st` that touches `name` writes it with WCR `op` (from a tasklet, a map exit or
/// a nested SDFG that itself only writes it so); nothing reads it.
bool state_only_reduced_writes(const SDFGState& st, const std::string& name, const std::string& op,
                               ScalarType t) {
  for (const DataflowEdge* ed : st.edges()) {
    const Memlet& m = ed->memlet;
    if (m.is_empty() || m.data != name) continue;
    const Node& src = st.node(ed->src);
    const Node& dst = st.node(ed->dst);
    const auto* acc = dst.as<AccessNode>();
    bool write = dst.as<MapExit>() || (acc && acc->data == name);
    if (!write) return false;
    // A tasklet's write carries the WCR; edges after a map exit or out of a nested SDFG may not
    // (what they pass on was checked where it was written).
    if (m.wcr.empty() ? !!src.as<Tasklet>() : reassociable_operator(m.wcr, t) != op) return false;
    if (const auto* ns = src.as<NestedSDFGNode>()) {
      if (!ns->sdfg || !st.in_edges_by_connector(ns->id(), ed->src_conn).empty() ||
          !only_reduced_writes(*ns->sdfg, ed->src_conn, op, t))
        return false;
    } else if (!src.as<Tasklet>() && !src.as<MapExit>()) {
      return false;
    }
  }
  // An access node of it that feeds anything reads it.
  for (const Node* n : st.nodes())
    if (const auto* a = n->as<AccessNode>(); a && a->data == name)
      for (EdgeId id : st.out_edges(a->id()))
        if (!st.edge(id).memlet.is_empty()) return false;
  return true;
}

/// The same through every state of `r` and its nested regions; conditions, loop headers and
/// interstate edges must not read `name` either (control_flow_uses_name).
bool region_only_reduced_writes(const ControlFlowRegion& r, const std::string& name, const std::string& op,
                                ScalarType t) {
  if (control_flow_uses_name(r, name)) return false;
  for (const SDFGState* st : r.all_states())
    if (!state_only_reduced_writes(*st, name, op, t)) return false;
  return true;
}

bool only_reduced_writes(const SDFG& s, const std::string& name, const std::string& op, ScalarType t) {
  auto it = s.arrays.find(name);
  if (it == s.arrays.end() || it->second.is_view()) return false;
  // A view of it inside the nested SDFG would be a second name for the same memory.
  for (const auto& [n, d] : s.arrays)
    if (d.is_view()) return false;
  return region_only_reduced_writes(s, name, op, t);
}

/// The element type of `x` when per-thread copies of it can be made, else Void.
ScalarType copyable_type(const SDFG& sdfg, const std::string& x,
                         const std::function<bool(const std::string&)>& plain) {
  auto d = sdfg.arrays.find(x);
  if (d == sdfg.arrays.end() || d->second.is_view() || !d->second.start_offset.is_integer() ||
      d->second.start_offset.value() != 0 || !plain(x))
    return ScalarType::Void;
  ScalarType t = d->second.dtype.base;
  if (t == ScalarType::Bool || t == ScalarType::Float16 || t == ScalarType::Complex64 ||
      t == ScalarType::Complex128)
    return ScalarType::Void;
  return t;
}

/// The operator of the first WCR write of connector `conn` inside nested SDFG `ns` ("" if none).
std::string nested_operator(const NestedSDFGNode& ns, const std::string& conn, ScalarType t) {
  if (!ns.sdfg) return "";
  for (const SDFGState* s : ns.sdfg->all_states())
    for (const DataflowEdge* ie : s->edges())
      if (ie->memlet.data == conn && !ie->memlet.wcr.empty()) return reassociable_operator(ie->memlet.wcr, t);
  return "";
}

}  // namespace

std::string reassociable_operator(const std::string& wcr, ScalarType t) {
  if (wcr.empty()) return "";
  py::ExprPtr tree;
  try {
    tree = py::parse_expression(wcr, "<wcr>");
  } catch (const std::exception&) {
    return "";
  }
  const auto* l = py::dyn_cast<py::Lambda>(tree.get());
  if (!l || l->params.size() != 2) return "";
  const auto* bin = py::dyn_cast<py::BinOp>(l->body.get());
  const auto* ln = bin ? py::dyn_cast<py::Name>(bin->left.get()) : nullptr;
  const auto* rn = bin ? py::dyn_cast<py::Name>(bin->right.get()) : nullptr;
  if (!ln || !rn) return "";
  const std::string& a = l->params[0].name;
  const std::string& b = l->params[1].name;
  if (!((ln->id == a && rn->id == b) || (ln->id == b && rn->id == a))) return "";
  using B = py::BinaryOperator;
  switch (bin->op) {
    case B::Add: return "+";
    case B::Mult: return "*";
    case B::BitAnd: return is_float_type(t) ? "" : "&";
    case B::BitOr: return is_float_type(t) ? "" : "|";
    case B::BitXor: return is_float_type(t) ? "" : "^";
    default: return "";
  }
}

std::vector<PartialReduction> partial_reductions(const SDFGState& st, const MapEntry& e,
                                                 const std::vector<NodeId>& body) {
  std::vector<PartialReduction> out;
  // What varies between iterations: the parameters, and dynamic range inputs to be safe.
  std::set<std::string> varying(e.map->params.begin(), e.map->params.end());
  for (const auto& [c, t] : e.in_connectors)
    if (c.rfind("IN_", 0) != 0) varying.insert(c);
  std::set<std::string> read;
  for (EdgeId id : st.in_edges(e.id()))
    if (!st.edge(id).memlet.is_empty()) read.insert(st.edge(id).memlet.data);
  for (NodeId c : body) {
    if (!st.node(c).as<Tasklet>()) continue;
    std::map<std::string, int> writes;  // per connector
    for (EdgeId id : st.out_edges(c)) ++writes[st.edge(id).src_conn];
    for (EdgeId id : st.out_edges(c)) {
      const DataflowEdge& ed = st.edge(id);
      const Memlet& m = ed.memlet;
      if (ed.dst != e.exit || m.is_empty() || m.wcr.empty() || ed.src_conn.empty() ||
          writes[ed.src_conn] != 1 || read.count(m.data))
        continue;
      bool fixed = true;
      for (const Range& r : m.subset.ranges()) {
        fixed = fixed && r.start == r.end;
        for (const auto& s : r.start.free_symbols()) fixed = fixed && !varying.count(s);
      }
      if (fixed) out.push_back({c, ed.src_conn, m.data});
    }
  }
  return out;
}

std::vector<PrivatizableContainer> privatizable_containers(
    const SDFG& sdfg, const SDFGState& st, const MapEntry& e, const std::vector<NodeId>& scope,
    const std::function<bool(const std::string&)>& plain,
    const std::function<bool(const Subset&)>& own_elements) {
  std::vector<PrivatizableContainer> out;
  std::set<std::string> seen;
  for (EdgeId id : st.out_edges(e.exit)) {
    const Memlet& m = st.edge(id).memlet;
    if (m.is_empty() || !seen.insert(m.data).second) continue;
    const std::string& x = m.data;
    const ScalarType t = copyable_type(sdfg, x, plain);
    bool ok = t != ScalarType::Void;
    // The map does not read it, and every edge of its scope that touches it writes it with one
    // reassociable WCR: a tasklet's edge carries it, a nested SDFG's writes inside carry it (its
    // outer edges have none, as DaCe writes them), map exits pass it on.
    std::string op;
    bool scattered = false;
    for (EdgeId in : st.in_edges(e.id())) ok = ok && st.edge(in).memlet.data != x;
    for (NodeId n : scope) {
      for (EdgeId oid : st.out_edges(n)) {
        const DataflowEdge& ed = st.edge(oid);
        if (!ok || ed.memlet.is_empty() || ed.memlet.data != x) continue;
        const Node& src = st.node(ed.src);
        const Node& dst = st.node(ed.dst);
        bool write = dst.as<MapExit>() || (dst.as<AccessNode>() && dst.as<AccessNode>()->data == x);
        std::string here = reassociable_operator(ed.memlet.wcr, t);
        if (!write || (!ed.memlet.wcr.empty() && here.empty())) {
          ok = false;
        } else if (const auto* ns = src.as<NestedSDFGNode>()) {
          std::string inner = here.empty() ? nested_operator(*ns, ed.src_conn, t) : here;
          ok = !inner.empty() && (op.empty() || op == inner) && ns->sdfg &&
               st.in_edges_by_connector(ns->id(), ed.src_conn).empty() &&
               only_reduced_writes(*ns->sdfg, ed.src_conn, inner, t);
          op = inner;
          scattered = scattered || (ok && !own_elements(ed.memlet.subset));
        } else if (src.as<Tasklet>()) {
          ok = !here.empty() && (op.empty() || op == here);
          op = here;
          scattered = scattered || (ok && !own_elements(ed.memlet.subset));
        } else {
          ok = src.as<MapExit>() && (here.empty() || op.empty() || op == here);
        }
      }
      // An access node of it inside the scope that feeds anything reads it.
      if (const auto* a = st.node(n).as<AccessNode>(); ok && a && a->data == x && n != e.id())
        for (EdgeId oid : st.out_edges(n)) ok = ok && st.edge(oid).memlet.is_empty();
    }
    if (ok && !op.empty()) out.push_back({x, op, t, scattered});
  }
  return out;
}

std::vector<NodeId> scope_nodes(const SDFGState& st, const ScopeTree& tree, NodeId entry) {
  std::vector<NodeId> out{entry}, stack{entry};
  while (!stack.empty()) {
    NodeId s = stack.back();
    stack.pop_back();
    if (auto* e = st.node(s).as<MapEntry>()) out.push_back(e->exit);
    for (NodeId c : tree.children(s)) {
      if (st.node(c).kind() == NodeKind::MapExit) continue;
      out.push_back(c);
      if (st.node(c).kind() == NodeKind::MapEntry) stack.push_back(c);
    }
  }
  return out;
}

void record_reduction_names(MapInfo& m, const char* attribute, const std::set<std::string>& names) {
  m.extra.set(attribute, nlohmann::json(std::vector<std::string>(names.begin(), names.end())).dump());
}

bool clear_reductions(MapInfo& m) {
  bool a = m.extra.erase(kPartialsAttribute);
  bool b = m.extra.erase(kPrivatizedAttribute);
  return a || b;
}

std::optional<std::set<std::string>> recorded_reduction_names(const MapInfo& m, const char* attribute) {
  const std::string* text = m.extra.find(attribute);
  if (!text) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(*text, nullptr, /*allow_exceptions=*/false);
  std::set<std::string> out;
  bool ok = j.is_array();
  if (ok)
    for (const auto& v : j) {
      ok = ok && v.is_string();
      if (ok) out.insert(v.get<std::string>());
    }
  if (!ok)
    throw std::invalid_argument(std::string(attribute) + " is " + *text +
                                ", expected a JSON array of container names");
  return out;
}

}  // namespace weir
