// DaCe's CBLAS implementations ("OpenBLAS", "MKL", "cBLAS") of the BLAS nodes Dot, Gemv, Gemm
// and MatMul as one CBLAS call (ADR 0040, 2026-12-06): a nested SDFG whose one tasklet is weir's
// own C++ (marked so in memory, weir/sdfg/written_by_weir.h: it needs no --trust-code), in the shape DaCe's
// expansions write and the loader reads back as the library node (dace_blas_calls.cpp):
//   __result = cblas_?dot(n, __x, incx, __y, incy);
//   cblas_?gemv(CblasRowMajor, trans, rows, cols, alpha, __A, lda, __x, incx, beta, __y, incy);
//   cblas_?gemm(CblasRowMajor, ta, tb, M, N, K, alpha, __a, lda, __b, ldb, beta, __c, ldc);
// (the connectors are the nested SDFG's containers `_a`, ... with one more underscore)
// CBLAS takes float32/float64 operands of one type, matrices with a unit stride along one
// dimension and a leading dimension at least their other extent, vectors walked forwards; a
// separate addend (Gemm's `_cin`, Gemv's input `_y`) is first copied into the output, which the
// call then updates in place. Anything else returns nullptr and the node keeps the loops.
#include <algorithm>
#include <cctype>

#include "library_expansion_internal.h"
#include "weir/sdfg/written_by_weir.h"

namespace weir::transforms::detail {

namespace {

bool is_int(const sym::Expr& e, long long v) { return e.is_integer() && e.value() == v; }

/// The C++ text of an integer expression of symbols (sum, difference, product), or nullopt for
/// any other (a floor division, Min, a power): the call's sizes must be such for the loader to
/// read them back.
std::optional<std::string> cpp_int(const sym::Expr& e) {
  std::string s = e.str();
  for (char c : s)
    if (!std::isalnum(static_cast<unsigned char>(c)) && std::string("_ +-*()").find(c) == std::string::npos)
      return std::nullopt;
  if (s.find("**") != std::string::npos) return std::nullopt;
  return s;
}

/// The call tasklet's connector of operand `op`: `__a` for the container `_a`.
std::string connector(const LibraryOperand& op) {
  std::size_t skip = op.name.find_first_not_of('_');
  return "__" + (skip == std::string::npos ? op.name : op.name.substr(skip));
}

/// An operand as CBLAS sees it.
struct CblasOperand {
  std::size_t index = 0;                    // in ops
  std::vector<sym::Expr> extents, strides;  // of its non-unit dimensions
};

/// A matrix operand as a row-major stored matrix: the operand itself (unit stride along its
/// columns) or its transpose (`transposed`: unit stride along its rows).
struct StoredMatrix {
  std::string rows, cols, ld;
  bool transposed = false;
};

/// The call being planned: the operands it takes, each checked as CBLAS takes it.
class CblasPlan {
 public:
  CblasPlan(const ExpansionSite& site, std::vector<LibraryOperand>& ops) : site_(site), ops_(ops) {}

  /// The operand on connector `conn` of rank `rank` (named `name` in the nested SDFG if given),
  /// or nullopt where it is absent, of another rank or type, or walked backwards.
  std::optional<CblasOperand> take(const std::string& conn, bool input, std::size_t rank,
                                   const std::string& name = "") {
    const DataflowEdge* edge = nullptr;
    for (const DataflowEdge* e : site_.data_edges(input))
      if ((input ? e->dst_conn : e->src_conn) == conn && !edge) edge = e;
    if (!edge) return std::nullopt;
    LibraryOperand op = site_.operand(*edge, input, conn);
    if (!name.empty()) op.name = name;
    const ScalarType t = op.desc.dtype.base;
    if (op.desc.dtype.pointer_depth != 0 || !op.desc.dtype.raw_json.empty() ||
        (t != ScalarType::Float64 && t != ScalarType::Float32) || (type_ && *type_ != t))
      return std::nullopt;
    type_ = t;
    CblasOperand c;
    for (std::size_t d : squeezed(op)) {
      const Range& r = edge->memlet.subset[d];
      if (!r.step.is_integer() || r.step.value() <= 0 ||
          !op.desc.strides[d].nonnegative_if_symbols_nonnegative())
        return std::nullopt;
      c.extents.push_back(op.desc.shape[d]);
      c.strides.push_back(op.desc.strides[d]);
    }
    if (c.extents.size() != rank) return std::nullopt;
    ops_.push_back(op);
    c.index = ops_.size() - 1;
    return c;
  }

  /// Whether the node has a data edge on connector `conn`.
  bool has_edge(const std::string& conn, bool input) const {
    for (const DataflowEdge* e : site_.data_edges(input))
      if ((input ? e->dst_conn : e->src_conn) == conn) return true;
    return false;
  }

