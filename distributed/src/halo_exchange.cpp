#include "weir/distributed/halo_exchange.h"

#include <memory>

#include "weir/sdfg/errors.h"

namespace weir::distributed {

namespace {

std::string json_list(const std::vector<std::int64_t>& v) {
  std::string s = "[";
  for (std::size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + std::to_string(v[k]);
  return s + "]";
}

}  // namespace

void add_comm_argument(SDFG& sdfg) {
  if (sdfg.has_data(kCommArgument)) return;
  sdfg.add_scalar(kCommArgument, ScalarType::Int64, false);
  sdfg.arg_names.push_back(kCommArgument);
}

bool is_shifted(const InputHalo& in) {
  bool any = false;
  for (const auto& [dim, m] : in.width) any = any || m.lo > 0 || m.hi > 0;
  return any;
}

void add_halo_exchange(SDFG& sdfg, SDFGState& st, const InputHalo& in,
                       const std::map<std::string, Margin>& frame, const std::vector<std::string>& dims,
                       const std::vector<int>& grid) {
  std::vector<std::int64_t> axes, ranks, flo, fhi, wlo, whi;
  for (std::size_t k = 0; k < dims.size(); ++k) {
    auto a = in.axis.find(dims[k]);
    if (a == in.axis.end()) continue;
    auto w = in.width.find(dims[k]);
    axes.push_back(static_cast<std::int64_t>(a->second));
    ranks.push_back(grid.at(k));
    flo.push_back(frame.at(dims[k]).lo);
    fhi.push_back(frame.at(dims[k]).hi);
    wlo.push_back(w == in.width.end() ? 0 : w->second.lo);
    whi.push_back(w == in.width.end() ? 0 : w->second.hi);
  }
  auto node = std::make_unique<LibraryNode>("halo_" + in.field, kHaloExchangeClass);
  node->classpath = std::string("weir.distributed.") + kHaloExchangeClass;
  node->extra.set("axes", json_list(axes));
  node->extra.set("grid", json_list(ranks));
  node->extra.set("frame_lo", json_list(flo));
  node->extra.set("frame_hi", json_list(fhi));
  node->extra.set("width_lo", json_list(wlo));
  node->extra.set("width_hi", json_list(whi));
  add_comm_argument(sdfg);
  node->in_connectors["_in"] = std::nullopt;
  node->in_connectors["_comm"] = std::nullopt;
  node->out_connectors["_out"] = std::nullopt;
  Node& lib = st.add_node(std::move(node));
  const Subset all = Subset::full(sdfg.arrays.at(in.field).shape);
  AccessNode& src = st.add_access(in.field);
  AccessNode& dst = st.add_access(in.field);
  st.add_edge(src.id(), "", lib.id(), "_in", Memlet::simple(in.field, all));
  AccessNode& comm = st.add_access(kCommArgument);
  st.add_edge(comm.id(), "", lib.id(), "_comm",
              Memlet::simple(kCommArgument, Subset::full(sdfg.arrays.at(kCommArgument).shape)));
  st.add_edge(lib.id(), "_out", dst.id(), "", Memlet::simple(in.field, all));
}

int insert_halo_exchanges(SDFG& sdfg, const ProgramHalos& halos, const std::vector<std::string>& dims,
                          const std::vector<int>& grid) {
  std::vector<const InputHalo*> shifted;
  for (const auto& in : halos.inputs)
    if (is_shifted(in)) shifted.push_back(&in);
  if (shifted.empty()) return 0;
  const BlockId start = sdfg.start_block();
  if (start == kNoBlock)
    throw Error("program '" + sdfg.name + "' has no start state to exchange halos before");
  SDFGState& st = sdfg.add_state("halo_exchange");
  sdfg.add_edge(st.id(), start);
  sdfg.set_start_block(st.id());
  for (const InputHalo* in : shifted) add_halo_exchange(sdfg, st, *in, halos.frame, dims, grid);
  return static_cast<int>(shifted.size());
}

}  // namespace weir::distributed
