// Static costs of timed elements (see the header).
#include "weir/transforms/static_costs.h"

#include <map>
#include <optional>
#include <set>
#include <variant>
#include <vector>

#include "nest_util.h"
#include "weir/sdfg/state.h"
#include "weir/transforms/memlet_propagation.h"

namespace weir::transforms {

namespace {

using detail::ForLoop;
using detail::parse_loop;

/// Bytes of a memlet's footprint on `sdfg`'s container.
sym::Expr memlet_bytes(const SDFG& sdfg, const Memlet& m) {
  if (m.is_empty() || !sdfg.has_data(m.data)) return 0;
  return m.subset.num_elements() * static_cast<long long>(size_of(sdfg.data(m.data).dtype.base));
}

/// Memlets into and out of a node at the top of its scope (for a map: outside its entry and exit).
StaticCost boundary_cost(const SDFG& sdfg, const SDFGState& st, const Node& n) {
  StaticCost c;
  NodeId out_node = n.id();
  if (auto* e = n.as<MapEntry>()) out_node = e->exit;
  for (EdgeId id : st.in_edges(n.id())) {
    c.bytes += memlet_bytes(sdfg, st.edge(id).memlet);
    c.dynamic = c.dynamic || st.edge(id).memlet.dynamic;
  }
  for (EdgeId id : st.out_edges(out_node)) {
    c.bytes += memlet_bytes(sdfg, st.edge(id).memlet);
    c.dynamic = c.dynamic || st.edge(id).memlet.dynamic;
  }
  return c;
}

/// For `n` inside map scopes: the union of its outer memlets over all executions of the maps
/// around it (each container's memlets into `n`, and out of it, widened through the enclosing
/// maps into one bounding box; a memlet that cannot be widened counts as the whole container and
/// marks the cost dynamic), shared by the product of those maps' iterations.
StaticCost enclosed_boundary_cost(const SDFG& sdfg, const SDFGState& st, const ScopeTree& tree,
                                  const Node& n) {
  StaticCost c;
  std::vector<const MapEntry*> around;
  for (NodeId p = tree.parent[n.id()]; p != kNoNode; p = tree.parent[p])
    if (auto* m = st.node(p).as<MapEntry>()) around.push_back(m);
  std::map<std::string, std::vector<Memlet>> ins, outs;
  auto collect = [&](const Memlet& m, std::map<std::string, std::vector<Memlet>>& into) {
    c.dynamic = c.dynamic || m.dynamic;
    if (!m.is_empty() && sdfg.has_data(m.data)) into[m.data].push_back(m);
  };
  NodeId out_node = n.id();
  if (auto* e = n.as<MapEntry>()) out_node = e->exit;
  for (EdgeId id : st.in_edges(n.id())) collect(st.edge(id).memlet, ins);
  for (EdgeId id : st.out_edges(out_node)) collect(st.edge(id).memlet, outs);
  for (auto* group : {&ins, &outs})
    for (auto& [data, memlets] : *group) {
      const DataDescriptor& desc = sdfg.data(data);
      std::vector<Memlet> ms = memlets;
      for (const MapEntry* m : around) {
        std::optional<Memlet> wide = propagate_memlet(ms, *m->map, desc, ms.front());
        if (!wide) {
          ms = {Memlet::simple(data, Subset::full(desc.shape))};
          c.dynamic = true;
          break;
        }
        ms = {*wide};
      }
      c.bytes += memlet_bytes(sdfg, ms.front());
    }
  for (const MapEntry* m : around) c.bytes_shared_by = c.bytes_shared_by * m->map->range.num_elements();
  return c;
}

void scope_flops(const SDFGState& st, const ScopeTree& tree, NodeId scope, StaticCost& c);

/// Iterations of for loop `f` (`end` inclusive), never negative.
sym::Expr trip_count(const ForLoop& f) {
  const long long step = *f.step.as_integer();
  const sym::Expr n = step > 0 ? sym::Expr::floordiv(f.end - f.start, f.step) + 1
                               : sym::Expr::floordiv(f.start - f.end, sym::Expr(-step)) + 1;
  return sym::Expr::max(sym::Expr(0), n);
}

/// FLOPs of one run of region `r` (an SDFG's or a loop's body): the sum over its blocks where
/// they form one chain (unconditional edges without assignments, each block at most one
/// successor); a state counts its nodes, a for loop its body's FLOPs times its trip count
/// (user31's G11: the level loops of a scan's column). Anything else (conditions, while loops,
/// a body whose FLOPs depend on the loop variable) marks the count a lower bound.
void region_flops(const ControlFlowRegion& r, StaticCost& c) {
  const std::vector<ControlFlowBlock*> blocks = r.blocks();
  bool chain = true;
  for (const ControlFlowBlock* b : blocks) chain = chain && r.out_edges(b->id()).size() <= 1;
  for (const ControlFlowEdge* e : r.edges())
    chain = chain && e->data.is_unconditional() && e->data.assignments.empty();
  if (!chain) return void(c.flops_partial = true);
  for (const ControlFlowBlock* b : blocks) {
    if (const auto* st = b->as<SDFGState>()) {
      scope_flops(*st, st->scope_tree(), kNoNode, c);
      continue;
    }
    const auto* loop = b->as<LoopRegion>();
    if (!loop) {
      c.flops_partial = true;
      continue;
    }
    auto parsed = parse_loop(*loop, true);
    if (!std::holds_alternative<ForLoop>(parsed)) {
      c.flops_partial = true;
      continue;
    }
    const ForLoop& f = std::get<ForLoop>(parsed);
    StaticCost body;
    region_flops(*loop, body);
    c.flops_partial = c.flops_partial || body.flops_partial;
    if (body.flops.free_symbols().count(f.var)) {
      c.flops_partial = true;
      continue;
    }
    c.flops += body.flops * trip_count(f);
  }
}

/// FLOPs of one call of nested SDFG node `n`, in the symbols of the SDFG that calls it
/// (region_flops of its body).
void nested_flops(const NestedSDFGNode& n, StaticCost& c) {
  const SDFG* body = n.sdfg.get();
  if (!body) return void(c.flops_partial = true);
  StaticCost inner;
  region_flops(*body, inner);
  c.flops += inner.flops.subs(n.symbol_mapping);
  c.flops_partial = c.flops_partial || inner.flops_partial;
}

bool floating_data(const SDFG* sdfg, const std::string& data) {
  if (!sdfg || !sdfg->has_data(data)) return true;
  const ScalarType t = sdfg->data(data).dtype.base;
  return t == ScalarType::Float16 || t == ScalarType::Float32 || t == ScalarType::Float64 ||
         t == ScalarType::Complex64 || t == ScalarType::Complex128;
}

/// One FLOP per execution for each floating-point output of tasklet `t` written with a write-conflict
/// resolution (the update `a + b` of DaCe's histogram; user31's G4).
long long wcr_flops(const SDFG* sdfg, const SDFGState& st, const Tasklet& t) {
  long long n = 0;
  for (EdgeId x : st.out_edges(t.id()))
    if (const Memlet& m = st.edge(x).memlet; !m.is_empty() && !m.wcr.empty() && floating_data(sdfg, m.data))
      ++n;
  return n;
}

/// Tasklet `t`'s FLOPs per execution in `st`: its code's, typed by its connectors' containers,
/// and its floating-point write-conflict updates.
long long typed_tasklet_flops(const SDFGState& st, const Tasklet& t) {
  const SDFG* sdfg = st.sdfg();
  return tasklet_flops(t, sdfg ? tasklet_name_types(*sdfg, st, t) : TaskletNameTypes{}) +
         wcr_flops(sdfg, st, t);
}

/// FLOPs of the nodes in scope `scope` of `st` (kNoNode: the top level), times nothing.
void scope_flops(const SDFGState& st, const ScopeTree& tree, NodeId scope, StaticCost& c) {
  for (NodeId id : tree.children(scope)) {
    const Node& n = st.node(id);
    if (auto* t = n.as<Tasklet>()) c.flops += typed_tasklet_flops(st, *t);
    if (auto* nested = n.as<NestedSDFGNode>()) nested_flops(*nested, c);
    if (n.kind() == NodeKind::Library) c.flops_partial = true;
    if (auto* m = n.as<MapEntry>()) {
      StaticCost inner;
      scope_flops(st, tree, id, inner);
      c.flops += inner.flops * m->map->range.num_elements();
      c.flops_partial = c.flops_partial || inner.flops_partial;
    }
  }
}

StaticCost node_cost(const SDFG& sdfg, const SDFGState& st, const ScopeTree& tree, const Node& n) {
  StaticCost c =
      tree.parent[n.id()] == kNoNode ? boundary_cost(sdfg, st, n) : enclosed_boundary_cost(sdfg, st, tree, n);
  if (auto* m = n.as<MapEntry>()) {
    StaticCost inner;
    scope_flops(st, tree, n.id(), inner);
    c.flops = inner.flops * m->map->range.num_elements();
    c.flops_partial = inner.flops_partial;
  } else if (auto* t = n.as<Tasklet>()) {
    c.flops = typed_tasklet_flops(st, *t);
  } else if (auto* nested = n.as<NestedSDFGNode>()) {
    nested_flops(*nested, c);
  } else if (n.kind() != NodeKind::Access) {
    c.flops_partial = true;
  }
  return c;
}

StaticCost copy_cost(const SDFG& sdfg, const Memlet& m) {
  StaticCost c;
  c.bytes = memlet_bytes(sdfg, m) * 2;
  c.dynamic = m.dynamic;
  return c;
}

/// `e` in the root SDFG's symbols: through the symbol mappings of the nested SDFG nodes above.
sym::Expr in_root(sym::Expr e, const SDFG* sdfg) {
  while (sdfg && sdfg->parent_node()) {
    e = e.subs(sdfg->parent_node()->symbol_mapping);
    sdfg = sdfg->parent_sdfg();
  }
  return e;
}

}  // namespace

StaticCost static_cost(const TimedElement& e) {
  StaticCost c;
  const SDFGState& st = *e.state;
  const SDFG& sdfg = *e.sdfg;
  if (st.num_nodes() == 0) return c;
  const ScopeTree tree = st.scope_tree();
  switch (e.kind) {
    case TimedKind::Copy: c = copy_cost(sdfg, st.edge(e.edge).memlet); break;
    case TimedKind::State:
      for (NodeId id : tree.children(kNoNode)) {
        const Node& n = st.node(id);
        if (n.kind() == NodeKind::Access) continue;
        StaticCost part = node_cost(sdfg, st, tree, n);
        c.bytes += part.bytes;
        c.flops += part.flops;
        c.dynamic = c.dynamic || part.dynamic;
        c.flops_partial = c.flops_partial || part.flops_partial;
      }
      for (const DataflowEdge* d : st.edges())
        if (st.node(d->src).kind() == NodeKind::Access && st.node(d->dst).kind() == NodeKind::Access &&
            tree.parent[d->src] == kNoNode && !d->memlet.is_empty()) {
          StaticCost part = copy_cost(sdfg, d->memlet);
          c.bytes += part.bytes;
          c.dynamic = c.dynamic || part.dynamic;
        }
      break;
    default: c = node_cost(sdfg, st, tree, st.node(e.node)); break;
  }
  c.bytes = in_root(c.bytes, &sdfg);
  c.bytes_shared_by = in_root(c.bytes_shared_by, &sdfg);
  c.flops = in_root(c.flops, &sdfg);
  return c;
}

EvaluatedCost evaluate(const StaticCost& cost, const std::map<std::string, long long>& symbols) {
  EvaluatedCost out;
  auto b = cost.bytes.try_evaluate(symbols);
  auto shared = cost.bytes_shared_by.try_evaluate(symbols);
  if (b && shared && *shared > 0) out.bytes = static_cast<double>(*b) / static_cast<double>(*shared);
  if (auto f = cost.flops.try_evaluate(symbols)) out.flops = static_cast<double>(*f);
  return out;
}

}  // namespace weir::transforms