  /// A rank-2 operand as a stored matrix, or nullopt where neither dimension has unit stride or
  /// the leading dimension may be less than the stored matrix's columns.
  static std::optional<StoredMatrix> stored(const CblasOperand& op) {
    std::size_t unit = is_int(op.strides[1], 1) ? 1 : is_int(op.strides[0], 1) ? 0 : 2;
    if (unit == 2) return std::nullopt;
    const std::size_t lead = 1 - unit;
    if (!(op.strides[lead] - op.extents[unit]).nonnegative_if_symbols_nonnegative()) return std::nullopt;
    auto rows = cpp_int(op.extents[lead]), cols = cpp_int(op.extents[unit]), ld = cpp_int(op.strides[lead]);
    if (!rows || !cols || !ld) return std::nullopt;
    return StoredMatrix{*rows, *cols, *ld, unit == 0};
  }

  /// "n, pointer, increment" of a rank-1 operand, or nullopt.
  std::optional<std::string> vector(const CblasOperand& op, bool with_length) const {
    auto n = cpp_int(op.extents[0]), inc = cpp_int(op.strides[0]);
    if (!n || !inc) return std::nullopt;
    return (with_length ? *n + ", " : std::string()) + name(op) + ", " + *inc;
  }

  /// The tasklet's connector of an operand (a connector may not shadow its container).
  std::string name(const CblasOperand& op) const { return connector(ops_[op.index]); }
  /// "cblas_d" or "cblas_s".
  std::string prefix() const { return type_ == ScalarType::Float32 ? "cblas_s" : "cblas_d"; }
  /// A number as the operands' C++ type: `double(0.5)`.
  std::string number(const std::string& v) const {
    return std::string(type_ == ScalarType::Float32 ? "float" : "double") + "(" + v + ")";
  }

