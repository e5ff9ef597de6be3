// LibraryExpansion: finds the library nodes the pass owns and replaces each by a nested SDFG
// node built by its class's expansion (expand_reduce.cpp, expand_einsum.cpp, expand_blas.cpp).
#include "weir/transforms/library_expansion.h"

#include <cctype>
#include <optional>

#include "library_expansion_internal.h"
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

/// The expansion of `n` (a class of library_expansion_classes()) in place: a nested SDFG node
/// with the operands' connectors takes over the node's edges.
void expand_node(SDFG& sdfg, SDFGState& st, const LibraryNode& n) {
  detail::ExpansionSite site{sdfg, st, n};
  std::vector<detail::LibraryOperand> ops;
  const std::string cls = n.class_name();
  std::unique_ptr<SDFG> inner = n.is_reduce()                   ? detail::expand_reduce(site, ops)
                                : cls == "Einsum"               ? detail::expand_einsum(site, ops)
                                : cls == "TensorTranspose"      ? detail::expand_tensor_transpose(site, ops)
                                : cls == "TensorDot"            ? detail::expand_tensor_dot(site, ops)
                                : cls == "FFT" || cls == "IFFT" ? detail::expand_fft(site, ops)
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

/// Whether the non-unit dimensions of the memlet of `e` are one with a positive constant step
/// into an array (what a CBLAS vector argument takes).
bool cblas_vector(const SDFG& sdfg, const DataflowEdge& e) {
  auto d = sdfg.arrays.find(e.memlet.data);
  if (d == sdfg.arrays.end() || d->second.is_scalar()) return false;
  int dims = 0;
  bool forward = true;
  for (const Range& r : e.memlet.subset.ranges()) {
    const sym::Expr size = r.size();
    if (size.is_integer() && size.value() == 1) continue;
    ++dims;
    forward = forward && r.step.is_integer() && r.step.value() > 0;
  }
  return dims == 1 && forward;
}

/// Whether the nodes of a state run inside a map: of the state, or of a state that calls the
/// state's SDFG (`outer`). The scope tree is worked out once, when first asked.
class Scopes {
 public:
  Scopes(const SDFGState& st, bool outer) : st_(st), outer_(outer) {}
  bool in_map(NodeId id) {
    if (outer_) return true;
    if (!tree_) tree_ = st_.scope_tree();
    return tree_->parent.at(id) != kNoNode;
  }

 private:
  const SDFGState& st_;
  bool outer_;
  std::optional<ScopeTree> tree_;
};

/// A Dot whose `implementation` is a CBLAS one (OpenBLAS, MKL, cBLAS), outside every map (of its
/// state and of the states its SDFG is nested in: nothing runs it in parallel),
/// with float32 or float64 operands of one type and vectors CBLAS takes: the code generator
/// calls cblas_?dot for it (codegen/src/cblas_codegen.cpp), so the pass leaves it. Every other
/// Dot is expanded.
bool left_to_cblas(const SDFG& sdfg, const SDFGState& st, const LibraryNode& n, Scopes& scopes) {
  std::string impl;
  for (char c : n.implementation) impl += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (n.class_name() != "Dot" || !(impl == "openblas" || impl == "mkl" || impl == "cblas") ||
      scopes.in_map(n.id()))
    return false;
  std::optional<ScalarType> type;
  bool vectors = true;
  for (bool in : {true, false})
    for (EdgeId id : in ? st.in_edges(n.id()) : st.out_edges(n.id())) {
      const DataflowEdge& e = st.edge(id);
      if (e.memlet.is_empty()) continue;
      auto d = sdfg.arrays.find(e.memlet.data);
      if (d == sdfg.arrays.end()) return false;
      if (type && *type != d->second.dtype.base) return false;
      type = d->second.dtype.base;
      if (in) vectors = vectors && cblas_vector(sdfg, e);
    }
  return vectors && (type == ScalarType::Float64 || type == ScalarType::Float32);
}

/// Whether library node `n` of `st` is expanded.
bool expandable(const SDFG& sdfg, const SDFGState& st, const Node& n, Scopes& scopes) {
  const auto* lib = n.as<LibraryNode>();
  if (!lib) return false;
  if (pure_expansion_classes().count(lib->class_name())) return lib->implementation == "pure";
  return library_expansion_classes().count(lib->class_name()) && !left_to_cblas(sdfg, st, *lib, scopes);
}

bool has_expandable(const SDFG& sdfg, bool in_map);

/// `in_map`: the state's SDFG is called inside a map.
bool state_has_expandable(const SDFG& sdfg, const SDFGState& st, bool in_map) {
  Scopes scopes(st, in_map);
  for (const Node* n : st.nodes()) {
    if (expandable(sdfg, st, *n, scopes)) return true;
    if (const auto* nest = n->as<NestedSDFGNode>();
        nest && nest->sdfg && has_expandable(*nest->sdfg, scopes.in_map(n->id())))
      return true;
  }
  return false;
}

bool has_expandable(const SDFG& sdfg, bool in_map) {
  for (const SDFGState* st : sdfg.all_states())
    if (state_has_expandable(sdfg, *st, in_map)) return true;
  return false;
}

/// Expands the state's nodes and those of the SDFGs nested in it; returns how many.
std::size_t expand_state(SDFG& sdfg, SDFGState& st, bool in_map) {
  std::size_t changed = 0;
  std::vector<NodeId> todo, nested;
  Scopes scopes(st, in_map);
  for (const Node* n : st.nodes()) {
    if (expandable(sdfg, st, *n, scopes)) todo.push_back(n->id());
    if (n->as<NestedSDFGNode>()) nested.push_back(n->id());
  }
  for (NodeId id : nested) {
    SDFG* inner = st.node(id).as<NestedSDFGNode>()->sdfg.get();
    if (!inner) continue;
    const bool inner_in_map = scopes.in_map(id);
    for (SDFGState* s : inner->all_states())
      if (state_has_expandable(*inner, *s, inner_in_map)) changed += expand_state(*inner, *s, inner_in_map);
  }
  for (NodeId id : todo) {
    expand_node(sdfg, st, *st.node(id).as<LibraryNode>());
    ++changed;
  }
  return changed;
}

}  // namespace

const std::set<std::string>& library_expansion_classes() {
  static const std::set<std::string> classes{"Reduce",    "Einsum",        "Dot",       "Ger",
                                             "Axpy",      "BatchedMatMul", "Transpose", "TensorTranspose",
                                             "TensorDot", "FFT",           "IFFT"};
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
           "FFT, IFFT, BatchedMatMul; MatMul, Gemm, Gemv "
           "with "
           "implementation "
           "pure) by "
           "nested SDFGs of maps and tasklets (DaCe's expansions)") {}

std::size_t LibraryExpansion::run_pass(SDFG& sdfg, Transaction& tx) {
  std::size_t changed = 0;
  for (SDFGState* st : sdfg.all_states())
    if (state_has_expandable(sdfg, *st, false))
      tx.modify_state(*st, [&] { changed += expand_state(sdfg, *st, false); });
  return changed;
}

}  // namespace weir::transforms
