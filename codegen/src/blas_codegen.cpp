// Linear-algebra library nodes of DaCe's BLAS library (MatMul, Dot, Gemm, Gemv, Ger, Transpose)
// as direct loop nests: the semantics of DaCe's "pure" expansions (NumPy's matmul/dot rules),
// one output element per iteration of the outer loops with a local accumulator for the
// contracted dimension. Operands are the connectors' memlet subsets with dimensions of extent 1
// squeezed out, as DaCe's expansions see them.
#include <algorithm>

#include "blas_operand.h"
#include "state_codegen.h"

namespace weir::codegen::detail {

namespace {

bool is_one(const sym::Expr& e) { return e.is_integer() && e.value() == 1; }

}  // namespace

// A library node attribute that DaCe leaves out at its default (alpha 1, beta 0, trans False):
// the C++ literal of a number, or "true"/"false".
std::string numeric_attribute(const LibraryNode& n, const std::string& key, const std::string& dflt,
                              const ElementRef& where) {
  const std::string* v = n.extra.find(key);
  if (!v || *v == "null") return dflt;
  std::string s = *v;
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  if (s == "True" || s == "true") return "true";
  if (s == "False" || s == "false") return "false";
  bool numeric = !s.empty();
  for (char c : s)
    numeric = numeric && (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' ||
                          c == 'e' || c == 'E');
  if (!numeric)
    throw CodegenError(where, n.class_name() + " attribute '" + key + "' = " + *v +
                                  " is not a number; the CPU code generator supports numeric values only");
  return s;
}

BlasOperand StateGen::blas_operand(const LibraryNode& n, const std::string& conn, bool input) const {
  BlasOperand op;
  auto ids = input ? st.in_edges_by_connector(n.id(), conn) : st.out_edges_by_connector(n.id(), conn);
  for (EdgeId id : ids) {
    const DataflowEdge& e = st.edge(id);
    if (e.memlet.is_empty() && e.memlet.data.empty()) continue;
    op.loc = edge_location(e, input);
    op.present = true;
    if (!op.loc.data.empty() && !op.loc.binding->scalar)
      for (std::size_t d = 0; d < op.loc.subset.dims(); ++d)
        if (!is_one(op.loc.subset[d].size())) op.dims.push_back(d);
    break;
  }
  return op;
}

void StateGen::emit_blas(const LibraryNode& n, Writer& w) {
  ElementRef where = ref(n);
  const std::string cls = n.class_name();
  auto need = [&](const std::string& conn, bool input) {
    BlasOperand op = blas_operand(n, conn, input);
    if (!op.present)
      throw CodegenError(
          where, cls + " needs " + (input ? "an input" : "an output") + " edge on connector '" + conn + "'");
    return op;
  };
  auto rank_is = [&](const BlasOperand& op, const std::string& conn, std::initializer_list<std::size_t> ok) {
    if (std::find(ok.begin(), ok.end(), op.rank()) == ok.end())
      throw CodegenError(where, cls + " operand '" + conn + "' has " + std::to_string(op.rank()) +
                                    " non-unit dimensions, which this library node does not take");
  };

  // The contraction to emit: out[ov] = alpha * sum_k prod(terms at their vars) + beta * add[ov].
  struct Term {
    const BlasOperand* op;
    std::vector<std::string> vars;
  };
  BlasOperand out, a, b, add;
  std::vector<Term> terms;
  std::vector<std::string> ov;  // output loop variables
  std::vector<sym::Expr> oext;  // their extents
  std::string kvar;             // contracted variable, empty if none
  sym::Expr kext(0);
  std::string alpha = "1", beta = "0";
  bool ta = false, tb = false;  // Gemm's / Gemv's transA, transB
  std::string i = loop_var("__bi", 0), j = loop_var("__bj", 0), k = loop_var("__bk", 0),
              bt = loop_var("__bb", 0);

  if (cls == "MatMul" || cls == "Dot") {
    bool dot = cls == "Dot";
    a = need(dot ? "_x" : "_a", true);
    b = need(dot ? "_y" : "_b", true);
    out = need(dot ? "_result" : "_c", false);
    if (dot) {
      rank_is(a, "_x", {1});
      rank_is(b, "_y", {1});
    }
    std::size_t ra = a.rank(), rb = b.rank();
    rank_is(a, dot ? "_x" : "_a", {1, 2, 3});
    rank_is(b, dot ? "_y" : "_b", {1, 2, 3});
    kvar = k;
    kext = a.extent(ra - 1);
    std::vector<std::string> av, bv;
    // NumPy's matmul: a's last dimension with b's second-to-last (or only) one; a leading
    // batch dimension of either operand (or both) is one of the output's.
    if (ra == 3 || rb == 3) {
      ov.push_back(bt);
      oext.push_back(ra == 3 ? a.extent(0) : b.extent(0));
    }
    if (ra >= 2) {
      ov.push_back(i);
      oext.push_back(a.extent(ra - 2));
    }
    if (rb >= 2) {
      ov.push_back(j);
      oext.push_back(b.extent(rb - 1));
    }
    if (ra == 3) av.push_back(bt);
    if (ra >= 2) av.push_back(i);
    av.push_back(k);
    if (rb == 3) bv.push_back(bt);
    bv.push_back(k);
    if (rb >= 2) bv.push_back(j);
    terms = {{&a, av}, {&b, bv}};
  } else if (cls == "Gemm") {
    a = need("_a", true);
    b = need("_b", true);
    out = need("_c", false);
    add = blas_operand(n, "_cin", true);
    rank_is(a, "_a", {2});
    rank_is(b, "_b", {2});
    ta = numeric_attribute(n, "transA", "false", where) == "true";
    tb = numeric_attribute(n, "transB", "false", where) == "true";
    alpha = numeric_attribute(n, "alpha", "1", where);
    beta = numeric_attribute(n, "beta", "0", where);
    kvar = k;
    kext = a.extent(ta ? 0 : 1);
    ov = {i, j};
    oext = {a.extent(ta ? 1 : 0), b.extent(tb ? 0 : 1)};
    terms = {{&a, ta ? std::vector<std::string>{k, i} : std::vector<std::string>{i, k}},
             {&b, tb ? std::vector<std::string>{j, k} : std::vector<std::string>{k, j}}};
  } else if (cls == "Gemv") {
    a = need("_A", true);
    b = need("_x", true);
    out = need("_y", false);
    add = blas_operand(n, "_y", true);
    rank_is(a, "_A", {2});
    rank_is(b, "_x", {1});
    ta = numeric_attribute(n, "transA", "false", where) == "true";
    alpha = numeric_attribute(n, "alpha", "1", where);
    beta = numeric_attribute(n, "beta", "0", where);
    kvar = k;
    kext = a.extent(ta ? 0 : 1);
    ov = {i};
    oext = {a.extent(ta ? 1 : 0)};
    terms = {{&a, ta ? std::vector<std::string>{k, i} : std::vector<std::string>{i, k}}, {&b, {k}}};
  } else if (cls == "Ger") {
    add = need("_A", true);
    a = need("_x", true);
    b = need("_y", true);
    out = need("_res", false);
    rank_is(a, "_x", {1});
    rank_is(b, "_y", {1});
    alpha = numeric_attribute(n, "alpha", "1", where);
    beta = "1";
    ov = {i, j};
    oext = {a.extent(0), b.extent(0)};
    terms = {{&a, {i}}, {&b, {j}}};
  } else if (cls == "Transpose") {
    a = need("_inp", true);
    out = need("_out", false);
    rank_is(a, "_inp", {2});
    ov = {i, j};
    oext = {a.extent(1), a.extent(0)};
    terms = {{&a, {j, i}}};
  } else {
    throw CodegenError(where, "library node of type '" + n.type_name + "'" +
                                  (n.classpath.empty() ? "" : " (" + n.classpath + ")") +
                                  " is not supported by the CPU code generator; expand it first");
  }
  if (out.rank() != ov.size())
    throw CodegenError(where, cls + " output has " + std::to_string(out.rank()) +
                                  " non-unit dimensions, expected " + std::to_string(ov.size()));
  if (add.present && add.rank() != ov.size()) add.present = false;  // a broadcast input: not modelled
  if (add.present && beta == "0") add.present = false;

  if (wants_cblas(n) && emit_cblas({cls, &out, &a, &b, &add, oext, kext, alpha, beta, ta, tb}, w)) return;

  std::string T(cpp_name(out.loc.type));
  if (comments()) w.line("// " + cls + " " + n.label + " (node " + std::to_string(n.id()) + ") as loops");
  // A matrix product (MatMul, Gemm) row by row, the k loop outside the j loop: the sums of a
  // row accumulate in a row buffer, each element adding its products in k order as the dot
  // product loop does (bit-identical), and the j loop is a plain unit-stride loop the compiler
  // vectorizes, where the dot product over k (a strided column of B, a serial sum) is not.
  if (ov.size() == 2 && !kvar.empty() && !sg.prog.cuda) {
    w.open("{");
    bool parallel = opts.openmp && !in_parallel();
    if (parallel) w.line("#pragma omp parallel for");
    w.open("for (int64_t " + ov[0] + " = 0; " + ov[0] + " < " + sym_cpp(oext[0]) + "; ++" + ov[0] + ") {");
    const std::string cols = sym_cpp(oext[1]);
    w.line("weir_local_buffer<" + T + "> __acc_buf(" + cols + ", \"row of " + c_escape(n.label) + "\");");
    w.line(T + "* __restrict__ __acc = __acc_buf.ptr;");
    w.line("for (int64_t " + ov[1] + " = 0; " + ov[1] + " < " + cols + "; ++" + ov[1] + ") __acc[" + ov[1] +
           "] = " + T + "(0);");
    std::string prod;
    for (const auto& t : terms)
      prod += (prod.empty() ? "" : " * ") + ("static_cast<" + T + ">(" + t.op->at(t.vars) + ")");
    w.open("for (int64_t " + kvar + " = 0; " + kvar + " < " + sym_cpp(kext) + "; ++" + kvar + ") {");
    w.open("for (int64_t " + ov[1] + " = 0; " + ov[1] + " < " + cols + "; ++" + ov[1] + ") {");
    w.line("__acc[" + ov[1] + "] += " + prod + ";");
    w.close();
    w.close();
    std::string value = "__acc[" + ov[1] + "]";
    if (alpha != "1") value = "static_cast<" + T + ">(" + alpha + ") * " + value;
    if (add.present)
      value += " + " + (beta == "1" ? std::string() : "static_cast<" + T + ">(" + beta + ") * ") +
               "static_cast<" + T + ">(" + add.at(ov) + ")";
    w.open("for (int64_t " + ov[1] + " = 0; " + ov[1] + " < " + cols + "; ++" + ov[1] + ") {");
    w.line(out.at(ov) + " = " + value + ";");
    w.close();
    w.close();
    w.close();
    return;
  }
  w.open("{");
  // Outer loops over output elements; the outermost runs in parallel where nothing encloses it.
  bool parallel = opts.openmp && !in_parallel() && !ov.empty();
  for (std::size_t d = 0; d < ov.size(); ++d) {
    if (d == 0 && parallel) w.line("#pragma omp parallel for");
    w.open("for (int64_t " + ov[d] + " = 0; " + ov[d] + " < " + sym_cpp(oext[d]) + "; ++" + ov[d] + ") {");
  }
  std::string prod;
  for (const auto& t : terms)
    prod += (prod.empty() ? "" : " * ") + ("static_cast<" + T + ">(" + t.op->at(t.vars) + ")");
  std::string value;
  if (!kvar.empty()) {
    w.line(T + " __acc = " + T + "(0);");
    w.open("for (int64_t " + kvar + " = 0; " + kvar + " < " + sym_cpp(kext) + "; ++" + kvar + ") {");
    w.line("__acc += " + prod + ";");
    w.close();
    value = "__acc";
  } else {
    value = prod;
  }
  if (alpha != "1") value = "static_cast<" + T + ">(" + alpha + ") * " + value;
  if (add.present)
    value += " + " + (beta == "1" ? std::string() : "static_cast<" + T + ">(" + beta + ") * ") +
             "static_cast<" + T + ">(" + add.at(ov) + ")";
  w.line(out.at(ov) + " = " + value + ";");
  for (std::size_t d = 0; d < ov.size(); ++d) w.close();
  w.close();
}

}  // namespace weir::codegen::detail
