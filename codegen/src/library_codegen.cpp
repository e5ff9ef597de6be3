// Nested SDFGs (a static function per node, called with pointers to the connected memlets and
// the mapped symbols) and library nodes (MPI in *_exchange_codegen.cpp and allreduce_codegen.cpp;
// Reduce, Einsum, the BLAS and the LAPACK nodes are expanded by the library-expansion pass
// before code generation).
#include "blas_operand.h"
#include "library_gen.h"
#include "state_codegen.h"
#include "stream_gen.h"
#include "weir/sdfg/library_attributes.h"
#include "weir/sdfg/nested_access.h"
#include "weir/sdfg/text.h"

namespace weir::codegen::detail {

std::set<std::string> StateGen::unaliased_connectors(const NestedSDFGNode& n,
                                                     const std::vector<std::string>& conns) const {
  // The outer container of each connector (its first memlet's data).
  std::map<std::string, std::string> outer;
  std::map<std::string, int> uses;
  for (const auto& c : conns) {
    std::vector<EdgeId> edges = st.in_edges_by_connector(n.id(), c);
    for (EdgeId id : st.out_edges_by_connector(n.id(), c)) edges.push_back(id);
    for (EdgeId id : edges) {
      const Memlet& m = st.edge(id).memlet;
      if (m.is_empty() || outer.count(c)) continue;
      outer[c] = m.data;
      ++uses[m.data];
    }
  }
  std::set<std::string> out;
  for (const auto& [c, data] : outer) {
    auto d = sg.sdfg.arrays.find(data);
    // A view (of what, the call does not say) may alias any other argument: none is unaliased.
    if (d == sg.sdfg.arrays.end() || d->second.is_view()) return {};
  }
  for (const auto& [c, data] : outer) {
    if (uses[data] != 1 || !n.sdfg || n.sdfg->arrays.at(c).is_scalar()) continue;
    const DataDescriptor& d = sg.sdfg.arrays.at(data);
    // Distinct containers are distinct memory at the top level and for transients (their own
    // allocations); a nested SDFG's parameter only when it is unaliased itself.
    auto b = sg.body_data.find(data);
    if (sg.top_level || d.transient || (b != sg.body_data.end() && b->second.unaliased)) out.insert(c);
  }
  return out;
}

namespace {

/// A nested SDFG's array argument (edge `e` of `n`) has non-negative strides: provably, or by
/// being one of the outer container's strides (checked where that container is declared, ADR
/// 0037). The nested SDFG's own checks leave undecided argument strides to this one.
void require_argument_strides(const SDFG& outer, const NestedSDFGNode& n, const DataflowEdge& e,
                              bool incoming, const ElementRef& where) {
  const std::string& conn = incoming ? e.dst_conn : e.src_conn;
  auto in = n.sdfg->arrays.find(conn);
  auto out = outer.arrays.find(e.memlet.data);
  if (e.memlet.is_empty() || in == n.sdfg->arrays.end() || out == outer.arrays.end() || in->second.transient)
    return;
  for (const LayoutCondition& c : layout_conditions(conn, in->second)) {
    if (c.field != "strides" || holds(c).has_value()) continue;
    const sym::Expr mapped = c.value.subs(n.symbol_mapping);
    bool outer_stride = false;
    for (const auto& s : out->second.strides) outer_stride = outer_stride || s == mapped;
    if (!outer_stride)
      throw CodegenError(where, "nested SDFG '" + n.sdfg->name + "': " + c.message +
                                    " (not provable, and not a stride of '" + e.memlet.data + "')");
  }
}

}  // namespace

void StateGen::describe_calling_iteration(const NestedSDFGNode& n, const std::vector<std::string>& cv,
                                          SdfgGen& ng) const {
  const ConcurrentAccess race(*this);
  auto params = race.concurrent_params();
  ng.calling_params_known = params.has_value();
  for (const auto& prm : params.value_or(std::vector<std::string>{})) {
    std::string mapped;
    for (const auto& [s, e] : n.symbol_mapping)
      if (e == sym::Expr::symbol(prm)) mapped = s;
    if (mapped.empty()) ng.calling_params_known = false;
    ng.calling_parallel_symbols.push_back(mapped);
  }
  for (const auto& [s, e] : n.symbol_mapping) {
    bool inv = true;
    for (const auto& x : e.free_symbols()) inv = inv && race.invariant(x);
    if (inv) ng.calling_invariant_symbols.insert(s);
  }
  for (const auto& c : cv) {
    bool own = true, fixed = params.has_value(), any = false;
    std::vector<EdgeId> edges = st.in_edges_by_connector(n.id(), c);
    for (EdgeId id : st.out_edges_by_connector(n.id(), c)) edges.push_back(id);
    for (EdgeId id : edges) {
      const Memlet& m = st.edge(id).memlet;
      if (m.is_empty()) continue;
      any = true;
      bool moves = false;
      for (const Range& r : m.subset.ranges())
        for (const sym::Expr* e : {&r.start, &r.end})
          for (const auto& s : e->free_symbols())
            for (const auto& prm : params.value_or(std::vector<std::string>{})) moves = moves || s == prm;
      fixed = fixed && !moves && race.fixed_base(m.data);
      // What the body touches of the caller's container, not what the memlet says: LoopToMap's
      // and the frontend's nested SDFGs carry whole-array memlets (ADR 0062).
      auto desc = sg.sdfg.arrays.find(m.data);
      const Subset touched =
          desc == sg.sdfg.arrays.end() ? m.subset : nested_access_region(n, c, m, desc->second);
      own =
          own && (parallel_frame() < 0 ? !race.shared_by_calls(m.data)
                                       : race.private_to_iteration(m.data) ||
                                             (race.fixed_base(m.data) && race.pins_parallel_params(touched)));
    }
    if (any && own) ng.private_params.insert(c);
    if (any && fixed) ng.fixed_base_params.insert(c);
  }
}

void StateGen::emit_nested(const NestedSDFGNode& n, Writer& w) {
  ElementRef where = ref(n);
  if (!n.sdfg) throw CodegenError(where, "nested SDFG node without an SDFG");
  const SDFG& inner = *n.sdfg;
  std::set<std::string> conns;
  for (const auto& [c, t] : n.in_connectors) conns.insert(c);
  for (const auto& [c, t] : n.out_connectors) conns.insert(c);
  for (const auto& c : conns)
    if (!inner.arrays.count(c))
      throw CodegenError(where, "connector '" + c + "' has no container in the nested SDFG");
  std::set<std::string> syms;
  for (const auto& [k, v] : n.symbol_mapping) syms.insert(k);
  for (const auto& s : inner.free_symbols())
    if (!syms.count(s) && !conns.count(s))
      throw CodegenError(where, "symbol '" + s + "' of the nested SDFG is not in its symbol mapping");

  // The nested SDFG's function.
  std::string fname =
      sg.prog.unique_function_name("weir_nested_" + sanitize_label(n.label.empty() ? inner.name : n.label));
  FactRecorder facts;  // of the nested SDFG's function
  SdfgGen ng(sg.prog, inner, false, in_parallel(), fname + "_");
  std::vector<std::string> cv(conns.begin(), conns.end());
  ng.unaliased_params = unaliased_connectors(n, cv);
  if (ng.in_parallel) describe_calling_iteration(n, cv, ng);
  ng.analyse(cv, syms);
  Writer body;
  ng.emit_body(body);
  // Trusted frame code of the nested SDFG (check_user_code refused it otherwise).
  if (!inner.global_code.code.empty()) sg.prog.global_code.push_back(inner.global_code.code);
  if (!inner.init_code.code.empty()) sg.prog.init_code.push_back(inner.init_code.code);
  if (!inner.exit_code.code.empty()) sg.prog.exit_code.push_back(inner.exit_code.code);
  // Each array argument stays inside the memory its outer memlet gives it (ADR 0037). A reach
  // that depends on a map's parameters (or other values of the scope) is checked at the call;
  // the others where the caller's body or state starts (SdfgGen::emit_layout_checks).
  std::vector<std::pair<std::string, std::string>> at_call;  // (test, message)
  for (bool incoming : {true, false})
    for (EdgeId id : incoming ? st.in_edges(n.id()) : st.out_edges(n.id())) {
      try {
        std::optional<LayoutCondition> reach = nested_argument_reach(sg.sdfg, n, st.edge(id), incoming);
        require_reach(reach, where);
        if (reach && !holds(*reach).has_value() && sg.reach_check_point(*reach) == SdfgGen::CheckPoint::Use)
          at_call.emplace_back(scope_reach_test(*reach, visible_symbols(), where), reach->message);
        require_argument_strides(sg.sdfg, n, st.edge(id), incoming, where);
      } catch (const sym::SymbolicError& ex) {
        throw CodegenError(where, "the reach of an argument overflows 64-bit element indices (" +
                                      std::string(ex.what()) + ")");
      }
    }
  std::vector<std::string> params;
  for (const auto& c : cv) {
    const DataDescriptor& d = inner.arrays.at(c);
    if (d.is_view()) throw CodegenError(where, "connector '" + c + "' is a view in the nested SDFG");
    // A scalar no state of the nested SDFG writes is a const reference (Binding::read_only).
    const bool read_only = ng.body_data.count(c) && ng.body_data.at(c).read_only;
    params.push_back((read_only ? "const " : "") + cpp_type(d) +
                     (ng.bound_as_scalar(d)          ? "& "
                      : ng.unaliased_params.count(c) ? "* __restrict__ "
                                                     : "* ") +
                     cpp_ident(c));
  }
  for (const auto& s : syms)
    params.push_back("const " + std::string(cpp_name(ng.symbols.at(s))) + " " + cpp_ident(s));
  Writer f;
  if (opts.emit_comments)
    f.line("// nested SDFG '" + inner.name + "' (node " + std::to_string(n.id()) + " '" + n.label +
           "' in state '" + st.label + "' of SDFG '" + sg.sdfg.name + "')");
  // In a kernel (CUDA), the nested SDFG is a device function.
  const bool device = device_code();
  const std::string declaration = "void " + fname + "(" + join(params, ", ") + ")";
  // A small nested SDFG is inlined where it is called (one call site per node and loop copy): a
  // per-point call in a map is then the loop's body, which the compiler can vectorize.
  const bool inlined = !device && body.line_count() <= 400;
  f.open(sg.prog.target.function_specifiers(device, inlined) + declaration + " {");
  // A mapped symbol the body does not use (a map parameter passed in) is no compiler warning.
  if (!syms.empty()) {
    std::string unused;
    for (const auto& s : syms) unused += (unused.empty() ? "(void)" : ", (void)") + cpp_ident(s);
    f.line(unused + ";");
  }
  f.append(body);
  f.close();
  f.blank();
  CodeFacts nested_facts = facts.finish();
  if (nested_facts.atomics) note_atomics();  // the caller's facts: it calls this function
  sg.prog.functions.append(f, device ? std::string() : declaration, std::move(nested_facts));
  note_call(fname);

  // The call: a pointer (or a reference for scalars) per connector, then the symbols.
  std::vector<std::string> args;
  for (const auto& c : cv) {
    auto ins = st.in_edges_by_connector(n.id(), c);
    auto outs = st.out_edges_by_connector(n.id(), c);
    const DataflowEdge* e = nullptr;
    bool incoming = true;
    for (EdgeId id : ins)
      if (!e && !st.edge(id).memlet.is_empty()) e = &st.edge(id);
    if (!e) {
      incoming = false;
      for (EdgeId id : outs) {
        const DataflowEdge& oe = st.edge(id);
        const Node& dst = st.node(oe.dst);
        bool code = dst.kind() == NodeKind::Tasklet || dst.kind() == NodeKind::NestedSDFG ||
                    dst.kind() == NodeKind::Library;
        if (oe.memlet.is_empty() && !code) continue;
        if (code && !edge_vars_.count({n.id(), c})) {
          std::string var = fresh("__weir_e" + std::to_string(n.id()) + "_" + sanitize_label(c) + "_");
          ScalarType t = inner.arrays.at(c).dtype.base;
          edge_vars_[{n.id(), c}] = {var, t};
          w.line(std::string(cpp_name(t)) + " " + var + "{};");
        }
        if (!e) e = &oe;
      }
    } else {
      // An in/out connector must read and write the same container.
      for (EdgeId id : outs) {
        const DataflowEdge& oe = st.edge(id);
        if (!oe.memlet.is_empty() && oe.memlet.data != e->memlet.data &&
            st.node(oe.dst).kind() != NodeKind::Tasklet)
          throw CodegenError(where, "connector '" + c + "' reads '" + e->memlet.data + "' but writes '" +
                                        oe.memlet.data + "'");
      }
    }
    if (!e) throw CodegenError(where, "connector '" + c + "' is not connected");
    Location loc = edge_location(*e, incoming);
    args.push_back(ng.bound_as_scalar(inner.arrays.at(c)) ? loc.element() : loc.pointer());
  }
  for (const auto& s : syms) args.push_back(sym_cpp(n.symbol_mapping.at(s)));
  if (opts.emit_comments) w.line("// nested SDFG " + n.label + " (node " + std::to_string(n.id()) + ")");
  // The reaches checked at the call: a failing one is recorded (the state may run in a parallel
  // loop or a kernel: device fault kind 4), the call skipped, and the state's caller raises it.
  std::string checks;
  for (const auto& [test, message] : at_call)
    checks += "if (" + test + ") weir_layout_fault(\"" +
              c_escape(message + " (false for the values of this call)") + "\"); else ";
  if (!checks.empty()) note_fault();
  StreamGen(*this).emit_block_prefetch(n, w);
  w.line(checks + fname + "(" + join(args, ", ") + ");");
}

std::string unexpanded_message(const LibraryNode& n) {
  return "a " + n.class_name() +
         " library node reaches code generation unexpanded: run the library-expansion pass first "
         "(`weir optimize --passes library-expansion`; the compile path runs it)";
}

LibraryGen::LibraryGen(StateGen& g) : g_(g), sg(g.sg), st(g.st), opts(g.opts) {}

namespace {

bool is_one(const sym::Expr& e) { return e.is_integer() && e.value() == 1; }

}  // namespace

std::string numeric_attribute(const LibraryNode& n, const std::string& key, const std::string& dflt,
                              const ElementRef& where) {
  if (auto v = numeric_library_attribute(n, key, dflt)) return *v;
  throw CodegenError(where, n.class_name() + " attribute '" + key + "' = " + *n.extra.find(key) +
                                " is not a number; the CPU code generator supports numeric values only");
}

BlasOperand LibraryGen::blas_operand(const LibraryNode& n, const std::string& conn, bool input) const {
  BlasOperand op;
  auto ids = input ? st.in_edges_by_connector(n.id(), conn) : st.out_edges_by_connector(n.id(), conn);
  for (EdgeId id : ids) {
    const DataflowEdge& e = st.edge(id);
    if (e.memlet.is_empty() && e.memlet.data.empty()) continue;
    op.loc = g_.edge_location(e, input);
    op.present = true;
    if (!op.loc.data.empty() && !op.loc.binding->scalar)
      for (std::size_t d = 0; d < op.loc.subset.dims(); ++d)
        if (!is_one(op.loc.subset[d].size())) op.dims.push_back(d);
    break;
  }
  return op;
}

void LibraryGen::emit(const LibraryNode& n, Writer& w) {
  sg.prog.target.check_library_node(g_, n);
  // The library-expansion pass (transforms/) owns Reduce, Einsum, the BLAS nodes (MatMul, Gemm
  // and Gemv too, as row buffers, maps or one CBLAS call) and the LAPACK ones (one tasklet of
  // loops or a LAPACKE call): the compile path expands them into nested SDFGs before code
  // generation.
  const std::string cls = n.class_name();
  if (n.is_reduce() || cls == "Einsum" || cls == "Dot" || cls == "Ger" || cls == "Transpose" ||
      cls == "TensorTranspose" || cls == "TensorDot" || cls == "MatMul" || cls == "Gemm" || cls == "Gemv" ||
      cls == "Cholesky" || cls == "Solve" || cls == "Inv" || cls == "Getrf" || cls == "Getrs" ||
      cls == "Getri" || cls == "Potrf")
    throw CodegenError(g_.ref(n), unexpanded_message(n));
  if (cls == "HaloExchange") return emit_halo_exchange(n, w);
  if (cls == "Allreduce") return emit_allreduce(n, w);
  if (cls == "UnstructuredHaloExchange") return emit_unstructured_exchange(n, w);
  throw CodegenError(g_.ref(n), "library node of type '" + n.type_name + "'" +
                                    (n.classpath.empty() ? "" : " (" + n.classpath + ")") +
                                    " is not supported by the CPU code generator; expand it first");
}

}  // namespace weir::codegen::detail
