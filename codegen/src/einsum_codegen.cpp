// DaCe's Einsum library node (dace/libraries/blas/nodes/einsum.py: `einsum_str`, `alpha`, `beta`,
// the operands on input connectors taken in sorted connector order, optional scalar connectors
// `_alpha`/`_beta` that multiply the coefficients, one output) as one loop nest with NumPy's
// einsum semantics: a loop per output index (the outermost parallel where nothing encloses it)
// and an accumulator over the contracted ones; out = alpha * sum + beta * out. An implicit output
// (no `->`) is NumPy's: the indices that occur once, in alphabetical order. Operands are the
// memlets' subsets with unit dimensions squeezed, as DaCe's expansion sees them.
#include <algorithm>
#include <map>

#include "blas_operand.h"
#include "state_codegen.h"

namespace weir::codegen::detail {

bool StateGen::is_einsum(const LibraryNode& n) { return n.class_name() == "Einsum"; }

void StateGen::emit_einsum(const LibraryNode& n, Writer& w) {
  ElementRef where = ref(n);
  const std::string* spec_json = n.extra.find("einsum_str");
  if (!spec_json) throw CodegenError(where, "Einsum without its 'einsum_str'");
  std::string spec;
  for (char c : *spec_json)
    if (c != ' ' && c != '"') spec += c;
  if (spec.find('.') != std::string::npos)
    throw CodegenError(where,
                       "Einsum '" + spec + "': an ellipsis (...) is not supported by the CPU code generator");
  std::string lhs = spec, rhs;
  bool explicit_out = false;
  if (auto arrow = spec.find("->"); arrow != std::string::npos) {
    lhs = spec.substr(0, arrow);
    rhs = spec.substr(arrow + 2);
    explicit_out = true;
  }
  std::vector<std::string> terms(1);
  for (char c : lhs) {
    if (c == ',')
      terms.emplace_back();
    else if (std::isalpha(static_cast<unsigned char>(c)))
      terms.back() += c;
    else
      throw CodegenError(where, "Einsum '" + spec + "': unexpected character '" + std::string(1, c) + "'");
  }
  if (!explicit_out) {
    std::map<char, int> count;
    for (const auto& t : terms)
      for (char c : t) ++count[c];
    for (const auto& [c, k] : count)
      if (k == 1) rhs += c;
  }

  // Operands: the input connectors in sorted order (DaCe's expansion), the coefficients apart.
  std::vector<std::string> conns;
  std::string out_conn;
  bool have_out = false;
  for (EdgeId id : st.in_edges(n.id())) {
    const DataflowEdge& e = st.edge(id);
    if (e.memlet.is_empty() || e.dst_conn == "_alpha" || e.dst_conn == "_beta") continue;
    if (std::find(conns.begin(), conns.end(), e.dst_conn) == conns.end()) conns.push_back(e.dst_conn);
  }
  for (EdgeId id : st.out_edges(n.id()))
    if (!st.edge(id).memlet.is_empty()) {
      if (have_out) throw CodegenError(where, "Einsum with several outputs");
      out_conn = st.edge(id).src_conn;
      have_out = true;
    }
  std::sort(conns.begin(), conns.end());
  if (!have_out) throw CodegenError(where, "Einsum without an output edge");
  if (conns.size() != terms.size())
    throw CodegenError(where, "Einsum '" + spec + "' names " + std::to_string(terms.size()) +
                                  " operands but has " + std::to_string(conns.size()) + " input edges");
  std::vector<BlasOperand> ops;
  std::map<char, sym::Expr> extent;
  for (std::size_t k = 0; k < conns.size(); ++k) {
    ops.push_back(blas_operand(n, conns[k], true));
    if (ops[k].rank() != terms[k].size())
      throw CodegenError(where, "Einsum '" + spec + "': operand '" + conns[k] + "' has " +
                                    std::to_string(ops[k].rank()) + " non-unit dimensions, its term '" +
                                    terms[k] + "' " + std::to_string(terms[k].size()));
    for (std::size_t d = 0; d < terms[k].size(); ++d) extent.emplace(terms[k][d], ops[k].extent(d));
  }
  BlasOperand out = blas_operand(n, out_conn, false);
  if (out.rank() != rhs.size())
    throw CodegenError(where, "Einsum '" + spec + "': the output has " + std::to_string(out.rank()) +
                                  " non-unit dimensions, its indices '" + rhs + "' " +
                                  std::to_string(rhs.size()));
  for (char c : rhs)
    if (!extent.count(c))
      throw CodegenError(where,
                         "Einsum '" + spec + "': output index '" + std::string(1, c) + "' is in no operand");
  std::string contracted;
  for (const auto& [c, e] : extent)
    if (rhs.find(c) == std::string::npos) contracted += c;

  std::string T(cpp_name(out.loc.type));
  auto var = [&](char c) { return loop_var(std::string("__e") + c + "_", 0); };
  auto vars = [&](const std::string& letters) {
    std::vector<std::string> v;
    for (char c : letters) v.push_back(var(c));
    return v;
  };
  std::string alpha = numeric_attribute(n, "alpha", "1", where),
              beta = numeric_attribute(n, "beta", "0", where);
  for (const char* coeff : {"_alpha", "_beta"}) {
    BlasOperand c = blas_operand(n, coeff, true);
    if (!c.present) continue;
    std::string& v = coeff[1] == 'a' ? alpha : beta;
    v = "(" + v + ") * static_cast<" + T + ">(" + c.at({}) + ")";
  }

  if (comments()) w.line("// Einsum " + n.label + " (node " + std::to_string(n.id()) + "): " + spec);
  w.open("{");
  bool parallel = opts.openmp && !in_parallel() && !rhs.empty();
  for (std::size_t d = 0; d < rhs.size(); ++d) {
    if (d == 0 && parallel) w.line("#pragma omp parallel for");
    w.open("for (int64_t " + var(rhs[d]) + " = 0; " + var(rhs[d]) + " < " + sym_cpp(extent.at(rhs[d])) +
           "; ++" + var(rhs[d]) + ") {");
  }
  w.line(T + " __acc = " + T + "(0);");
  for (char c : contracted)
    w.open("for (int64_t " + var(c) + " = 0; " + var(c) + " < " + sym_cpp(extent.at(c)) + "; ++" + var(c) +
           ") {");
  std::string prod;
  for (std::size_t k = 0; k < ops.size(); ++k)
    prod += (prod.empty() ? "" : " * ") + ("static_cast<" + T + ">(" + ops[k].at(vars(terms[k])) + ")");
  w.line("__acc += " + prod + ";");
  for (std::size_t k = 0; k < contracted.size(); ++k) w.close();
  std::string target = out.at(vars(rhs));
  std::string value = "static_cast<" + T + ">(" + alpha + ") * __acc";
  if (beta != "0" && beta != "0.0") value += " + static_cast<" + T + ">(" + beta + ") * " + target;
  w.line(target + " = " + value + ";");
  for (std::size_t d = 0; d < rhs.size(); ++d) w.close();
  w.close();
}

}  // namespace weir::codegen::detail
