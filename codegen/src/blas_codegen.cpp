// Linear-algebra library nodes of DaCe's BLAS library (MatMul, Gemm, Gemv) as direct loop nests:
// the semantics of DaCe's "pure" expansions (NumPy's matmul rules), one output element per
// iteration of the outer loops with a local accumulator for the contracted dimension, and the
// hand-written schedules of matrix products below. Operands are the connectors' memlet subsets
// with dimensions of extent 1 squeezed out, as DaCe's expansions see them. Dot, Ger and
// Transpose are the library-expansion pass's (transforms/src/expand_blas.cpp); a Dot reaches
// code generation only where CBLAS takes it as one call (cblas_codegen.cpp).
#include <algorithm>

#include "blas_operand.h"
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

  // Implementation "pure" (DaCe's pure expansion as maps) is the library-expansion pass's; the
  // default one is the loops below.
  if ((cls == "MatMul" || cls == "Gemm" || cls == "Gemv") && n.implementation == "pure")
    throw CodegenError(where, unexpanded_message(n));
  if (cls == "Dot") {
    // The library-expansion pass leaves a Dot only where CBLAS takes it as one call.
    a = need("_x", true);
    b = need("_y", true);
    out = need("_result", false);
    if (wants_cblas(n) && a.rank() == 1 && b.rank() == 1 && out.rank() == 0 &&
        emit_cblas({cls, &out, &a, &b, &add, {}, a.extent(0), alpha, beta, false, false}, w))
      return;
    throw CodegenError(where, unexpanded_message(n));
  }
  if (cls == "MatMul") {
    a = need("_a", true);
    b = need("_b", true);
    out = need("_c", false);
    std::size_t ra = a.rank(), rb = b.rank();
    rank_is(a, "_a", {1, 2, 3});
    rank_is(b, "_b", {1, 2, 3});
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
  // A matrix product (MatMul, Gemm) two rows at a time, the k loop outside the j loop: the sums
  // of the rows accumulate in row buffers, each element adding its products in k order as the
  // dot product loop does (bit-identical: four k steps are one statement, summed left to right),
  // and the j loop is a plain unit-stride loop the compiler vectorizes, where the dot product
  // over k (a strided column of B, a serial sum) is not. Two rows share each load of B and four
  // k steps share each load and store of a sum: 1.5-1.7x the speed of one row and one k step
  // (100 x 110 x 120, one thread; OpenBLAS is 1.3x faster still).
  if (ov.size() == 2 && !kvar.empty() && !device_code()) {
    const std::string rows = sym_cpp(oext[0]), cols = sym_cpp(oext[1]), ks = sym_cpp(kext);
    const std::string &iv = ov[0], &jv = ov[1], i1 = iv + "_1";
    const std::vector<std::string> kq = {kvar, kvar + "_1", kvar + "_2", kvar + "_3"};
    auto renamed = [&](std::vector<std::string> vars, const std::string& row, const std::string& kname) {
      for (auto& v : vars) v = v == iv ? row : v == kvar ? kname : v;
      return vars;
    };
    auto prod = [&](const std::string& row, const std::string& kname) {
      std::string p;
      for (const auto& t : terms)
        p += (p.empty() ? "" : " * ") +
             ("static_cast<" + T + ">(" + t.op->at(renamed(t.vars, row, kname)) + ")");
      return p;
    };
    auto store = [&](const std::string& row, const std::string& acc) {
      std::string value = acc + "[" + jv + "]";
      if (alpha != "1") value = "static_cast<" + T + ">(" + alpha + ") * " + value;
      if (add.present)
        value += " + " + (beta == "1" ? std::string() : "static_cast<" + T + ">(" + beta + ") * ") +
                 "static_cast<" + T + ">(" + add.at({row, jv}) + ")";
      return out.at({row, jv}) + " = " + value + ";";
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
      for (const auto& [row, acc] : sums) lw.line(store(row, acc));
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
    emit_parallel_loops(oext[0] * oext[1] * kext, lw, w);
    return;
  }
  sym::Expr work = kvar.empty() ? sym::Expr(1) : kext;
  for (const auto& x : oext) work = work * x;
  // A product with a vector result (vector @ matrix, matrix @ vector, Gemv) in blocks of 256
  // output elements: per block the k loop outside, the block's elements inside, each adding its
  // products in k order as the dot product loop does (bit-identical). vector @ matrix then reads
  // the matrix by rows and the inner loop vectorizes (correlation's per-row products ~6x); a
  // matrix stored along the output keeps 256 independent sums where one dot product waits on
  // its last addition. A matrix whose rows run along k takes eight rows at a time instead.
  // Blocks (groups) run in parallel where the work is large.
  if (ov.size() == 1 && !kvar.empty() && !device_code()) {
    const std::string len = sym_cpp(oext[0]), i = ov[0];
    auto value_of = [&](const std::string& acc, const std::string& row) {
      std::string v = acc;
      if (alpha != "1") v = "static_cast<" + T + ">(" + alpha + ") * " + v;
      if (add.present)
        v += " + " + (beta == "1" ? std::string() : "static_cast<" + T + ">(" + beta + ") * ") +
             "static_cast<" + T + ">(" + add.at({row}) + ")";
      return v;
    };
    // The matrix operand reads along k with unit stride and along the output with another.
    auto rows_along_k = [&] {
      for (const auto& t : terms) {
        if (t.op->rank() != 2) continue;
        auto pk = std::find(t.vars.begin(), t.vars.end(), kvar),
             pi = std::find(t.vars.begin(), t.vars.end(), i);
        if (pk == t.vars.end() || pi == t.vars.end()) continue;
        return is_one(t.op->stride(static_cast<std::size_t>(pk - t.vars.begin()))) &&
               !is_one(t.op->stride(static_cast<std::size_t>(pi - t.vars.begin())));
      }
      return false;
    };
    if (rows_along_k()) {
      // matrix @ vector with the matrix's rows along k (unit stride): eight rows at a time, k
      // inside, eight sums in flight, each in k order; the blocked form below read such a
      // matrix with a stride of a row (atax's first product 1.75x slower, one thread).
      auto prod = [&](const std::string& row) {
        std::string p;
        for (const auto& t : terms) {
          std::vector<std::string> vars = t.vars;
          for (auto& v : vars) v = v == i ? row : v;
          p += (p.empty() ? "" : " * ") + ("static_cast<" + T + ">(" + t.op->at(vars) + ")");
        }
        return p;
      };
      std::vector<std::string> rows, sums;
      for (int r = 0; r < 8; ++r) {
        rows.push_back(i + "_" + std::to_string(r));
        sums.push_back("__acc_" + std::to_string(r));
      }
      const std::string ks = sym_cpp(kext);
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
      for (int r = 0; r < 8; ++r) lw.line(out.at({rows[r]}) + " = " + value_of(sums[r], rows[r]) + ";");
      lw.dedent();
      lw.line("} else {");
      lw.indent();
      lw.open("for (int64_t " + i + " = 8 * __grp; " + i + " < " + len + "; ++" + i + ") {");
      lw.line(T + " __acc = " + T + "(0);");
      lw.open("for (int64_t " + kvar + " = 0; " + kvar + " < " + ks + "; ++" + kvar + ") {");
      lw.line("__acc += " + prod(i) + ";");
      lw.close();
      lw.line(out.at({i}) + " = " + value_of("__acc", i) + ";");
      lw.close();
      lw.close();
      lw.close();
      emit_parallel_loops(work, lw, w);
      return;
    }
    Writer lw;
    lw.open("for (int64_t __blk = 0; __blk < " + len + "; __blk += 256) {");
    lw.line("const int64_t __blk_end = __blk + 256 < " + len + " ? __blk + 256 : " + len + ";");
    lw.line(T + " __acc[256];");
    lw.line("for (int64_t " + i + " = __blk; " + i + " < __blk_end; ++" + i + ") __acc[" + i +
            " - __blk] = " + T + "(0);");
    std::string prod;
    for (const auto& t : terms)
      prod += (prod.empty() ? "" : " * ") + ("static_cast<" + T + ">(" + t.op->at(t.vars) + ")");
    lw.open("for (int64_t " + kvar + " = 0; " + kvar + " < " + sym_cpp(kext) + "; ++" + kvar + ") {");
    lw.open("for (int64_t " + i + " = __blk; " + i + " < __blk_end; ++" + i + ") {");
    lw.line("__acc[" + i + " - __blk] += " + prod + ";");
    lw.close();
    lw.close();
    lw.open("for (int64_t " + i + " = __blk; " + i + " < __blk_end; ++" + i + ") {");
    lw.line(out.at(ov) + " = " + value_of("__acc[" + i + " - __blk]", i) + ";");
    lw.close();
    lw.close();
    emit_parallel_loops(work, lw, w);
    return;
  }
  w.open("{");
  // Outer loops over output elements; the outermost runs in parallel where nothing encloses it.
  bool parallel = opts.openmp && !in_parallel() && !ov.empty();
  for (std::size_t d = 0; d < ov.size(); ++d) {
    if (d == 0 && parallel)
      if (std::string p = small_work_pragma(work); !p.empty()) w.line(p);
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
