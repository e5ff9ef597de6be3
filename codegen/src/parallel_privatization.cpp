// Scatter reductions in parallel maps: a map whose points add into a small container at indices
// known only at run time (a histogram: `hist[bin(x[i])] += w[i]`) updated it atomically, and two
// threads updating the same few cache lines took longer than one thread (azimint_hist: 1.0 ms on
// two threads, 0.83 ms on one, NumPy 0.8 ms). Where every write of the map to the container is
// such a write-conflict resolution with one associative operator and the map never reads it,
// each thread now adds into its own copy (filled with the operator's identity) without atomics,
// and the copies are combined into the container once per thread. The copies cost
// threads x size elements, so they are used only when the container is no larger than the
// map's points (checked at run time); larger ones keep the atomic loop. The sequential branch
// of the small-map threshold gets a body of its own without atomics.
#include "state_codegen.h"
#include "weir/codegen/python_to_cpp.h"
#include "weir/sdfg/dependence.h"
#include "weir/sdfg/sdfg.h"

namespace weir::codegen::detail {

namespace {

bool is_float_type(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::Float32 || t == ScalarType::Float64;
}

/// The compound operator of a write-conflict resolution that OpenMP-style reductions may
/// reassociate (+, *, &, |, ^), or "" (min, max, subtraction, anything else).
std::string reduction_operator(const std::string& wcr, ScalarType t) {
  if (wcr.empty()) return "";
  std::string op;
  try {
    translate_wcr(wcr, "__a", "__b", t, &op);
  } catch (const std::exception&) {
    return "";
  }
  if (op == "+" || op == "*") return op;
  if ((op == "&" || op == "|" || op == "^") && !is_float_type(t)) return op;
  return "";
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
    if (m.wcr.empty() ? !!src.as<Tasklet>() : reduction_operator(m.wcr, t) != op) return false;
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
/// interstate edges must not read `name` either (control_flow_names).
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

/// C++ of the identity of `op` on `t`: -0.0 for float sums (x + -0.0 is x, also for x = -0.0).
std::string identity(const std::string& op, ScalarType t) {
  std::string T(cpp_name(t));
  if (op == "+") return is_float_type(t) ? T + "(-0.0)" : T + "(0)";
  if (op == "*") return T + "(1)";
  if (op == "&") return "static_cast<" + T + ">(~" + T + "(0))";
  return T + "(0)";
}

}  // namespace

std::vector<StateGen::Privatized> StateGen::plan_privatized(const MapEntry& e) const {
  std::vector<Privatized> out;
  // Called with the map's own frame pushed: it must be the only parallel one.
  if (!opts.openmp || sg.in_parallel || frames_.empty() || !frames_.back().parallel) return out;
  for (std::size_t k = 0; k + 1 < frames_.size(); ++k)
    if (frames_[k].parallel) return out;
  std::set<std::string> seen;
  std::vector<NodeId> scope = scope_nodes(e.id());
  for (EdgeId id : st.out_edges(e.exit)) {
    const Memlet& m = st.edge(id).memlet;
    if (m.is_empty() || !seen.insert(m.data).second) continue;
    const std::string& x = m.data;
    auto d = sg.sdfg.arrays.find(x);
    const Binding* b = binding(x);
    bool ok = d != sg.sdfg.arrays.end() && b && !b->scalar && b->viewed.empty() && !d->second.is_view() &&
              b->cpp == cpp_ident(x) && d->second.start_offset.is_integer() &&
              d->second.start_offset.value() == 0;
    ScalarType t = ok ? d->second.dtype.base : ScalarType::Void;
    ok = ok && t != ScalarType::Bool && t != ScalarType::Void && t != ScalarType::Float16 &&
         t != ScalarType::Complex64 && t != ScalarType::Complex128;
    // The map does not read it, and every edge of its scope that touches it writes it with one
    // reassociable WCR: a tasklet's edge carries it, a nested SDFG's writes inside carry it (its
    // outer edges have none, as DaCe writes them), map exits pass it on. Worth it only where
    // some write is not the iteration's own element (those would need atomics).
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
        std::string here = reduction_operator(ed.memlet.wcr, t);
        if (!write || (!ed.memlet.wcr.empty() && here.empty())) {
          ok = false;
        } else if (const auto* ns = src.as<NestedSDFGNode>()) {
          std::string inner = here;
          if (inner.empty() && ns->sdfg) {
            // The operator of the nested SDFG's first WCR write of the connector.
            for (const SDFGState* s : ns->sdfg->all_states())
              for (const DataflowEdge* ie : s->edges())
                if (inner.empty() && ie->memlet.data == ed.src_conn && !ie->memlet.wcr.empty())
                  inner = reduction_operator(ie->memlet.wcr, t);
          }
          ok = !inner.empty() && (op.empty() || op == inner) && ns->sdfg &&
               st.in_edges_by_connector(ns->id(), ed.src_conn).empty() &&
               only_reduced_writes(*ns->sdfg, ed.src_conn, inner, t);
          op = inner;
          scattered = scattered || (ok && !pins_parallel_params(ed.memlet.subset));
        } else if (src.as<Tasklet>()) {
          ok = !here.empty() && (op.empty() || op == here);
          op = here;
          scattered = scattered || (ok && !pins_parallel_params(ed.memlet.subset));
        } else {
          ok = src.as<MapExit>() && (here.empty() || op.empty() || op == here);
        }
      }
      // An access node of it inside the scope that feeds anything reads it.
      if (const auto* a = st.node(n).as<AccessNode>(); ok && a && a->data == x && n != e.id())
        for (EdgeId oid : st.out_edges(n)) ok = ok && st.edge(oid).memlet.is_empty();
    }
    if (ok && scattered && !op.empty()) out.push_back({x, op, t, d->second.total_size});
  }
  return out;
}

void StateGen::emit_privatized(const std::vector<Privatized>& privs,
                               const std::function<void(Writer&)>& loops, Writer& w) {
  w.open("{");
  for (const Privatized& p : privs) {
    std::string n = cpp_ident(p.data), T(cpp_name(p.type));
    w.line(T + "* const __weir_shared_" + n + " = " + n + ";");
    w.line("weir_buffer<" + T + "> __weir_copies_" + n + "((" + sym_cpp(p.size) +
           ") * omp_get_max_threads(), \"" + c_escape(p.data) + " (per-thread copies)\");");
  }
  w.line("#pragma omp parallel");
  w.open("{");
  for (const Privatized& p : privs) {
    std::string n = cpp_ident(p.data), T(cpp_name(p.type)), size = "(" + sym_cpp(p.size) + ")";
    w.line(T + "* __restrict__ " + n + " = __weir_copies_" + n +
           ".ptr + static_cast<int64_t>(omp_get_thread_num()) * " + size + ";");
    w.line("for (int64_t __k = 0; __k < " + size + "; ++__k) " + n + "[__k] = " + identity(p.op, p.type) +
           ";");
  }
  loops(w);
  // One thread at a time: each combines its whole copy (identity elements leave values as they are).
  w.line("#pragma omp critical");
  w.open("{");
  for (const Privatized& p : privs) {
    std::string n = cpp_ident(p.data);
    w.line("for (int64_t __k = 0; __k < (" + sym_cpp(p.size) + "); ++__k) __weir_shared_" + n + "[__k] " +
           p.op + "= " + n + "[__k];");
  }
  w.close();
  w.close();
  w.close();
}

}  // namespace weir::codegen::detail
