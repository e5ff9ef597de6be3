// The contraction expansion shared by Einsum (expand_einsum.cpp) and the BLAS nodes
// (expand_blas.cpp): out[o] = alpha * sum over the contracted indices of the product of the
// inputs (+ beta * addend[o]), as a map over the output indices and, per output element, a
// Register accumulator set to 0 and a Sequential map with WCR over the contracted indices.
#include <algorithm>

#include "library_expansion_internal.h"
#include "weir/sdfg/library_attributes.h"

namespace weir::transforms::detail {

namespace {

bool is_one(const sym::Expr& e) { return e.is_integer() && e.value() == 1; }

/// Builds the state of one Contraction over `ops` (see build_contraction).
class ContractionBuilder {
 public:
  ContractionBuilder(SDFG& sdfg, SDFGState& st, const Contraction& c, const std::vector<LibraryOperand>& ops)
      : sdfg_(sdfg), st_(st), c_(c), ops_(ops) {}

  void build() {
    for (const auto& [idx, e] : c_.extent)
      if (c_.out.find(idx) == std::string::npos) contracted_ += idx;
    // The outer map over the output's indices (none for a scalar output).
    NodeId entry = kNoNode, exit = kNoNode;
    if (!c_.out.empty()) {
      std::vector<std::string> params;
      std::vector<Range> range;
      for (char idx : c_.out) {
        params.push_back(var(idx));
        range.emplace_back(sym::Expr(0), c_.extent.at(idx) - sym::Expr(1));
      }
      MapEntry& e = st_.add_map(c_.name, params, Subset(range));
      entry = e.id();
      exit = e.exit;
    }
    // The final tasklet: out = alpha * sum + beta * addend (alpha 1 is left out).
    std::vector<std::string> fin_in;
    std::string value = c_.alpha == "1" ? "" : "(" + c_.alpha + ")";
    // Tasklet connectors may not shadow containers: `_alpha` is read as `__alpha`.
    for (const auto& k : c_.coeffs) {
      fin_in.push_back("_" + k);
      if (k == "_alpha") value += (value.empty() ? "" : " * ") + std::string("__alpha");
    }
    const bool has_beta = std::find(c_.coeffs.begin(), c_.coeffs.end(), "_beta") != c_.coeffs.end();
    const bool with_beta = !(c_.beta == "0" || c_.beta == "0.0") || has_beta;
    const LibraryOperand& out = ops_[c_.inputs];
    std::string sum;
    if (contracted_.empty()) {
      for (std::size_t k = 0; k < c_.inputs; ++k) {
        fin_in.push_back("__in" + std::to_string(k));
        sum += (sum.empty() ? "" : " * ") + fin_in.back();
      }
    } else {
      fin_in.push_back("__sum");
      sum = "__sum";
    }
    std::string code = "__out = " + (value.empty() ? sum : value + " * (" + sum + ")");
    if (with_beta) {
      fin_in.push_back("__cur");
      std::string b = c_.beta == "1" ? "" : "(" + c_.beta + ")";
      if (has_beta) b += (b.empty() ? "" : " * ") + std::string("__beta");
      code += " + " + (b.empty() ? std::string() : b + " * ") + "__cur";
    }
    Tasklet& fin = st_.add_tasklet(c_.name + "_out", CodeBlock{code, Language::Python}, fin_in, {"__out"});
    for (const auto& k : c_.coeffs)
      connect_in(k, Subset({Range::index(sym::Expr(0))}), entry, fin.id(), "_" + k);
    if (contracted_.empty()) {
      for (std::size_t k = 0; k < c_.inputs; ++k)
        connect_in(ops_[k].name, element(ops_[k], vars_of(c_.terms[k])), entry, fin.id(),
                   "__in" + std::to_string(k));
    } else {
      NodeId acc = accumulate(entry);
      st_.add_edge(acc, "", fin.id(), "__sum", Memlet::simple("__acc", Subset({Range::index(sym::Expr(0))})));
    }
    const Subset out_at = element(out, vars_of(c_.out));
    if (with_beta) {
      const LibraryOperand& add = ops_[c_.addend.value_or(c_.inputs)];
      connect_in(add.name, element(add, vars_of(c_.out)), entry, fin.id(), "__cur");
    }
    AccessNode& o = st_.add_access(out.name);
    if (exit == kNoNode)
      st_.add_edge(fin.id(), "__out", o.id(), "", Memlet::simple(out.name, out_at));
    else
      st_.add_memlet_path({fin.id(), exit, o.id()}, Memlet::simple(out.name, out_at), "__out", "");
  }

