// The default expansion of MatMul, Gemm and Gemv (implementation empty, or a CBLAS one that
// CBLAS cannot take): the output cut into blocks along one dimension, per block a nested SDFG
// whose row buffers (transients of one row each, private to the call, so to the thread)
// accumulate the products with k outermost, then the rows written at once:
//
//   map b over blocks (Default):                       per block (nested SDFG `<name>_row`):
//     __row[w] = 0                                        (Sequential map over w)
//     for k by 4: for w: __row[w] = (((__row[w] + u0 * v0) + u1 * v1) + u2 * v2) + u3 * v3
//     for the last K % 4 k: for w: __row[w] = __row[w] + u * v (Sequential maps k, then w)
//     out[w] = alpha * __row[w] (+ beta * add[w])         (Sequential map over w)
//
// A matrix product (out "ij") takes two rows per block (buffers __row and __row1, one tasklet
// updating both: each load of B serves two rows), an odd last row a second map of one-row
// blocks; w runs over j, a unit-stride loop over B's row k that the compiler vectorizes, where
// the dot product over k reads a column of B. A vector result takes blocks of 256 elements (w
// over the block), or of 8 rows where the matrix runs along k with unit stride (eight sums in
// flight, each row read along k). Each element sums its products in k order from 0, as the pure
// expansion's dot product and codegen's loops before it did: bit-identical results. Anything
// else (a batch dimension, a scalar result, a node in GPU code) is the pure expansion
// (contraction_expansion.cpp).
#include <algorithm>

#include "library_expansion_internal.h"
#include "weir/transforms/memlet_propagation.h"

namespace weir::transforms::detail {

namespace {

bool is_one(const sym::Expr& e) { return e.is_integer() && e.value() == 1; }

/// How the output is cut: blocks of `block` along index `blocked`; per block the row buffer
/// runs over `wide` (for a vector result, the blocked index itself).
struct RowPlan {
  char blocked = 'i';
  std::int64_t block = 1;
  char wide = 'j';
};

/// The row plan of `c` over `ops`, or none where the node is not a product of two inputs with a
/// contracted index and a result of rank 1 or 2 without batch.
std::optional<RowPlan> row_plan(const Contraction& c, const std::vector<LibraryOperand>& ops) {
  if (!c.coeffs.empty() || !c.summand.empty() || c.inputs != 2 || !c.extent.count('k')) return std::nullopt;
  if (c.out == "ij") return RowPlan{'i', 1, 'j'};
  if (c.out.size() != 1) return std::nullopt;
  const char o = c.out[0];
  for (std::size_t t = 0; t < 2; ++t) {
    const std::string& letters = c.terms[t];
    if (letters.size() != 2) continue;
    const std::vector<std::size_t> dims = squeezed(ops[t]);
    const sym::Expr& sk = ops[t].desc.strides[dims[letters.find('k')]];
    const sym::Expr& so = ops[t].desc.strides[dims[letters.find(o)]];
    return RowPlan{o, is_one(sk) && !is_one(so) ? 8 : 256, o};
  }
  return std::nullopt;
}

/// Builds the expansion of one node (see the file comment).
class RowBuilder {
 public:
  RowBuilder(const ExpansionSite& site, const Contraction& c, const std::vector<LibraryOperand>& ops,
             const RowPlan& plan)
      : site_(site), c_(c), ops_(ops), plan_(plan) {}

  std::unique_ptr<SDFG> build() {
    auto outer = expansion_sdfg(site_, ops_);
    SDFGState& st = outer->add_state(c_.name, true);
    const sym::Expr len = c_.extent.at(plan_.blocked), b = sym::Expr::symbol(kBlock);
    if (plan_.blocked != plan_.wide) {
      // Pairs of rows, then the last row where the count is odd (a map of 0 or 1 points).
      const sym::Expr pairs = sym::Expr::floordiv(len, sym::Expr(2));
      add_blocks(*outer, st, "_rows", Range(sym::Expr(0), pairs - sym::Expr(1)), sym::Expr(2) * b, 2);
      add_blocks(*outer, st, "_last_row", Range(sym::Expr(2) * pairs, len - sym::Expr(1)), b, 1);
      return outer;
    }
    const sym::Expr blocks = sym::Expr::floordiv(len + sym::Expr(plan_.block - 1), sym::Expr(plan_.block));
    add_blocks(*outer, st, "_rows", Range(sym::Expr(0), blocks - sym::Expr(1)), sym::Expr(plan_.block) * b,
               1);
    return outer;
  }

 private:
  static constexpr const char* kBlock = "__bblk";
  static constexpr const char* kLength = "__bn";
  static constexpr const char* kRow = "__row";

