// DaCe's BLAS nodes MatMul, BatchedMatMul, Gemm, Dot, Gemv, Ger, Axpy and Transpose
// (dace/libraries/blas/nodes) as
// contractions
// (contraction_expansion.cpp), the semantics of DaCe's pure expansions: operands are the
// connectors' memlet subsets with unit dimensions squeezed; `alpha`, `beta`, `transA` default
// to 1, 0 and False as DaCe leaves them out.
//   MatMul:    _c = _a @ _b (NumPy's matmul of ranks 1 to 3, a batch dimension first)
//   BatchedMatMul: the same (what DaCe's MatMul becomes for a batch dimension)
//   Gemm:      _c[i, j] = alpha * sum_k op(_a)[i, k] * op(_b)[k, j] (+ beta * _cin[i, j])
//   Dot:       _result = sum_k _x[k] * _y[k]
//   Gemv:      _y[i] = alpha * sum_k op(_A)[i, k] * _x[k] (+ beta * _y[i], the input _y)
//   Ger:       _res[i, j] = alpha * _x[i] * _y[j] + _A[i, j]
//   Axpy:      _res[i] = a * _x[i] + _y[i] (`a` a number; DaCe's default, the symbol `a`, is refused)
//   Transpose: _out[i, j] = _inp[j, i]
#include <algorithm>
#include <cctype>

#include "library_expansion_internal.h"

namespace weir::transforms::detail {

namespace {

/// The operands of one node, checked as the code generator checked them (same messages).
class BlasOperands {
 public:
  explicit BlasOperands(const ExpansionSite& site) : site_(site), cls_(site.node.class_name()) {}

  /// The operand on connector `conn`: appended to `ops`, its index returned. Throws when the
  /// node has no such edge (`required`), or when its rank is not one of `ranks`.
  std::optional<std::size_t> take(std::vector<LibraryOperand>& ops, const std::string& conn, bool input,
                                  std::initializer_list<std::size_t> ranks, bool required = true,
                                  const std::string& name = "") {
    const DataflowEdge* edge = nullptr;
    for (const DataflowEdge* e : site_.data_edges(input))
      if ((input ? e->dst_conn : e->src_conn) == conn && !edge) edge = e;
    if (!edge) {
      if (!required) return std::nullopt;
      throw site_.error(cls_ + " needs " + (input ? "an input" : "an output") + " edge on connector '" +
                        conn + "'");
    }
    LibraryOperand op = site_.operand(*edge, input, conn);
    if (!name.empty()) op.name = name;
    const std::size_t rank = squeezed(op).size();
    if (std::find(ranks.begin(), ranks.end(), rank) == ranks.end()) {
      if (!input)
        throw site_.error(cls_ + " output has " + std::to_string(rank) + " non-unit dimensions, expected " +
                          std::to_string(*ranks.begin()));
      throw site_.error(cls_ + " operand '" + conn + "' has " + std::to_string(rank) +
                        " non-unit dimensions, which this library node does not take");
    }
    ops.push_back(op);
    return ops.size() - 1;
  }

  /// Extent of non-unit dimension `d` of ops[k].
  static sym::Expr extent(const std::vector<LibraryOperand>& ops, std::size_t k, std::size_t d) {
    return ops[k].desc.shape[squeezed(ops[k])[d]];
  }

