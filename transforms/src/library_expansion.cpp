// LibraryExpansion: finds the library nodes the pass owns and replaces each by a nested SDFG
// node built by its class's expansion (expand_reduce.cpp, expand_einsum.cpp, expand_blas.cpp).
#include "weir/transforms/library_expansion.h"

#include <cctype>
#include <optional>

#include "library_expansion_internal.h"
#include "weir/sdfg/instrumented.h"
#include "weir/transforms/memlet_propagation.h"

namespace weir::transforms {

namespace detail {

TransformError ExpansionSite::error(const std::string& msg) const {
  ElementRef where{sdfg.name, st.label, static_cast<long>(node.id()), -1, node.label};
  return TransformError(where.describe() + ": " + msg);
}

std::vector<const DataflowEdge*> ExpansionSite::data_edges(bool incoming) const {
  std::vector<const DataflowEdge*> out;
  for (EdgeId id : incoming ? st.in_edges(node.id()) : st.out_edges(node.id()))
    if (!st.edge(id).memlet.is_empty()) out.push_back(&st.edge(id));
  return out;
}

LibraryOperand ExpansionSite::operand(const DataflowEdge& e, bool incoming,
                                      const std::string& fallback) const {
  const Node& other = st.node(incoming ? e.src : e.dst);
  if (other.kind() == NodeKind::Tasklet || other.kind() == NodeKind::NestedSDFG ||
      other.kind() == NodeKind::Library)
    throw error(node.class_name() + " between code nodes is not supported");
  LibraryOperand op;
  op.edge = &e;
  op.edge_id = e.id;
  op.incoming = incoming;
  const std::string& conn = incoming ? e.dst_conn : e.src_conn;
  op.name = conn.empty() ? fallback : conn;
  auto d = sdfg.arrays.find(e.memlet.data);
  if (d == sdfg.arrays.end()) throw error("memlet of unknown container '" + e.memlet.data + "'");
  const DataDescriptor& outer = d->second;
  if (outer.is_scalar()) {
    op.desc = DataDescriptor::make_scalar(outer.dtype.base);
  } else {
    std::vector<sym::Expr> shape, strides;
    sym::Expr last{0};
    const Subset& s = e.memlet.subset;
    for (std::size_t k = 0; k < s.dims(); ++k) {
      shape.push_back(s[k].size());
      strides.push_back(k < outer.strides.size() ? outer.strides[k] * s[k].step : sym::Expr(1));
      last = last + (shape.back() - sym::Expr(1)) * strides.back();
    }
    op.desc = DataDescriptor::make_array(outer.dtype.base, shape);
    op.desc.strides = strides;
    op.desc.total_size = last + sym::Expr(1);
  }
  op.desc.dtype = outer.dtype;
  op.desc.storage = outer.storage;
  op.desc.transient = false;
  return op;
}

std::unique_ptr<SDFG> expansion_sdfg(const ExpansionSite& site, const std::vector<LibraryOperand>& ops) {
  // Named after the node, as an identifier: "Reduce (Sum), Axes: [1]" -> "Reduce_Sum_Axes_1".
  std::string name;
  for (char c : site.node.label.empty() ? site.node.class_name() : site.node.label) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      name += c;
    else if (!name.empty() && name.back() != '_')
      name += '_';
  }
  while (!name.empty() && name.back() == '_') name.pop_back();
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    name = site.node.class_name() + "_" + name;
  auto inner = std::make_unique<SDFG>(name);
  for (const LibraryOperand& op : ops) {
    inner->add_data(op.name, op.desc);
    for (const std::string& s : op.desc.free_symbols()) {
      if (inner->symbols.count(s)) continue;
      auto t = site.sdfg.symbols.find(s);
      inner->add_symbol(s, t != site.sdfg.symbols.end() ? t->second.base : ScalarType::Int64);
    }
  }
  return inner;
}

}  // namespace detail

