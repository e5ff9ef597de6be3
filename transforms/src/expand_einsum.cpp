// DaCe's Einsum library node (dace/libraries/blas/nodes/einsum.py: `einsum_str`, `alpha`, `beta`,
// the operands on input connectors taken in sorted connector order, optional scalar connectors
// `_alpha`/`_beta` that multiply the coefficients, one output) with NumPy's einsum semantics: a
// map over the output indices and, per output element, an accumulator summed over the contracted
// indices by a Sequential map with WCR; out = alpha * sum + beta * out. An implicit output (no
// `->`) is NumPy's: the indices that occur once, in alphabetical order. Operands are the
// memlets' subsets with unit dimensions squeezed, as DaCe's expansion sees them.
#include <algorithm>
#include <cctype>
#include <map>

#include "library_expansion_internal.h"

namespace weir::transforms::detail {

namespace {

bool is_one(const sym::Expr& e) { return e.is_integer() && e.value() == 1; }

/// The non-unit dimensions of an operand (none for a scalar).
std::vector<std::size_t> squeezed(const LibraryOperand& op) {
  std::vector<std::size_t> dims;
  if (!op.desc.is_scalar())
    for (std::size_t d = 0; d < op.desc.shape.size(); ++d)
      if (!is_one(op.desc.shape[d])) dims.push_back(d);
  return dims;
}

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

/// A coefficient attribute as a Python number (`dflt` when absent or null).
std::string coefficient(const ExpansionSite& site, const std::string& key, const std::string& dflt) {
  const std::string* v = site.node.extra.find(key);
  if (!v || *v == "null") return dflt;
  std::string s = *v;
  if (s.size() >= 2 && s.front() == '"' && s.back() == '"') s = s.substr(1, s.size() - 2);
  bool numeric = !s.empty();
  for (char c : s)
    numeric = numeric && (std::isdigit(static_cast<unsigned char>(c)) || c == '.' || c == '-' || c == '+' ||
                          c == 'e' || c == 'E');
  if (!numeric)
    throw site.error("Einsum attribute '" + key + "' = " + *v +
                     " is not a number; the CPU code generator supports numeric values only");
  return s;
}

/// The subset of `op` at the index of each of its non-unit dimensions (`vars` in order).
Subset element(const LibraryOperand& op, const std::vector<sym::Expr>& vars) {
  if (op.desc.is_scalar()) return Subset({Range::index(sym::Expr(0))});
  std::vector<Range> r(op.desc.shape.size(), Range::index(sym::Expr(0)));
  auto dims = squeezed(op);
  for (std::size_t k = 0; k < dims.size(); ++k) r[dims[k]] = Range::index(vars[k]);
  return Subset(r);
}

/// Builds the state: `operands` are the einsum's inputs in order, then the output; `coeffs` the
/// `_alpha`/`_beta` connectors present (their names in the nested SDFG).
class EinsumBuilder {
 public:
  EinsumBuilder(SDFG& sdfg, SDFGState& st, const EinsumSpec& spec, const std::vector<LibraryOperand>& ops,
                std::size_t inputs)
      : sdfg_(sdfg), st_(st), spec_(spec), ops_(ops), inputs_(inputs) {}

  void build(const std::map<char, sym::Expr>& extent, const std::string& alpha, const std::string& beta,
             const std::vector<std::string>& coeffs) {
    for (const auto& [c, e] : extent)
      if (spec_.out.find(c) == std::string::npos) contracted_ += c;
    // The outer map over the output's indices (none for a scalar output).
    NodeId entry = kNoNode, exit = kNoNode;
    if (!spec_.out.empty()) {
      std::vector<std::string> params;
      std::vector<Range> range;
      for (char c : spec_.out) {
        params.push_back(var(c));
        range.emplace_back(sym::Expr(0), extent.at(c) - sym::Expr(1));
      }
      MapEntry& e = st_.add_map("einsum", params, Subset(range));
      entry = e.id();
      exit = e.exit;
    }
    // The final tasklet: out = alpha * sum + beta * out.
    std::vector<std::string> fin_in;
    std::string value = "(" + alpha + ")";
    // Tasklet connectors may not shadow containers: `_alpha` is read as `__alpha`.
    for (const auto& c : coeffs) {
      fin_in.push_back("_" + c);
      if (c == "_alpha") value += " * __alpha";
    }
    const bool with_beta =
        !(beta == "0" || beta == "0.0") || std::find(coeffs.begin(), coeffs.end(), "_beta") != coeffs.end();
    const LibraryOperand& out = ops_[inputs_];
    std::string sum;
    if (contracted_.empty()) {
      for (std::size_t k = 0; k < inputs_; ++k) {
        fin_in.push_back("__in" + std::to_string(k));
        sum += (sum.empty() ? "" : " * ") + fin_in.back();
      }
    } else {
      fin_in.push_back("__sum");
      sum = "__sum";
    }
    std::string code = "__out = " + value + " * (" + sum + ")";
    if (with_beta) {
      fin_in.push_back("__cur");
      std::string b = "(" + beta + ")";
      if (std::find(coeffs.begin(), coeffs.end(), "_beta") != coeffs.end()) b += " * __beta";
      code += " + " + b + " * __cur";
    }
    Tasklet& fin = st_.add_tasklet("einsum_out", CodeBlock{code, Language::Python}, fin_in, {"__out"});
    for (const auto& c : coeffs)
      connect_in(c, Subset({Range::index(sym::Expr(0))}), entry, fin.id(), "_" + c);
    if (contracted_.empty()) {
      for (std::size_t k = 0; k < inputs_; ++k)
        connect_in(ops_[k].name, element(ops_[k], term_vars(k)), entry, fin.id(), "__in" + std::to_string(k));
    } else {
      NodeId acc = accumulate(entry, extent);
      st_.add_edge(acc, "", fin.id(), "__sum", Memlet::simple("__acc", Subset({Range::index(sym::Expr(0))})));
    }
    const Subset out_at = element(out, out_vars());
    if (with_beta) connect_in(out.name, out_at, entry, fin.id(), "__cur");
    AccessNode& o = st_.add_access(out.name);
    if (exit == kNoNode)
      st_.add_edge(fin.id(), "__out", o.id(), "", Memlet::simple(out.name, out_at));
    else
      st_.add_memlet_path({fin.id(), exit, o.id()}, Memlet::simple(out.name, out_at), "__out", "");
  }

