// An element's costs averaged over its executions in one call (see static_costs.h): the
// per-execution cost of a state or node inside maps or loops (a scan's per-level state inside the
// SDFG called per column block) depends on the maps' parameters and the loops' variables, which
// the program's symbols alone do not give. Enumerated with those symbols: every point of the maps
// and every trip of the for loops around the element, through the nested SDFG calls above it.
#include <functional>
#include <optional>
#include <variant>
#include <vector>

#include "weir/sdfg/for_loop.h"
#include "weir/sdfg/sdfg.h"
#include "weir/transforms/static_costs.h"

namespace weir::transforms {
namespace {

/// A name bound around the element: a map parameter over `range`, or a for loop's variable.
struct Binder {
  std::string name;
  sym::Expr start, end, step;  // inclusive end, in the root SDFG's symbols
};

sym::Expr in_root(sym::Expr e, const SDFG* sdfg) {
  while (sdfg && sdfg->parent_node()) {
    e = e.subs(sdfg->parent_node()->symbol_mapping);
    sdfg = sdfg->parent_sdfg();
  }
  return e;
}

/// The maps around `node` in `st` and the loops around `st` in its SDFG, innermost first, then the
/// same around the nested SDFG node that calls the SDFG, up to the root; false where a loop around
/// is not a for loop.
bool binders_of(const SDFG* sdfg, const SDFGState* st, NodeId node, std::vector<Binder>& out) {
  while (sdfg && st) {
    if (node != kNoNode) {
      const ScopeTree scopes = st->scope_tree();
      for (NodeId p = scopes.parent[node]; p != kNoNode; p = scopes.parent[p])
        if (const auto* me = st->node(p).as<MapEntry>())
          for (std::size_t d = me->map->params.size(); d-- > 0;) {
            const Range& r = me->map->range[d];
            out.push_back(
                {me->map->params[d], in_root(r.start, sdfg), in_root(r.end, sdfg), in_root(r.step, sdfg)});
          }
    }
    for (const ControlFlowBlock* b = st->parent_block(); b && b != sdfg; b = b->parent_block()) {
      const auto* loop = b->as<LoopRegion>();
      if (!loop) continue;
      auto parsed = parse_loop(*loop, true);
      if (!std::holds_alternative<ForLoop>(parsed)) return false;
      const ForLoop& f = std::get<ForLoop>(parsed);
      out.push_back({f.var, in_root(f.start, sdfg), in_root(f.end, sdfg), in_root(f.step, sdfg)});
    }
    const NestedSDFGNode* call = sdfg->parent_node();
    if (!call) break;
    st = sdfg->parent_state();
    node = call->id();
    sdfg = sdfg->parent_sdfg();
  }
  return true;
}

}  // namespace

ExecutionAverage average_over_executions(const TimedElement& e, const StaticCost& cost,
                                         const std::map<std::string, long long>& symbols,
                                         long long max_executions) {
  ExecutionAverage out;
  std::vector<Binder> binders;
  const NodeId node = e.kind == TimedKind::State  ? kNoNode
                      : e.kind == TimedKind::Copy ? e.state->edge(e.edge).src
                                                  : e.node;
  if (!binders_of(e.sdfg, e.state, node, binders)) return out;
  std::map<std::string, long long> values = symbols;
  double bytes = 0, flops = 0;
  bool bytes_known = true, flops_known = true, stopped = false;
  long long n = 0;
  // Outermost first: the binders were collected innermost first.
  std::function<void(std::size_t)> walk = [&](std::size_t k) {
    if (stopped) return;
    if (k == 0) {
      if (++n > max_executions) return void(stopped = true);
      const EvaluatedCost v = evaluate(cost, values);
      if (v.bytes) bytes += *v.bytes;
      bytes_known = bytes_known && v.bytes;
      if (v.flops) flops += *v.flops;
      flops_known = flops_known && v.flops;
      return;
    }
    const Binder& b = binders[k - 1];
    const auto start = b.start.try_evaluate(values), end = b.end.try_evaluate(values),
               step = b.step.try_evaluate(values);
    if (!start || !end || !step || *step == 0) return void(stopped = true);
    const auto outer = values.find(b.name);  // a name bound further out (or a symbol) it hides
    const std::optional<long long> hidden =
        outer == values.end() ? std::nullopt : std::optional(outer->second);
    for (long long x = *start; *step > 0 ? x <= *end : x >= *end; x += *step) {
      values[b.name] = x;
      walk(k - 1);
      if (stopped) break;
    }
    if (hidden)
      values[b.name] = *hidden;
    else
      values.erase(b.name);
  };
  walk(binders.size());
  if (stopped || n == 0) return out;
  out.executions = n;
  if (bytes_known) out.bytes = bytes / static_cast<double>(n);
  if (flops_known) out.flops = flops / static_cast<double>(n);
  return out;
}

EvaluatedCost evaluate_per_execution(const TimedElement& e, const StaticCost& cost,
                                     const std::map<std::string, long long>& symbols) {
  EvaluatedCost v = evaluate(cost, symbols);
  if (v.bytes && v.flops) return v;
  const ExecutionAverage mean = average_over_executions(e, cost, symbols);
  if (!v.bytes) v.bytes = mean.bytes;
  if (!v.flops) v.flops = mean.flops;
  return v;
}

}  // namespace weir::transforms