namespace {

/// How a library node is expanded, if at all: one CBLAS call, the pure expansion's maps and
/// tasklets, or the default rows of a MatMul, Gemm or Gemv (expand_blas_rows.cpp).
enum class Lowering { None, Call, Nodes, Rows };

/// The expansion of `n` (a class of library_expansion_classes() or pure_expansion_classes()) in
/// place, as `how` says: a nested SDFG node with the operands' connectors takes over the node's
/// edges.
void expand_node(SDFG& sdfg, SDFGState& st, const LibraryNode& n, Lowering how) {
  detail::ExpansionSite site{sdfg, st, n};
  std::vector<detail::LibraryOperand> ops;
  const std::string cls = n.class_name();
  std::unique_ptr<SDFG> inner = how == Lowering::Call           ? detail::expand_cblas(site, ops)
                                : how == Lowering::Rows         ? detail::expand_blas_rows(site, ops)
                                : n.is_reduce()                 ? detail::expand_reduce(site, ops)
                                : cls == "Einsum"               ? detail::expand_einsum(site, ops)
                                : cls == "TensorTranspose"      ? detail::expand_tensor_transpose(site, ops)
                                : cls == "TensorDot"            ? detail::expand_tensor_dot(site, ops)
                                : cls == "FFT" || cls == "IFFT" ? detail::expand_fft(site, ops)
                                : cls == "Cholesky" || cls == "Solve" || cls == "Inv"
                                    ? detail::expand_lapack(site, ops)
                                : cls == "Getrf" || cls == "Getrs" || cls == "Getri" || cls == "Potrf"
                                    ? detail::expand_lapack_factor(site, ops)
                                    : detail::expand_blas(site, ops);
  propagate_memlets(*inner);
  std::vector<std::string> ins, outs;
  std::map<std::string, sym::Expr> mapping;
  std::map<EdgeId, std::string> conn_of;
  for (const auto& op : ops) {
    (op.incoming ? ins : outs).push_back(op.name);
    conn_of[op.edge_id] = op.name;
  }
  for (const auto& [s, t] : inner->symbols) mapping.emplace(s, sym::Expr::symbol(s));
  // Labelled as its SDFG (the node's label as an identifier: a nested SDFG's label must be one).
  std::string label = inner->name;
  NestedSDFGNode& nest = st.add_nested_sdfg(label, std::move(inner), ins, outs, mapping);
  // Where the node came from (its debuginfo); not its library attributes (einsum_str, ...),
  // which a nested SDFG node does not have.
  if (const std::string* info = n.extra.find("debuginfo")) nest.extra.set("debuginfo", *info);
  // A timed node stays timed (`weir run --profile`): the call of its expansion.
  if (const std::string* timer = n.extra.find(kInstrumentAttribute))
    nest.extra.set(kInstrumentAttribute, *timer);
  // The node's edges, data and empty ones, now on the nested SDFG node.
  std::vector<EdgeId> edges = st.in_edges(n.id());
  for (EdgeId id : st.out_edges(n.id())) edges.push_back(id);
  for (EdgeId id : edges) {
    const DataflowEdge e = st.edge(id);  // a copy: adding edges may move the state's edges
    std::string conn = conn_of.count(id) ? conn_of.at(id) : std::string();
    if (e.dst == n.id())
      st.add_edge(e.src, e.src_conn, nest.id(), conn, e.memlet);
    else
      st.add_edge(nest.id(), conn, e.dst, e.dst_conn, e.memlet);
  }
  st.remove_node(n.id());
}

bool is_gpu_schedule(ScheduleType s) {
  using S = ScheduleType;
  return s == S::GPU_Default || s == S::GPU_Device || s == S::GPU_Persistent || s == S::GPU_ThreadBlock ||
         s == S::GPU_ThreadBlock_Dynamic;
}

/// Whether the nodes of a state run in a parallel scope: inside a map of the state that is not
/// Sequential (or any other scope), or in a state of an SDFG called in one (`outer`); and whether
/// in GPU code (inside a map of a GPU schedule, or called in one: `outer_device`). The scope
/// tree is worked out once, when first asked.
class Scopes {
 public:
  Scopes(const SDFGState& st, bool outer, bool outer_device = false)
      : st_(st), outer_(outer), outer_device_(outer_device) {}
  bool in_parallel(NodeId id) {
    if (outer_) return true;
    if (!tree_) tree_ = st_.scope_tree();
    for (NodeId p = tree_->parent.at(id); p != kNoNode; p = tree_->parent.at(p)) {
      const auto* e = st_.node(p).as<MapEntry>();
      if (!e || e->map->schedule != ScheduleType::Sequential) return true;
    }
    return false;
  }
  bool in_device(NodeId id) {
    if (outer_device_) return true;
    if (!tree_) tree_ = st_.scope_tree();
    for (NodeId p = tree_->parent.at(id); p != kNoNode; p = tree_->parent.at(p))
      if (const auto* e = st_.node(p).as<MapEntry>(); e && is_gpu_schedule(e->map->schedule)) return true;
    return false;
  }

