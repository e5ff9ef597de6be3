#include "weir/distributed/row_reductions.h"

#include <vector>

#include "weir/distributed/global_reductions.h"
#include "weir/distributed/halo_analysis.h"
#include "weir/sdfg/errors.h"

namespace weir::distributed {

namespace {

// The name of array `a` as the orchestration spells it (`__psi` -> psi).
std::string field_name(const std::string& a) { return a.rfind("__", 0) == 0 ? a.substr(2) : a; }

// Restricts Reduce node `n`'s input to the owned rows of its entity and adds its Allreduce;
// returns the entity ("" when the input is on no partitioned entity: left alone).
std::string rewrite(SDFG& sdfg, SDFGState& st, LibraryNode& n, const std::set<std::string>& entities) {
  std::vector<EdgeId> ins = st.in_edges(n.id()), outs = st.out_edges(n.id());
  if (ins.size() != 1 || outs.size() != 1)
    throw Error(reduce_location(n) + "Reduce '" + n.label + "': a partition needs one input and one output");
  DataflowEdge& in = st.edge(ins[0]);
  const std::string array = in.memlet.data;
  if (!sdfg.has_data(array) || in.memlet.subset.dims() == 0) return "";
  const DataDescriptor& d = sdfg.arrays.at(array);
  std::string entity = axis_dimension(sdfg, array, 0);
  if (!entities.count(entity)) return "";
  for (std::size_t k = 1; k < d.shape.size(); ++k)
    if (const std::string other = axis_dimension(sdfg, array, k); entities.count(other))
      throw Error(reduce_location(n) + "cannot reduce '" + field_name(array) +
                  "' on a mesh partition: it has " + entity + " and " + other +
                  " dimensions, and a part owns rows of one entity only");
  const auto lower = reduce_slice_bounds(n, "slice_lower"), upper = reduce_slice_bounds(n, "slice_upper");
  const bool cut_lo = !lower.empty() && lower[0] && *lower[0] != 0, cut_hi = !upper.empty() && upper[0];
  if (cut_lo || cut_hi)
    throw Error(reduce_location(n) + "cannot reduce a slice of '" + field_name(array) + "' along " + entity +
                " on a mesh partition: a part numbers its " + entity +
                " rows locally, so a range of the global numbering names other entities there; reduce over "
                "every " +
                entity + " entity");
  // Local numbering: the owned rows first, then the halo rows.
  in.memlet.subset.ranges()[0] = Range(sym::Expr(0), sym::Expr::symbol(owned_symbol(entity)) - sym::Expr(1));
  const NodeId scalar = st.edge(outs[0]).dst;
  const std::string data = st.edge(outs[0]).memlet.data;  // (a copy: adding nodes moves edges)
  add_allreduce(sdfg, st, n, scalar, data);
  return entity;
}

}  // namespace

std::string owned_symbol(const std::string& entity) { return "__weir_owned_" + entity; }

RowReductions insert_row_reductions(SDFG& sdfg, const std::set<std::string>& entities) {
  RowReductions r;
  for (SDFGState* st : sdfg.all_states()) {
    std::vector<LibraryNode*> reduces;
    for (Node* node : st->nodes())
      if (auto* l = node->as<LibraryNode>(); l && l->is_reduce()) reduces.push_back(l);
    for (LibraryNode* l : reduces) {
      const std::string entity = rewrite(sdfg, *st, *l, entities);
      if (entity.empty()) continue;
      r.entities.insert(entity);
      ++r.count;
    }
  }
  for (const std::string& e : r.entities)
    if (!sdfg.symbols.count(owned_symbol(e))) {
      sdfg.add_symbol(owned_symbol(e), ScalarType::Int64);
      sdfg.arg_names.push_back(owned_symbol(e));
    }
  return r;
}

}  // namespace weir::distributed
