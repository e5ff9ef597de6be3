// DaCe's tensor nodes of its linalg library as contractions (contraction_expansion.cpp), the
// meaning of DaCe's pure expansions (dace/libraries/linalg/nodes):
// - TensorTranspose (what `np.transpose(A, axes)` of a tensor becomes):
//     _out_tensor[i_axes[0], ..., i_axes[n-1]] = alpha * _inp_tensor[i_0, ..., i_n-1]
//   (NumPy's transpose: dimension k of the output is dimension axes[k] of the input). `alpha`
//   defaults to 1; a `beta` other than 0 (adding beta * the output's old value) is refused.
// - TensorDot (`np.tensordot(A, B, axes=(left_axes, right_axes))`): the free dimensions of
//   _left_tensor, then those of _right_tensor, in order, are the output's (permuted by
//   `permutation` where given: output dimension k is free dimension permutation[k]); dimension
//   left_axes[m] of the left tensor is summed with dimension right_axes[m] of the right one.
#include <algorithm>
#include <cctype>

#include "library_expansion_internal.h"

namespace weir::transforms::detail {

namespace {

/// The node's list attribute `key` (JSON text such as "[2, 0, 1]"), checked to hold distinct
/// indices below `rank`, `rank` of them where `all` (a permutation); empty when absent or null
/// and not `required`.
std::vector<std::size_t> index_list(const ExpansionSite& site, const std::string& key, std::size_t rank,
                                    bool all, bool required = true) {
  const std::string cls = site.node.class_name();
  const std::string* text = site.node.extra.find(key);
  if (!text || *text == "null") {
    if (required) throw site.error(cls + " has no '" + key + "' attribute");
    return {};
  }
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
  bad = bad || (all && axes.size() != rank);
  for (std::size_t a : axes) {
    bad = bad || a >= rank || seen[a];
    if (a < rank) seen[a] = true;
  }
  if (bad)
    throw site.error(cls + " '" + key + "' " + *text + " is not " +
                     (all ? "a permutation of " : "a list of distinct dimensions among ") +
                     std::to_string(rank) + " dimensions");
  return axes;
}

/// The operand on connector `conn`.
LibraryOperand take(const ExpansionSite& site, const std::string& conn, bool input) {
  for (const DataflowEdge* e : site.data_edges(input))
    if ((input ? e->dst_conn : e->src_conn) == conn) return site.operand(*e, input, conn);
  throw site.error(site.node.class_name() + " needs " + (input ? "an input" : "an output") +
                   " edge on connector '" + conn + "'");
}

std::size_t rank_of(const LibraryOperand& op) { return op.desc.is_scalar() ? 0 : op.desc.shape.size(); }

/// Whether `a` and `b` hold the same letters.
bool same_letters(std::string a, std::string b) {
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  return a == b;
}

}  // namespace

std::unique_ptr<SDFG> expand_tensor_transpose(const ExpansionSite& site, std::vector<LibraryOperand>& ops) {
  ops.push_back(take(site, "_inp_tensor", true));
  ops.push_back(take(site, "_out_tensor", false));
  const std::size_t rank = rank_of(ops[0]), out_rank = rank_of(ops[1]);
  if (rank > 26 || out_rank != rank)
    throw site.error("TensorTranspose output has " + std::to_string(out_rank) + " dimensions, its input " +
                     std::to_string(rank));
  std::vector<std::size_t> axes = index_list(site, "axes", rank, true);
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
  if (!same_letters(in_terms, out_terms))
    throw site.error("TensorTranspose output's shape is not its input's permuted by 'axes' " +
                     *site.node.extra.find("axes"));
  c.terms = {in_terms};
  c.out = out_terms;
  c.inputs = 1;
  return contraction_sdfg(site, c, ops);
}

std::unique_ptr<SDFG> expand_tensor_dot(const ExpansionSite& site, std::vector<LibraryOperand>& ops) {
  ops.push_back(take(site, "_left_tensor", true));
  ops.push_back(take(site, "_right_tensor", true));
  ops.push_back(take(site, "_out_tensor", false));
  const std::size_t rl = rank_of(ops[0]), rr = rank_of(ops[1]);
  if (rl + rr > 26) throw site.error("TensorDot of more than 26 dimensions in all");
  std::vector<std::size_t> la = index_list(site, "left_axes", rl, false);
  std::vector<std::size_t> ra = index_list(site, "right_axes", rr, false);
  if (la.size() != ra.size()) throw site.error("TensorDot 'left_axes' and 'right_axes' differ in length");
  // Letters: the left tensor's dimensions 'a'.., the right's after them; a contracted right
  // dimension takes its left partner's letter. Free letters in order (left, then right).
  std::vector<char> left(rl), right(rr);
  std::string free;
  for (std::size_t d = 0; d < rl; ++d) left[d] = static_cast<char>('a' + d);
  for (std::size_t d = 0; d < rr; ++d) right[d] = static_cast<char>('a' + rl + d);
  for (std::size_t m = 0; m < la.size(); ++m) right[ra[m]] = left[la[m]];
  for (std::size_t d = 0; d < rl; ++d)
    if (std::find(la.begin(), la.end(), d) == la.end()) free += left[d];
  for (std::size_t d = 0; d < rr; ++d)
    if (std::find(ra.begin(), ra.end(), d) == ra.end()) free += right[d];
  if (rank_of(ops[2]) != free.size())
    throw site.error("TensorDot output has " + std::to_string(rank_of(ops[2])) + " dimensions, expected " +
                     std::to_string(free.size()));
  std::vector<std::size_t> perm = index_list(site, "permutation", free.size(), true, false);
  std::string out_letters = free;
  for (std::size_t k = 0; k < perm.size(); ++k) out_letters[k] = free[perm[k]];
  Contraction c;
  c.name = "tensordot";
  c.prefix = "__t";
  std::string lt, rt, ot;
  for (std::size_t d : squeezed(ops[0])) {
    lt += left[d];
    c.extent.emplace(left[d], ops[0].desc.shape[d]);
  }
  for (std::size_t d : squeezed(ops[1])) {
    rt += right[d];
    c.extent.emplace(right[d], ops[1].desc.shape[d]);
  }
  for (std::size_t k : squeezed(ops[2])) ot += out_letters[k];
  // Squeezed, the output's letters are the free ones that are not unit dimensions.
  std::string free_sq;
  for (char l : free)
    if (c.extent.count(l)) free_sq += l;
  if (!same_letters(free_sq, ot))
    throw site.error("TensorDot output's shape is not the free dimensions of its operands");
  for (std::size_t m = 0; m < la.size(); ++m)
    if ((lt.find(left[la[m]]) == std::string::npos) != (rt.find(right[ra[m]]) == std::string::npos))
      throw site.error("TensorDot contracts a unit dimension with one that is not");
  c.terms = {lt, rt};
  c.out = ot;
  c.inputs = 2;
  return contraction_sdfg(site, c, ops);
}

}  // namespace weir::transforms::detail
