// Static costs of timed elements (see the header).
#include "weir/transforms/static_costs.h"

#include <map>
#include <optional>
#include <set>
#include <vector>

#include "weir/pycode/ast.h"
#include "weir/pycode/code.h"
#include "weir/sdfg/state.h"
#include "weir/transforms/memlet_propagation.h"

namespace weir::transforms {

namespace {

using namespace pycode;

long long expr_flops(const Expr* e);

long long list_flops(const ExprList& l) {
  long long n = 0;
  for (const auto& x : l) n += expr_flops(x.get());
  return n;
}

bool math_function(const Expr* f) {
  static const std::set<std::string> names{
      "sqrt", "exp",   "exp2",  "expm1", "log",    "log2",   "log10",  "log1p",   "sin",     "cos",
      "tan",  "asin",  "acos",  "atan",  "sinh",   "cosh",   "tanh",   "asinh",   "acosh",   "atanh",
      "pow",  "power", "abs",   "fabs",  "floor",  "ceil",   "min",    "max",     "minimum", "maximum",
      "fmin", "fmax",  "hypot", "atan2", "arcsin", "arccos", "arctan", "arctan2", "cbrt"};
  std::string name;
  if (f->kind == ExprKind::Name) name = static_cast<const Name*>(f)->id;
  if (f->kind == ExprKind::Attribute) name = static_cast<const Attribute*>(f)->attr;
  return names.count(name) > 0;
}

long long expr_flops(const Expr* e) {
  if (!e) return 0;
  switch (e->kind) {
    case ExprKind::BinOp: {
      auto* b = static_cast<const BinOp*>(e);
      bool arithmetic = b->op == BinaryOperator::Add || b->op == BinaryOperator::Sub ||
                        b->op == BinaryOperator::Mult || b->op == BinaryOperator::Div ||
                        b->op == BinaryOperator::FloorDiv || b->op == BinaryOperator::Mod ||
                        b->op == BinaryOperator::Pow;
      return (arithmetic ? 1 : 0) + expr_flops(b->left.get()) + expr_flops(b->right.get());
    }
    case ExprKind::Call: {
      auto* c = static_cast<const Call*>(e);
      long long n = math_function(c->func.get()) ? 1 : 0;
      for (const auto& k : c->keywords) n += expr_flops(k.value.get());
      return n + list_flops(c->args);
    }
    case ExprKind::UnaryOp: return expr_flops(static_cast<const UnaryOp*>(e)->operand.get());
    case ExprKind::BoolOp: return list_flops(static_cast<const BoolOp*>(e)->values);
    case ExprKind::Compare: {
      auto* c = static_cast<const Compare*>(e);
      return expr_flops(c->left.get()) + list_flops(c->comparators);
    }
    case ExprKind::IfExp: {
      auto* i = static_cast<const IfExp*>(e);
      return expr_flops(i->test.get()) + expr_flops(i->body.get()) + expr_flops(i->orelse.get());
    }
    case ExprKind::Tuple: return list_flops(static_cast<const Tuple*>(e)->elts);
    case ExprKind::List: return list_flops(static_cast<const List*>(e)->elts);
    case ExprKind::Subscript: return expr_flops(static_cast<const Subscript*>(e)->value.get());
    default: return 0;
  }
}

long long stmts_flops(const StmtList& body) {
  long long n = 0;
  for (const auto& s : body) {
    switch (s->kind) {
      case StmtKind::Assign: n += expr_flops(static_cast<const Assign*>(s.get())->value.get()); break;
      case StmtKind::AnnAssign: n += expr_flops(static_cast<const AnnAssign*>(s.get())->value.get()); break;
      case StmtKind::AugAssign:
        n += 1 + expr_flops(static_cast<const AugAssign*>(s.get())->value.get());
        break;
      case StmtKind::Expr: n += expr_flops(static_cast<const ExprStmt*>(s.get())->value.get()); break;
      case StmtKind::Return: n += expr_flops(static_cast<const Return*>(s.get())->value.get()); break;
      case StmtKind::If: {
        auto* i = static_cast<const If*>(s.get());
        n += expr_flops(i->test.get()) + stmts_flops(i->body) + stmts_flops(i->orelse);
        break;
      }
      default: break;
    }
  }
  return n;
}

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

/// FLOPs of one execution of tasklet `t` in `st`: its code's, and one per element its writes
/// with write-conflict resolution combine (`lambda a, b: a + b` of a histogram or of an expanded
/// reduction adds what it writes to what is there; before, a WCR accumulation counted 0).
sym::Expr tasklet_flops_in(const SDFGState& st, const Tasklet& t) {
  sym::Expr n = tasklet_flops(t);
  for (EdgeId id : st.out_edges(t.id()))
    if (const Memlet& m = st.edge(id).memlet; !m.is_empty() && !m.wcr.empty())
      n = n + m.subset.num_elements();
  return n;
}

/// FLOPs of one call of nested SDFG node `n`, in the symbols of the SDFG that calls it: the sum
/// over its states where every state runs once per call (states only, joined by unconditional
/// edges without assignments into one chain); otherwise, and for library nodes inside it, only a
/// part is counted (`flops_partial`).
void nested_flops(const NestedSDFGNode& n, StaticCost& c) {
  const SDFG* body = n.sdfg.get();
  if (!body) return void(c.flops_partial = true);
  const std::vector<ControlFlowBlock*> blocks = body->blocks();
  bool chain = true;
  for (const ControlFlowBlock* b : blocks)
    chain = chain && b->as<SDFGState>() && body->out_edges(b->id()).size() <= 1;
  for (const ControlFlowEdge* e : body->edges())
    chain = chain && e->data.is_unconditional() && e->data.assignments.empty();
  if (!chain) return void(c.flops_partial = true);
  StaticCost inner;
  for (const ControlFlowBlock* b : blocks) {
    const SDFGState& st = *b->as<SDFGState>();
    scope_flops(st, st.scope_tree(), kNoNode, inner);
  }
  c.flops += inner.flops.subs(n.symbol_mapping);
  c.flops_partial = c.flops_partial || inner.flops_partial;
}

/// FLOPs of the nodes in scope `scope` of `st` (kNoNode: the top level), times nothing.
void scope_flops(const SDFGState& st, const ScopeTree& tree, NodeId scope, StaticCost& c) {
  for (NodeId id : tree.children(scope)) {
    const Node& n = st.node(id);
    if (auto* t = n.as<Tasklet>()) c.flops += tasklet_flops_in(st, *t);
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
    c.flops = tasklet_flops_in(st, *t);
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

long long tasklet_flops(const Tasklet& t) {
  if (t.code.language != Language::Python) return 0;
  try {
    auto code = t.code.parsed();
    return code ? stmts_flops(code->body()) : 0;
  } catch (const weir::Error&) {
    return 0;  // unparsable code is validation's to report
  }
}

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
