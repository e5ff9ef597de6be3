#include "weir/distributed/halo_rows.h"

#include <map>
#include <optional>
#include <utility>
#include <vector>

namespace weir::distributed {

namespace {

// The innermost edges of the memlet path that starts with edge `id` (into a map entry through
// IN_x: the edges out of OUT_x, through nested map entries), with the parameters of the maps
// passed on the way.
void leaves(const SDFGState& st, EdgeId id, std::set<std::string>& params, std::vector<EdgeId>& out) {
  const DataflowEdge& e = st.edge(id);
  const auto* entry = st.node(e.dst).as<MapEntry>();
  if (!entry || e.dst_conn.rfind("IN_", 0) != 0) {
    out.push_back(id);
    return;
  }
  params.insert(entry->map->params.begin(), entry->map->params.end());
  const std::string conn = "OUT_" + e.dst_conn.substr(3);
  for (EdgeId o : st.out_edges_by_connector(e.dst, conn)) leaves(st, o, params, out);
}

// The innermost edges writing into the exit of map `entry` (through nested map exits) for
// the outermost edge `id` leaving it.
void write_leaves(const SDFGState& st, EdgeId id, std::vector<EdgeId>& out) {
  const DataflowEdge& e = st.edge(id);
  const auto* exit = st.node(e.src).as<MapExit>();
  if (!exit || e.src_conn.rfind("OUT_", 0) != 0) {
    out.push_back(id);
    return;
  }
  const std::string conn = "IN_" + e.src_conn.substr(4);
  for (EdgeId i : st.in_edges_by_connector(e.src, conn)) write_leaves(st, i, out);
}

// The map parameter a memlet's first index is, when it is exactly one of `params` and the
// memlet is not dynamic.
std::optional<std::string> row_parameter(const Memlet& m, const std::set<std::string>& params) {
  if (m.dynamic || m.subset.dims() == 0) return std::nullopt;
  const Range& r = m.subset[0];
  if (!(r.start == r.end) || !r.start.is_symbol() || !params.count(r.start.symbol_name()))
    return std::nullopt;
  return r.start.symbol_name();
}

// The row parameter every write of map `entry` uses and the containers it writes; nullopt when
// the writes use different rows or none.
std::optional<std::pair<std::string, std::set<std::string>>> map_writes(const SDFGState& st,
                                                                        const MapEntry& entry) {
  std::set<std::string> params(entry.map->params.begin(), entry.map->params.end());
  std::set<std::string> written;
  std::optional<std::string> row;
  std::vector<EdgeId> ws;
  for (EdgeId o : st.out_edges(entry.exit)) {
    if (st.edge(o).memlet.is_empty()) continue;
    written.insert(st.edge(o).memlet.data);
    write_leaves(st, o, ws);
  }
  for (EdgeId w : ws) {
    // Nested maps add their parameters: take every map parameter of the state's maps.
    std::set<std::string> all = params;
    for (const Node* n : st.nodes())
      if (const auto* m = n->as<MapEntry>()) all.insert(m->map->params.begin(), m->map->params.end());
    auto p = row_parameter(st.edge(w).memlet, all);
    if (!p || (row && *row != *p)) return std::nullopt;
    row = p;
  }
  if (!row) return std::nullopt;
  return std::make_pair(*row, written);
}

}  // namespace

std::set<std::string> halo_rows_read(const SDFG& sdfg) {
  std::set<std::string> halo;
  std::vector<std::pair<std::string, std::string>> through;  // (read, written): read at the written row
  for (const SDFGState* st : sdfg.all_states()) {
    const ScopeTree scopes = st->scope_tree();
    for (const Node* n : st->nodes()) {
      const auto* a = n->as<AccessNode>();
      if (!a || scopes.parent[static_cast<std::size_t>(n->id())] != kNoNode) continue;
      for (EdgeId id : st->out_edges(n->id())) {
        const DataflowEdge& e = st->edge(id);
        if (e.memlet.is_empty()) continue;
        const auto* entry = st->node(e.dst).as<MapEntry>();
        if (!entry) {
          halo.insert(a->data);
          continue;
        }
        const auto writes = map_writes(*st, *entry);
        std::set<std::string> params;
        std::vector<EdgeId> reads;
        leaves(*st, id, params, reads);
        bool at_row = writes.has_value() && !reads.empty();
        for (EdgeId r : reads) {
          const auto p = row_parameter(st->edge(r).memlet, params);
          at_row = at_row && p && *p == writes->first;
        }
        if (!at_row) {
          halo.insert(a->data);
          continue;
        }
        for (const std::string& w : writes->second) through.emplace_back(a->data, w);
      }
    }
  }
  for (bool grew = true; grew;) {
    grew = false;
    for (const auto& [read, written] : through)
      if (halo.count(written) && halo.insert(read).second) grew = true;
  }
  return halo;
}

}  // namespace weir::distributed
