// Validation that needs a state's scope tree (DaCe's scope_dict): edges may only enter a map
// scope through its entry and leave it through its exit, and symbols of memlets, map ranges,
// nested-SDFG symbol mappings and the names Python tasklets read must be defined where they are
// used (map parameters and dynamic map inputs inside their scope).
#include <exception>

#include "validate_internal.h"
#include "weir/pycode/source.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/symbolic.h"

namespace weir::detail {

namespace {

class Scopes {
 public:
  Scopes(const SDFGState& st, ScopeTree tree) : st_(st), tree_(std::move(tree)) {}

  NodeId parent(NodeId n) const { return n < tree_.parent.size() ? tree_.parent[n] : kNoNode; }

  /// The scope an edge runs in: inside `u` if u is an entry and the edge enters its scope,
  /// outside the scope of `u` if u is an exit, else the scope of `u`.
  NodeId edge_scope(const DataflowEdge& e) const {
    const Node& u = st_.node(e.src);
    if (u.kind() == NodeKind::MapEntry && parent(e.dst) == e.src) return e.src;
    if (u.kind() == NodeKind::MapExit) {
      NodeId entry = parent(e.src);
      return entry == kNoNode ? kNoNode : parent(entry);
    }
    return parent(e.src);
  }

  /// Parameters and dynamic inputs of `entry` and every scope around it.
  SymbolSet symbols_of_scope(NodeId entry) const {
    SymbolSet out;
    // Bounded by the node count, so that a malformed parent chain cannot loop forever.
    for (std::size_t steps = 0; entry != kNoNode && steps <= st_.node_capacity(); ++steps) {
      if (!st_.has_node(entry)) break;
      if (const auto* me = st_.node(entry).as<MapEntry>()) add_own_symbols(*me, out);
      entry = parent(entry);
    }
    return out;
  }

  static void add_own_symbols(const MapEntry& me, SymbolSet& out) {
    if (me.map) out.insert(me.map->params.begin(), me.map->params.end());
    // Dynamic map inputs: in-connectors that are not IN_ scope connectors.
    for (const auto& [name, type] : me.in_connectors) {
      if (name.rfind("IN_", 0) != 0) out.insert(name);
    }
  }

  std::string scope_name(NodeId entry) const {
    if (entry == kNoNode) return "the top level";
    if (!st_.has_node(entry)) return "scope " + std::to_string(entry);
    return "the scope of " + describe_node(st_.node(entry));
  }

