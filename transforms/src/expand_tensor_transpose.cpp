// DaCe's TensorTranspose (dace/libraries/linalg/nodes/ttranspose.py; what `np.transpose(A,
// axes)` of a tensor becomes) as a contraction (contraction_expansion.cpp), the meaning of
// DaCe's pure expansion:
//   _out_tensor[i_axes[0], ..., i_axes[n-1]] = alpha * _inp_tensor[i_0, ..., i_n-1]
// (NumPy's transpose: dimension k of the output is dimension axes[k] of the input). `alpha`
// defaults to 1; a `beta` other than 0 (which adds beta * the output's old value) is refused.
#include <algorithm>
#include <cctype>

#include "library_expansion_internal.h"

namespace weir::transforms::detail {

namespace {

/// The node's `axes` (JSON text such as "[2, 0, 1]"), checked to be a permutation of 0..rank-1.
std::vector<std::size_t> permutation(const ExpansionSite& site, std::size_t rank) {
  const std::string* text = site.node.extra.find("axes");
  if (!text) throw site.error("TensorTranspose has no 'axes' attribute");
  std::vector<std::size_t> axes;
  std::string digits;
  bool bad = false;
  for (char ch : *text + ",") {
    if (std::isdigit(static_cast<unsigned char>(ch))) {
      digits += ch;
    } else if (ch == ',' || ch == ']') {
      if (!digits.empty()) axes.push_back(std::stoul(digits));
      digits.clear();
    } else if (ch != '[' && ch != ' ') {
      bad = true;
    }
  }
  std::vector<bool> seen(rank, false);
  bad = bad || axes.size() != rank;
  for (std::size_t a : axes) {
    bad = bad || a >= rank || seen[a];
    if (a < rank) seen[a] = true;
  }
  if (bad)
    throw site.error("TensorTranspose 'axes' " + *text + " is not a permutation of the input's " +
                     std::to_string(rank) + " dimensions");
  return axes;
}

/// The operand on connector `conn`.
LibraryOperand take(const ExpansionSite& site, const std::string& conn, bool input) {
  for (const DataflowEdge* e : site.data_edges(input))
    if ((input ? e->dst_conn : e->src_conn) == conn) return site.operand(*e, input, conn);
  throw site.error(std::string("TensorTranspose needs ") + (input ? "an input" : "an output") +
                   " edge on connector '" + conn + "'");
}

}  // namespace

std::unique_ptr<SDFG> expand_tensor_transpose(const ExpansionSite& site, std::vector<LibraryOperand>& ops) {
  ops.push_back(take(site, "_inp_tensor", true));
  ops.push_back(take(site, "_out_tensor", false));
  const std::size_t rank = ops[0].desc.is_scalar() ? 0 : ops[0].desc.shape.size();
  const std::size_t out_rank = ops[1].desc.is_scalar() ? 0 : ops[1].desc.shape.size();
  if (rank > 26 || out_rank != rank)
    throw site.error("TensorTranspose output has " + std::to_string(out_rank) + " dimensions, its input " +
                     std::to_string(rank));
  std::vector<std::size_t> axes = permutation(site, rank);
  Contraction c;
  c.name = "tensortranspose";
  c.prefix = "__t";
  c.alpha = numeric_attribute(site, "alpha", "1");
  const std::string beta = numeric_attribute(site, "beta", "0");
  if (beta != "0" && beta != "0.0")
    throw site.error("TensorTranspose with beta " + beta + " (adding to the output) is not supported");
  // One letter per input dimension; the contraction sees the non-unit ones (squeezed).
  auto letter = [](std::size_t d) { return static_cast<char>('a' + d); };
  std::string in_terms, out_terms;
  for (std::size_t d : squeezed(ops[0])) {
    in_terms += letter(d);
    c.extent.emplace(letter(d), ops[0].desc.shape[d]);
  }
  for (std::size_t k : squeezed(ops[1])) out_terms += letter(axes[k]);
  std::string a = in_terms, b = out_terms;
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  if (a != b)
    throw site.error("TensorTranspose output's shape is not its input's permuted by 'axes' " +
                     *site.node.extra.find("axes"));
  c.terms = {in_terms};
  c.out = out_terms;
  c.inputs = 1;
  for (const auto& op : ops)
    if (op.name == "__acc")
      throw site.error("TensorTranspose connector '__acc' is reserved by its expansion");
  std::unique_ptr<SDFG> inner = expansion_sdfg(site, ops);
  SDFGState& st = inner->add_state(c.name, true);
  build_contraction(*inner, st, c, ops);
  return inner;
}

}  // namespace weir::transforms::detail