 private:
  static std::string var(char c) { return std::string("__e") + c; }
  std::vector<sym::Expr> vars_of(const std::string& letters) const {
    std::vector<sym::Expr> v;
    for (char c : letters) v.push_back(sym::Expr::symbol(var(c)));
    return v;
  }
  std::vector<sym::Expr> term_vars(std::size_t k) const { return vars_of(spec_.terms[k]); }
  std::vector<sym::Expr> out_vars() const { return vars_of(spec_.out); }

  /// Reads `data` at `at` into connector `conn` of `dst`, through the outer map if there is one.
  void connect_in(const std::string& data, const Subset& at, NodeId entry, NodeId dst,
                  const std::string& conn, NodeId inner_entry = kNoNode) {
    AccessNode& a = st_.add_access(data);
    std::vector<NodeId> path{a.id()};
    if (entry != kNoNode) path.push_back(entry);
    if (inner_entry != kNoNode) path.push_back(inner_entry);
    path.push_back(dst);
    st_.add_memlet_path(path, Memlet::simple(data, at), "", conn);
  }

  /// The accumulator of one output element: 0, then the products added over the contracted
  /// indices (a Sequential map whose tasklet writes it with WCR). Returns its last access node.
  NodeId accumulate(NodeId entry, const std::map<char, sym::Expr>& extent) {
    DataDescriptor acc = DataDescriptor::make_scalar(ops_[inputs_].desc.dtype.base, true);
    acc.storage = StorageType::Register;
    sdfg_.add_data("__acc", acc);
    const Subset at({Range::index(sym::Expr(0))});
    Tasklet& zero = st_.add_tasklet("einsum_zero", CodeBlock{"__out = 0", Language::Python}, {}, {"__out"});
    if (entry != kNoNode) st_.add_edge(entry, "", zero.id(), "", Memlet{});
    AccessNode& first = st_.add_access("__acc");
    st_.add_edge(zero.id(), "__out", first.id(), "", Memlet::simple("__acc", at));
    std::vector<std::string> params, ins;
    std::vector<Range> range;
    for (char c : contracted_) {
      params.push_back(var(c));
      range.emplace_back(sym::Expr(0), extent.at(c) - sym::Expr(1));
    }
    MapEntry& sum = st_.add_map("einsum_sum", params, Subset(range), ScheduleType::Sequential);
    st_.add_edge(first.id(), "", sum.id(), "", Memlet{});
    std::string prod;
    for (std::size_t k = 0; k < inputs_; ++k) {
      ins.push_back("__in" + std::to_string(k));
      prod += (prod.empty() ? "" : " * ") + ins.back();
    }
    Tasklet& mul =
        st_.add_tasklet("einsum_product", CodeBlock{"__out = " + prod, Language::Python}, ins, {"__out"});
    for (std::size_t k = 0; k < inputs_; ++k)
      connect_in(ops_[k].name, element(ops_[k], term_vars(k)), entry, mul.id(), ins[k], sum.id());
    AccessNode& last = st_.add_access("__acc");
    st_.add_memlet_path({mul.id(), sum.exit, last.id()}, Memlet::simple("__acc", at, "lambda a, b: a + b"),
                        "__out", "");
    return last.id();
  }

  SDFG& sdfg_;
  SDFGState& st_;
  const EinsumSpec& spec_;
  const std::vector<LibraryOperand>& ops_;
  std::size_t inputs_;
  std::string contracted_;
};

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
  EinsumBuilder(*inner, st, spec, ops, inputs.size())
      .build(extent, coefficient(site, "alpha", "1"), coefficient(site, "beta", "0"), coeff_names);
  return inner;
}

}  // namespace weir::transforms::detail
