// Linear-algebra library nodes of DaCe's BLAS library (MatMul, Gemm, Gemv) as direct loop nests:
// the semantics of DaCe's "pure" expansions (NumPy's matmul rules), one output element per
// iteration of the outer loops with a local accumulator for the contracted dimension, and the
// hand-written schedules of matrix products below. Operands are the connectors' memlet subsets
// with dimensions of extent 1 squeezed out, as DaCe's expansions see them. Dot, Ger and
// Transpose are the library-expansion pass's (transforms/src/expand_blas.cpp), and so are the
// CBLAS calls of DaCe's OpenBLAS/MKL/cBLAS implementations (transforms/src/expand_cblas.cpp):
// a MatMul, Gemm or Gemv of such an implementation reaches code generation only where CBLAS
// cannot take it (inside a parallel scope, integers, a batch dimension), and gets the loops.
#include <algorithm>

#include "blas_operand.h"
#include "library_gen.h"
#include "state_codegen.h"
#include "weir/sdfg/library_attributes.h"

namespace weir::codegen::detail {

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

std::string BlasProduct::product(const std::map<std::string, std::string>& renamed) const {
  std::string p;
  for (const auto& t : terms) {
    std::vector<std::string> vars = t.vars;
    for (auto& v : vars)
      if (auto it = renamed.find(v); it != renamed.end()) v = it->second;
    p += (p.empty() ? "" : " * ") + ("static_cast<" + T + ">(" + t.op->at(vars) + ")");
  }
  return p;
}

std::string BlasProduct::value(std::string sum, const std::vector<std::string>& vars) const {
  if (alpha != "1") sum = "static_cast<" + T + ">(" + alpha + ") * " + sum;
  if (add.present)
    sum += " + " + (beta == "1" ? std::string() : "static_cast<" + T + ">(" + beta + ") * ") +
           "static_cast<" + T + ">(" + add.at(vars) + ")";
  return sum;
}

void LibraryGen::plan_blas(const LibraryNode& n, BlasProduct& p) const {
  ElementRef where = g_.ref(n);
  const std::string& cls = p.cls;
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
  std::string i = g_.loop_var("__bi", 0), j = g_.loop_var("__bj", 0), k = g_.loop_var("__bk", 0),
              bt = g_.loop_var("__bb", 0);
  BlasOperand &out = p.out, &a = p.a, &b = p.b, &add = p.add;
  if (cls == "MatMul") {
    a = need("_a", true);
    b = need("_b", true);
    out = need("_c", false);
    std::size_t ra = a.rank(), rb = b.rank();
    rank_is(a, "_a", {1, 2, 3});
    rank_is(b, "_b", {1, 2, 3});
    p.kvar = k;
    p.kext = a.extent(ra - 1);
    std::vector<std::string> av, bv;
    // NumPy's matmul: a's last dimension with b's second-to-last (or only) one; a leading
    // batch dimension of either operand (or both) is one of the output's.
    if (ra == 3 || rb == 3) {
      p.ov.push_back(bt);
      p.oext.push_back(ra == 3 ? a.extent(0) : b.extent(0));
    }
    if (ra >= 2) {
      p.ov.push_back(i);
      p.oext.push_back(a.extent(ra - 2));
    }
    if (rb >= 2) {
      p.ov.push_back(j);
      p.oext.push_back(b.extent(rb - 1));
    }
    if (ra == 3) av.push_back(bt);
    if (ra >= 2) av.push_back(i);
    av.push_back(k);
    if (rb == 3) bv.push_back(bt);
    bv.push_back(k);
    if (rb >= 2) bv.push_back(j);
    p.terms = {{&a, av}, {&b, bv}};
  } else if (cls == "Gemm") {
    a = need("_a", true);
    b = need("_b", true);
    out = need("_c", false);
    add = blas_operand(n, "_cin", true);
    rank_is(a, "_a", {2});
    rank_is(b, "_b", {2});
    p.ta = numeric_attribute(n, "transA", "false", where) == "true";
    p.tb = numeric_attribute(n, "transB", "false", where) == "true";
    p.alpha = numeric_attribute(n, "alpha", "1", where);
    p.beta = numeric_attribute(n, "beta", "0", where);
    p.kvar = k;
    p.kext = a.extent(p.ta ? 0 : 1);
    p.ov = {i, j};
    p.oext = {a.extent(p.ta ? 1 : 0), b.extent(p.tb ? 0 : 1)};
    p.terms = {{&a, p.ta ? std::vector<std::string>{k, i} : std::vector<std::string>{i, k}},
               {&b, p.tb ? std::vector<std::string>{j, k} : std::vector<std::string>{k, j}}};
  } else if (cls == "Gemv") {
    a = need("_A", true);
    b = need("_x", true);
    out = need("_y", false);
    add = blas_operand(n, "_y", true);
    rank_is(a, "_A", {2});
    rank_is(b, "_x", {1});
    p.ta = numeric_attribute(n, "transA", "false", where) == "true";
    p.alpha = numeric_attribute(n, "alpha", "1", where);
    p.beta = numeric_attribute(n, "beta", "0", where);
    p.kvar = k;
    p.kext = a.extent(p.ta ? 0 : 1);
    p.ov = {i};
    p.oext = {a.extent(p.ta ? 1 : 0)};
    p.terms = {{&a, p.ta ? std::vector<std::string>{k, i} : std::vector<std::string>{i, k}}, {&b, {k}}};
  } else {
    throw CodegenError(where, "library node of type '" + n.type_name + "'" +
                                  (n.classpath.empty() ? "" : " (" + n.classpath + ")") +
                                  " is not supported by the CPU code generator; expand it first");
  }
  if (out.rank() != p.ov.size())
    throw CodegenError(where, cls + " output has " + std::to_string(out.rank()) +
                                  " non-unit dimensions, expected " + std::to_string(p.ov.size()));
  if (add.present && add.rank() != p.ov.size()) add.present = false;  // a broadcast input: not modelled
  if (add.present && p.beta == "0") add.present = false;
  p.T = cpp_name(out.loc.type);
}

void LibraryGen::emit_blas(const LibraryNode& n, Writer& w) {
  ElementRef where = g_.ref(n);
  BlasProduct p;
  p.cls = n.class_name();
  const std::string& cls = p.cls;
  // Implementation "pure" (DaCe's pure expansion as maps) and the CBLAS calls are the
  // library-expansion pass's; what reaches here is the loops below.
  if ((cls == "MatMul" || cls == "Gemm" || cls == "Gemv") && n.implementation == "pure")
    throw CodegenError(where, unexpanded_message(n));
  plan_blas(n, p);
  if (g_.opts.emit_comments)
    w.line("// " + cls + " " + n.label + " (node " + std::to_string(n.id()) + ") as loops");
  if (p.ov.size() == 2 && !p.kvar.empty() && !g_.device_code()) return emit_row_pairs(n, p, w);
  if (p.ov.size() == 1 && !p.kvar.empty() && !g_.device_code()) {
    // The matrix operand reads along k with unit stride and along the output with another.
    for (const auto& t : p.terms) {
      if (t.op->rank() != 2) continue;
      auto pk = std::find(t.vars.begin(), t.vars.end(), p.kvar),
           pi = std::find(t.vars.begin(), t.vars.end(), p.ov[0]);
      if (pk == t.vars.end() || pi == t.vars.end()) continue;
      if (is_one(t.op->stride(static_cast<std::size_t>(pk - t.vars.begin()))) &&
          !is_one(t.op->stride(static_cast<std::size_t>(pi - t.vars.begin()))))
        return emit_row_groups(p, w);
      break;
    }
    return emit_vector_blocks(p, w);
  }
  emit_plain_loops(p, w);
}

void LibraryGen::emit_row_pairs(const LibraryNode& n, const BlasProduct& p, Writer& w) {
  // A matrix product (MatMul, Gemm) two rows at a time, the k loop outside the j loop: the sums
  // of the rows accumulate in row buffers, each element adding its products in k order as the
  // dot product loop does (bit-identical: four k steps are one statement, summed left to right),
  // and the j loop is a plain unit-stride loop the compiler vectorizes, where the dot product
  // over k (a strided column of B, a serial sum) is not. Two rows share each load of B and four
  // k steps share each load and store of a sum: 1.5-1.7x the speed of one row and one k step
  // (100 x 110 x 120, one thread; OpenBLAS is 1.3x faster still).
  const std::string& T = p.T;
  const std::string& kvar = p.kvar;
  const std::string rows = sym_cpp(p.oext[0]), cols = sym_cpp(p.oext[1]), ks = sym_cpp(p.kext);
  const std::string &iv = p.ov[0], &jv = p.ov[1], i1 = iv + "_1";
  const std::vector<std::string> kq = {kvar, kvar + "_1", kvar + "_2", kvar + "_3"};
  auto prod = [&](const std::string& row, const std::string& kname) {
    return p.product({{iv, row}, {kvar, kname}});
  };
  auto k_loop = [&](Writer& lw, const std::vector<std::pair<std::string, std::string>>& sums) {
    lw.line("int64_t " + kvar + " = 0;");
    lw.open("for (; " + kvar + " + 4 <= " + ks + "; " + kvar + " += 4) {");
    lw.line("const int64_t " + kq[1] + " = " + kvar + " + 1, " + kq[2] + " = " + kvar + " + 2, " + kq[3] +
            " = " + kvar + " + 3;");
    lw.open("for (int64_t " + jv + " = 0; " + jv + " < " + cols + "; ++" + jv + ") {");
    for (const auto& [row, acc] : sums) {
      std::string e = acc + "[" + jv + "]";
      for (const auto& kn : kq) e = "(" + e + " + " + prod(row, kn) + ")";
      lw.line(acc + "[" + jv + "] = " + e + ";");
    }
    lw.close();
    lw.close();
    lw.open("for (; " + kvar + " < " + ks + "; ++" + kvar + ") {");
    lw.open("for (int64_t " + jv + " = 0; " + jv + " < " + cols + "; ++" + jv + ") {");
    for (const auto& [row, acc] : sums) lw.line(acc + "[" + jv + "] += " + prod(row, kvar) + ";");
    lw.close();
    lw.close();
    lw.open("for (int64_t " + jv + " = 0; " + jv + " < " + cols + "; ++" + jv + ") {");
    for (const auto& [row, acc] : sums)
      lw.line(p.out.at({row, jv}) + " = " + p.value(acc + "[" + jv + "]", {row, jv}) + ";");
    lw.close();
  };
  Writer lw;
  lw.open("for (int64_t __pair = 0; __pair < ((" + rows + ") + 1) / 2; ++__pair) {");
  lw.line("const int64_t " + iv + " = 2 * __pair;");
  lw.line("weir_local_buffer<" + T + "> __acc_buf(2 * (" + cols + "), \"rows of " + c_escape(n.label) +
          "\");");
  lw.line(T + "* __restrict__ __acc = __acc_buf.ptr;");
  lw.line(T + "* __restrict__ __acc_1 = __acc_buf.ptr + (" + cols + ");");
  lw.line("for (int64_t " + jv + " = 0; " + jv + " < 2 * (" + cols + "); ++" + jv + ") __acc[" + jv +
          "] = " + T + "(0);");
  lw.open("if (" + iv + " + 1 < " + rows + ") {");
  lw.line("const int64_t " + i1 + " = " + iv + " + 1;");
  k_loop(lw, {{iv, "__acc"}, {i1, "__acc_1"}});
  lw.dedent();
  lw.line("} else {");
  lw.indent();
  k_loop(lw, {{iv, "__acc"}});
  lw.close();
  lw.close();
  emit_parallel_loops(p.oext[0] * p.oext[1] * p.kext, lw, w);
}

namespace {

/// The work of a product: its output points times the contracted extent.
sym::Expr product_work(const BlasProduct& p) {
  sym::Expr work = p.kvar.empty() ? sym::Expr(1) : p.kext;
  for (const auto& x : p.oext) work = work * x;
  return work;
}

}  // namespace

// A product with a vector result (vector @ matrix, matrix @ vector, Gemv) in blocks of 256
// output elements (emit_vector_blocks): per block the k loop outside, the block's elements
// inside, each adding its products in k order as the dot product loop does (bit-identical).
// vector @ matrix then reads the matrix by rows and the inner loop vectorizes (correlation's
// per-row products ~6x); a matrix stored along the output keeps 256 independent sums where one
// dot product waits on its last addition. A matrix whose rows run along k takes eight rows at a
// time instead (emit_row_groups). Blocks (groups) run in parallel where the work is large.

void LibraryGen::emit_row_groups(const BlasProduct& p, Writer& w) {
  // matrix @ vector with the matrix's rows along k (unit stride): eight rows at a time, k
  // inside, eight sums in flight, each in k order; the blocked form read such a matrix with a
  // stride of a row (atax's first product 1.75x slower, one thread).
  const std::string& T = p.T;
  const std::string& kvar = p.kvar;
  const std::string len = sym_cpp(p.oext[0]), i = p.ov[0];
  auto prod = [&](const std::string& row) { return p.product({{i, row}}); };
  std::vector<std::string> rows, sums;
  for (int r = 0; r < 8; ++r) {
    rows.push_back(i + "_" + std::to_string(r));
    sums.push_back("__acc_" + std::to_string(r));
  }
  const std::string ks = sym_cpp(p.kext);
  Writer lw;
  lw.open("for (int64_t __grp = 0; __grp < ((" + len + ") + 7) / 8; ++__grp) {");
  lw.open("if (8 * __grp + 8 <= " + len + ") {");
  std::string decl_rows = "const int64_t ", decl_sums = T + " ";
  for (int r = 0; r < 8; ++r) {
    decl_rows += (r ? ", " : "") + rows[r] + " = 8 * __grp + " + std::to_string(r);
    decl_sums += (r ? ", " : "") + sums[r] + " = " + T + "(0)";
  }
  lw.line(decl_rows + ";");
  lw.line(decl_sums + ";");
  lw.open("for (int64_t " + kvar + " = 0; " + kvar + " < " + ks + "; ++" + kvar + ") {");
  for (int r = 0; r < 8; ++r) lw.line(sums[r] + " += " + prod(rows[r]) + ";");
  lw.close();
  for (int r = 0; r < 8; ++r) lw.line(p.out.at({rows[r]}) + " = " + p.value(sums[r], {rows[r]}) + ";");
  lw.dedent();
  lw.line("} else {");
  lw.indent();
  lw.open("for (int64_t " + i + " = 8 * __grp; " + i + " < " + len + "; ++" + i + ") {");
  lw.line(T + " __acc = " + T + "(0);");
  lw.open("for (int64_t " + kvar + " = 0; " + kvar + " < " + ks + "; ++" + kvar + ") {");
  lw.line("__acc += " + prod(i) + ";");
  lw.close();
  lw.line(p.out.at({i}) + " = " + p.value("__acc", {i}) + ";");
  lw.close();
  lw.close();
  lw.close();
  emit_parallel_loops(product_work(p), lw, w);
}

void LibraryGen::emit_vector_blocks(const BlasProduct& p, Writer& w) {
  const std::string& T = p.T;
  const std::string& kvar = p.kvar;
  const std::string len = sym_cpp(p.oext[0]), i = p.ov[0];
  Writer lw;
  lw.open("for (int64_t __blk = 0; __blk < " + len + "; __blk += 256) {");
  lw.line("const int64_t __blk_end = __blk + 256 < " + len + " ? __blk + 256 : " + len + ";");
  lw.line(T + " __acc[256];");
  lw.line("for (int64_t " + i + " = __blk; " + i + " < __blk_end; ++" + i + ") __acc[" + i +
          " - __blk] = " + T + "(0);");
  lw.open("for (int64_t " + kvar + " = 0; " + kvar + " < " + sym_cpp(p.kext) + "; ++" + kvar + ") {");
  lw.open("for (int64_t " + i + " = __blk; " + i + " < __blk_end; ++" + i + ") {");
  lw.line("__acc[" + i + " - __blk] += " + p.product() + ";");
  lw.close();
  lw.close();
  lw.open("for (int64_t " + i + " = __blk; " + i + " < __blk_end; ++" + i + ") {");
  lw.line(p.out.at(p.ov) + " = " + p.value("__acc[" + i + " - __blk]", {i}) + ";");
  lw.close();
  lw.close();
  emit_parallel_loops(product_work(p), lw, w);
}

void LibraryGen::emit_plain_loops(const BlasProduct& p, Writer& w) {
  const std::string& T = p.T;
  w.open("{");
  // Outer loops over output elements; the outermost runs in parallel where nothing encloses it.
  bool parallel = opts.openmp && !g_.in_parallel() && !p.ov.empty();
  for (std::size_t d = 0; d < p.ov.size(); ++d) {
    if (d == 0 && parallel)
      if (std::string pragma = small_work_pragma(product_work(p)); !pragma.empty()) w.line(pragma);
    w.open("for (int64_t " + p.ov[d] + " = 0; " + p.ov[d] + " < " + sym_cpp(p.oext[d]) + "; ++" + p.ov[d] +
           ") {");
  }
  std::string value;
  if (!p.kvar.empty()) {
    w.line(T + " __acc = " + T + "(0);");
    w.open("for (int64_t " + p.kvar + " = 0; " + p.kvar + " < " + sym_cpp(p.kext) + "; ++" + p.kvar + ") {");
    w.line("__acc += " + p.product() + ";");
    w.close();
    value = "__acc";
  } else {
    value = p.product();
  }
  w.line(p.out.at(p.ov) + " = " + p.value(value, p.ov) + ";");
  for (std::size_t d = 0; d < p.ov.size(); ++d) w.close();
  w.close();
}

}  // namespace weir::codegen::detail
