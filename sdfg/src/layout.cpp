// Memory layout rules of data descriptors (ADR 0037): what in-bounds indices reach, and the
// conditions that keep it inside the container's memory.
#include "weir/sdfg/layout.h"

#include <map>

namespace weir {

namespace {

std::string list_text(const std::vector<sym::Expr>& v) {
  std::string s = "[";
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + v[i].str();
  return s + "]";
}

std::vector<sym::Expr> strides_of(const DataDescriptor& d) {
  return d.strides.size() == d.shape.size() ? d.strides : DataDescriptor::row_major_strides(d.shape);
}

bool provably_zero_extent(const std::vector<sym::Expr>& extents) {
  for (const auto& e : extents)
    if (auto v = e.as_integer(); v && *v <= 0) return true;
  return false;
}

}  // namespace

sym::Expr last_reached_element(const DataDescriptor& d) {
  const std::vector<sym::Expr> strides = strides_of(d);
  std::vector<sym::Expr> terms{d.start_offset};
  for (std::size_t k = 0; k < d.shape.size(); ++k) terms.push_back((d.shape[k] - sym::Expr(1)) * strides[k]);
  return sym::Expr::sum(terms);
}

sym::Expr allocated_elements(const DataDescriptor& d) {
  if (auto n = d.total_size.as_integer(); n && *n <= 0) {
    sym::Expr p(1);
    for (const auto& s : d.shape) p *= s;
    return p;
  }
  return d.total_size;
}

std::optional<sym::Expr> subset_reach(const DataDescriptor& viewed, const Subset& subset) {
  if (subset.dims() != viewed.shape.size()) return std::nullopt;
  const std::vector<sym::Expr> strides = strides_of(viewed);
  std::vector<sym::Expr> terms;
  for (std::size_t k = 0; k < subset.dims(); ++k) {
    const Range& r = subset[k];
    if (r.tile != sym::Expr(1)) return std::nullopt;
    terms.push_back((r.end - r.start) * strides[k]);
  }
  return sym::Expr::sum(terms);
}

std::vector<LayoutCondition> layout_conditions(const std::string& name, const DataDescriptor& d) {
  std::vector<LayoutCondition> out;
  if (d.kind != DataKind::Array && d.kind != DataKind::View && d.kind != DataKind::Reference) return out;
  if (!d.strides.empty() && d.strides.size() != d.shape.size()) return out;  // desc-strides says so
  const std::string what = "container '" + name + "'";
  const std::vector<sym::Expr> strides = strides_of(d);
  for (std::size_t k = 0; k < strides.size(); ++k) {
    // A dimension of extent 1 has only the index 0 + offset: its stride is never multiplied by
    // anything but 0 (DaCe writes any stride there), so only extents of 2 or more need it.
    std::vector<sym::Expr> nonempty = d.shape;
    nonempty[k] = d.shape[k] - sym::Expr(1);
    out.push_back({"strides", strides[k], nonempty,
                   what + " has stride " + strides[k].str() + " in dimension " + std::to_string(k) +
                       " (strides " + list_text(strides) + "): strides must be non-negative"});
  }
  out.push_back({"start_offset",
                 d.start_offset,
                 {},
                 what + " has start_offset " + d.start_offset.str() + ": it must be non-negative"});
  if (auto n = d.total_size.as_integer(); n && *n < 0) {
    out.push_back({"total_size",
                   d.total_size,
                   {},
                   what + " has total_size " + d.total_size.str() + ": it must be non-negative"});
    return out;
  }
  if (d.transient && !d.is_view()) {
    const sym::Expr last = last_reached_element(d);
    const sym::Expr need = last + sym::Expr(1);
    out.push_back({"total_size", allocated_elements(d) - need, d.shape,
                   what + " has total_size " + d.total_size.str() + ", but its shape " + list_text(d.shape) +
                       " with strides " + list_text(strides) + " and start_offset " + d.start_offset.str() +
                       " reaches element " + last.str() + ": total_size must be at least " + need.str() +
                       " (weir allocates total_size elements)"});
  }
  return out;
}

std::optional<LayoutCondition> reach_condition(const std::string& inner_name, const DataDescriptor& inner,
                                               const std::string& outer_name, const DataDescriptor& outer,
                                               const Subset& subset, const std::string& what) {
  if (inner.is_scalar() || outer.is_scalar()) return std::nullopt;
  if (!inner.strides.empty() && inner.strides.size() != inner.shape.size()) return std::nullopt;
  if (!outer.strides.empty() && outer.strides.size() != outer.shape.size()) return std::nullopt;
  auto room = subset_reach(outer, subset);
  if (!room) return std::nullopt;
  const sym::Expr last = last_reached_element(inner);
  sym::Expr value = *room - last;
  // A range ending at Max(a, b) reaches at least to a, and one starting at Min(a, b) starts at
  // most at a (with non-negative strides): when such a narrower range already holds the inner
  // container, so does the range (propagated memlets of scans end at Max of two sizes).
  if (holds(LayoutCondition{"", value, inner.shape, ""}) != true) {
    for (std::size_t k = 0; k < subset.dims(); ++k) {
      const Range& r = subset[k];
      std::vector<Range> narrower;
      if (r.end.kind() == sym::Kind::Max)
        for (const auto& a : r.end.args()) narrower.emplace_back(r.start, a, r.step, r.tile);
      if (r.start.kind() == sym::Kind::Min)
        for (const auto& a : r.start.args()) narrower.emplace_back(a, r.end, r.step, r.tile);
      for (const Range& n : narrower) {
        std::vector<Range> ranges = subset.ranges();
        ranges[k] = n;
        auto narrow_room = subset_reach(outer, Subset(ranges));
        if (narrow_room && holds(LayoutCondition{"", *narrow_room - last, inner.shape, ""}) == true) {
          value = *narrow_room - last;
          break;
        }
      }
    }
  }
  std::string s = subset.str();
  return LayoutCondition{"shape, strides or start_offset", value, inner.shape,
                         what + " (shape " + list_text(inner.shape) + ", strides " +
                             list_text(strides_of(inner)) + ", start_offset " + inner.start_offset.str() +
                             ") reaches element " + last.str() + " from the start of " + outer_name + "[" +
                             s + "], which holds elements 0.." + room->str() + " of '" + outer_name +
                             "' (strides " + list_text(strides_of(outer)) +
                             "): its accesses would leave the memory it is bound to"};
}

std::optional<LayoutCondition> nested_argument_reach(const SDFG& outer, const NestedSDFGNode& n,
                                                     const DataflowEdge& e, bool incoming) {
  if (!n.sdfg || e.memlet.is_empty()) return std::nullopt;
  const std::string& conn = incoming ? e.dst_conn : e.src_conn;
  auto in = n.sdfg->arrays.find(conn);
  if (in == n.sdfg->arrays.end() || in->second.transient || in->second.is_scalar()) return std::nullopt;
  auto out = outer.arrays.find(e.memlet.data);
  if (out == outer.arrays.end()) return std::nullopt;
  // The inner descriptor in the outer SDFG's symbols.
  DataDescriptor d = in->second;
  for (auto* list : {&d.shape, &d.strides, &d.offset})
    for (auto& x : *list) x = x.subs(n.symbol_mapping);
  d.start_offset = d.start_offset.subs(n.symbol_mapping);
  // DaCe's copy of the outer container's descriptor, under its name, for an argument bound to a
  // part of it (syrk's loop_body: C [N, N] at C[i, 0:i + 1]): its shape over-approximates what
  // the body accesses, so its reach says nothing (ADR 0037).
  if (e.memlet.data == conn && d.shape == out->second.shape) return std::nullopt;
  return reach_condition(conn, d, e.memlet.data, out->second, e.memlet.subset,
                         "argument '" + conn + "' of nested SDFG '" + n.sdfg->name + "'");
}

namespace {

/// `value` under the assumption that every extent of `extents` is >= 1: an extent `s + rest`
/// (symbol `s` with coefficient 1, `rest` free of it) becomes >= 1 by writing s as s' + 1 - rest
/// with s' >= 0 (renamed s again), substituted into the value and the later extents. Proving
/// the result >= 0 for non-negative symbols proves the value >= 0 wherever the extents are >= 1
/// (sound: the substitution covers exactly that region, and drops only the constraint s >= 0).
sym::Expr assuming_nonempty(sym::Expr value, std::vector<sym::Expr> extents) {
  for (std::size_t k = 0; k < extents.size(); ++k) {
    const sym::Expr e = extents[k];
    for (const std::string& name : e.free_symbols()) {
      const sym::Expr s = sym::Expr::symbol(name);
      const sym::Expr rest = e.subs({{name, sym::Expr(0)}});
      if (rest.free_symbols().count(name) || e - rest != s) continue;
      const std::map<std::string, sym::Expr> m{{name, s + sym::Expr(1) - rest}};
      value = value.subs(m);
      for (std::size_t j = k + 1; j < extents.size(); ++j) extents[j] = extents[j].subs(m);
      break;
    }
  }
  return value;
}

}  // namespace

std::optional<bool> holds(const LayoutCondition& c) {
  if (provably_zero_extent(c.nonempty)) return true;
  if (c.value.nonnegative_if_symbols_nonnegative()) return true;
  try {
    if (!c.nonempty.empty() && assuming_nonempty(c.value, c.nonempty).nonnegative_if_symbols_nonnegative())
      return true;
  } catch (const sym::SymbolicError&) {
    // (an overflow while substituting: not provable this way)
  }
  // Constant and negative: fails whenever the container has elements (a symbolic extent that
  // may be 0 makes it useless rather than right).
  if (auto v = c.value.as_integer()) return *v >= 0;
  return std::nullopt;
}

}  // namespace weir