  /// Fixed rows per block (a matrix product), or none: the block runs along the row buffer.
  bool fixed_rows() const { return plan_.blocked != plan_.wide; }

  /// A map of `range` over blocks whose first element along `blocked` is `first` (in the map's
  /// parameter), each the nested SDFG of `rows` fixed rows (a matrix product) or of a block of
  /// up to plan_.block elements (a vector result).
  void add_blocks(const SDFG& outer, SDFGState& st, const std::string& tag, const Range& range,
                  const sym::Expr& first, int rows) {
    first_ = first;
    rows_ = rows;
    MapEntry& map = st.add_map(c_.name + tag, {kBlock}, Subset({range}));
    std::map<std::string, sym::Expr> mapping;
    if (!fixed_rows())
      mapping.emplace(kLength,
                      sym::Expr::min(first_ + sym::Expr(plan_.block), c_.extent.at(plan_.blocked)) - first_);
    auto row = row_sdfg(outer, c_.name + tag);
    for (const auto& [s, t] : row->symbols) mapping.emplace(s, sym::Expr::symbol(s));
    std::vector<std::string> ins, outs;
    for (std::size_t k = 0; k < ops_.size(); ++k) (ops_[k].incoming ? ins : outs).push_back(ops_[k].name);
    const std::string label = row->name;
    NestedSDFGNode& nest = st.add_nested_sdfg(label, std::move(row), ins, outs, mapping);
    for (std::size_t k = 0; k < ops_.size(); ++k) {
      AccessNode& a = st.add_access(ops_[k].name);
      const Memlet m = Memlet::simple(ops_[k].name, block_subset(k));
      if (ops_[k].incoming)
        st.add_memlet_path({a.id(), map.id(), nest.id()}, m, "", ops_[k].name);
      else
        st.add_memlet_path({nest.id(), map.exit, a.id()}, m, ops_[k].name, "");
    }
  }

  /// The row buffer of fixed row `r` (the only one of a vector result's block).
  static std::string buffer(int r) { return r == 0 ? std::string(kRow) : kRow + std::to_string(r); }

  /// The index letters of ops[k] (its non-unit dimensions in order).
  const std::string& letters(std::size_t k) const {
    return k < c_.inputs ? c_.terms[k] : c_.out;  // the output and the addend have the output's
  }

  /// The range of ops[k] one block reads or writes: the block along `blocked`, all of the rest.
  Subset block_subset(std::size_t k) const {
    const DataDescriptor& d = ops_[k].desc;
    if (d.is_scalar()) return Subset({Range::index(sym::Expr(0))});
    std::vector<Range> r;
    for (const auto& s : d.shape) r.emplace_back(sym::Expr(0), s - sym::Expr(1));
    const std::vector<std::size_t> dims = squeezed(ops_[k]);
    const std::size_t at = letters(k).find(plan_.blocked);
    if (at != std::string::npos) {
      const sym::Expr end =
          fixed_rows()
              ? first_ + sym::Expr(rows_ - 1)
              : sym::Expr::min(first_ + sym::Expr(plan_.block), c_.extent.at(plan_.blocked)) - sym::Expr(1);
      r[dims[at]] = Range(first_, end);
    }
    return Subset(r);
  }

  /// ops[k] as the row SDFG sees it: the block's part (of length `__bn`, or 1) of the operand.
  DataDescriptor block_descriptor(std::size_t k) const {
    DataDescriptor d = ops_[k].desc;
    if (d.is_scalar()) return d;
    const std::size_t at = letters(k).find(plan_.blocked);
    if (at == std::string::npos) return d;
    d.shape[squeezed(ops_[k])[at]] = fixed_rows() ? sym::Expr(rows_) : sym::Expr::symbol(kLength);
    sym::Expr last{0};
    for (std::size_t x = 0; x < d.shape.size(); ++x) last = last + (d.shape[x] - sym::Expr(1)) * d.strides[x];
    d.total_size = last + sym::Expr(1);
    return d;
  }

  /// The element of ops[k] at (k, w) in the row SDFG: the contracted index at `kx`, the row's
  /// at `__bw`, a fixed row's index at `r`.
  Subset at(std::size_t k, const sym::Expr& kx, int r = 0) const {
    const DataDescriptor& d = ops_[k].desc;
    if (d.is_scalar()) return Subset({Range::index(sym::Expr(0))});
    const int row = r;
    std::vector<Range> rg(d.shape.size(), Range::index(sym::Expr(0)));
    const std::vector<std::size_t> dims = squeezed(ops_[k]);  // of the whole operand: one per letter
    for (std::size_t x = 0; x < dims.size(); ++x) {
      const char l = letters(k)[x];
      if (l == 'k')
        rg[dims[x]] = Range::index(kx);
      else if (l == plan_.blocked && fixed_rows())
        rg[dims[x]] = Range::index(sym::Expr(row));
      else
        rg[dims[x]] = Range::index(sym::Expr::symbol("__bw"));
    }
    return Subset(rg);
  }

