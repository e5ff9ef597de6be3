// Memlet propagation out of nested SDFGs, as an analysis (see nested_access.h, ADR 0062).
#include "weir/sdfg/nested_access.h"

#include <map>
#include <set>
#include <vector>

#include "weir/sdfg/dependence.h"
#include "weir/sdfg/for_loop.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/symbolic_hull.h"

namespace weir {

namespace {

using sym::Expr;

/// A variable and the first and last value it takes: a map parameter, a loop variable.
struct Sweep {
  std::string var;
  Expr lo, hi;
};

using sym::hull_max;
using sym::hull_min;

/// The least (`upper`: the greatest) value of `e` while `s.var` runs from s.lo to s.hi;
/// nullopt when `e` is not a*var + b with a of known sign.
std::optional<Expr> bound(const Expr& e, const Sweep& s, bool upper) {
  auto ab = affine_in(e, s.var);
  if (!ab) return std::nullopt;
  auto sign = sym::sign_if_known(ab->first);
  if (!sign) return std::nullopt;
  if (*sign == 0) return ab->second;
  return ab->first * ((*sign > 0) == upper ? s.hi : s.lo) + ab->second;
}

/// Adds the symbols the control flow of `r` assigns (interstate edges, loop variables).
void assigned_symbols(const ControlFlowRegion& r, std::set<std::string>& out) {
  for (const ControlFlowEdge* e : r.edges())
    for (const auto& [name, value] : e->data.assignments) out.insert(name);
  if (const auto* loop = r.as<LoopRegion>(); loop && !loop->loop_variable.empty())
    out.insert(loop->loop_variable);
  for (const ControlFlowBlock* b : r.blocks()) {
    if (const auto* c = b->as<ConditionalBlock>()) {
      for (const auto& br : c->branches())
        if (br.body) assigned_symbols(*br.body, out);
    } else if (const auto* sub = b->as<ControlFlowRegion>()) {
      assigned_symbols(*sub, out);
    }
  }
}

/// The symbols that have one value in the whole body: free, and never assigned in it (a
/// mapped symbol the body reassigns is not its caller's value everywhere).
std::set<std::string> fixed_symbols(const SDFG& sdfg) {
  std::set<std::string> out = sdfg.free_symbols(), assigned;
  assigned_symbols(sdfg, assigned);
  for (const auto& s : assigned) out.erase(s);
  return out;
}

/// The hull of one container's accesses in one SDFG, dimension by dimension.
class Hull {
 public:
  Hull(const SDFG& sdfg, const DataDescriptor& desc) : desc_(desc), free_(fixed_symbols(sdfg)) {}

  /// Adds the subset `s` of an access that runs once for every value of the `sweeps`
  /// (innermost first).
  void add(const Subset& s, const std::vector<Sweep>& sweeps) {
    if (s.dims() != desc_.shape.size()) return add(Subset::full(desc_.shape), {});
    std::vector<Range> widened;
    for (std::size_t d = 0; d < s.dims(); ++d) widened.push_back(widen(s[d], sweeps, d));
    if (!hull_) {
      hull_ = Subset(std::move(widened));
      return;
    }
    for (std::size_t d = 0; d < widened.size(); ++d) {
      Range& a = hull_->ranges()[d];
      if (a == widened[d] || whole(a, d)) continue;
      a = whole(widened[d], d) ? widened[d]
                               : Range(hull_min(a.start, widened[d].start), hull_max(a.end, widened[d].end));
    }
  }
  void add_whole() { add(Subset::full(desc_.shape), {}); }
  const std::optional<Subset>& result() const { return hull_; }

 private:
  bool whole(const Range& r, std::size_t d) const {
    return r.start == Expr(0) && r.end == desc_.shape[d] - Expr(1) && r.step == Expr(1);
  }

  /// Dimension `d` of an access over the sweeps; the whole dimension where a bound is not
  /// affine in a swept variable or keeps a symbol that is not free in the SDFG.
  Range widen(const Range& r, const std::vector<Sweep>& sweeps, std::size_t d) const {
    std::optional<Expr> lo = r.start, hi = r.end;
    bool moved = false;
    for (const Sweep& s : sweeps) {
      if (r.step.free_symbols().count(s.var)) lo.reset();
      if (lo && lo->free_symbols().count(s.var)) lo = bound(*lo, s, false), moved = true;
      if (hi && hi->free_symbols().count(s.var)) hi = bound(*hi, s, true), moved = true;
      if (!lo || !hi) break;
    }
    auto own = [&](const Expr& e) {
      for (const auto& x : e.free_symbols())
        if (!free_.count(x)) return false;
      return true;
    };
    if (!lo || !hi || !own(*lo) || !own(*hi) || !own(r.step)) return Range(Expr(0), desc_.shape[d] - Expr(1));
    return moved && *lo != *hi ? Range(*lo, *hi) : Range(*lo, *hi, r.step);
  }

