// Dependence analysis (see the header for the definitions).
#include "weir/sdfg/dependence.h"

#include <algorithm>
#include <exception>

#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/nested_access.h"

namespace weir {

bool Concurrency::fixed(const std::string& s) const {
  if (std::find(params.begin(), params.end(), s) != params.end()) return false;
  return !invariant || invariant(s);
}

std::optional<std::pair<sym::Expr, sym::Expr>> affine_in(const sym::Expr& e, const std::string& var) {
  if (!e.free_symbols().count(var)) return std::make_pair(sym::Expr(0), e);
  sym::Expr b = e.subs({{var, sym::Expr(0)}});
  sym::Expr a = e.subs({{var, sym::Expr(1)}}) - b;
  if (a.free_symbols().count(var)) return std::nullopt;
  if (a * sym::Expr::symbol(var) + b != e) return std::nullopt;
  return std::make_pair(a, b);
}

namespace {

/// How two single-point indices of one dimension, at iterations that differ in `var`, relate.
enum class Meeting {
  Never,    // different iterations never give the same value
  Carried,  // a*var + bw and a*var + bx with bx - bw = c a nonzero multiple of a: they meet
  Unknown,  // not affine with one nonzero integer coefficient, or an offset is not fixed
};

/// `ew` and `ex` as a*var + bw and a*var + bx, offsets of `fixed` symbols only.
Meeting meeting(const sym::Expr& ew, const sym::Expr& ex, const std::string& var,
                const std::function<bool(const std::string&)>& fixed) {
  auto aw = affine_in(ew, var), ax = affine_in(ex, var);
  if (!aw || !ax || aw->first != ax->first) return Meeting::Unknown;
  for (const sym::Expr* b : {&aw->second, &ax->second})
    for (const auto& s : b->free_symbols())
      if (!fixed(s)) return Meeting::Unknown;
  auto a = aw->first.as_integer();
  if (!a || *a == 0) return Meeting::Unknown;
  auto c = (ax->second - aw->second).as_integer();
  if (!c) return Meeting::Unknown;
  return *c % *a != 0 || *c == 0 ? Meeting::Never : Meeting::Carried;
}

std::string index_text(const std::vector<sym::Expr>& idx) {
  std::string out;
  for (std::size_t d = 0; d < idx.size(); ++d) out += (d ? ", " : "") + idx[d].str();
  return out;
}

}  // namespace

DependenceVerdict disjoint_points(const std::vector<sym::Expr>& idx, const Concurrency& c,
                                  const std::string& what) {
  auto fixed = [&](const std::string& s) { return c.fixed(s); };
  std::vector<bool> taken(idx.size(), false);
  for (const auto& p : c.params) {
    bool found = false;
    for (std::size_t d = 0; d < idx.size() && !found; ++d) {
      if (taken[d] || meeting(idx[d], idx[d], p, fixed) != Meeting::Never) continue;
      // A dimension that does not use `p` separates nothing (a = 0 is Unknown above).
      taken[d] = found = true;
    }
    if (!found)
      return DependenceVerdict::conflict("parameter " + p + " indexes no dimension of " + what + " [" +
                                         index_text(idx) + "] of its own (as a*" + p +
                                         " + b, a a nonzero integer, b the same in concurrent iterations)");
  }
  return DependenceVerdict::proven();
}

DependenceVerdict disjoint_points(const std::string& data, const Subset& region, const Concurrency& c) {
  std::vector<sym::Expr> idx;
  for (const Range& r : region.ranges()) idx.push_back(r.start == r.end ? r.start : sym::Expr(0));
  return disjoint_points(idx, c, data);
}

DependenceVerdict disjoint_across_iterations(const std::string& data, const std::string& var, const Memlet& w,
                                             const Memlet& x, bool x_is_write,
                                             const std::set<std::string>& varying) {
  auto fixed = [&](const std::string& s) { return s != var && !varying.count(s); };
  const char* verb = x_is_write ? "written" : "read";
  std::string carried;
  if (w.subset.dims() == x.subset.dims()) {
    for (std::size_t d = 0; d < w.subset.dims(); ++d) {
      const Range& rw = w.subset[d];
      const Range& rx = x.subset[d];
      if (rw.start != rw.end || rx.start != rx.end) continue;
      Meeting m = meeting(rw.start, rx.start, var, fixed);
      if (m == Meeting::Never) return DependenceVerdict::proven();
      if (m == Meeting::Carried && carried.empty())
        carried = data + " is written at " + rw.start.str() + " and " + verb + " at " + rx.start.str();
    }
  }
  if (!carried.empty()) return DependenceVerdict::conflict(carried);
  bool uses_var = w.subset.free_symbols().count(var) != 0;
  if (!uses_var && w.subset == x.subset)
    return DependenceVerdict::conflict(data + " is written at the same element(s) [" + w.subset.str() +
                                       "] in every iteration");
  return DependenceVerdict::conflict("cannot prove that different iterations touch different elements of " +
                                     data + " (written at [" + w.subset.str() + "], " + verb + " at [" +
                                     x.subset.str() + "])");
}

namespace {

/// Parameters and dynamic inputs of map `e` and of the maps inside its scope: the symbols that
/// vary within the scope. Walks the scope (from the entry to its exit), not the whole state.
std::set<std::string> scope_symbols(const SDFGState& st, const MapEntry& e) {
  std::set<std::string> out;
  std::set<NodeId> seen{e.id()};
  std::vector<NodeId> todo{e.id()};
  while (!todo.empty()) {
    NodeId n = todo.back();
    todo.pop_back();
    if (const auto* me = st.node(n).as<MapEntry>()) {
      out.insert(me->map->params.begin(), me->map->params.end());
      for (const auto& [conn, type] : me->in_connectors)
        if (conn.rfind("IN_", 0) != 0) out.insert(conn);
    }
    for (EdgeId id : st.out_edges(n)) {
      NodeId d = st.edge(id).dst;
      if (d != e.exit && seen.insert(d).second) todo.push_back(d);
    }
  }
  return out;
}

/// Whether the write-conflict-resolved memlets into `e`'s exit are disjoint in `c`. A nested
/// SDFG's write counts as the region its body touches (nested_access_region, ADR 0062): LoopToMap
/// gives it the whole array as its memlet.
DependenceVerdict wcr_outputs_disjoint(const SDFGState& st, const MapEntry& e, const Concurrency& c) {
  for (EdgeId id : st.in_edges(e.exit)) {
    const DataflowEdge& edge = st.edge(id);
    const Memlet& m = edge.memlet;
    if (m.is_empty() || m.wcr.empty()) continue;
    Subset touched = m.subset;
    const auto* ns = st.node(edge.src).as<NestedSDFGNode>();
    if (const SDFG* sdfg = st.sdfg(); ns && sdfg && sdfg->arrays.count(m.data))
      touched = nested_access_region(*ns, edge.src_conn, m, sdfg->arrays.at(m.data));
    if (auto v = disjoint_points(m.data, touched, c); !v) return v;
  }
  return DependenceVerdict::proven();
}

}  // namespace

Concurrency map_concurrency(const SDFGState& st, const MapEntry& e, std::size_t concurrent) {
  const auto& params = e.map->params;
  Concurrency c;
  c.params.assign(params.begin(),
                  params.begin() + static_cast<std::ptrdiff_t>(std::min(concurrent, params.size())));
  c.invariant = [varying = scope_symbols(st, e)](const std::string& s) { return !varying.count(s); };
  return c;
}

DependenceVerdict wcr_outputs_disjoint(const SDFGState& st, const MapEntry& e, std::size_t concurrent) {
  return wcr_outputs_disjoint(st, e, map_concurrency(st, e, concurrent));
}

std::size_t conflict_free_prefix(const SDFGState& st, const MapEntry& e) {
  Concurrency c = map_concurrency(st, e, 0);
  const auto& params = e.map->params;
  while (c.params.size() < params.size()) {
    c.params.push_back(params[c.params.size()]);
    if (!wcr_outputs_disjoint(st, e, c)) return c.params.size() - 1;
  }
  return c.params.size();
}

namespace {

bool code_names_name(const CodeBlock& code, const std::string& name) {
  try {
    return code_names(code).data().count(name) > 0;
  } catch (const std::exception&) {
    return true;  // code that does not parse may name anything
  }
}

}  // namespace

bool control_flow_uses_name(const ControlFlowRegion& r, const std::string& name) {
  for (const ControlFlowEdge* e : r.edges()) {
    if (code_names_name(e->data.condition, name)) return true;
    for (const auto& [k, v] : e->data.assignments)
      if (k == name || code_names_name(v, name)) return true;
  }
  if (const auto* loop = r.as<LoopRegion>())
    for (const CodeBlock* c : {&loop->init_statement, &loop->loop_condition, &loop->update_statement})
      if (code_names_name(*c, name)) return true;
  for (const ControlFlowBlock* b : r.blocks()) {
    if (const auto* c = b->as<ConditionalBlock>()) {
      for (const auto& br : c->branches()) {
        if (br.condition && code_names_name(*br.condition, name)) return true;
        if (br.body && control_flow_uses_name(*br.body, name)) return true;
      }
    } else if (const auto* sub = b->as<ControlFlowRegion>()) {
      if (control_flow_uses_name(*sub, name)) return true;
    }
  }
  return false;
}

}  // namespace weir
