// DaCe's fft library nodes FFT and IFFT (dace/libraries/fft/nodes: what `np.fft.fft` and
// `np.fft.ifft` of a vector become) as contractions (contraction_expansion.cpp), the meaning of
// DaCe's pure expansion (the explicit DFT):
//   _out[i] = factor * sum_n exp(-+2 pi j * i * n / N) * _inp[n]   (minus: FFT, plus: IFFT)
// with N the length of _inp and `factor` the node's normalization (1 when absent; DaCe writes
// `1/$N` for ifft's and forward's default norm, `sqrt(1/$N)` for "ortho"). The output is complex
// (complex128, or complex64 for a complex64 output); a real input is taken as complex. The
// exponent uses (i * n) mod N, exact in integers, so large i * n lose no accuracy in the angle.
#include <cctype>

#include "library_expansion_internal.h"

namespace weir::transforms::detail {

namespace {

/// The node's `factor` as a Python expression of the SDFG's symbols: `$` dropped, `sqrt` as
/// math.sqrt. Throws for characters outside names, numbers and arithmetic.
std::string factor_code(const ExpansionSite& site, const SDFG& inner) {
  const std::string cls = site.node.class_name();
  const std::string* v = site.node.extra.find("factor");
  if (!v || *v == "null") return "1";
  std::string s = *v;
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  std::string out, name;
  auto flush = [&] {
    if (name.empty()) return;
    if (name == "sqrt")
      out += "math.sqrt";
    else if (std::isdigit(static_cast<unsigned char>(name[0])) || inner.symbols.count(name))
      out += name;
    else
      throw site.error(cls + " factor '" + *v + "' names '" + name +
                       "', which is not a symbol of the operands' shapes");
    name.clear();
  };
  for (char c : s) {
    const auto u = static_cast<unsigned char>(c);
    if (std::isalnum(u) || c == '_' || c == '.') {
      name += c;
    } else if (c == '$') {
      flush();
    } else if (c == '(' || c == ')' || c == '*' || c == '/' || c == '+' || c == '-' || c == ' ') {
      flush();
      out += c;
    } else {
      throw site.error(cls + " factor '" + *v + "' is not an arithmetic expression of symbols");
    }
  }
  flush();
  return out.empty() ? "1" : out;
}

LibraryOperand vector_operand(const ExpansionSite& site, const std::string& conn, bool input) {
  const std::string cls = site.node.class_name();
  for (const DataflowEdge* e : site.data_edges(input))
    if ((input ? e->dst_conn : e->src_conn) == conn) {
      LibraryOperand op = site.operand(*e, input, conn);
      if (squeezed(op).size() != 1)
        throw site.error(cls + " operand '" + conn + "' has " + std::to_string(squeezed(op).size()) +
                         " non-unit dimensions; DaCe's FFT takes one-dimensional inputs only");
      return op;
    }
  throw site.error(cls + " needs " + std::string(input ? "an input" : "an output") + " edge on connector '" +
                   conn + "'");
}

}  // namespace

std::unique_ptr<SDFG> expand_fft(const ExpansionSite& site, std::vector<LibraryOperand>& ops) {
  const std::string cls = site.node.class_name();
  ops.push_back(vector_operand(site, "_inp", true));
  ops.push_back(vector_operand(site, "_out", false));
  const ScalarType t = ops[1].desc.dtype.base;
  if (t != ScalarType::Complex128 && t != ScalarType::Complex64)
    throw site.error(cls + " output is " + std::string(to_string(t)) +
                     "; it must be complex64 or complex128");
  const sym::Expr n = ops[0].desc.shape[squeezed(ops[0])[0]];
  const sym::Expr n_out = ops[1].desc.shape[squeezed(ops[1])[0]];
  if (!(n - n_out).is_integer() || (n - n_out).value() != 0)
    throw site.error(cls + " output has " + n_out.str() + " elements, its input " + n.str());
  Contraction c;
  c.name = cls == "FFT" ? "fft" : "ifft";
  c.prefix = "__f";
  c.terms = {"n"};
  c.out = "i";
  c.inputs = 1;
  c.extent = {{'i', n}, {'n', n}};
  std::unique_ptr<SDFG> inner = expansion_sdfg(site, ops);
  c.alpha = factor_code(site, *inner);
  // The angle 2 pi ((i * n) mod N) / N, with N as the input's length in the operands' symbols.
  const std::string len = "(" + n.str() + ")";
  const std::string angle = "(2.0 * math.pi * ((__fi * __fn) % " + len + ") / " + len + ")";
  c.summand = "(math.cos" + angle + (cls == "FFT" ? " - " : " + ") + "1j * math.sin" + angle + ") * __in0";
  for (const auto& op : ops)
    if (op.name == "__acc") throw site.error(cls + " connector '__acc' is reserved by its expansion");
  SDFGState& st = inner->add_state(c.name, true);
  build_contraction(*inner, st, c, ops);
  return inner;
}

}  // namespace weir::transforms::detail
