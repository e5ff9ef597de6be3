// Memlet propagation through map scopes (DaCe's propagate_memlet, for affine indices).
#include "weir/transforms/memlet_propagation.h"

#include "map_propagation.h"

#include <algorithm>

#include "dataflow_util.h"
#include "weir/sdfg/symbolic_hull.h"

namespace weir::transforms {

namespace {

using sym::Expr;

/// Min/Max that picks an argument when the difference has a known sign (symbols >= 0).
using sym::hull_max;
using sym::hull_min;

/// The coefficient `a` of `e == a*p + b` (a free of p), or nullopt if `e` is not affine in p.
std::optional<Expr> affine_coefficient(const Expr& e, const std::string& p) {
  Expr P = Expr::symbol(p);
  Expr a = e.subs({{p, P + Expr(1)}}) - e;
  if (a.free_symbols().count(p)) return std::nullopt;
  Expr b = e.subs({{p, Expr(0)}});
  if (a * P + b != e) return std::nullopt;
  return a;
}

/// A lower (upper) bound of `e` over p in [s, e_] (inclusive); nullopt if `e` is not affine
/// in p (Min/Max of affine indices are bounded argument-wise).
std::optional<Expr> bound(const Expr& e, const std::string& p, const Range& r, bool upper,
                          bool clamped = false) {
  if (!e.free_symbols().count(p)) return e;
  if (e.kind() == sym::Kind::Min || e.kind() == sym::Kind::Max) {
    std::optional<Expr> acc;
    for (const Expr& arg : e.args()) {
      auto b = bound(arg, p, r, upper, true);
      if (!b) return std::nullopt;
      acc = !acc ? *b : (e.kind() == sym::Kind::Min ? hull_min(*acc, *b) : hull_max(*acc, *b));
    }
    return acc;
  }
  auto a = affine_coefficient(e, p);
  if (!a) return std::nullopt;
  auto sign = sym::sign_if_known(*a);
  if (!sign) return std::nullopt;
  Expr b = e.subs({{p, Expr(0)}});
  if (*sign == 0) return b;
  bool use_end = (*sign > 0) == upper;
  // The last point of a strided range, not its end (DaCe's inclusive ends need not be hit: a
  // tile map 1:8:4 runs 1 and 5): the outer memlet is what the bounds checks trust, and a range
  // to 8 made a tiling that divides evenly read past its arrays. Inside Min/Max (a tile clamped
  // to the domain's end) the end is exact enough and keeps the bound simple.
  Expr last = r.end;
  if (auto step = r.step.as_integer(); step && *step > 1 && !clamped)
    last = r.start + Expr::floordiv(r.end - r.start, Expr(*step)) * Expr(*step);
  return *a * (use_end ? last : r.start) + b;
}

bool uses_any(const Expr& e, const std::vector<std::string>& names) {
  auto fs = e.free_symbols();
  return std::any_of(names.begin(), names.end(), [&](const std::string& n) { return fs.count(n) != 0; });
}

bool uses_any(const Expr& e, const std::set<std::string>& names) {
  auto fs = e.free_symbols();
  return std::any_of(fs.begin(), fs.end(), [&](const std::string& n) { return names.count(n) != 0; });
}

/// One inner subset widened over the map; sets `dynamic` where a dimension had to become whole.
Subset widen(const Subset& s, const MapInfo& map, const DataDescriptor& desc,
             const std::set<std::string>& data_dependent, bool& dynamic) {
  std::vector<Range> out;
  const std::size_t n = std::min(map.params.size(), map.range.dims());
  for (std::size_t d = 0; d < s.dims(); ++d) {
    const Range& r = s[d];
    bool has_param =
        uses_any(r.start, map.params) || uses_any(r.end, map.params) || uses_any(r.step, map.params);
    if (!has_param && !uses_any(r.start, data_dependent) && !uses_any(r.end, data_dependent)) {
      out.push_back(r);
      continue;
    }
    std::optional<Expr> lo = r.start, hi = r.end;
    for (std::size_t k = 0; k < n && lo && hi; ++k) {
      lo = bound(*lo, map.params[k], map.range[k], false);
      if (lo) hi = bound(*hi, map.params[k], map.range[k], true);
    }
    if (!lo || !hi || uses_any(*lo, data_dependent) || uses_any(*hi, data_dependent) ||
        uses_any(r.step, map.params)) {
      dynamic = true;
      Expr extent = d < desc.shape.size() ? desc.shape[d] : Expr(1);
      out.emplace_back(Expr(0), extent - Expr(1));
      continue;
    }
    Expr step(1);
    if (r.start == r.end && r.step == Expr(1)) {
      // A single index a*p + b moved by one parameter with integer a and step: stride |a|*step.
      std::vector<std::size_t> used;
      for (std::size_t k = 0; k < n; ++k)
        if (r.start.free_symbols().count(map.params[k])) used.push_back(k);
      if (used.size() == 1) {
        auto a = affine_coefficient(r.start, map.params[used[0]]);
        long long av = 0;
        if (a && a->as_integer()) av = a->as_integer().value_or(0);
        long long st = map.range[used[0]].step.as_integer().value_or(0);
        if (av != 0 && st > 0) step = Expr((av < 0 ? -av : av) * st);
      }
    }
    if (*lo == *hi) step = Expr(1);
    out.emplace_back(*lo, *hi, step);
  }
  return Subset(std::move(out));
}

}  // namespace

std::optional<Memlet> propagate_memlet(const std::vector<Memlet>& inner, const MapInfo& map,
                                       const DataDescriptor& desc, const Memlet& outer,
                                       const std::set<std::string>& data_dependent) {
  if (inner.empty()) return std::nullopt;
  std::string data = outer.is_empty() ? inner.front().data : outer.data;
  std::vector<Subset> subsets;
  bool dynamic = false;
  std::vector<Expr> volumes;
  for (const Memlet& m : inner) {
    if (m.is_empty()) return std::nullopt;
    // The subset of `data`: the memlet's own, or its other_subset when it names the other end.
    if (m.data == data)
      subsets.push_back(m.subset);
    else if (m.other_subset)
      subsets.push_back(*m.other_subset);
    else
      return std::nullopt;
    if (subsets.back().dims() != desc.shape.size()) return std::nullopt;
    dynamic = dynamic || m.dynamic;
    volumes.push_back(m.volume);
  }
  std::vector<Subset> widened;
  for (const Subset& s : subsets) widened.push_back(widen(s, map, desc, data_dependent, dynamic));
  Subset result = widened.front();
  for (std::size_t k = 1; k < widened.size(); ++k) {
    if (widened[k].dims() != result.dims()) return std::nullopt;
    for (std::size_t d = 0; d < result.dims(); ++d) {
      Range& a = result.ranges()[d];
      const Range& b = widened[k][d];
      if (a == b) continue;
      a = Range(hull_min(a.start, b.start), hull_max(a.end, b.end));
    }
  }

  Expr iterations(1);
  const std::size_t n = std::min(map.params.size(), map.range.dims());
  for (std::size_t k = 0; k < n; ++k) iterations *= map.range[k].size();
  Expr volume = Expr::sum(volumes);
  if (uses_any(volume, map.params)) {
    // The per-iteration volume varies (a triangular nested range): bound it from above.
    std::optional<Expr> v = volume;
    for (std::size_t k = 0; k < n && v; ++k) v = bound(*v, map.params[k], map.range[k], true);
    dynamic = true;
    volume = v ? *v * iterations : result.num_elements();
  } else {
    volume = volume * iterations;
  }
  if (uses_any(volume, data_dependent)) {
    // A count known only at run time: DaCe's "dynamic, unbounded" (volume 0).
    dynamic = true;
    volume = Expr(0);
  }

  Memlet out = outer;
  out.data = data;
  out.subset = std::move(result);
  out.other_subset.reset();
  out.volume = volume;
  out.dynamic = dynamic;
  bool same_wcr =
      std::all_of(inner.begin(), inner.end(), [&](const Memlet& m) { return m.wcr == inner.front().wcr; });
  if (same_wcr) out.wcr = inner.front().wcr;
  return out;
}

namespace {

void propagate_one(SDFGState& st, const SDFG& sdfg, const MapEntry& me) {
  std::set<std::string> data_dependent;
  for (const auto& [c, t] : me.in_connectors)
    if (c.rfind("IN_", 0) != 0) data_dependent.insert(c);
  const MapInfo& map = *me.map;
  auto update = [&](const std::vector<EdgeId>& inner_edges, const std::vector<EdgeId>& outer_edges) {
    if (inner_edges.empty()) return;
    std::vector<Memlet> inner;
    for (EdgeId e : inner_edges) inner.push_back(st.edge(e).memlet);
    for (EdgeId e : outer_edges) {
      Memlet& outer = st.edge(e).memlet;
      const std::string& data = outer.is_empty() ? inner.front().data : outer.data;
      auto it = sdfg.arrays.find(data);
      if (it == sdfg.arrays.end()) continue;
      if (auto m = propagate_memlet(inner, map, it->second, outer, data_dependent)) outer = *m;
    }
  };
  for (const auto& [c, t] : me.in_connectors) {
    if (c.rfind("IN_", 0) != 0) continue;
    std::string x = c.substr(3);
    update(st.out_edges_by_connector(me.id(), "OUT_" + x), st.in_edges_by_connector(me.id(), c));
  }
  if (me.exit == kNoNode || !st.has_node(me.exit)) return;
  const Node& exit = st.node(me.exit);
  for (const auto& [c, t] : exit.out_connectors) {
    if (c.rfind("OUT_", 0) != 0) continue;
    std::string x = c.substr(4);
    update(st.in_edges_by_connector(exit.id(), "IN_" + x), st.out_edges_by_connector(exit.id(), c));
  }
}

const SDFG& sdfg_of(const SDFGState& st) {
  const SDFG* sdfg = st.sdfg();
  if (!sdfg)
    throw IRError(ElementRef{{}, st.label, -1, -1, {}},
                  "memlet propagation needs a state that belongs to an SDFG");
  return *sdfg;
}

/// Propagates through `entries`, deepest first (ties by id).
void propagate_entries(SDFGState& st, const ScopeTree& tree, std::vector<NodeId> entries) {
  const SDFG& sdfg = sdfg_of(st);
  std::stable_sort(entries.begin(), entries.end(),
                   [&](NodeId a, NodeId b) { return tree.depth(a) > tree.depth(b); });
  for (NodeId e : entries) propagate_one(st, sdfg, *st.node(e).as<MapEntry>());
}

}  // namespace

void propagate_memlets(SDFGState& st) {
  ScopeTree tree = st.scope_tree();
  std::vector<NodeId> entries;
  for (Node* n : st.nodes())
    if (n->as<MapEntry>()) entries.push_back(n->id());
  propagate_entries(st, tree, std::move(entries));
}

void detail::propagate_map(SDFGState& st, const MapEntry& entry) { propagate_one(st, sdfg_of(st), entry); }

void propagate_memlets_scope(SDFGState& st, NodeId entry) {
  ScopeTree tree = st.scope_tree();
  std::vector<NodeId> entries{entry};
  for (NodeId n : detail::scope_body(st, tree, entry))
    if (st.node(n).as<MapEntry>()) entries.push_back(n);
  propagate_entries(st, tree, std::move(entries));
  const SDFG& sdfg = sdfg_of(st);
  for (NodeId p = tree.parent[entry]; p != kNoNode; p = tree.parent[p])
    propagate_one(st, sdfg, *st.node(p).as<MapEntry>());
}

void propagate_memlets(SDFG& sdfg) {
  for (SDFGState* st : sdfg.all_states()) {
    for (Node* n : st->nodes())
      if (auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg) propagate_memlets(*ns->sdfg);
    propagate_memlets(*st);
  }
}

}  // namespace weir::transforms
