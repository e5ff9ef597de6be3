// Fusion by recomputation through neighbour reads in tasklet code (see the header).
#include "code_read_recompute.h"

#include <algorithm>

#include "dataflow_util.h"
#include "fusion_util.h"
#include "state_local_transient.h"
#include "weir/pycode/names.h"
#include "weir/pycode/parser.h"
#include "weir/pycode/unparse.h"
#include "weir/sdfg/checked_accesses.h"
#include "weir/sdfg/code_rewrite.h"

namespace weir::transforms::detail {

namespace py = weir::pycode;
using sym::Expr;

namespace {

std::string q(const std::string& s) { return "'" + s + "'"; }

/// Collects the slots of `slot`'s tree that hold a subscript `conn[...]`, in evaluation order.
/// False (with `why`) when `conn` is used otherwise, or read where Python would not always
/// evaluate it (a branch of `x if c else y`, an operand of `and`/`or` after the first): the
/// inlined copy runs before the statement, unconditionally.
bool collect(py::ExprPtr& slot, const std::string& conn, bool conditional, std::vector<py::ExprPtr*>& out,
             std::string& why) {
  py::Expr* e = slot.get();
  if (!e) return true;
  auto uses = [&](const py::Expr& x) { return py::names_used(x).data().count(conn) > 0; };
  auto all = [&](py::ExprList& list, bool cond) {
    for (auto& x : list)
      if (!collect(x, conn, cond, out, why)) return false;
    return true;
  };
  switch (e->kind) {
    case py::ExprKind::Name:
      if (static_cast<py::Name*>(e)->id != conn) return true;
      why = q(conn) + " is used in the code other than as a subscript";
      return false;
    case py::ExprKind::Constant: return true;
    case py::ExprKind::Subscript: {
      auto* s = static_cast<py::Subscript*>(e);
      auto* base = py::dyn_cast<py::Name>(s->value.get());
      if (!base || base->id != conn)
        return collect(s->value, conn, conditional, out, why) &&
               collect(s->index, conn, conditional, out, why);
      if (conditional) {
        why = "the code reads " + py::unparse(*s) + " under a condition";
        return false;
      }
      if (uses(*s->index)) {
        why = "the code indexes " + q(conn) + " with a read of itself";
        return false;
      }
      out.push_back(&slot);
      return true;
    }
    case py::ExprKind::Attribute:
      return collect(static_cast<py::Attribute*>(e)->value, conn, conditional, out, why);
    case py::ExprKind::Call: {
      auto* c = static_cast<py::Call*>(e);
      if (!collect(c->func, conn, conditional, out, why) || !all(c->args, conditional)) return false;
      for (auto& k : c->keywords)
        if (!collect(k.value, conn, conditional, out, why)) return false;
      return true;
    }
    case py::ExprKind::UnaryOp:
      return collect(static_cast<py::UnaryOp*>(e)->operand, conn, conditional, out, why);
    case py::ExprKind::BinOp: {
      auto* b = static_cast<py::BinOp*>(e);
      return collect(b->left, conn, conditional, out, why) && collect(b->right, conn, conditional, out, why);
    }
    case py::ExprKind::BoolOp: {
      auto& values = static_cast<py::BoolOp*>(e)->values;
      for (std::size_t k = 0; k < values.size(); ++k)
        if (!collect(values[k], conn, conditional || k > 0, out, why)) return false;
      return true;
    }
    case py::ExprKind::Compare: {
      auto* c = static_cast<py::Compare*>(e);
      return collect(c->left, conn, conditional, out, why) && all(c->comparators, conditional);
    }
    case py::ExprKind::IfExp: {
      auto* c = static_cast<py::IfExp*>(e);
      return collect(c->test, conn, conditional, out, why) && collect(c->body, conn, true, out, why) &&
             collect(c->orelse, conn, true, out, why);
    }
    case py::ExprKind::Tuple: return all(static_cast<py::Tuple*>(e)->elts, conditional);
    default:
      if (!uses(*e)) return true;
      why = q(conn) + " is read inside a " + std::string(py::to_string(e->kind)) + " expression";
      return false;
  }
}

/// The indices of a subscript (a tuple's elements, or the one index).
std::vector<const py::Expr*> indices_of(const py::Subscript& s) {
  std::vector<const py::Expr*> out;
  if (const auto* t = py::dyn_cast<py::Tuple>(s.index.get())) {
    for (const auto& x : t->elts) out.push_back(x.get());
  } else {
    out.push_back(s.index.get());
  }
  return out;
}

/// Whether every statement of `body` is `name = value` (one plain name target).
bool plain_assignments(const py::StmtList& body) {
  for (const auto& s : body) {
    const auto* a = s->kind == py::StmtKind::Assign ? static_cast<const py::Assign*>(s.get()) : nullptr;
    if (!a || a->targets.size() != 1 || !py::dyn_cast<py::Name>(a->targets[0].get())) return false;
  }
  return true;
}

/// A name that neither `taken` nor `more` holds: `base`, else `base_0`, `base_1`, ...
std::string fresh_name(const std::set<std::string>& taken, const std::string& base) {
  if (!taken.count(base)) return base;
  for (int k = 0;; ++k)
    if (!taken.count(base + "_" + std::to_string(k))) return base + "_" + std::to_string(k);
}

/// The tasklet feeding `entry_a`'s scope when A's body is exactly one Python tasklet without side
/// effects; kNoNode with `why` otherwise.
NodeId single_tasklet(const SDFGState& st, const MapEntry& entry_a, NodeId exit_a, std::string& why) {
  std::vector<NodeId> body;
  std::string inner;
  if (!flat_scope_body(st, entry_a.id(), exit_a, body, inner)) {
    why = "map '" + entry_a.map->label + "' contains " + inner;
    return kNoNode;
  }
  const Tasklet* t = body.size() == 1 ? st.node(body[0]).as<Tasklet>() : nullptr;
  if (!t) {
    why = "map '" + entry_a.map->label + "' holds more than one tasklet or a local container";
    return kNoNode;
  }
  if (t->code.language != Language::Python || t->side_effects.value_or(false)) {
    why = "tasklet '" + t->label + "' is not Python or has side effects";
    return kNoNode;
  }
  return body[0];
}

/// What of A's tasklet the rewrite needs: the write of T at A's own point over the whole of T,
/// and its inputs (connector -> memlet), each from an access node.
std::string check_producer(const SDFG& sdfg, const SDFGState& st, const MapEntry& entry_a, NodeId exit_a,
                           NodeId t_node, CodeReadPlan& plan, std::map<std::string, Memlet>& inputs,
                           std::string& out_conn) {
  const MapInfo& a = *entry_a.map;
  const std::string& T = plan.t_data;
  const DataDescriptor& desc = sdfg.data(T);
  if (st.out_edges(exit_a).size() != 1 || st.edge(st.out_edges(exit_a)[0]).dst != t_node ||
      st.in_edges(exit_a).size() != 1)
    return "map '" + a.label + "' writes more than " + q(T);
  const DataflowEdge& w = st.edge(st.in_edges(exit_a)[0]);
  if (w.src != plan.tasklet_a || w.memlet.data != T || w.memlet.dynamic || !w.memlet.wcr.empty() ||
      w.memlet.other_subset || !w.memlet.subset.is_single_element() ||
      w.memlet.subset.dims() != a.params.size())
    return "map '" + a.label + "' does not write " + q(T) + " one element per iteration from its tasklet";
  out_conn = w.src_conn;
  for (std::size_t d = 0; d < a.params.size(); ++d) {
    const Range& r = a.range[d];
    if (!(w.memlet.subset[d].start == Expr::symbol(a.params[d])))
      return "map '" + a.label + "' writes " + T + "[" + w.memlet.subset.str() + "], not at its parameters";
    bool whole = r.start == Expr(0) && r.end == desc.shape[d] - 1 && r.step == Expr(1) &&
                 (d >= desc.offset.size() || desc.offset[d] == Expr(0));
    if (!whole)
      return "map '" + a.label + "' does not write the whole of " + q(T) + " in dimension " +
             std::to_string(d) + " (" + Subset({r}).str() + ")";
  }
  for (EdgeId e : st.in_edges(plan.tasklet_a)) {
    const DataflowEdge& d = st.edge(e);
    if (d.memlet.is_empty()) continue;
    if (d.src != entry_a.id() || d.src_conn.rfind("OUT_", 0) != 0)
      return "tasklet input not from the map entry";
    auto outer = st.in_edges_by_connector(entry_a.id(), "IN_" + d.src_conn.substr(4));
    if (outer.size() != 1 || !st.node(st.edge(outer[0]).src).as<AccessNode>())
      return "map '" + a.label + "' reads " + q(d.memlet.data) + " from a node that is not an access node";
    if (d.memlet.other_subset || !d.memlet.wcr.empty()) return "map '" + a.label + "' reads through a copy";
    if (d.memlet.dynamic) {
      for (const auto& s : d.memlet.subset.free_symbols())
        if (std::find(a.params.begin(), a.params.end(), s) != a.params.end())
          return "map '" + a.label + "' reads " + q(d.memlet.data) + " dynamically at its parameters";
    } else if (!d.memlet.subset.is_single_element()) {
      return "map '" + a.label + "' reads " + q(d.memlet.data) + " through a multi-element memlet";
    }
    // What the new connector of B covers: the dynamic read's own region, or the region A reads
    // over its whole range (its outer memlet). Starting at 0, code indices stay those of X, and
    // the generated index checks test them against the region's extents: A's range, which is
    // T's (a neighbour index outside T still fails, as the read of T did).
    Memlet region = d.memlet.dynamic ? d.memlet : st.edge(outer[0]).memlet;
    region.dynamic = true;
    for (const Range& r : region.subset.ranges())
      if (!(r.start == Expr(0)) || !(r.step == Expr(1)))
        return "map '" + a.label + "' reads " + q(d.memlet.data) + "[" + region.subset.str() +
               "], not from its first element in unit steps";
    plan.region_of[d.dst_conn] = region;
    inputs.emplace(d.dst_conn, d.memlet);
  }
  // A dimension of T keeps its index check when some single-element input reads at exactly that
  // parameter (E2C[e, 0] checks a neighbour index e against the edges, as T's extent did); the
  // others are left to the consumer's side (rewrite_consumer).
  for (std::size_t d = 0; d < a.params.size(); ++d) {
    bool checked = false;
    for (const auto& [c, m] : inputs)
      for (const Range& r : m.dynamic ? std::vector<Range>{} : m.subset.ranges())
        checked = checked || r.start == Expr::symbol(a.params[d]);
    if (!checked) plan.unchecked_dims.push_back(d);
  }
  return {};
}

/// The text of A's code as one copy computing T at the point whose indices are `point` (names or
/// integer literals, one per dimension of T): its assigned names prefixed with `prefix`, its parameters
/// replaced by `point`, its element inputs by code reads of B's whole-array connectors.
std::string producer_copy(const Tasklet& ta, const MapInfo& a, const std::map<std::string, Memlet>& inputs,
                          const std::map<std::string, std::string>& conn_of,
                          const std::vector<std::string>& point, const std::string& prefix,
                          std::string& why) {
  CodeBlock code = ta.code;
  std::map<std::string, std::string> renamed;
  for (const auto& n : py::names_used(*code.parsed()).writes) renamed[n] = prefix + n;
  rename_in_code(code, renamed);
  std::map<std::string, Expr> at;  // A's parameters at the point
  std::map<std::string, std::string> values;
  for (std::size_t d = 0; d < a.params.size(); ++d) {
    at[a.params[d]] = Expr::parse(point[d]);
    values[a.params[d]] = point[d];
  }
  for (const auto& [c, m] : inputs) {
    if (m.dynamic) {
      values[c] = conn_of.at(c);
      continue;
    }
    std::string idx;
    const Subset there = m.subset.subs(at);
    for (const Range& r : there.ranges()) {
      std::string s = r.start.str();
      if (s.find('(') != std::string::npos) {
        why = "an index of " + q(m.data) + " (" + s + ") is not plain Python arithmetic";
        return {};
      }
      idx += (idx.empty() ? "" : ", ") + s;
    }
    values[c] = conn_of.at(c) + "[" + idx + "]";
  }
  substitute_in_code(code, values);
  return code.code;
}

/// The rewrite of B's code: before each statement, per read `conn[i0, i1]` in it, the point's
/// indices as names and a copy of A's code; the read becomes the copy's result. Empty with
/// `why` when a read is not of that form.
std::string rewrite_consumer(const Tasklet& tb, const std::string& conn, std::size_t dims, const Tasklet& ta,
                             const MapInfo& a, const MapInfo& b, const std::map<std::string, Memlet>& inputs,
                             const std::map<std::string, std::string>& conn_of, const std::string& out_conn,
                             const std::string& t_data, CodeReadPlan& plan, std::string& why) {
  std::size_t& points = plan.points;
  auto tree = tb.code.parsed();
  if (!tree || !plain_assignments(tree->body())) {
    why = "tasklet '" + tb.label + "' is not a sequence of assignments to names";
    return {};
  }
  std::set<std::string> taken = py::names_used(*tree).data();
  for (const auto& n : py::names_used(*ta.code.parsed()).data()) taken.insert(n);
  for (const auto& [c, n] : conn_of) taken.insert(n);
  py::StmtList body = py::clone(tree->body());
  std::string text;
  points = 0;
  for (auto& s : body) {
    auto& value = static_cast<py::Assign*>(s.get())->value;
    std::vector<py::ExprPtr*> slots;
    if (!collect(value, conn, false, slots, why)) return {};
    for (py::ExprPtr* slot : slots) {
      const auto& sub = static_cast<const py::Subscript&>(**slot);
      auto idx = indices_of(sub);
      if (idx.size() != dims) {
        why = "the code reads " + py::unparse(sub) + " with " + std::to_string(idx.size()) + " indices, " +
              q(t_data) + " has " + std::to_string(dims);
        return {};
      }
      std::string prefix = fresh_name(taken, "__" + t_data + "_r" + std::to_string(points)) + "_";
      taken.insert(prefix);
      // Each index as it is when it is a name or a literal (a map parameter stays one, so the
      // code generator still knows it is in range), else evaluated once into a new name.
      // A dimension that no input of A checks must be indexed by a parameter of B: the fused map
      // then checks B's range of it against T's extent before it runs (a record).
      for (std::size_t d : plan.unchecked_dims) {
        const auto* n = py::dyn_cast<py::Name>(idx[d]);
        auto p = n ? std::find(b.params.begin(), b.params.end(), n->id) : b.params.end();
        if (p == b.params.end()) {
          why = "the code reads " + py::unparse(sub) + ", and no input of map '" + a.label +
                "' would check index " + std::to_string(d) + " against " + q(t_data) + "'s extent";
          return {};
        }
        std::pair<std::size_t, Range> dim{d, b.range[static_cast<std::size_t>(p - b.params.begin())]};
        if (std::find(plan.param_dims.begin(), plan.param_dims.end(), dim) == plan.param_dims.end())
          plan.param_dims.push_back(dim);
      }
      std::vector<std::string> point;
      for (std::size_t d = 0; d < dims; ++d) {
        const auto* lit = py::dyn_cast<py::Constant>(idx[d]);
        if (py::dyn_cast<py::Name>(idx[d]) || (lit && lit->value_kind == py::ConstantKind::Int)) {
          point.push_back(py::unparse(*idx[d]));
          continue;
        }
        point.push_back(prefix + "i" + std::to_string(d));
        text += point.back() + " = " + py::unparse(*idx[d]) + "\n";
      }
      std::string copy = producer_copy(ta, a, inputs, conn_of, point, prefix, why);
      if (copy.empty()) return {};
      text += copy + (copy.back() == '\n' ? "" : "\n");
      *slot = std::make_unique<py::Name>(sub.loc, prefix + out_conn);
      ++points;
    }
    py::StmtList one;
    one.push_back(std::move(s));
    text += py::unparse(one);
    if (!text.empty() && text.back() != '\n') text += "\n";
  }
  return text;
}

/// T's other access nodes and uses: fine when no state reads what this one writes (a refusal
/// reason otherwise); sets plan.t_elsewhere.
std::string check_t_uses(const SDFG& sdfg, const SDFGState& st, const std::map<std::string, DataUse>& use,
                         CodeReadPlan& plan) {
  const std::string& T = plan.t_data;
  for (EdgeId e : st.out_edges(plan.t_node))
    if (st.edge(e).dst != plan.entry_b)
      return q(T) + " is also read by " + q(st.node(st.edge(e).dst).label) +
             "; the producer would stay and recomputing only adds work";
  if (st.out_edges(plan.t_node).size() != 1) return q(T) + " is read through several connectors";
  auto u = use.find(T);
  if (u == use.end()) return {};
  if (u->second.in_control_flow || u->second.by_name_elsewhere) return q(T) + " is used by name elsewhere";
  if (u->second.access_nodes <= 1) return {};
  if (state_local_transient(sdfg, T).empty()) {
    plan.t_elsewhere = true;
    return {};
  }
  std::string whole = written_whole_first(sdfg, st, *st.node(plan.t_node).as<AccessNode>());
  std::string dead = whole.empty() ? dead_after_state(sdfg, st, T) : whole;
  if (!dead.empty()) return q(T) + " is read in another state after this write: " + dead;
  plan.t_elsewhere = true;
  return {};
}

}  // namespace

MatchResult analyze_code_read(const SDFG& sdfg, const SDFGState& st, NodeId exit_a_id, NodeId t_node,
                              NodeId entry_b_id, const std::map<std::string, DataUse>& use,
                              const std::map<std::string, int>& state_writes, const CodeReadLimits& limits,
                              CodeReadPlan& plan) {
  const auto* exit_a = st.node(exit_a_id).as<MapExit>();
  const auto* tn = st.node(t_node).as<AccessNode>();
  const auto* entry_b = st.node(entry_b_id).as<MapEntry>();
  if (!exit_a || !tn || !entry_b) return refuse("expected a map exit, an access node and a map entry");
  const MapEntry& entry_a = st.entry_of(*exit_a);
  if (entry_a.id() == entry_b_id) return refuse("a map cannot be fused with itself");
  const MapInfo& a = *entry_a.map;
  const MapInfo& b = *entry_b->map;
  plan = CodeReadPlan{};
  plan.entry_a = entry_a.id();
  plan.exit_a = exit_a_id;
  plan.t_node = t_node;
  plan.entry_b = entry_b_id;
  plan.t_data = tn->data;
  const std::string& T = plan.t_data;
  for (const MapEntry* me : {&entry_a, entry_b})
    if (auto dyn = dynamic_inputs(*me); !dyn.empty())
      return refuse("map '" + me->map->label + "' has dynamic range inputs (" + dyn + ")");
  const DataDescriptor& desc = sdfg.data(T);
  if (!desc.transient || desc.is_view()) return refuse(q(T) + " is not a transient array");
  if (st.in_edges(t_node).size() != 1) return refuse(q(T) + " is also written by another node");
  std::string why;
  plan.tasklet_a = single_tasklet(st, entry_a, exit_a_id, why);
  if (plan.tasklet_a == kNoNode) return refuse(why);
  std::map<std::string, Memlet> inputs;
  std::string out_conn;
  if (auto r = check_producer(sdfg, st, entry_a, exit_a_id, t_node, plan, inputs, out_conn); !r.empty())
    return refuse(r);

  // B reads T through one dynamic connector of one Python tasklet.
  auto in_b = st.out_edges(t_node);
  if (in_b.size() != 1 || st.edge(in_b[0]).dst != entry_b_id ||
      st.edge(in_b[0]).dst_conn.rfind("IN_", 0) != 0) {
    if (auto r = check_t_uses(sdfg, st, use, plan); !r.empty()) return refuse(r);
    return refuse("map '" + b.label + "' does not read " + q(T) + " through one connector");
  }
  auto inner = st.out_edges_by_connector(entry_b_id, "OUT_" + st.edge(in_b[0]).dst_conn.substr(3));
  if (inner.size() != 1) return refuse("map '" + b.label + "' reads " + q(T) + " into several nodes");
  const DataflowEdge& rd = st.edge(inner[0]);
  const auto* tb = st.node(rd.dst).as<Tasklet>();
  if (!tb || tb->code.language != Language::Python)
    return refuse("map '" + b.label + "' reads " + q(T) + " into a node that is not a Python tasklet");
  if (!rd.memlet.dynamic)
    return refuse("map '" + b.label + "' reads " + q(T) +
                  " through a memlet, not in its code (OTFMapFusion's case)");
  plan.tasklet_b = rd.dst;
  if (auto r = check_t_uses(sdfg, st, use, plan); !r.empty()) return refuse(r);

  // B must not write what A reads, and nothing else in the state may write it before B ran.
  for (EdgeId e : st.out_edges(entry_b->exit))
    for (const auto& [c, m] : inputs)
      if (st.edge(e).memlet.data == m.data)
        return refuse("map '" + b.label + "' writes " + q(m.data) + ", which map '" + a.label + "' reads");
  if (auto r = input_written_meanwhile(st, entry_a.id(), entry_b_id, state_writes); !r.empty())
    return refuse(r);

  // New connectors of B's tasklet: one per input of A, reading its container whole.
  std::set<std::string> taken;
  for (const auto& [c, t] : tb->in_connectors) taken.insert(c);
  for (const auto& [c, t] : tb->out_connectors) taken.insert(c);
  for (const auto& n : code_names(tb->code).data()) taken.insert(n);
  std::map<std::string, std::string> of_data;  // element reads of one container share a connector
  for (const auto& [c, m] : inputs) {
    auto shared = of_data.find(m.data);
    if (!m.dynamic && shared != of_data.end()) {
      plan.conn_of[c] = shared->second;
      continue;
    }
    plan.conn_of[c] = fresh_name(taken, "__" + T + "_" + (m.dynamic ? c : "__all_" + m.data));
    taken.insert(plan.conn_of[c]);
    if (!m.dynamic) of_data[m.data] = plan.conn_of[c];
  }
  for (const auto& [c, m] : inputs) {
    auto n = py::names_used(*st.node(plan.tasklet_a).as<Tasklet>()->code.parsed());
    plan.reads_a += m.dynamic ? (n.subscript_count.count(c) ? n.subscript_count.at(c) : 0) : 1;
  }
  plan.new_code =
      rewrite_consumer(*tb, rd.dst_conn, desc.shape.size(), *st.node(plan.tasklet_a).as<Tasklet>(), a, b,
                       inputs, plan.conn_of, out_conn, T, plan, why);
  if (plan.new_code.empty()) return refuse("tasklet '" + tb->label + "': " + why);
  if (plan.points == 0) return refuse("tasklet '" + tb->label + "' never reads " + q(T));
  const auto cost = static_cast<long long>(plan.points) * static_cast<long long>(plan.reads_a);
  if (limits.max_reads > 0 && cost > limits.max_reads)
    return refuse("recomputing map '" + a.label + "' (" + std::to_string(plan.reads_a) + " reads) at the " +
                  std::to_string(plan.points) + " reads of " + q(T) + " in map '" + b.label + "' costs " +
                  std::to_string(cost) +
                  " reads per iteration, more than max_reads=" + std::to_string(limits.max_reads));
  return MatchResult::success();
}

void apply_code_read(SDFG& sdfg, SDFGState& st, const CodeReadPlan& plan) {
  auto& entry_b = *st.node(plan.entry_b).as<MapEntry>();
  auto& tb = *st.node(plan.tasklet_b).as<Tasklet>();
  const auto& ta = *st.node(plan.tasklet_a).as<Tasklet>();
  const DataflowEdge t_in = st.edge(st.out_edges(plan.t_node)[0]);
  // The fused map keeps the checks of B's read of T and of A's accesses.
  std::vector<CheckedAccess> records{removed_access(sdfg, plan.t_data, t_in.memlet.subset, false,
                                                    "map '" + entry_b.map->label + "'",
                                                    debuginfo_of(t_in.memlet, entry_b))};
  // The consumer's own index of T in the dimensions no copy checks: B's range of it.
  const DataDescriptor& t_desc = sdfg.data(plan.t_data);
  for (const auto& [d, r] : plan.param_dims) {
    std::vector<Range> dims;
    for (std::size_t k = 0; k < t_desc.shape.size(); ++k)
      dims.push_back(k == d ? r : Range(Expr(0), t_desc.shape[k] - 1));
    records.push_back(removed_access(sdfg, plan.t_data, Subset(dims), false,
                                     "map '" + entry_b.map->label + "'", debuginfo_of(t_in.memlet, entry_b)));
  }
  for (CheckedAccess& c : producer_accesses(sdfg, st, plan.entry_a)) records.push_back(std::move(c));
  add_checked_accesses(*entry_b.map, records);

  // A's inputs reach B's tasklet whole, through new connectors of B's entry (one per new
  // connector of the tasklet).
  std::set<std::string> added;
  for (EdgeId e : st.in_edges(plan.tasklet_a)) {
    const DataflowEdge d = st.edge(e);
    if (d.memlet.is_empty() || !added.insert(plan.conn_of.at(d.dst_conn)).second) continue;
    const DataflowEdge outer =
        st.edge(st.in_edges_by_connector(plan.entry_a, "IN_" + d.src_conn.substr(4))[0]);
    const Memlet& m = plan.region_of.at(d.dst_conn);
    std::string s = free_suffix(entry_b, d.memlet.data);
    entry_b.in_connectors["IN_" + s] = std::nullopt;
    entry_b.out_connectors["OUT_" + s] = std::nullopt;
    st.add_edge(outer.src, outer.src_conn, plan.entry_b, "IN_" + s, m);
    const std::string& c = plan.conn_of.at(d.dst_conn);
    tb.in_connectors[c] = ta.in_connectors.count(d.dst_conn) ? ta.in_connectors.at(d.dst_conn) : std::nullopt;
    st.add_edge(plan.entry_b, "OUT_" + s, plan.tasklet_b, c, m);
  }
  tb.code = CodeBlock(plan.new_code, Language::Python);

  // B no longer reads T.
  for (EdgeId e : st.out_edges_by_connector(plan.entry_b, "OUT_" + t_in.dst_conn.substr(3))) {
    tb.in_connectors.erase(st.edge(e).dst_conn);
    st.remove_edge(e);
  }
  entry_b.in_connectors.erase(t_in.dst_conn);
  entry_b.out_connectors.erase("OUT_" + t_in.dst_conn.substr(3));

  // A, T's node and the inputs only A read disappear.
  std::vector<NodeId> sources;
  for (EdgeId e : st.in_edges(plan.entry_a)) sources.push_back(st.edge(e).src);
  st.remove_node(plan.tasklet_a);
  st.remove_node(plan.exit_a);
  st.remove_node(plan.entry_a);
  st.remove_node(plan.t_node);
  for (NodeId s : sources)
    if (st.has_node(s) && st.in_edges(s).empty() && st.out_edges(s).empty()) st.remove_node(s);
  if (sdfg.has_data(plan.t_data) && !plan.t_elsewhere) sdfg.remove_data(plan.t_data);
}

}  // namespace weir::transforms::detail
