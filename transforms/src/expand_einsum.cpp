// DaCe's Einsum library node (dace/libraries/blas/nodes/einsum.py: `einsum_str`, `alpha`, `beta`,
// the operands on input connectors taken in sorted connector order, optional scalar connectors
// `_alpha`/`_beta` that multiply the coefficients, one output) with NumPy's einsum semantics: a
// map over the output indices and, per output element, an accumulator summed over the contracted
// indices by a Sequential map with WCR; out = alpha * sum + beta * out (contraction_expansion.cpp). An
// implicit output (no
// `->`) is NumPy's: the indices that occur once, in alphabetical order. Operands are the
// memlets' subsets with unit dimensions squeezed, as DaCe's expansion sees them.
#include <cctype>
#include <map>

#include "library_expansion_internal.h"

namespace weir::transforms::detail {

namespace {

/// The parsed `einsum_str`: one term per operand and the output's indices.
struct EinsumSpec {
  std::string text;
  std::vector<std::string> terms;
  std::string out;
};

EinsumSpec parse_spec(const ExpansionSite& site) {
  const std::string* json = site.node.extra.find("einsum_str");
  if (!json) throw site.error("Einsum without its 'einsum_str'");
  EinsumSpec s;
  for (char c : *json)
    if (c != ' ' && c != '"') s.text += c;
  if (s.text.find('.') != std::string::npos)
    throw site.error("Einsum '" + s.text + "': an ellipsis (...) is not supported by the CPU code generator");
  std::string lhs = s.text;
  bool explicit_out = false;
  if (auto arrow = s.text.find("->"); arrow != std::string::npos) {
    lhs = s.text.substr(0, arrow);
    s.out = s.text.substr(arrow + 2);
    explicit_out = true;
  }
  s.terms.emplace_back();
  for (char c : lhs) {
    if (c == ',')
      s.terms.emplace_back();
    else if (std::isalpha(static_cast<unsigned char>(c)))
      s.terms.back() += c;
    else
      throw site.error("Einsum '" + s.text + "': unexpected character '" + std::string(1, c) + "'");
  }
  if (!explicit_out) {
    std::map<char, int> count;
    for (const auto& t : s.terms)
      for (char c : t) ++count[c];
    for (const auto& [c, k] : count)
      if (k == 1) s.out += c;
  }
  return s;
}

}  // namespace

std::unique_ptr<SDFG> expand_einsum(const ExpansionSite& site, std::vector<LibraryOperand>& ops) {
  const EinsumSpec spec = parse_spec(site);
  // Operands: the input connectors in sorted order (DaCe's expansion), the coefficients apart.
  std::map<std::string, const DataflowEdge*> inputs, coeffs;
  for (const DataflowEdge* e : site.data_edges(true))
    (e->dst_conn == "_alpha" || e->dst_conn == "_beta" ? coeffs : inputs).emplace(e->dst_conn, e);
  auto outs = site.data_edges(false);
  if (outs.size() > 1) throw site.error("Einsum with several outputs");
  if (outs.empty()) throw site.error("Einsum without an output edge");
  if (inputs.size() != spec.terms.size())
    throw site.error("Einsum '" + spec.text + "' names " + std::to_string(spec.terms.size()) +
                     " operands but has " + std::to_string(inputs.size()) + " input edges");
  std::map<char, sym::Expr> extent;
  std::size_t k = 0;
  for (const auto& [conn, e] : inputs) {
    ops.push_back(site.operand(*e, true, conn));
    auto dims = squeezed(ops.back());
    if (dims.size() != spec.terms[k].size())
      throw site.error("Einsum '" + spec.text + "': operand '" + conn + "' has " +
                       std::to_string(dims.size()) + " non-unit dimensions, its term '" + spec.terms[k] +
                       "' " + std::to_string(spec.terms[k].size()));
    for (std::size_t d = 0; d < dims.size(); ++d)
      extent.emplace(spec.terms[k][d], ops.back().desc.shape[dims[d]]);
    ++k;
  }
  ops.push_back(site.operand(*outs[0], false, "_out"));
  const std::size_t out_rank = squeezed(ops.back()).size();
  if (out_rank != spec.out.size())
    throw site.error("Einsum '" + spec.text + "': the output has " + std::to_string(out_rank) +
                     " non-unit dimensions, its indices '" + spec.out + "' " +
                     std::to_string(spec.out.size()));
  for (char c : spec.out)
    if (!extent.count(c))
      throw site.error("Einsum '" + spec.text + "': output index '" + std::string(1, c) +
                       "' is in no operand");
  std::vector<std::string> coeff_names;
  for (const auto& [conn, e] : coeffs) {
    ops.push_back(site.operand(*e, true, conn));
    coeff_names.push_back(conn);
  }
  for (const auto& op : ops)
    if (op.name == "__acc") throw site.error("Einsum connector '__acc' is reserved by its expansion");
  std::unique_ptr<SDFG> inner = expansion_sdfg(site, ops);
  SDFGState& st = inner->add_state("einsum", true);
  Contraction c;
  c.name = "einsum";
  c.prefix = "__e";
  c.terms = spec.terms;
  c.out = spec.out;
  c.extent = extent;
  c.inputs = inputs.size();
  c.alpha = numeric_attribute(site, "alpha", "1");
  c.beta = numeric_attribute(site, "beta", "0");
  c.coeffs = coeff_names;
  build_contraction(*inner, st, c, ops);
  return inner;
}

}  // namespace weir::transforms::detail