 private:
  const ExpansionSite& site_;
  std::vector<LibraryOperand>& ops_;
  std::optional<ScalarType> type_;
};

std::string trans(bool t) { return t ? "CblasTrans" : "CblasNoTrans"; }

bool is_zero(const std::string& v) { return v == "0" || v == "0.0"; }

/// The call of a node, ready to be built.
struct Call {
  std::string code;
  std::vector<std::size_t> inputs;  // operands the tasklet reads through pointers
  std::size_t out = 0;
  bool scalar_out = false;             // Dot's `_result = ...`
  std::optional<std::size_t> addend;   // copied into the output first
  std::vector<sym::Expr> out_extents;  // of the output's non-unit dimensions
};

/// r = x . y: Dot, and MatMul of two vectors.
std::optional<Call> dot_call(const CblasPlan& p, const CblasOperand& x, const CblasOperand& y,
                             const CblasOperand& r) {
  if (!is_int(x.extents[0] - y.extents[0], 0)) return std::nullopt;
  auto vx = p.vector(x, true), vy = p.vector(y, false);
  if (!vx || !vy) return std::nullopt;
  Call c;
  c.code = p.name(r) + " = " + p.prefix() + "dot(" + *vx + ", " + *vy + ");";
  c.inputs = {x.index, y.index};
  c.out = r.index;
  c.scalar_out = true;
  return c;
}

std::optional<Call> plan_dot(CblasPlan& p) {
  auto x = p.take("_x", true, 1), y = p.take("_y", true, 1), r = p.take("_result", false, 0);
  if (!x || !y || !r) return std::nullopt;
  return dot_call(p, *x, *y, *r);
}

/// y = alpha op(M) v (+ beta y): Gemv, and MatMul of a matrix and a vector (vec_first: v @ M).
std::optional<Call> gemv_call(CblasPlan& p, const CblasOperand& m, const CblasOperand& v,
                              const CblasOperand& y, bool trans_m, const std::string& alpha,
                              const std::string& beta) {
  auto sm = CblasPlan::stored(m);
  auto vv = p.vector(v, false), vy = p.vector(y, false);
  if (!sm || !vv || !vy) return std::nullopt;
  Call c;
  c.code = p.prefix() + "gemv(CblasRowMajor, " + trans(sm->transposed != trans_m) + ", " + sm->rows + ", " +
           sm->cols + ", " + p.number(alpha) + ", " + p.name(m) + ", " + sm->ld + ", " + *vv + ", " +
           p.number(beta) + ", " + *vy + ");";
  c.inputs = {m.index, v.index};
  c.out = y.index;
  c.out_extents = y.extents;
  return c;
}

/// C = alpha op(A) op(B) (+ beta C).
std::optional<Call> gemm_call(CblasPlan& p, const CblasOperand& a, const CblasOperand& b,
                              const CblasOperand& out, bool ta, bool tb, const std::string& alpha,
                              const std::string& beta) {
  auto sa = CblasPlan::stored(a), sb = CblasPlan::stored(b), sc = CblasPlan::stored(out);
  if (!sa || !sb || !sc || sc->transposed) return std::nullopt;
  auto M = cpp_int(a.extents[ta ? 1 : 0]), N = cpp_int(b.extents[tb ? 0 : 1]),
       K = cpp_int(a.extents[ta ? 0 : 1]);
  if (!M || !N || !K) return std::nullopt;
  Call c;
  c.code = p.prefix() + "gemm(CblasRowMajor, " + trans(sa->transposed != ta) + ", " +
           trans(sb->transposed != tb) + ", " + *M + ", " + *N + ", " + *K + ", " + p.number(alpha) + ", " +
           p.name(a) + ", " + sa->ld + ", " + p.name(b) + ", " + sb->ld + ", " + p.number(beta) + ", " +
           p.name(out) + ", " + sc->ld + ");";
  c.inputs = {a.index, b.index};
  c.out = out.index;
  c.out_extents = out.extents;
  return c;
}

std::optional<Call> plan_matmul(CblasPlan& p) {
  auto a = p.take("_a", true, 2), b = p.take("_b", true, 2);
  if (a && b) {
    auto c = p.take("_c", false, 2);
    return c ? gemm_call(p, *a, *b, *c, false, false, "1", "0") : std::nullopt;
  }
  return std::nullopt;
}

/// MatMul of ranks (2, 1), (1, 2) and (1, 1); `ra`, `rb` the operands' ranks.
std::optional<Call> plan_matmul_vectors(CblasPlan& p, std::size_t ra, std::size_t rb) {
  auto a = p.take("_a", true, ra), b = p.take("_b", true, rb);
  if (!a || !b) return std::nullopt;
  if (ra == 1 && rb == 1) {
    auto r = p.take("_c", false, 0);
    return r ? dot_call(p, *a, *b, *r) : std::nullopt;
  }
  auto y = p.take("_c", false, 1);
  if (!y) return std::nullopt;
  const bool vec_first = ra == 1;
  auto c = gemv_call(p, vec_first ? *b : *a, vec_first ? *a : *b, *y, vec_first, "1", "0");
  if (c) c->inputs = {a->index, b->index};
  return c;
}

/// The addend on input connector `conn` (Gemm's `_cin`, Gemv's input `_y`, of rank `rank`, named
/// `name` in the nested SDFG if given) is an operand where it has an edge; `add` is set where it
/// is read (beta not 0), else `beta` becomes 0. False where CBLAS cannot take it.
bool take_addend(CblasPlan& p, const std::string& conn, std::size_t rank, const std::string& name,
                 std::string& beta, std::optional<CblasOperand>& add) {
  if (p.has_edge(conn, true) && !(add = p.take(conn, true, rank, name))) return false;
  if (!add || is_zero(beta)) {
    add.reset();
    beta = "0";
  }
  return true;
}

std::optional<Call> plan_gemm(CblasPlan& p, const ExpansionSite& site) {
  const bool ta = numeric_attribute(site, "transA", "false") == "true";
  const bool tb = numeric_attribute(site, "transB", "false") == "true";
  const std::string alpha = numeric_attribute(site, "alpha", "1");
  std::string beta = numeric_attribute(site, "beta", "0");
  auto a = p.take("_a", true, 2), b = p.take("_b", true, 2), out = p.take("_c", false, 2);
  if (!a || !b || !out) return std::nullopt;
  std::optional<CblasOperand> add;
  if (!take_addend(p, "_cin", 2, "", beta, add)) return std::nullopt;
  auto c = gemm_call(p, *a, *b, *out, ta, tb, alpha, beta);
  if (c && add) c->addend = add->index;
  return c;
}

std::optional<Call> plan_gemv(CblasPlan& p, const ExpansionSite& site) {
  const bool ta = numeric_attribute(site, "transA", "false") == "true";
  const std::string alpha = numeric_attribute(site, "alpha", "1");
  std::string beta = numeric_attribute(site, "beta", "0");
  auto a = p.take("_A", true, 2), x = p.take("_x", true, 1), y = p.take("_y", false, 1);
  if (!a || !x || !y) return std::nullopt;
  // The input _y (read for beta's term) is a container of its own in the nested SDFG.
  std::optional<CblasOperand> add;
  if (!take_addend(p, "_y", 1, "__y_in", beta, add)) return std::nullopt;
  auto c = gemv_call(p, *a, *x, *y, ta, alpha, beta);
  if (c && add) c->addend = add->index;
  return c;
}

/// Whether the outer memlets of ops[a] and ops[b] are the same elements of the same container.
bool same_elements(const LibraryOperand& a, const LibraryOperand& b) {
  return a.edge->memlet.data == b.edge->memlet.data && a.edge->memlet.subset == b.edge->memlet.subset;
}

std::optional<Call> plan(const ExpansionSite& site, std::vector<LibraryOperand>& ops) {
  CblasPlan p(site, ops);
  const std::string cls = site.node.class_name();
  if (cls == "Dot") return plan_dot(p);
  if (cls == "Gemm") return plan_gemm(p, site);
  if (cls == "Gemv") return plan_gemv(p, site);
  if (cls != "MatMul") return std::nullopt;
  // MatMul: the operands' ranks pick the call (a batch dimension keeps the loops).
  std::size_t ra = 0, rb = 0;
  for (const DataflowEdge* e : site.data_edges(true)) {
    LibraryOperand op = site.operand(*e, true, e->dst_conn);
    (e->dst_conn == "_a" ? ra : rb) = squeezed(op).size();
  }
  if (ra == 2 && rb == 2) return plan_matmul(p);
  if (ra >= 1 && ra <= 2 && rb >= 1 && rb <= 2) return plan_matmul_vectors(p, ra, rb);
  return std::nullopt;
}

/// The nested SDFG of `call`: the addend's copy into the output (a map of one tasklet per
/// element) where it is another container or other elements, then the call.
std::unique_ptr<SDFG> call_sdfg(const ExpansionSite& site, const Call& call,
                                const std::vector<LibraryOperand>& ops) {
  std::unique_ptr<SDFG> inner = expansion_sdfg(site, ops);
  std::string name = site.node.class_name();
  std::transform(name.begin(), name.end(), name.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  SDFGState* copy = nullptr;
  if (call.addend && !same_elements(ops[*call.addend], ops[call.out])) {
    copy = &inner->add_state(name + "_addend", true);
    Contraction c;
    c.name = name + "_addend";
    c.prefix = "__c";
    c.inputs = 1;
    const std::string letters = std::string("ij").substr(0, call.out_extents.size());
    c.terms = {letters};
    c.out = letters;
    for (std::size_t d = 0; d < letters.size(); ++d) c.extent.emplace(letters[d], call.out_extents[d]);
    build_contraction(*inner, *copy, c, {ops[*call.addend], ops[call.out]});
  }
  SDFGState& st = inner->add_state(name + "_cblas", copy == nullptr);
  if (copy) inner->add_edge(copy->id(), st.id());
  std::vector<std::string> ins;
  for (std::size_t k : call.inputs) ins.push_back(connector(ops[k]));
  const LibraryOperand& out = ops[call.out];
  Tasklet& t = st.add_tasklet(name + "_cblas", CodeBlock{call.code, Language::CPP}, ins, {connector(out)});
  mark_written_by_weir(t);
  for (std::size_t k : call.inputs) {
    const LibraryOperand& op = ops[k];
    t.in_connectors[connector(op)] = DataType{op.desc.dtype.base, 1, {}};
    Subset all = op.desc.is_scalar() ? Subset({Range::index(sym::Expr(0))}) : Subset::full(op.desc.shape);
    st.add_edge(st.add_access(op.name).id(), "", t.id(), connector(op), Memlet::simple(op.name, all));
  }
  t.out_connectors[connector(out)] = DataType{out.desc.dtype.base, call.scalar_out ? 0 : 1, {}};
  Subset all = call.scalar_out || out.desc.is_scalar() ? element(out, {}) : Subset::full(out.desc.shape);
  st.add_edge(t.id(), connector(out), st.add_access(out.name).id(), "", Memlet::simple(out.name, all));
  return inner;
}

}  // namespace

bool wants_cblas(const LibraryNode& n) {
  std::string impl;
  for (char c : n.implementation) impl += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return impl == "openblas" || impl == "mkl" || impl == "cblas";
}

std::unique_ptr<SDFG> expand_cblas(const ExpansionSite& site, std::vector<LibraryOperand>& ops) {
  std::vector<LibraryOperand> taken;
  std::optional<Call> call;
  try {
    call = plan(site, taken);
  } catch (const TransformError&) {
    return nullptr;  // misshapen or non-numeric: the node's other lowering says why
  }
  if (!call) return nullptr;
  // Every data edge of the node must be an operand of the nested SDFG node.
  if (taken.size() != site.data_edges(true).size() + site.data_edges(false).size()) return nullptr;
  ops = std::move(taken);
  return call_sdfg(site, *call, ops);
}

}  // namespace weir::transforms::detail
