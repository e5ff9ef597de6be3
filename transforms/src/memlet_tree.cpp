// Memlet trees (see the header).
#include "memlet_tree.h"

#include <set>
#include <string>

namespace weir::transforms::detail {

std::vector<EdgeId> memlet_tree(const SDFGState& st, EdgeId e) {
  std::set<EdgeId> seen{e};
  std::vector<EdgeId> work{e}, out;
  auto visit = [&](EdgeId x) {
    if (seen.insert(x).second) work.push_back(x);
  };
  auto suffix = [](const std::string& conn, const char* prefix) {
    return conn.rfind(prefix, 0) == 0 ? conn.substr(std::string(prefix).size()) : std::string();
  };
  while (!work.empty()) {
    EdgeId x = work.back();
    work.pop_back();
    out.push_back(x);
    const DataflowEdge& d = st.edge(x);
    const Node& src = st.node(d.src);
    const Node& dst = st.node(d.dst);
    // Downstream: into a scope node through IN_x, on along every edge leaving its OUT_x.
    if ((dst.is_scope_entry() || dst.is_scope_exit()))
      if (std::string c = suffix(d.dst_conn, "IN_"); !c.empty())
        for (EdgeId y : st.out_edges_by_connector(d.dst, "OUT_" + c)) visit(y);
    // Upstream: out of a scope node through OUT_x, back along every edge into its IN_x.
    if ((src.is_scope_entry() || src.is_scope_exit()))
      if (std::string c = suffix(d.src_conn, "OUT_"); !c.empty())
        for (EdgeId y : st.in_edges_by_connector(d.src, "IN_" + c)) visit(y);
  }
  return out;
}

}  // namespace weir::transforms::detail
