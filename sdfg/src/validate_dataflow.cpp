// Validation of a state's dataflow graph (DaCe's validate_state): cycles, nodes (access
// nodes, map entry/exit pairing, nested SDFGs), connectors and memlets. Checks that need the
// scope tree are in validate_scopes.cpp.
#include <algorithm>
#include <exception>
#include <map>
#include <set>

#include "validate_internal.h"
#include "weir/pycode/source.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/dace_symbols.h"
#include "weir/sdfg/symbolic.h"

namespace weir::detail {

std::string describe_node(const Node& n) {
  std::string kind;
  switch (n.kind()) {
    case NodeKind::Access: kind = "access node"; break;
    case NodeKind::Tasklet: kind = "tasklet"; break;
    case NodeKind::MapEntry: kind = "map entry"; break;
    case NodeKind::MapExit: kind = "map exit"; break;
    case NodeKind::NestedSDFG: kind = "nested SDFG"; break;
    case NodeKind::Library: kind = "library node"; break;
  }
  return kind + " '" + n.label + "' (node " + std::to_string(n.id()) + ")";
}

void report_query_failure(Validator& v, const SDFGState& st, const std::string& code,
                          const std::string& message, const std::exception& ex) {
  ElementRef where = v.at_block(st);
  std::string detail = ex.what();
  if (const auto* ir = dynamic_cast<const IRError*>(&ex)) {
    std::string prefix = ir->where().describe() + ": ";
    if (detail.rfind(prefix, 0) == 0) detail = detail.substr(prefix.size());
    if (ir->where().node >= 0 && st.has_node(static_cast<NodeId>(ir->where().node))) {
      where.node = ir->where().node;
      where.node_label = st.node(static_cast<NodeId>(where.node)).label;
    }
  }
  v.report(code, message + ": " + detail, where);
}

namespace {

bool is_code_node(const Node& n) {
  return n.kind() == NodeKind::Tasklet || n.kind() == NodeKind::NestedSDFG || n.kind() == NodeKind::Library;
}

/// Nodes whose edges must name a connector unless the memlet is empty.
// Edges of access nodes never name connectors; DaCe writes a Reduce's (and other library
// nodes') edges without them too and accepts that, so only tasklets, nested SDFGs and scopes
// need one.
bool needs_connector(const Node& n) { return n.kind() != NodeKind::Access && n.kind() != NodeKind::Library; }

bool starts_with(const std::string& s, std::string_view prefix) {
  return s.size() >= prefix.size() && std::string_view(s).substr(0, prefix.size()) == prefix;
}

std::size_t data_dims(const DataDescriptor& d) { return d.is_scalar() ? 1 : d.shape.size(); }

std::string edge_text(const SDFGState& st, const DataflowEdge& e) {
  auto end = [&st](NodeId id, const std::string& conn) {
    std::string s = st.has_node(id) ? describe_node(st.node(id)) : "node " + std::to_string(id);
    return conn.empty() ? s : s + " [" + conn + "]";
  };
  return "edge " + end(e.src, e.src_conn) + " -> " + end(e.dst, e.dst_conn);
}

// --- nodes ---------------------------------------------------------------------------------

/// A Python tasklet must assign each of its output connectors somewhere in its code (`o = v`,
/// `o[i] = v`, `o += v`): the generated code would otherwise write whatever the output held
/// before (zeros, or an uninitialized value), with no sign of it. Code that does not parse is
/// left to validate_code ("tasklet-syntax").
void check_outputs_assigned(Validator& v, const Tasklet& t, const std::string& what, const ElementRef& here) {
  if (t.code.language != Language::Python) return;
  pycode::NameUse use;
  try {
    use = code_names(t.code);
  } catch (const pycode::SourceError&) {
    return;
  }
  std::set<std::string> unassigned;
  for (const auto& [conn, type] : t.out_connectors)
    if (!use.writes.count(conn)) unassigned.insert(conn);
  if (unassigned.empty()) return;
  v.report("tasklet-output-unassigned",
           what + " never assigns its output connector" + (unassigned.size() == 1 ? " " : "s ") +
               quoted_list(unassigned) + code_excerpt(t.code.code),
           here);
}

void check_connectors(Validator& v, const SDFGState& st, const Node& n) {
  const ElementRef here = v.at_node(st, n);
  const std::string what = describe_node(n);
  for (const ConnectorMap* conns : {&n.in_connectors, &n.out_connectors}) {
    for (const auto& [name, type] : *conns) {
      if (!is_identifier(name)) {
        v.report("connector-name", what + " has connector '" + name + "', which is not a valid identifier",
                 here);
      }
    }
  }
  check_vector_connectors(v, st, n);
  // Nested SDFGs and library nodes may use one name for an input and an output (inout).
  if (n.kind() != NodeKind::NestedSDFG && n.kind() != NodeKind::Library) {
    for (const auto& [name, type] : n.in_connectors) {
      if (n.out_connectors.count(name)) {
        v.report("connector-duplicate", what + " has '" + name + "' as both an input and an output connector",
                 here);
      }
    }
  }
  if (n.kind() == NodeKind::Tasklet && !n.out_connectors.empty()) {
    // Generated code would leave the outputs uninitialized. (A tasklet without outputs may be
    // empty: it only orders its inputs.)
    if (is_blank(static_cast<const Tasklet&>(n).code))
      v.report("tasklet-no-code", what + " has no code but has output connectors", here);
    else
      check_outputs_assigned(v, static_cast<const Tasklet&>(n), what, here);
  }
  if (n.kind() == NodeKind::Tasklet) {
    for (const ConnectorMap* conns : {&n.in_connectors, &n.out_connectors}) {
      for (const auto& [name, type] : *conns) {
        if (v.sdfg.arrays.count(name) || v.sdfg.symbols.count(name)) {
          v.report(
              "connector-shadows-name",
              what + " has connector '" + name + "', which is already the name of a data container or symbol",
              here);
        }
      }
    }
  }
  if (n.kind() == NodeKind::MapEntry || n.kind() == NodeKind::MapExit) {
    for (const auto& [name, type] : n.in_connectors) {
      if (starts_with(name, "IN_") && !n.out_connectors.count("OUT_" + name.substr(3))) {
        v.report("scope-connector-unpaired",
                 what + " has input connector '" + name + "' without output connector 'OUT_" +
                     name.substr(3) + "'",
                 here);
      }
    }
    for (const auto& [name, type] : n.out_connectors) {
      if (starts_with(name, "OUT_") && !n.in_connectors.count("IN_" + name.substr(4))) {
        v.report(
            "scope-connector-unpaired",
            what + " has output connector '" + name + "' without input connector 'IN_" + name.substr(4) + "'",
            here);
      }
    }
  }

  // Edges per connector, and edges naming connectors the node does not have.
  std::map<std::string, int> in_count, out_count;
  for (EdgeId id : st.in_edges(n.id())) {
    if (!st.has_edge(id)) continue;
    const DataflowEdge& e = st.edge(id);
    ElementRef at = here;
    at.edge = static_cast<long>(id);
    if (e.dst_conn.empty()) {
      if (needs_connector(n) && !e.memlet.is_empty()) {
        v.report("connector-required",
                 edge_text(st, e) + " carries data into " + what + " without a connector", at);
      }
    } else if (!n.in_connectors.count(e.dst_conn)) {
      v.report("connector-missing",
               edge_text(st, e) + " leads to input connector '" + e.dst_conn + "', which " + what +
                   " does not have",
               at);
    } else {
      ++in_count[e.dst_conn];
    }
  }
  for (EdgeId id : st.out_edges(n.id())) {
    if (!st.has_edge(id)) continue;
    const DataflowEdge& e = st.edge(id);
    ElementRef at = here;
    at.edge = static_cast<long>(id);
    if (e.src_conn.empty()) {
      if (needs_connector(n) && !e.memlet.is_empty()) {
        v.report("connector-required",
                 edge_text(st, e) + " carries data out of " + what + " without a connector", at);
      }
    } else if (!n.out_connectors.count(e.src_conn)) {
      v.report("connector-missing",
               edge_text(st, e) + " comes from output connector '" + e.src_conn + "', which " + what +
                   " does not have",
               at);
    } else {
      ++out_count[e.src_conn];
    }
  }
  for (const auto& [name, type] : n.in_connectors) {
    int k = in_count[name];
    if (k == 0) {
      v.report("connector-dangling", what + " has input connector '" + name + "' with no edge", here);
    } else if (k > 1 && n.kind() != NodeKind::MapExit) {
      // A map exit's input connector collects one edge per writer inside the scope.
      v.report("connector-multiple-edges",
               what + " has " + std::to_string(k) + " edges into input connector '" + name +
                   "' (at most one is allowed)",
               here);
    }
  }
  for (const auto& [name, type] : n.out_connectors) {
    int k = out_count[name];
    if (k == 0) {
      v.report("connector-dangling", what + " has output connector '" + name + "' with no edge", here);
    } else if (k > 1 && (n.kind() == NodeKind::MapExit || is_code_node(n))) {
      v.report("connector-multiple-edges",
               what + " has " + std::to_string(k) + " edges out of output connector '" + name +
                   "' (at most one is allowed)",
               here);
    }
  }
}

void check_access_node(Validator& v, const SDFGState& st, const AccessNode& n) {
  const ElementRef here = v.at_node(st, n);
  auto it = v.sdfg.arrays.find(n.data);
  if (it == v.sdfg.arrays.end()) {
    v.report("access-unknown-data",
             describe_node(n) + " refers to data container '" + n.data + "', which does not exist", here);
    return;
  }
  // In a nested SDFG, a written non-transient must be passed out through the node.
  if (v.parent_node && !it->second.transient && v.parent_node->in_connectors.count(n.data) &&
      !v.parent_node->out_connectors.count(n.data)) {
    for (EdgeId id : st.in_edges(n.id())) {
      if (st.has_edge(id) && !st.edge(id).memlet.is_empty()) {
        v.report("nested-write-to-input",
                 describe_node(n) + " writes '" + n.data +
                     "', which the nested SDFG node only has as an input connector",
                 here);
        break;
      }
    }
  }
}

void check_map_entry(Validator& v, const SDFGState& st, const MapEntry& n) {
  const ElementRef here = v.at_node(st, n);
  const std::string what = describe_node(n);
  if (!n.map) {
    v.report("map-missing-info", what + " has no map properties", here);
  } else {
    const MapInfo& m = *n.map;
    if (m.params.empty()) v.report("map-params", what + " has no parameters", here);
    std::set<std::string> seen;
    for (const std::string& p : m.params) {
      if (!is_identifier(p)) {
        v.report("map-param-name", what + " has parameter '" + p + "', which is not a valid identifier",
                 here);
      }
      if (!seen.insert(p).second) {
        v.report("map-param-duplicate", what + " has parameter '" + p + "' more than once", here);
      }
    }
    if (m.range.dims() != m.params.size()) {
      v.report("map-range-dims",
               what + " has " + std::to_string(m.params.size()) + " parameter(s) but its range has " +
                   std::to_string(m.range.dims()) + " dimension(s)",
               here);
    }
    for (std::size_t d = 0; d < m.range.dims(); ++d) {
      const sym::Expr& step = m.range[d].step;
      if (step.is_integer() && step.value() == 0) {
        // The range as it is, not only the label (which keeps the range the map was made with).
        const std::string param = d < m.params.size() ? m.params[d] + "=" : "";
        v.report("map-step",
                 what + " has step 0 in dimension " + std::to_string(d) + " of its range (" + param +
                     Subset({m.range[d]}).str() + "; the loop would never advance)",
                 here);
      }
    }
  }
  if (n.exit == kNoNode || !st.has_node(n.exit) || !st.node(n.exit).as<MapExit>()) {
    v.report("scope-unbalanced", what + " has no matching map exit", here);
    return;
  }
  const auto& exit = *st.node(n.exit).as<MapExit>();
  if (exit.entry != n.id()) {
    v.report("scope-unbalanced",
             what + " names " + describe_node(exit) + " as its exit, but that exit belongs to entry " +
                 (exit.entry == kNoNode ? std::string("(none)") : std::to_string(exit.entry)),
             here);
  } else if (exit.map != n.map) {
    v.report(
        "scope-map-shared",
        what + " and its exit (node " + std::to_string(exit.id()) + ") do not share the same map properties",
        here);
  }
}

void check_map_exit(Validator& v, const SDFGState& st, const MapExit& n) {
  const ElementRef here = v.at_node(st, n);
  const std::string what = describe_node(n);
  if (!n.map) v.report("map-missing-info", what + " has no map properties", here);
  if (n.entry == kNoNode || !st.has_node(n.entry) || !st.node(n.entry).as<MapEntry>()) {
    v.report("scope-unbalanced", what + " has no matching map entry", here);
    return;
  }
  const auto& entry = *st.node(n.entry).as<MapEntry>();
  if (entry.exit != n.id()) {
    v.report("scope-unbalanced",
             what + " names " + describe_node(entry) + " as its entry, but that entry's exit is " +
                 (entry.exit == kNoNode ? std::string("(none)") : "node " + std::to_string(entry.exit)),
             here);
  }
}

/// SDFG::free_symbols() reads every map's properties; a map entry without them (reported as
/// map-missing-info by the nested SDFG's own validation) would make it crash.
bool free_symbols_computable(const SDFG& sdfg) {
  for (const SDFGState* s : sdfg.all_states()) {
    for (const Node* n : s->nodes()) {
      if (const auto* me = n->as<MapEntry>(); me && !me->map) return false;
    }
  }
  return true;
}

void check_nested_sdfg(Validator& v, const SDFGState& st, const NestedSDFGNode& n) {
  const ElementRef here = v.at_node(st, n);
  const std::string what = describe_node(n);
  if (!n.sdfg) {
    v.report("nested-sdfg-missing", what + " has no SDFG", here);
    return;
  }
  const SDFG& inner = *n.sdfg;
  if (inner.parent_node() != &n || inner.parent_state() != &st) {
    v.report("nested-parent-link",
             what + ": the parent links of nested SDFG '" + inner.name +
                 "' do not point to this node and state (relink_nested() sets them)",
             here);
  }
  SymbolSet connectors;
  for (const auto& [name, type] : n.in_connectors) connectors.insert(name);
  for (const auto& [name, type] : n.out_connectors) connectors.insert(name);
  for (const std::string& c : connectors) {
    auto it = inner.arrays.find(c);
    if (it == inner.arrays.end()) {
      v.report("nested-connector-unknown",
               what + " has connector '" + c + "', which is not a data container of '" + inner.name + "'" +
                   (inner.symbols.count(c) ? " (it is a symbol: pass symbols via symbol_mapping)" : ""),
               here);
    } else if (it->second.transient) {
      v.report("nested-connector-transient",
               what + " has connector '" + c + "', which is a transient of '" + inner.name + "'", here);
    }
  }
  for (const auto& [name, desc] : inner.arrays) {
    if (!desc.transient && !connectors.count(name)) {
      v.report("nested-connector-missing",
               what + " has no connector for non-transient container '" + name + "' of '" + inner.name + "'",
               here);
    }
  }
  // A symbol carries a number: an array named in a mapping reaches the nested SDFG as a symbol
  // it then indexes (`start = A_row[i]`), which no backend can run. Arrays go through connectors.
  for (const auto& [sym_name, value] : n.symbol_mapping)
    for (const std::string& s : value.free_symbols())
      if (auto it = v.sdfg.arrays.find(s); it != v.sdfg.arrays.end() && !it->second.is_scalar())
        v.report("nested-symbol-array",
                 what + ": symbol mapping " + sym_name + " = " + value.str() + " reads array '" + s +
                     "' (arrays reach a nested SDFG through connectors)",
                 here);
  // weir's free symbols and DaCe's (stricter where a declared symbol is defined only by map
  // parameters or read before its assignment): DaCe refuses the file for either.
  SymbolSet free, dace_free;
  try {
    if (free_symbols_computable(inner)) free = inner.free_symbols();
  } catch (const std::exception&) {
    free.clear();  // the nested SDFG's own validation reports what is wrong with it
  }
  dace_free = dace_free_symbols(inner);
  SymbolSet missing, declared_only;
  for (const SymbolSet* set : {&free, &dace_free})
    for (const std::string& s : *set)
      if (!connectors.count(s) && !n.symbol_mapping.count(s)) {
        missing.insert(s);
        if (!free.count(s) && inner.symbols.count(s)) declared_only.insert(s);
      }
  if (!missing.empty()) {
    std::string why;
    if (!declared_only.empty())
      why = " (" + quoted_list(declared_only) +
            " declared in its symbols and not defined by an interstate assignment or loop before use: "
            "DaCe counts such a symbol free; remove it from the symbols or map it)";
    v.report("nested-symbol-missing",
             what + ": free symbol(s) " + quoted_list(missing) + " of '" + inner.name +
                 "' are missing from the symbol mapping" + why,
             here);
  }
  constexpr int kMaxDepth = 64;
  if (v.depth + 1 >= kMaxDepth) {
    v.report(
        "nested-depth",
        what + ": SDFGs nested more than " + std::to_string(kMaxDepth) + " levels deep are not validated",
        here);
    return;
  }
  validate_sdfg_into(inner, v.name_path + "/" + inner.name, v.out, v.depth + 1, &n);
}

void check_node(Validator& v, const SDFGState& st, const Node& n) {
  // DaCe requires identifier labels of tasklets, maps and nested SDFGs (they become C names).
  const std::string* label = nullptr;
  if (n.kind() == NodeKind::Tasklet || n.kind() == NodeKind::NestedSDFG) label = &n.label;
  if (const auto* me = n.as<MapEntry>(); me && me->map) label = &me->map->label;
  if (label && !is_identifier(*label)) {
    v.report("node-label", describe_node(n) + ": label '" + *label + "' is not a valid identifier",
             v.at_node(st, n));
  }
  check_connectors(v, st, n);
  if (st.in_edges(n.id()).empty() && st.out_edges(n.id()).empty() && !is_code_node(n)) {
    v.report("node-isolated", describe_node(n) + " has no edges", v.at_node(st, n));
  }
  if (const auto* a = n.as<AccessNode>()) {
    check_access_node(v, st, *a);
    check_view_reach(v, st, *a);
  } else if (const auto* me = n.as<MapEntry>())
    check_map_entry(v, st, *me);
  else if (const auto* mx = n.as<MapExit>())
    check_map_exit(v, st, *mx);
  else if (const auto* ns = n.as<NestedSDFGNode>()) {
    check_nested_sdfg(v, st, *ns);
    check_nested_reach(v, st, *ns);
  }
}

// --- edges ---------------------------------------------------------------------------------

/// The index ranges of `s` that are outside `d`, when every bound involved is a constant.
std::string constant_out_of_bounds(const Subset& s, const DataDescriptor& d) {
  std::size_t n = std::min(s.dims(), d.shape.size());
  for (std::size_t i = 0; i < n; ++i) {
    const Range& r = s[i];
    auto lo = r.start.as_integer();
    auto hi = r.end.as_integer();
    auto tile = r.tile.as_integer();
    auto size = d.shape[i].as_integer();
    std::optional<long long> off = 0;
    if (i < d.offset.size()) off = d.offset[i].as_integer();
    if (!lo || !hi || !off || !tile || *tile != 1) continue;
    // An empty range (end before start for its step's sign: a map over an empty domain) accesses
    // nothing, so no index of it is outside.
    if (auto step = r.step.as_integer(); step && ((*step > 0 && *hi < *lo) || (*step < 0 && *hi > *lo)))
      return {};
    long long first = std::min(*lo, *hi) + *off;
    long long last = std::max(*lo, *hi) + *off;
    if (first < 0 || (size && last >= *size)) {
      return "index " + std::to_string(first < 0 ? first : last) + " in dimension " + std::to_string(i) +
             " is outside 0.." + (size ? std::to_string(*size - 1) : d.shape[i].str());
    }
  }
  return {};
}

struct PathEnds {
  const DataflowEdge* first;
  const DataflowEdge* last;
};

PathEnds path_ends(const SDFGState& st, const DataflowEdge& e, bool acyclic) {
  PathEnds ends{&e, &e};
  if (!acyclic) return ends;
  try {
    std::vector<EdgeId> path = st.memlet_path(e.id);
    if (path.empty()) return ends;
    for (EdgeId id : path) {
      if (!st.has_edge(id)) return ends;
      const DataflowEdge& pe = st.edge(id);
      if (!st.has_node(pe.src) || !st.has_node(pe.dst)) return ends;
    }
    ends.first = &st.edge(path.front());
    ends.last = &st.edge(path.back());
  } catch (const std::exception&) {
    // A broken scope path: the connector checks report it; use the edge alone.
  }
  return ends;
}

void check_edge(Validator& v, const SDFGState& st, const DataflowEdge& e, bool acyclic) {
  const ElementRef here = v.at_edge(st, e.id);
  const std::string what = edge_text(st, e);
  const Node& src = st.node(e.src);
  const Node& dst = st.node(e.dst);
  const Memlet& m = e.memlet;

  if (m.is_empty()) {
    // DaCe: an empty memlet may use a tasklet connector only between two adjacent tasklets.
    bool adjacent_tasklets = src.kind() == NodeKind::Tasklet && dst.kind() == NodeKind::Tasklet;
    if (!adjacent_tasklets && ((dst.kind() == NodeKind::Tasklet && !e.dst_conn.empty()) ||
                               (src.kind() == NodeKind::Tasklet && !e.src_conn.empty()))) {
      v.report("memlet-empty-connector",
               what +
                   " is an empty memlet on a tasklet connector (only allowed between two "
                   "adjacent tasklets)",
               here);
    }
    return;
  }

  auto it = v.sdfg.arrays.find(m.data);
  if (it == v.sdfg.arrays.end()) {
    v.report("memlet-unknown-data",
             what + " has a memlet of data container '" + m.data + "', which does not exist", here);
    return;
  }
  const DataDescriptor& desc = it->second;

  const PathEnds ends = path_ends(st, e, acyclic);
  const Node& first = st.node(ends.first->src);
  const Node& last = st.node(ends.last->dst);
  const auto* first_access = first.as<AccessNode>();
  const auto* last_access = last.as<AccessNode>();

  if ((first_access || last_access) &&
      !(first_access && (m.data == first_access->data || m.data == e.src_conn)) &&
      !(last_access && (m.data == last_access->data || m.data == e.dst_conn))) {
    std::string ends_text = first_access ? "'" + first_access->data + "'" : "";
    if (last_access) ends_text += (ends_text.empty() ? "'" : " or '") + last_access->data + "'";
    v.report("memlet-data-mismatch",
             what + " has a memlet of '" + m.data + "', but its access node ends are " + ends_text, here);
  }

  if (desc.kind != DataKind::Unknown && m.subset.dims() != data_dims(desc)) {
    v.report("memlet-dims",
             what + ": memlet subset [" + m.subset.str() + "] has " + std::to_string(m.subset.dims()) +
                 " dimension(s) but '" + m.data + "' has " + std::to_string(data_dims(desc)),
             here);
  } else if (desc.kind != DataKind::Unknown && !m.allow_oob && !m.dynamic) {
    const AccessNode* subset_end = (last_access && last_access->data == m.data) ? last_access : first_access;
    if (subset_end) {
      std::string oob = constant_out_of_bounds(m.subset, desc);
      if (!oob.empty()) {
        v.report("memlet-out-of-bounds",
                 what + ": memlet subset [" + m.subset.str() + "] of '" + m.data + "': " + oob, here);
      }
    }
  }

  if (m.other_subset) {
    // other_subset indexes the other end: the destination unless the memlet names it.
    const AccessNode* other = (last_access && last_access->data != m.data) ? last_access : first_access;
    if (other) {
      auto oit = v.sdfg.arrays.find(other->data);
      if (oit != v.sdfg.arrays.end() && oit->second.kind != DataKind::Unknown) {
        const DataDescriptor& odesc = oit->second;
        if (m.other_subset->dims() != data_dims(odesc)) {
          v.report("memlet-other-dims",
                   what + ": other_subset [" + m.other_subset->str() + "] has " +
                       std::to_string(m.other_subset->dims()) + " dimension(s) but '" + other->data +
                       "' has " + std::to_string(data_dims(odesc)),
                   here);
        } else if (!m.allow_oob && !m.dynamic) {
          std::string oob = constant_out_of_bounds(*m.other_subset, odesc);
          if (!oob.empty()) {
            v.report("memlet-out-of-bounds",
                     what + ": other_subset [" + m.other_subset->str() + "] of '" + other->data + "': " + oob,
                     here);
          }
        }
      }
    }
  }

  if ((first.kind() == NodeKind::NestedSDFG && !last_access) ||
      (last.kind() == NodeKind::NestedSDFG && !first_access)) {
    v.report("nested-memlet-endpoint",
             what + ": data into or out of a nested SDFG must come from or go to an access node", here);
  }
  // A memlet leaving a map scope must be stored somewhere: its path ends at an access node.
  if (ends.last == &e && src.kind() == NodeKind::MapExit && !last_access) {
    v.report(
        "memlet-path-end",
        what + ": a memlet leaving a map scope must end at an access node, not at " + describe_node(last),
        here);
  }
}

}  // namespace

void validate_state(Validator& v, const SDFGState& st, const SymbolSet& defined) {
  const ElementRef here = v.at_block(st);
  bool endpoints_ok = true;
  for (const DataflowEdge* e : st.edges()) {
    if (!st.has_node(e->src) || !st.has_node(e->dst)) {
      v.report("edge-endpoint",
               "the edge joins node " + std::to_string(e->src) + " to node " + std::to_string(e->dst) +
                   ", which are not both nodes of the state",
               v.at_edge(st, e->id));
      endpoints_ok = false;
    }
  }
  if (!endpoints_ok) return;  // every other check reads edge endpoints

  bool acyclic = false;
  try {
    acyclic = st.is_acyclic();
  } catch (const std::exception&) {
    acyclic = false;
  }
  if (!acyclic) {
    const std::string message = "the dataflow graph of the state has a cycle";
    try {
      st.topological_order();
      v.report("state-cycle", message, here);
    } catch (const std::exception& ex) {
      report_query_failure(v, st, "state-cycle", message, ex);
    }
  }

  const std::size_t first_diagnostic = v.out.size();
  for (const Node* n : st.nodes()) {
    v.guarded(v.at_node(st, *n), [&] { check_node(v, st, *n); });
  }
  for (const DataflowEdge* e : st.edges()) {
    v.guarded(v.at_edge(st, e->id), [&] { check_edge(v, st, *e, acyclic); });
  }
  if (!acyclic) return;  // no scope tree without a topological order

  bool scope_problems = false;
  for (std::size_t i = first_diagnostic; i < v.out.size(); ++i) {
    const Diagnostic& d = v.out[i];
    if (d.where.sdfg == v.name_path && (starts_with(d.code, "scope-") || d.code == "map-missing-info")) {
      scope_problems = true;
    }
  }
  v.guarded(here, [&] { validate_scopes(v, st, defined, scope_problems); });
  if (!scope_problems) v.guarded(here, [&] { validate_propagation(v, st); });
}

}  // namespace weir::detail
