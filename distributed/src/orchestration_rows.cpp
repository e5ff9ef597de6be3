#include "weir/distributed/orchestration_rows.h"

#include "weir/distributed/halo_analysis.h"
#include "weir/distributed/halo_rows.h"
#include "weir/distributed/orchestration_halos.h"
#include "weir/distributed/unstructured_exchange.h"
#include "weir/sdfg/errors.h"

namespace weir::distributed {

namespace {

// Whether state `st` writes array `a` (an access node of it with an incoming edge).
bool writes(const SDFGState& st, const std::string& a) {
  for (const AccessNode* n : st.access_nodes(a))
    if (!st.in_edges(n->id()).empty()) return true;
  return false;
}

// Drops from each call the arrays an exchange before an earlier call already filled: the call's
// state is reached only through a chain of states (each the single predecessor of the next, in
// one region) back to a call state exchanging the same array, and no state of the chain, that
// call's included, writes it (w, read through V2C by cell_to_vertex and through E2C by
// edge_gradient in the same step, is exchanged once).
void drop_repeated(std::vector<CallRows>& calls) {
  std::map<const SDFGState*, std::set<std::string>> before;
  for (const CallRows& c : calls)
    for (const auto& [array, entity] : c.exchanged) before[c.state].insert(array);
  for (CallRows& call : calls)
    std::erase_if(call.exchanged, [&](const auto& entry) {
      const std::string& a = entry.first;
      std::set<const SDFGState*> seen;  // a cycle of single predecessors ends the walk
      for (const SDFGState* cur = call.state; seen.insert(cur).second;) {
        const ControlFlowRegion* region = cur->parent_region();
        const auto in = region ? region->in_edges(cur->id()) : std::vector<const ControlFlowEdge*>{};
        const SDFGState* prev = in.size() == 1 ? region->block(in[0]->src).as<SDFGState>() : nullptr;
        if (!prev || writes(*prev, a)) return false;
        if (auto b = before.find(prev); b != before.end() && b->second.count(a)) return true;
        cur = prev;
      }
      return false;
    });
}

}  // namespace

int OrchestrationRows::count() const {
  int n = static_cast<int>(once.size());
  for (const auto& c : calls) n += static_cast<int>(c.exchanged.size());
  return n;
}

OrchestrationRows analyse_orchestration_rows(const SDFG& sdfg, const std::set<std::string>& entities,
                                             const std::set<std::string>& tables) {
  OrchestrationRows r;
  std::set<std::string> written;
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* node : st->nodes()) {
      const auto* n = node->as<NestedSDFGNode>();
      if (!n || !n->sdfg) continue;
      const SDFG& inner = *n->sdfg;
      // The entity of an inner array: its first extent `__<inner>_<Entity>_size`.
      auto entity_of = [&](const std::string& name) {
        const std::string e = inner.has_data(name) ? axis_dimension(inner, name, 0) : "";
        return entities.count(e) ? e : std::string();
      };
      for (const auto& [inner_name, desc] : inner.arrays) {
        if (desc.transient || tables.count(inner_name)) continue;
        const std::string e = entity_of(inner_name);
        if (e.empty()) continue;
        const std::string out = call_argument(sdfg, *st, *n, inner_name, false);
        if (!out.empty()) {
          written.insert(out);
          r.entity.emplace(out, e);
        }
        const std::string in = call_argument(sdfg, *st, *n, inner_name, true);
        if (!in.empty()) r.entity.emplace(in, e);
      }
      CallRows call{st, inner.name, {}};
      for (const std::string& inner_name : halo_rows_read(inner)) {
        if (tables.count(inner_name)) continue;
        const std::string e = entity_of(inner_name);
        const std::string outer = e.empty() ? "" : call_argument(sdfg, *st, *n, inner_name, true);
        if (!outer.empty() && !tables.count(outer)) call.exchanged.emplace(outer, e);
      }
      if (!call.exchanged.empty()) r.calls.push_back(std::move(call));
    }
  // Arrays no call writes keep their halo rows once exchanged: one exchange before everything.
  for (auto& call : r.calls)
    for (auto it = call.exchanged.begin(); it != call.exchanged.end();) {
      if (written.count(it->first)) {
        ++it;
        continue;
      }
      r.once.emplace(it->first, it->second);
      it = call.exchanged.erase(it);
    }
  drop_repeated(r.calls);
  std::erase_if(r.calls, [](const CallRows& c) { return c.exchanged.empty(); });
  return r;
}

std::map<std::string, std::string> entity_bound_symbols(const SDFG& sdfg,
                                                        const std::set<std::string>& entities) {
  std::map<std::string, std::string> out;
  const std::set<std::string> args(sdfg.arg_names.begin(), sdfg.arg_names.end());
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* node : st->nodes()) {
      const auto* n = node->as<NestedSDFGNode>();
      if (!n || !n->sdfg) continue;
      // Inner symbol -> entity: size symbols, and the symbols of map ranges over `__<Entity>`.
      std::map<std::string, std::string> inner;
      for (const auto& [sym_name, expr] : n->symbol_mapping)
        for (const std::string& e : entities) {
          const std::string suffix = "_" + e + "_size";
          if (sym_name.size() > suffix.size() + 2 && sym_name.rfind("__", 0) == 0 &&
              sym_name.compare(sym_name.size() - suffix.size(), std::string::npos, suffix) == 0)
            inner.emplace(sym_name, e);
        }
      for (const SDFGState* ist : n->sdfg->all_states())
        for (const Node* in : ist->nodes())
          if (const auto* m = in->as<MapEntry>())
            for (std::size_t k = 0; k < m->map->params.size() && k < m->map->range.dims(); ++k) {
              const std::string& prm = m->map->params[k];
              if (prm.size() < 3 || prm.rfind("__", 0) != 0 || !entities.count(prm.substr(2))) continue;
              for (const sym::Expr* x : {&m->map->range[k].start, &m->map->range[k].end})
                for (const std::string& f : x->free_symbols()) inner.emplace(f, prm.substr(2));
            }
      for (const auto& [sym_name, e] : inner) {
        auto it = n->symbol_mapping.find(sym_name);
        if (it == n->symbol_mapping.end() || !it->second.is_symbol()) continue;
        const std::string& outer = it->second.symbol_name();
        if (args.count(outer) && sdfg.has_data(outer) && sdfg.arrays.at(outer).is_scalar())
          out.emplace(outer, e);
        else if (args.count(outer) && !sdfg.has_data(outer))
          out.emplace(outer, e);
      }
    }
  return out;
}

int insert_call_row_exchanges(SDFG& sdfg, const OrchestrationRows& rows) {
  for (const CallRows& call : rows.calls) {
    // The state is the SDFG's (analysed from it): its region may add blocks.
    SDFGState& x =
        add_state_before(sdfg, *const_cast<SDFGState*>(call.state), "halo_exchange_" + call.program);
    for (const auto& [array, entity] : call.exchanged) add_unstructured_exchange(sdfg, x, array, entity);
  }
  return rows.count() - static_cast<int>(rows.once.size()) + insert_unstructured_exchanges(sdfg, rows.once);
}

}  // namespace weir::distributed
