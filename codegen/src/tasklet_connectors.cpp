// A tasklet's connectors as C++: where each reads or writes (its memlets' locations), and whether it
// is a local value, a pointer, a reference or a hooked (write-conflict-resolved) output.
#include "state_codegen.h"

namespace weir::codegen::detail {

bool is_code_node(const Node& n) {
  return n.kind() == NodeKind::Tasklet || n.kind() == NodeKind::NestedSDFG || n.kind() == NodeKind::Library;
}

std::optional<ScalarType> connector_type(const ConnectorMap& m, const std::string& c, bool* pointer) {
  auto it = m.find(c);
  if (it == m.end() || !it->second || !it->second->raw_json.empty() || it->second->base == ScalarType::Void)
    return std::nullopt;
  if (pointer) *pointer = it->second->pointer_depth > 0;
  return it->second->base;
}

std::vector<Conn> StateGen::tasklet_inputs(const Tasklet& t, bool python,
                                           const std::set<std::string>& subscripted) const {
  ElementRef where = ref(t);
  std::vector<Conn> ins;
  for (const auto& [c, ct] : t.in_connectors) {
    auto es = st.in_edges_by_connector(t.id(), c);
    if (es.empty()) continue;
    if (es.size() > 1)
      throw CodegenError(where, "input connector '" + c + "' has " + std::to_string(es.size()) + " edges");
    const DataflowEdge& e = st.edge(es[0]);
    if (e.memlet.is_empty() && !is_code_node(st.node(e.src))) continue;
    Conn cn;
    cn.name = c;
    cn.cpp = cpp_ident(c);
    Location loc = edge_location(e, true);
    bool ptr = false;
    cn.type = connector_type(t.in_connectors, c, &ptr).value_or(loc.type);
    cn.multi = !loc.single_element();
    // A pointer-typed connector of one element that Python code does not subscript is that
    // element (DaCe's auto-optimize types connectors as pointers and keeps `__out = 1.0`).
    if (python && !cn.multi && !subscripted.count(c)) ptr = false;
    // Dynamic (data-dependent) single elements are references: read only where the code reads.
    cn.kind = (ptr || cn.multi || subscripted.count(c)) ? ConnKind::Pointer
              : e.memlet.dynamic && !loc.data.empty()   ? ConnKind::Reference
                                                        : ConnKind::Value;
    cn.locs.push_back(loc);
    ins.push_back(std::move(cn));
  }
  return ins;
}

std::vector<Conn> StateGen::tasklet_outputs(const Tasklet& t, bool python,
                                            const std::set<std::string>& subscripted,
                                            std::vector<std::string>& pre) {
  ElementRef where = ref(t);
  std::vector<Conn> outs;
  for (const auto& [c, ct] : t.out_connectors) {
    Conn cn;
    cn.name = c;
    cn.cpp = cpp_ident(c);
    bool ptr = false;
    auto ctype = connector_type(t.out_connectors, c, &ptr);
    bool dynamic = false;
    for (EdgeId id : st.out_edges_by_connector(t.id(), c)) {
      const DataflowEdge& e = st.edge(id);
      const Node& dst = st.node(e.dst);
      if (e.memlet.is_empty() && !is_code_node(dst)) continue;
      if (is_code_node(dst)) {
        auto key = std::make_pair(t.id(), c);
        if (!edge_vars_.count(key)) {
          ScalarType vt = ctype.value_or(ScalarType::Float64);
          if (!ctype && !e.memlet.data.empty() && sg.sdfg.arrays.count(e.memlet.data))
            vt = sg.sdfg.arrays.at(e.memlet.data).dtype.base;
          std::string var = fresh("__weir_e" + std::to_string(t.id()) + "_" + sanitize_label(c) + "_");
          edge_vars_[key] = {var, vt};
          pre.push_back(std::string(cpp_name(vt)) + " " + var + "{};");
        }
      }
      Location loc = edge_location(e, false);
      dynamic = dynamic || e.memlet.dynamic;
      if (!e.memlet.wcr.empty()) cn.wcr = e.memlet.wcr;
      cn.multi = cn.multi || !loc.single_element();
      if (cn.locs.empty()) cn.type = ctype.value_or(loc.type);
      cn.locs.push_back(loc);
    }
    if (python && !cn.multi && !subscripted.count(c)) ptr = false;  // as for inputs
    if (cn.locs.empty()) {
      cn.type = ctype.value_or(ScalarType::Float64);
    } else if (ptr || cn.multi || subscripted.count(c)) {
      cn.kind = cn.wcr.empty() ? ConnKind::Pointer : ConnKind::Hooked;
    } else if (dynamic) {
      cn.kind = cn.wcr.empty() ? ConnKind::Reference : ConnKind::Hooked;
    }
    if (!python && cn.kind == ConnKind::Hooked) cn.kind = cn.multi ? ConnKind::Pointer : ConnKind::Value;
    if (cn.kind != ConnKind::Value && cn.locs.size() > 1)
      throw CodegenError(where, "output connector '" + c + "' writes to several places through a pointer");
    outs.push_back(std::move(cn));
  }
  return outs;
}

}  // namespace weir::codegen::detail