  const DataDescriptor& desc_;
  std::set<std::string> free_;
  std::optional<Subset> hull_;
};

bool is_scope(const Node& n) { return n.kind() == NodeKind::MapEntry || n.kind() == NodeKind::MapExit; }

/// Adds the accesses of `data` in `st`: the memlets of the edges at the dataflow's leaves (not
/// those outside a map scope, which are the scope's inner memlets propagated), each widened
/// over the maps around it and then over `loops` (innermost first).
void add_state(const SDFGState& st, const SDFG& sdfg, const std::string& data,
               const std::vector<Sweep>& loops, Hull& hull) {
  std::optional<ScopeTree> tree;  // built at the first access
  // The maps around an edge at a leaf (innermost first), then the loops.
  auto sweeps_of = [&](const Node& src, const Node& dst) {
    if (!tree) tree = st.scope_tree();
    std::vector<Sweep> sweeps;
    NodeId scope =
        src.kind() == NodeKind::MapEntry ? src.id() : tree->parent[is_scope(dst) ? dst.id() : src.id()];
    for (; scope != kNoNode; scope = tree->parent[scope]) {
      const MapInfo& m = *st.node(scope).as<MapEntry>()->map;
      for (std::size_t k = 0; k < m.params.size() && k < m.range.dims(); ++k) {
        const Range& r = m.range[k];
        const bool down = r.step.as_integer().value_or(1) < 0;  // a map counting down
        sweeps.push_back({m.params[k], down ? r.end : r.start, down ? r.start : r.end});
      }
    }
    sweeps.insert(sweeps.end(), loops.begin(), loops.end());
    return sweeps;
  };
  for (const DataflowEdge* e : st.edges()) {
    const Node& src = st.node(e->src);
    const Node& dst = st.node(e->dst);
    if (e->memlet.is_empty() || dst.kind() == NodeKind::MapEntry || src.kind() == NodeKind::MapExit) continue;
    const auto* sa = src.as<AccessNode>();
    const auto* da = dst.as<AccessNode>();
    const bool at_data = (sa && sa->data == data) || (da && da->data == data);
    if (sa && da) {  // a copy: the end(s) of `data`
      if (!at_data) continue;
      CopySubsets ends = copy_subsets(e->memlet, sa->data, da->data);
      for (const auto& [a, sub] : {std::pair{sa, &ends.src}, std::pair{da, &ends.dst}})
        if (a->data == data) *sub ? hull.add(**sub, sweeps_of(src, dst)) : hull.add_whole();
      continue;
    }
    if (e->memlet.data != data) {
      if (at_data) hull.add_whole();  // the memlet names another container: not read here
      continue;
    }
    Subset sub = e->memlet.subset;
    if (const auto* ns = src.as<NestedSDFGNode>())
      sub = nested_access_region(*ns, e->src_conn, e->memlet, sdfg.data(data));
    else if (const auto* nd = dst.as<NestedSDFGNode>())
      sub = nested_access_region(*nd, e->dst_conn, e->memlet, sdfg.data(data));
    hull.add(sub, sweeps_of(src, dst));
  }
}

/// Adds the accesses of `data` in the states of `r`; `loops` are the loops around `r`,
/// innermost first.
void add_region(const ControlFlowRegion& r, const SDFG& sdfg, const std::string& data,
                std::vector<Sweep>& loops, Hull& hull) {
  for (const ControlFlowBlock* b : r.blocks()) {
    if (const auto* st = b->as<SDFGState>()) {
      add_state(*st, sdfg, data, loops, hull);
    } else if (const auto* c = b->as<ConditionalBlock>()) {
      for (const auto& br : c->branches())
        if (br.body) add_region(*br.body, sdfg, data, loops, hull);
    } else if (const auto* loop = b->as<LoopRegion>()) {
      // A loop that is no for loop sweeps nothing: its variable is no free symbol, so an
      // access that uses it is the whole dimension.
      auto bounds = loop_variable_bounds(*loop);
      if (bounds) loops.insert(loops.begin(), Sweep{loop->loop_variable, bounds->first, bounds->second});
      add_region(*loop, sdfg, data, loops, hull);
      if (bounds) loops.erase(loops.begin());
    } else if (const auto* sub = b->as<ControlFlowRegion>()) {
      add_region(*sub, sdfg, data, loops, hull);
    }
  }
}

}  // namespace

std::optional<Subset> accessed_region(const SDFG& sdfg, const std::string& data) {
  Hull hull(sdfg, sdfg.data(data));
  if (control_flow_uses_name(sdfg, data)) {
    hull.add_whole();
    return hull.result();
  }
  std::vector<Sweep> loops;
  add_region(sdfg, sdfg, data, loops, hull);
  return hull.result();
}

Subset nested_access_region(const NestedSDFGNode& n, const std::string& conn, const Memlet& outer,
                            const DataDescriptor& outer_desc) {
  if (!n.sdfg || outer.is_empty() || outer.other_subset || !n.sdfg->arrays.count(conn)) return outer.subset;
  const DataDescriptor& in = n.sdfg->arrays.at(conn);
  // The dimensions of `outer` the connector's are: all, or those that are not one index.
  std::vector<std::size_t> dims;
  for (std::size_t d = 0; d < outer.subset.dims(); ++d) {
    if (outer.subset[d].step != Expr(1)) return outer.subset;
    if (in.shape.size() == outer.subset.dims() || outer.subset[d].start != outer.subset[d].end)
      dims.push_back(d);
  }
  if (dims.size() != in.shape.size() || in.strides.size() != dims.size() ||
      outer_desc.strides.size() != outer.subset.dims())
    return outer.subset;
  for (std::size_t k = 0; k < dims.size(); ++k)
    if (in.strides[k].subs(n.symbol_mapping) != outer_desc.strides[dims[k]]) return outer.subset;
  std::optional<Subset> inner = accessed_region(*n.sdfg, conn);
  if (!inner) return outer.subset;
  Subset out = outer.subset;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    const Range& r = (*inner)[k];
    bool mapped = true;
    for (const auto& s : Subset({r}).free_symbols()) mapped = mapped && n.symbol_mapping.count(s) > 0;
    if (!mapped) continue;  // a free symbol the node does not map: the outer memlet's range
    const Expr& base = outer.subset[dims[k]].start;
    out.ranges()[dims[k]] = Range(base + r.start.subs(n.symbol_mapping), base + r.end.subs(n.symbol_mapping),
                                  r.step.subs(n.symbol_mapping));
  }
  return out;
}

}  // namespace weir