 private:
  const ExpansionSite& site_;
  std::string cls_;
};

}  // namespace

Contraction blas_contraction(const ExpansionSite& site, std::vector<LibraryOperand>& ops) {
  const std::string cls = site.node.class_name();
  BlasOperands take(site);
  Contraction c;
  c.prefix = "__b";
  c.name = cls;
  std::transform(c.name.begin(), c.name.end(), c.name.begin(),
                 [](unsigned char ch) { return static_cast<char>(std::tolower(ch)); });
  if (cls == "MatMul" || cls == "BatchedMatMul") {
    // NumPy's matmul: a's last dimension with b's second-to-last (or only) one; a leading batch
    // dimension of either operand (or both) is the output's first.
    const std::size_t ra = squeezed(ops[*take.take(ops, "_a", true, {1, 2, 3})]).size();
    const std::size_t rb = squeezed(ops[*take.take(ops, "_b", true, {1, 2, 3})]).size();
    const bool batched = ra == 3 || rb == 3;
    c.terms = {std::string(ra == 3 ? "b" : "") + (ra >= 2 ? "i" : "") + "k",
               std::string(rb == 3 ? "b" : "") + "k" + (rb >= 2 ? "j" : "")};
    c.out = std::string(batched ? "b" : "") + (ra >= 2 ? "i" : "") + (rb >= 2 ? "j" : "");
    take.take(ops, "_c", false, {c.out.size()});
    c.extent = {{'k', BlasOperands::extent(ops, 0, ra - 1)}};
    if (batched)
      c.extent.emplace('b', ra == 3 ? BlasOperands::extent(ops, 0, 0) : BlasOperands::extent(ops, 1, 0));
    if (ra >= 2) c.extent.emplace('i', BlasOperands::extent(ops, 0, ra - 2));
    if (rb >= 2) c.extent.emplace('j', BlasOperands::extent(ops, 1, rb - 1));
  } else if (cls == "Gemm") {
    const bool ta = numeric_attribute(site, "transA", "false") == "true";
    const bool tb = numeric_attribute(site, "transB", "false") == "true";
    take.take(ops, "_a", true, {2});
    take.take(ops, "_b", true, {2});
    take.take(ops, "_c", false, {2});
    c.alpha = numeric_attribute(site, "alpha", "1");
    c.beta = numeric_attribute(site, "beta", "0");
    if (!(c.beta == "0" || c.beta == "0.0")) c.addend = take.take(ops, "_cin", true, {2}, false);
    if (!c.addend) c.beta = "0";
    c.terms = {ta ? "ki" : "ik", tb ? "jk" : "kj"};
    c.out = "ij";
    c.extent = {{'i', BlasOperands::extent(ops, 0, ta ? 1 : 0)},
                {'k', BlasOperands::extent(ops, 0, ta ? 0 : 1)},
                {'j', BlasOperands::extent(ops, 1, tb ? 0 : 1)}};
  } else if (cls == "Dot") {
    take.take(ops, "_x", true, {1});
    take.take(ops, "_y", true, {1});
    take.take(ops, "_result", false, {0});
    c.terms = {"k", "k"};
    c.extent = {{'k', BlasOperands::extent(ops, 0, 0)}};
  } else if (cls == "Gemv") {
    const bool ta = numeric_attribute(site, "transA", "false") == "true";
    take.take(ops, "_A", true, {2});
    take.take(ops, "_x", true, {1});
    take.take(ops, "_y", false, {1});
    c.alpha = numeric_attribute(site, "alpha", "1");
    c.beta = numeric_attribute(site, "beta", "0");
    // The input _y (read for beta's term) is its own container: it may be another than the output.
    if (!(c.beta == "0" || c.beta == "0.0")) c.addend = take.take(ops, "_y", true, {1}, false, "__y_in");
    if (!c.addend) c.beta = "0";
    c.terms = {ta ? "ki" : "ik", "k"};
    c.out = "i";
    c.extent = {{'i', BlasOperands::extent(ops, 0, ta ? 1 : 0)},
                {'k', BlasOperands::extent(ops, 0, ta ? 0 : 1)}};
  } else if (cls == "Ger") {
    take.take(ops, "_x", true, {1});
    take.take(ops, "_y", true, {1});
    take.take(ops, "_res", false, {2});
    c.addend = take.take(ops, "_A", true, {2});
    c.alpha = numeric_attribute(site, "alpha", "1");
    c.beta = "1";
    c.terms = {"i", "j"};
    c.out = "ij";
    c.extent = {{'i', BlasOperands::extent(ops, 0, 0)}, {'j', BlasOperands::extent(ops, 1, 0)}};
  } else if (cls == "Axpy") {
    take.take(ops, "_x", true, {1});
    take.take(ops, "_res", false, {1});
    c.addend = take.take(ops, "_y", true, {1});
    c.alpha = numeric_attribute(site, "a", "");
    if (c.alpha.empty())
      throw site.error("Axpy needs its scale 'a' as a number (DaCe's default is the symbol 'a')");
    c.beta = "1";
    c.terms = {"i"};
    c.out = "i";
    c.extent = {{'i', BlasOperands::extent(ops, 0, 0)}};
  } else {  // Transpose
    take.take(ops, "_inp", true, {2});
    take.take(ops, "_out", false, {2});
    c.terms = {"ji"};
    c.out = "ij";
    c.extent = {{'i', BlasOperands::extent(ops, 0, 1)}, {'j', BlasOperands::extent(ops, 0, 0)}};
  }
  c.inputs = cls == "Transpose" || cls == "Axpy" ? 1 : 2;
  return c;
}

std::unique_ptr<SDFG> expand_blas(const ExpansionSite& site, std::vector<LibraryOperand>& ops) {
  Contraction c = blas_contraction(site, ops);
  return contraction_sdfg(site, c, ops);
}

}  // namespace weir::transforms::detail
