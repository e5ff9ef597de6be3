// SymbolPropagation: substitute constant interstate assignments and drop dead ones.
#include "weir/transforms/symbol_propagation.h"

#include "dataflow_util.h"
#include "symbol_reads.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/symbolic_tree.h"

namespace weir::transforms {

SymbolPropagation::SymbolPropagation()
    : Pass("symbol-propagation",
           "Substitute symbols assigned once to a constant on an interstate edge; remove assignments nothing "
           "reads") {}

namespace {

struct Assignment {
  ControlFlowRegion* region;
  EdgeId edge;
  std::size_t index;
  const CodeBlock* value;
};

void substitute_everywhere(SDFG& sdfg, const std::string& name, const sym::Expr& value) {
  std::map<std::string, sym::Expr> m{{name, value}};
  std::map<std::string, std::string> text{{name, detail::python_expr(value)}};
  auto code = [&](CodeBlock& c) { substitute_in_code(c, text); };
  for (auto& [n, d] : sdfg.arrays) {
    for (auto* v : {&d.shape, &d.strides, &d.offset})
      for (auto& e : *v) e = e.subs(m);
    d.total_size = d.total_size.subs(m);
  }
  detail::for_each_region(sdfg, [&](ControlFlowRegion& r) {
    for (const ControlFlowEdge* ce : r.edges()) {
      ControlFlowEdge& e = r.edge(ce->id);
      code(e.data.condition);
      for (auto& [k, v] : e.data.assignments) code(v);
    }
    if (auto* L = r.as<LoopRegion>()) {
      code(L->init_statement);
      code(L->loop_condition);
      code(L->update_statement);
    }
    for (ControlFlowBlock* b : r.blocks()) {
      if (auto* c = b->as<ConditionalBlock>())
        for (auto& br : c->branches())
          if (br.condition) code(*br.condition);
      auto* st = b->as<SDFGState>();
      if (!st) continue;
      for (Node* n : st->nodes()) {
        if (auto* me = n->as<MapEntry>())
          me->map->range = me->map->range.subs(m);
        else if (auto* t = n->as<Tasklet>())
          code(t->code);
        else if (auto* ns = n->as<NestedSDFGNode>())
          for (auto& [k, v] : ns->symbol_mapping) v = v.subs(m);
      }
      for (const DataflowEdge* ce : st->edges()) detail::substitute_memlet(st->edge(ce->id).memlet, m);
    }
  });
}

std::size_t propagate_in(SDFG& sdfg) {
  std::size_t changes = 0;
  for (bool changed = true; changed;) {
    changed = false;
    std::map<std::string, std::vector<Assignment>> assigns;
    std::set<std::string> loop_vars;
    detail::for_each_region(sdfg, [&](ControlFlowRegion& r) {
      if (auto* L = r.as<LoopRegion>()) loop_vars.insert(L->loop_variable);
      for (const ControlFlowEdge* e : r.edges())
        for (std::size_t k = 0; k < e->data.assignments.size(); ++k)
          assigns[e->data.assignments[k].first].push_back({&r, e->id, k, &e->data.assignments[k].second});
    });
    auto args = sdfg.arglist();
    std::set<std::string> arg_set(args.begin(), args.end());
    std::set<std::string> read = detail::names_read(sdfg);
    for (auto& [name, list] : assigns) {
      if (loop_vars.count(name) || sdfg.has_data(name)) continue;
      auto remove = [&](const Assignment& a) {
        auto& as = a.region->edge(a.edge).data.assignments;
        as.erase(as.begin() + static_cast<std::ptrdiff_t>(a.index));
      };
      if (!read.count(name)) {  // dead: nothing reads it
        for (auto it = list.rbegin(); it != list.rend(); ++it) remove(*it);
        ++changes;
        changed = true;
        break;  // indices moved: collect again
      }
      if (list.size() != 1 || arg_set.count(name)) continue;
      std::optional<sym::Expr> value;
      try {
        value = sym::from_code(*list[0].value);
      } catch (const Error&) {
        continue;
      }
      if (!value->is_integer()) continue;
      remove(list[0]);
      substitute_everywhere(sdfg, name, *value);
      if (!detail::names_read(sdfg).count(name)) sdfg.symbols.erase(name);
      ++changes;
      changed = true;
      break;
    }
  }
  return changes;
}

}  // namespace

std::size_t SymbolPropagation::run_pass(SDFG& sdfg, Transaction& tx) {
  // Nested SDFGs first (their symbol mappings may become constant once the outer ones are).
  return tx.modify_all([&] {
    std::size_t changes = 0;
    std::vector<SDFG*> sdfgs;
    for (ControlFlowRegion* r : cfg_list(sdfg))
      if (auto* s = r->as<SDFG>()) sdfgs.push_back(s);
    for (auto it = sdfgs.rbegin(); it != sdfgs.rend(); ++it) changes += propagate_in(**it);
    return changes;
  });
}

}  // namespace weir::transforms
