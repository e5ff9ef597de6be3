// Copying a map scope inside its state.
#include "scope_copy.h"

#include <memory>

#include "dataflow_util.h"

namespace weir::transforms::detail {

std::map<NodeId, NodeId> copy_scope(SDFGState& st, const std::vector<NodeId>& scope,
                                    const std::map<std::string, std::string>& rename) {
  std::set<NodeId> in_scope(scope.begin(), scope.end());
  std::set<EdgeId> edges;
  for (NodeId n : scope) {
    for (EdgeId e : st.in_edges(n)) edges.insert(e);
    for (EdgeId e : st.out_edges(n)) edges.insert(e);
  }
  std::map<NodeId, NodeId> id;
  for (NodeId n : scope) {
    Node& copy = st.add_node(st.node(n).clone());
    if (auto* an = copy.as<AccessNode>())
      if (auto r = rename.find(an->data); r != rename.end()) an->data = an->label = r->second;
    id[n] = copy.id();
  }
  for (NodeId n : scope)
    if (const auto* e = st.node(n).as<MapEntry>()) {
      auto& ne = *st.node(id.at(n)).as<MapEntry>();
      auto& nx = *st.node(id.at(e->exit)).as<MapExit>();
      ne.map = std::make_shared<MapInfo>(*e->map);  // copies do not share map properties
      ne.exit = nx.id();
      nx.entry = ne.id();
      nx.map = ne.map;
    }
  for (EdgeId e : edges) {
    const DataflowEdge& d = st.edge(e);
    Memlet m = d.memlet;
    if (auto r = rename.find(m.data); r != rename.end()) m.data = r->second;
    st.add_edge(in_scope.count(d.src) ? id.at(d.src) : d.src, d.src_conn,
                in_scope.count(d.dst) ? id.at(d.dst) : d.dst, d.dst_conn, m);
  }
  return id;
}

std::map<std::string, std::string> copy_transients(SDFG& sdfg, const std::set<std::string>& locals,
                                                   const std::string& suffix) {
  std::map<std::string, std::string> rename;
  for (const auto& data : locals) {
    std::string name = sdfg.unique_data_name(data + suffix);
    sdfg.add_data(name, sdfg.data(data));
    rename[data] = name;
  }
  return rename;
}

MapEntry& copy_map_as_remainder(SDFG& sdfg, AnalysisCache& cache, SDFGState& st, const MapEntry& me) {
  const ScopeTree tree = st.scope_tree();
  std::vector<NodeId> scope = scope_body(st, tree, me.id());
  auto rename = copy_transients(sdfg, transients_local_to(sdfg, cache, st, scope), "_rem");
  scope.push_back(me.id());
  scope.push_back(me.exit);
  auto id = copy_scope(st, scope, rename);
  MapEntry& rem = *st.node(id.at(me.id())).as<MapEntry>();
  rem.map->label = me.map->label + "_remainder";
  rem.label = rem.map->label;
  st.node(rem.exit).label = rem.map->label;
  return rem;
}

}  // namespace weir::transforms::detail