 private:
  const SDFGState& st_;
  bool outer_, outer_device_;
  std::optional<ScopeTree> tree_;
};

/// A Dot, MatMul, Gemm or Gemv whose `implementation` is a CBLAS one (OpenBLAS, MKL, cBLAS),
/// outside every parallel scope (CBLAS runs its own threads) and with operands CBLAS takes, is one
/// CBLAS call; any other Dot, and the MatMul, Gemm and Gemv nodes of implementation "pure" (or in
/// GPU code), are the pure expansion's maps and tasklets; other MatMul, Gemm and Gemv nodes are
/// the default rows.
Lowering lowering(const SDFG& sdfg, const SDFGState& st, const Node& n, Scopes& scopes) {
  const auto* lib = n.as<LibraryNode>();
  if (!lib) return Lowering::None;
  const std::string cls = lib->class_name();
  const bool pure_class = pure_expansion_classes().count(cls) > 0;
  if ((pure_class || cls == "Dot") && detail::wants_cblas(*lib) && !scopes.in_parallel(n.id())) {
    std::vector<detail::LibraryOperand> ops;
    if (detail::expand_cblas(detail::ExpansionSite{sdfg, st, *lib}, ops)) return Lowering::Call;
  }
  if (pure_class)
    return lib->implementation == "pure" || scopes.in_device(n.id()) ? Lowering::Nodes : Lowering::Rows;
  return library_expansion_classes().count(cls) ? Lowering::Nodes : Lowering::None;
}

bool expandable(const SDFG& sdfg, const SDFGState& st, const Node& n, Scopes& scopes) {
  return lowering(sdfg, st, n, scopes) != Lowering::None;
}

bool has_expandable(const SDFG& sdfg, bool in_parallel);

/// `in_parallel`: the state's SDFG is called inside a parallel scope.
bool state_has_expandable(const SDFG& sdfg, const SDFGState& st, bool in_parallel) {
  Scopes scopes(st, in_parallel);
  for (const Node* n : st.nodes()) {
    if (expandable(sdfg, st, *n, scopes)) return true;
    if (const auto* nest = n->as<NestedSDFGNode>();
        nest && nest->sdfg && has_expandable(*nest->sdfg, scopes.in_parallel(n->id())))
      return true;
  }
  return false;
}

bool has_expandable(const SDFG& sdfg, bool in_parallel) {
  for (const SDFGState* st : sdfg.all_states())
    if (state_has_expandable(sdfg, *st, in_parallel)) return true;
  return false;
}

/// Expands the state's nodes and those of the SDFGs nested in it; returns how many. `in_device`:
/// the state's SDFG is called in GPU code.
std::size_t expand_state(SDFG& sdfg, SDFGState& st, bool in_parallel, bool in_device) {
  std::size_t changed = 0;
  std::vector<std::pair<NodeId, Lowering>> todo;
  std::vector<NodeId> nested;
  Scopes scopes(st, in_parallel, in_device);
  for (const Node* n : st.nodes()) {
    if (Lowering how = lowering(sdfg, st, *n, scopes); how != Lowering::None) todo.emplace_back(n->id(), how);
    if (n->as<NestedSDFGNode>()) nested.push_back(n->id());
  }
  for (NodeId id : nested) {
    SDFG* inner = st.node(id).as<NestedSDFGNode>()->sdfg.get();
    if (!inner) continue;
    const bool inner_in_parallel = scopes.in_parallel(id), inner_in_device = scopes.in_device(id);
    for (SDFGState* s : inner->all_states())
      if (state_has_expandable(*inner, *s, inner_in_parallel))
        changed += expand_state(*inner, *s, inner_in_parallel, inner_in_device);
  }
  for (const auto& [id, how] : todo) {
    expand_node(sdfg, st, *st.node(id).as<LibraryNode>(), how);
    ++changed;
  }
  return changed;
}

}  // namespace

const std::set<std::string>& library_expansion_classes() {
  static const std::set<std::string> classes{
      "Reduce",          "Einsum",    "Dot",   "Ger",  "Axpy",     "BatchedMatMul", "Transpose",
      "TensorTranspose", "TensorDot", "FFT",   "IFFT", "Cholesky", "Solve",         "Inv",
      "Getrf",           "Getrs",     "Getri", "Potrf"};
  return classes;
}

const std::set<std::string>& pure_expansion_classes() {
  static const std::set<std::string> classes{"MatMul", "Gemm", "Gemv"};
  return classes;
}

bool has_expandable_library_nodes(const SDFG& sdfg) { return has_expandable(sdfg, false); }

LibraryExpansion::LibraryExpansion()
    : Pass("library-expansion",
           "Replace library nodes (Reduce, Einsum, Dot, Ger, Axpy, Transpose, TensorTranspose, TensorDot, "
           "FFT, IFFT, BatchedMatMul; MatMul, Gemm, Gemv: row buffers by default, DaCe's pure maps with "
           "implementation pure) by nested SDFGs of maps "
           "and tasklets (DaCe's expansions); Dot, MatMul, Gemm, Gemv with implementation OpenBLAS, MKL or "
           "cBLAS by one CBLAS call; Cholesky, Solve, Inv, Getrf, Getrs, Getri, Potrf by one tasklet of "
           "LAPACK's loops or a LAPACKE call whose fault (info != 0) is declared") {}

std::size_t LibraryExpansion::run_pass(SDFG& sdfg, Transaction& tx) {
  std::size_t changed = 0;
  for (SDFGState* st : sdfg.all_states())
    if (state_has_expandable(sdfg, *st, false))
      tx.modify_state(*st, [&] { changed += expand_state(sdfg, *st, false, false); });
  return changed;
}

}  // namespace weir::transforms