 private:
  std::string var(char idx) const { return c_.prefix + idx; }
  std::vector<sym::Expr> vars_of(const std::string& letters) const {
    std::vector<sym::Expr> v;
    for (char idx : letters) v.push_back(sym::Expr::symbol(var(idx)));
    return v;
  }

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
  NodeId accumulate(NodeId entry) {
    DataDescriptor acc = DataDescriptor::make_scalar(ops_[c_.inputs].desc.dtype.base, true);
    acc.storage = StorageType::Register;
    sdfg_.add_data("__acc", acc);
    const Subset at({Range::index(sym::Expr(0))});
    Tasklet& zero =
        st_.add_tasklet(c_.name + "_zero", CodeBlock{"__out = 0", Language::Python}, {}, {"__out"});
    if (entry != kNoNode) st_.add_edge(entry, "", zero.id(), "", Memlet{});
    AccessNode& first = st_.add_access("__acc");
    st_.add_edge(zero.id(), "__out", first.id(), "", Memlet::simple("__acc", at));
    std::vector<std::string> params, ins;
    std::vector<Range> range;
    for (char idx : contracted_) {
      params.push_back(var(idx));
      range.emplace_back(sym::Expr(0), c_.extent.at(idx) - sym::Expr(1));
    }
    MapEntry& sum = st_.add_map(c_.name + "_sum", params, Subset(range), ScheduleType::Sequential);
    st_.add_edge(first.id(), "", sum.id(), "", Memlet{});
    std::string prod;
    for (std::size_t k = 0; k < c_.inputs; ++k) {
      ins.push_back("__in" + std::to_string(k));
      prod += (prod.empty() ? "" : " * ") + ins.back();
    }
    if (!c_.summand.empty()) prod = c_.summand;
    Tasklet& mul =
        st_.add_tasklet(c_.name + "_product", CodeBlock{"__out = " + prod, Language::Python}, ins, {"__out"});
    for (std::size_t k = 0; k < c_.inputs; ++k)
      connect_in(ops_[k].name, element(ops_[k], vars_of(c_.terms[k])), entry, mul.id(), ins[k], sum.id());
    AccessNode& last = st_.add_access("__acc");
    st_.add_memlet_path({mul.id(), sum.exit, last.id()}, Memlet::simple("__acc", at, "lambda a, b: a + b"),
                        "__out", "");
    return last.id();
  }

  SDFG& sdfg_;
  SDFGState& st_;
  const Contraction& c_;
  const std::vector<LibraryOperand>& ops_;
  std::string contracted_;
};

}  // namespace

std::vector<std::size_t> squeezed(const LibraryOperand& op) {
  std::vector<std::size_t> dims;
  if (!op.desc.is_scalar())
    for (std::size_t d = 0; d < op.desc.shape.size(); ++d)
      if (!is_one(op.desc.shape[d])) dims.push_back(d);
  return dims;
}

Subset element(const LibraryOperand& op, const std::vector<sym::Expr>& vars) {
  if (op.desc.is_scalar()) return Subset({Range::index(sym::Expr(0))});
  std::vector<Range> r(op.desc.shape.size(), Range::index(sym::Expr(0)));
  auto dims = squeezed(op);
  for (std::size_t k = 0; k < dims.size(); ++k) r[dims[k]] = Range::index(vars[k]);
  return Subset(r);
}

std::string numeric_attribute(const ExpansionSite& site, const std::string& key, const std::string& dflt) {
  if (auto v = numeric_library_attribute(site.node, key, dflt)) return *v;
  throw site.error(site.node.class_name() + " attribute '" + key + "' = " + *site.node.extra.find(key) +
                   " is not a number; the CPU code generator supports numeric values only");
}

void build_contraction(SDFG& sdfg, SDFGState& st, const Contraction& c,
                       const std::vector<LibraryOperand>& ops) {
  ContractionBuilder(sdfg, st, c, ops).build();
}

std::unique_ptr<SDFG> contraction_sdfg(const ExpansionSite& site, const Contraction& c,
                                       const std::vector<LibraryOperand>& ops) {
  for (const auto& op : ops)
    if (op.name == "__acc")
      throw site.error(site.node.class_name() + " connector '__acc' is reserved by its expansion");
  std::unique_ptr<SDFG> inner = expansion_sdfg(site, ops);
  SDFGState& st = inner->add_state(c.name, true);
  build_contraction(*inner, st, c, ops);
  return inner;
}

}  // namespace weir::transforms::detail