  /// The nested SDFG of one block, named `name`: the operands' block parts, the transient row
  /// buffers (one per fixed row), one state.
  std::unique_ptr<SDFG> row_sdfg(const SDFG& outer, const std::string& name) const {
    auto row = std::make_unique<SDFG>(outer.name + name.substr(c_.name.size()));
    for (std::size_t k = 0; k < ops_.size(); ++k) row->add_data(ops_[k].name, block_descriptor(k));
    const sym::Expr width = fixed_rows() ? c_.extent.at(plan_.wide) : sym::Expr::symbol(kLength);
    const ScalarType t = ops_[c_.inputs].desc.dtype.base;
    for (int r = 0; r < rows_; ++r) row->add_data(buffer(r), DataDescriptor::make_array(t, {width}, true));
    for (const auto& [data, d] : row->arrays)
      for (const std::string& s : d.free_symbols())
        if (!row->symbols.count(s))
          row->add_symbol(s, outer.symbols.count(s) ? outer.symbols.at(s).base : ScalarType::Int64);
    SDFGState& st = row->add_state(name, true);
    const Subset w_range({Range(sym::Expr(0), width - sym::Expr(1))});
    // __row[w] = 0
    MapEntry& zero_map = st.add_map(c_.name + "_zero", {"__bw"}, w_range, ScheduleType::Sequential);
    std::vector<std::string> outs;
    std::string code;
    for (int r = 0; r < rows_; ++r) {
      outs.push_back("__out" + std::to_string(r));
      code += (r ? "\n" : "") + outs.back() + " = 0";
    }
    Tasklet& zero = st.add_tasklet(c_.name + "_zero", CodeBlock{code, Language::Python}, {}, outs);
    st.add_edge(zero_map.id(), "", zero.id(), "", Memlet{});
    std::vector<NodeId> zeroed;
    for (int r = 0; r < rows_; ++r) {
      zeroed.push_back(st.add_access(buffer(r)).id());
      st.add_memlet_path({zero.id(), zero_map.exit, zeroed.back()}, Memlet::simple(buffer(r), at_w()),
                         outs[r], "");
    }
    // for k in fours: for w: __row[w] = (((__row[w] + u0 * v0) + u1 * v1) + u2 * v2) + u3 * v3,
    // then the last K % 4 one at a time: each element's sum in k order, a load and store of the
    // row per four k.
    const sym::Expr ks = c_.extent.at('k'), fours = sym::Expr::floordiv(ks, sym::Expr(4));
    const std::vector<NodeId> by_four =
        add_products(st, zeroed, "__bq", Range(sym::Expr(0), fours - sym::Expr(1)), 4, w_range);
    const std::vector<NodeId> summed =
        add_products(st, by_four, "__bk", Range(sym::Expr(4) * fours, ks - sym::Expr(1)), 1, w_range);
    // out[w] = alpha * __row[w] (+ beta * add[w])
    write_rows(st, summed, w_range);
    propagate_memlets(*row);
    return row;
  }

  static Subset at_w() { return Subset({Range::index(sym::Expr::symbol("__bw"))}); }