 private:
  const SDFGState& st_;
  ScopeTree tree_;
};

bool edge_respects_scopes(const Scopes& s, const SDFGState& st, const DataflowEdge& e) {
  const Node& u = st.node(e.src);
  if (u.kind() == NodeKind::MapEntry) return s.parent(e.dst) == e.src;
  if (u.kind() == NodeKind::MapExit) {
    NodeId entry = s.parent(e.src);
    return s.parent(e.dst) == (entry == kNoNode ? kNoNode : s.parent(entry));
  }
  return s.parent(e.dst) == s.parent(e.src);
}

SymbolSet with(const SymbolSet& a, const SymbolSet& b) {
  SymbolSet out = a;
  out.insert(b.begin(), b.end());
  return out;
}

/// A name a Python tasklet reads that is none of its connectors, not assigned in its code and
/// not a symbol defined where the tasklet runs (declared, assigned on an interstate edge, a loop
/// variable or map parameter) has no value: DaCe's C++ compiler stops at it, and a run would
/// ask for it as if it were a symbol of the program. Reported with the tasklet and the names.
void check_tasklet_names(Validator& v, const Tasklet& t, const SymbolSet& available, const ElementRef& here) {
  if (t.code.language != Language::Python) return;
  pycode::NameUse use;
  try {
    use = code_names(t.code);
  } catch (const pycode::SourceError&) {
    return;  // validate_code reports it ("tasklet-syntax")
  }
  SymbolSet undefined;
  for (const std::string& s : use.reads) {
    if (t.in_connectors.count(s) || t.out_connectors.count(s) || use.writes.count(s)) continue;
    if (!available.count(s) && !v.sdfg.arrays.count(s) && !v.all_loop_variables.count(s)) undefined.insert(s);
  }
  if (undefined.empty()) return;
  v.report("tasklet-undefined-name",
           describe_node(t) + " reads " + quoted_list(undefined) +
               ", which is neither one of its connectors, nor assigned in its code, nor a symbol of SDFG '" +
               v.sdfg.name + "'" + code_excerpt(t.code.code),
           here);
}

}  // namespace

void validate_scopes(Validator& v, const SDFGState& st, const SymbolSet& defined,
                     bool scope_problems_reported) {
  ScopeTree tree;
  try {
    tree = st.scope_tree();
  } catch (const std::exception& ex) {
    if (!scope_problems_reported) {
      report_query_failure(v, st, "scope-tree", "the scopes of the state cannot be determined", ex);
    }
    return;
  }
  const Scopes scopes(st, std::move(tree));

  for (const DataflowEdge* e : st.edges()) {
    const ElementRef here = v.at_edge(st, e->id);
    v.guarded(here, [&] {
      const Node& src = st.node(e->src);
      const Node& dst = st.node(e->dst);
      if (!edge_respects_scopes(scopes, st, *e)) {
        NodeId from = src.kind() == NodeKind::MapEntry ? e->src : scopes.parent(e->src);
        v.report("scope-crossing",
                 "the edge joins " + describe_node(src) + " in " + scopes.scope_name(scopes.parent(e->src)) +
                     " to " + describe_node(dst) + " in " + scopes.scope_name(scopes.parent(e->dst)) +
                     " without passing through the entry or exit of " +
                     scopes.scope_name(from == kNoNode ? scopes.parent(e->dst) : from),
                 here);
        return;  // map parameters of the edge's scope are ill-defined
      }
      if (e->memlet.is_empty()) return;
      SymbolSet used = e->memlet.subset.free_symbols();
      if (e->memlet.other_subset) {
        SymbolSet o = e->memlet.other_subset->free_symbols();
        used.insert(o.begin(), o.end());
      }
      SymbolSet undefined = undefined_in(used, with(defined, scopes.symbols_of_scope(scopes.edge_scope(*e))));
      if (!undefined.empty()) {
        v.report("undefined-symbol",
                 "memlet '" + e->memlet.data + "[" + e->memlet.subset.str() + "]' uses undefined symbol(s) " +
                     quoted_list(undefined),
                 here);
      }
    });
  }

  for (const Node* n : st.nodes()) {
    const ElementRef here = v.at_node(st, *n);
    v.guarded(here, [&] {
      if (const auto* me = n->as<MapEntry>()) {
        if (!me->map) return;
        SymbolSet available = with(defined, scopes.symbols_of_scope(scopes.parent(n->id())));
        SymbolSet own;
        Scopes::add_own_symbols(*me, own);
        for (const std::string& p : me->map->params) own.erase(p);  // a range cannot use its own parameters
        available.insert(own.begin(), own.end());
        SymbolSet undefined = undefined_in(me->map->range.free_symbols(), available);
        if (!undefined.empty()) {
          v.report("undefined-symbol",
                   describe_node(*n) + ": map range [" + me->map->range.str() +
                       "] uses undefined symbol(s) " + quoted_list(undefined),
                   here);
        }
      } else if (const auto* t = n->as<Tasklet>()) {
        check_tasklet_names(v, *t, with(defined, scopes.symbols_of_scope(scopes.parent(n->id()))), here);
      } else if (const auto* ns = n->as<NestedSDFGNode>()) {
        SymbolSet available = with(defined, scopes.symbols_of_scope(scopes.parent(n->id())));
        for (const auto& [inner, value] : ns->symbol_mapping) {
          SymbolSet undefined = undefined_in(value.free_symbols(), available);
          if (!undefined.empty()) {
            v.report("undefined-symbol",
                     describe_node(*n) + ": symbol mapping " + inner + " = " + value.str() +
                         " uses undefined symbol(s) " + quoted_list(undefined),
                     here);
          }
        }
      }
    });
  }
}

}  // namespace weir::detail
