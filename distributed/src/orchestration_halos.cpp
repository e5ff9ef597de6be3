#include "weir/distributed/orchestration_halos.h"

#include <algorithm>
#include <set>

#include "weir/distributed/halo_exchange.h"
#include "weir/sdfg/errors.h"

namespace weir::distributed {

namespace {

// `in` (inner names) as the orchestration's array `outer`: its axes are the outer array's.
// Throws when the program splits `in` along a dimension `outer` is not split along: a local
// field (gtx.zeros) keeps its global size on every rank, so each rank would pass it whole.
InputHalo as_outer(const SDFG& sdfg, const InputHalo& in, const std::string& outer,
                   const std::vector<std::string>& dims, const std::string& program) {
  InputHalo o{outer, {}, in.width, in.where};
  const auto& d = sdfg.arrays.at(outer);
  for (std::size_t k = 0; k < d.shape.size(); ++k) {
    std::string dim = axis_dimension(sdfg, outer, k);
    if (std::find(dims.begin(), dims.end(), dim) != dims.end()) o.axis[dim] = k;
  }
  for (const auto& [dim, k] : in.axis)
    if (!o.axis.count(dim))
      throw Error("orchestration '" + sdfg.name + "': '" + outer + "'" +
                  (d.transient ? " (a local field)" : std::string()) + " is passed to '" + program +
                  "' as '" + in.field + "', which is split along " + dim + ", but '" + outer +
                  "' is not: a decomposition splits only the orchestration's " +
                  "field arguments, so pass '" + outer + "' as an argument");
  return o;
}

void widen(std::map<std::string, Margin>& to, const std::map<std::string, Margin>& by) {
  for (const auto& [dim, m] : by) {
    Margin& t = to[dim];
    t.lo = std::max(t.lo, m.lo);
    t.hi = std::max(t.hi, m.hi);
  }
}

}  // namespace

std::string call_argument(const SDFG& sdfg, const SDFGState& st, const NestedSDFGNode& n,
                          const std::string& conn, bool read) {
  for (EdgeId id : read ? st.in_edges(n.id()) : st.out_edges(n.id())) {
    const DataflowEdge& e = st.edge(id);
    if ((read ? e.dst_conn : e.src_conn) != conn || e.memlet.is_empty()) continue;
    auto a = sdfg.arrays.find(e.memlet.data);
    if (a == sdfg.arrays.end()) return {};
    if (e.memlet.subset != Subset::full(a->second.shape))
      throw Error("orchestration '" + sdfg.name + "': the call of '" + n.sdfg->name + "' passes part of '" +
                  e.memlet.data + "' as '" + conn + "', which a decomposition does not split");
    return e.memlet.data;
  }
  return {};
}

SDFGState& add_state_before(SDFG& sdfg, SDFGState& target, const std::string& label) {
  ControlFlowRegion* region = target.parent_region();
  if (!region) throw Error("orchestration '" + sdfg.name + "': a call state outside any region");
  const bool was_start = region->start_block() == target.id();
  SDFGState& x = region->add_state(label);
  for (const ControlFlowEdge* e : region->in_edges(target.id())) {
    const BlockId src = e->src;
    const InterstateEdge data = e->data;
    region->remove_edge(e->id);
    region->add_edge(src, x.id(), data);
  }
  region->add_edge(x.id(), target.id());
  if (was_start) region->set_start_block(x.id());
  return x;
}

OrchestrationHalos analyse_orchestration_halos(const SDFG& sdfg, const std::vector<std::string>& dims) {
  OrchestrationHalos r;
  std::map<std::string, InputHalo> widest;
  std::set<std::string> written;
  std::string frame_from;
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* node : st->nodes()) {
      const auto* n = dynamic_cast<const NestedSDFGNode*>(node);
      if (!n || !n->sdfg) continue;
      const ProgramHalos h = analyse_halos(*n->sdfg, dims);
      if (frame_from.empty()) {
        r.merged.frame = h.frame;
        frame_from = n->sdfg->name;
      }
      for (const auto& dim : dims)
        if (!(h.frame.at(dim) == r.merged.frame.at(dim)))
          throw Error("orchestration '" + sdfg.name + "': '" + frame_from + "' and '" + n->sdfg->name +
                      "' write different domains along " + dim + " (frames " +
                      std::to_string(r.merged.frame.at(dim).lo) + "/" +
                      std::to_string(r.merged.frame.at(dim).hi) + " and " +
                      std::to_string(h.frame.at(dim).lo) + "/" + std::to_string(h.frame.at(dim).hi) +
                      "), which one decomposition cannot split");
      for (const auto& [inner, axes] : h.outputs) {
        const std::string outer = call_argument(sdfg, *st, *n, inner, false);
        if (outer.empty()) continue;
        written.insert(outer);
        r.merged.outputs[outer] =
            as_outer(sdfg, InputHalo{inner, axes, {}, {}}, outer, dims, n->sdfg->name).axis;
      }
      CallHalos call{st, n->sdfg->name, {}};
      for (const auto& in : h.inputs) {
        const std::string outer = call_argument(sdfg, *st, *n, in.field, true);
        if (outer.empty()) continue;
        InputHalo o = as_outer(sdfg, in, outer, dims, n->sdfg->name);
        auto [it, fresh] = widest.emplace(outer, InputHalo{outer, o.axis, {}, {}});
        for (const auto& [dim, m] : o.width) {  // the location of the call reading furthest
          const Margin& was = it->second.width[dim];
          if ((fresh || std::max(m.lo, m.hi) > std::max(was.lo, was.hi)) && o.where.count(dim))
            it->second.where[dim] = o.where.at(dim);
        }
        widen(it->second.width, o.width);
        if (is_shifted(o)) call.shifted.push_back(std::move(o));
      }
      if (!call.shifted.empty()) r.calls.push_back(std::move(call));
    }
  if (frame_from.empty()) throw Error("orchestration '" + sdfg.name + "' calls no program to decompose");
  for (auto& [name, in] : widest) r.merged.inputs.push_back(in);
  // Arrays no call writes keep their halo once exchanged: one exchange before everything.
  for (auto& call : r.calls)
    for (auto it = call.shifted.begin(); it != call.shifted.end();) {
      if (written.count(it->field)) {
        ++it;
        continue;
      }
      auto ro = std::find_if(r.read_only.begin(), r.read_only.end(),
                             [&](const InputHalo& x) { return x.field == it->field; });
      if (ro == r.read_only.end())
        r.read_only.push_back(*it);
      else
        widen(ro->width, it->width);
      it = call.shifted.erase(it);
    }
  return r;
}

int insert_call_exchanges(SDFG& sdfg, const OrchestrationHalos& halos, const std::vector<std::string>& dims,
                          const std::vector<int>& grid) {
  int added = 0;
  for (const CallHalos& call : halos.calls) {
    if (call.shifted.empty()) continue;
    // The state is the SDFG's (analysed from it): its region may add blocks.
    SDFGState& x =
        add_state_before(sdfg, *const_cast<SDFGState*>(call.state), "halo_exchange_" + call.program);
    for (const InputHalo& in : call.shifted) add_halo_exchange(sdfg, x, in, halos.merged.frame, dims, grid);
    added += static_cast<int>(call.shifted.size());
  }
  // Before everything: the arrays no call writes (insert_halo_exchanges' state before the start).
  ProgramHalos once;
  once.frame = halos.merged.frame;
  once.inputs = halos.read_only;
  added += insert_halo_exchanges(sdfg, once, dims, grid);
  return added;
}

}  // namespace weir::distributed