  /// A Sequential map of `param` over `range` around a Sequential map over the row, whose tasklet
  /// adds `unroll` products to each row buffer at w (k = unroll * param + q, q = 0, 1, ...; left
  /// to right), from the access nodes `from` (one per buffer) to the ones returned.
  std::vector<NodeId> add_products(SDFGState& st, const std::vector<NodeId>& from, const std::string& param,
                                   const Range& range, int unroll, const Subset& w_range) const {
    const std::string tag = unroll == 1 ? "_k" : "_k" + std::to_string(unroll);
    MapEntry& k_map = st.add_map(c_.name + tag, {param}, Subset({range}), ScheduleType::Sequential);
    MapEntry& w_map = st.add_map(c_.name + tag + "_w", {"__bw"}, w_range, ScheduleType::Sequential);
    std::vector<std::string> ins, outs;
    std::string code;
    for (int q = 0; q < unroll; ++q) ins.push_back("__in1_" + std::to_string(q));
    for (int r = 0; r < rows_; ++r) {
      const std::string acc = "__acc" + std::to_string(r);
      ins.push_back(acc);
      outs.push_back("__out" + std::to_string(r));
      std::string sum = acc;
      for (int q = 0; q < unroll; ++q) {
        ins.push_back("__in0_" + std::to_string(r) + "_" + std::to_string(q));
        sum = (q == 0 ? sum : "(" + sum + ")") + " + " + ins.back() + " * __in1_" + std::to_string(q);
      }
      code += (r ? "\n" : "") + outs.back() + " = " + sum;
    }
    Tasklet& add = st.add_tasklet(c_.name + tag + "_product", CodeBlock{code, Language::Python}, ins, outs);
    auto read = [&](NodeId src, const std::string& data, const Subset& at, const std::string& conn) {
      st.add_memlet_path({src, k_map.id(), w_map.id(), add.id()}, Memlet::simple(data, at), "", conn);
    };
    for (int q = 0; q < unroll; ++q) {
      const sym::Expr kx = sym::Expr(unroll) * sym::Expr::symbol(param) + sym::Expr(q);
      read(st.add_access(ops_[1].name).id(), ops_[1].name, at(1, kx), "__in1_" + std::to_string(q));
      // The row operand: one element per fixed row (the same for a vector result's block).
      for (int r = 0; r < rows_; ++r)
        read(st.add_access(ops_[0].name).id(), ops_[0].name, at(0, kx, r),
             "__in0_" + std::to_string(r) + "_" + std::to_string(q));
    }
    std::vector<NodeId> summed;
    for (int r = 0; r < rows_; ++r) {
      read(from[r], buffer(r), at_w(), "__acc" + std::to_string(r));
      summed.push_back(st.add_access(buffer(r)).id());
      st.add_memlet_path({add.id(), w_map.exit, k_map.exit, summed.back()}, Memlet::simple(buffer(r), at_w()),
                         outs[r], "");
    }
    return summed;
  }

  /// The map writing the rows: out = alpha * sum + beta * addend (alpha 1 and beta 1 left out, as
  /// the contraction's final tasklet).
  void write_rows(SDFGState& st, const std::vector<NodeId>& summed, const Subset& w_range) const {
    const bool with_beta = !(c_.beta == "0" || c_.beta == "0.0");
    std::vector<std::string> ins, outs;
    std::string code;
    for (int r = 0; r < rows_; ++r) {
      const std::string n = std::to_string(r);
      ins.push_back("__sum" + n);
      outs.push_back("__out" + n);
      code += (r ? "\n" : "") + outs.back() + " = " +
              (c_.alpha == "1" ? ins.back() : "(" + c_.alpha + ") * (" + ins.back() + ")");
      if (with_beta) code += " + " + (c_.beta == "1" ? std::string() : "(" + c_.beta + ") * ") + "__cur" + n;
    }
    if (with_beta)
      for (int r = 0; r < rows_; ++r) ins.push_back("__cur" + std::to_string(r));
    MapEntry& map = st.add_map(c_.name + "_write", {"__bw"}, w_range, ScheduleType::Sequential);
    Tasklet& fin = st.add_tasklet(c_.name + "_out", CodeBlock{code, Language::Python}, ins, outs);
    const std::size_t add = c_.addend.value_or(c_.inputs), out = c_.inputs;
    const sym::Expr k0(0);
    for (int r = 0; r < rows_; ++r) {
      const std::string n = std::to_string(r);
      st.add_memlet_path({summed[r], map.id(), fin.id()}, Memlet::simple(buffer(r), at_w()), "", "__sum" + n);
      if (with_beta)
        st.add_memlet_path({st.add_access(ops_[add].name).id(), map.id(), fin.id()},
                           Memlet::simple(ops_[add].name, at(add, k0, r)), "", "__cur" + n);
      st.add_memlet_path({fin.id(), map.exit, st.add_access(ops_[out].name).id()},
                         Memlet::simple(ops_[out].name, at(out, k0, r)), "__out" + n, "");
    }
  }

  const ExpansionSite& site_;
  const Contraction& c_;
  const std::vector<LibraryOperand>& ops_;
  RowPlan plan_;
  sym::Expr first_{0};
  int rows_ = 1;
};

}  // namespace

std::unique_ptr<SDFG> expand_blas_rows(const ExpansionSite& site, std::vector<LibraryOperand>& ops) {
  Contraction c = blas_contraction(site, ops);
  for (const auto& op : ops)
    if (op.name.rfind("__b", 0) == 0 || op.name.rfind("__row", 0) == 0)
      throw site.error(site.node.class_name() + " connector '" + op.name + "' is reserved by its expansion");
  std::optional<RowPlan> plan = row_plan(c, ops);
  if (!plan) return contraction_sdfg(site, c, ops);
  return RowBuilder(site, c, ops, *plan).build();
}

}  // namespace weir::transforms::detail
