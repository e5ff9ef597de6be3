#include "weir/distributed/unstructured_exchange.h"

#include <memory>
#include <set>

#include "weir/distributed/halo_exchange.h"
#include "weir/sdfg/errors.h"

namespace weir::distributed {

namespace {

// The three list arguments of `entity` (int32, sizes `__weir_<entity>_npeers` etc., which the
// runtime infers from the arrays given), added once.
void add_list_arguments(SDFG& sdfg, const std::string& entity) {
  if (sdfg.has_data(peers_argument(entity))) return;
  const std::string p = "__weir_" + entity + "_";
  auto add = [&](const std::string& name, std::vector<sym::Expr> shape) {
    sdfg.add_array(name, ScalarType::Int32, std::move(shape), false);
    sdfg.arg_names.push_back(name);
  };
  add(peers_argument(entity), {sym::Expr::symbol(p + "npeers"), sym::Expr(3)});
  add(send_argument(entity), {sym::Expr::symbol(p + "nsend")});
  add(recv_argument(entity), {sym::Expr::symbol(p + "nrecv")});
  for (const char* s : {"npeers", "nsend", "nrecv"}) sdfg.add_symbol(p + s);
}

void add_exchange(SDFG& sdfg, SDFGState& st, const std::string& array, const std::string& entity) {
  auto node = std::make_unique<LibraryNode>("halo_" + array, kUnstructuredExchangeClass);
  node->classpath = std::string("weir.distributed.") + kUnstructuredExchangeClass;
  node->extra.set("entity", "\"" + entity + "\"");
  for (const char* c : {"_in", "_peers", "_send", "_recv", "_comm"}) node->in_connectors[c] = std::nullopt;
  node->out_connectors["_out"] = std::nullopt;
  Node& lib = st.add_node(std::move(node));
  auto read = [&](const std::string& data, const std::string& conn) {
    AccessNode& a = st.add_access(data);
    st.add_edge(a.id(), "", lib.id(), conn, Memlet::simple(data, Subset::full(sdfg.arrays.at(data).shape)));
  };
  read(array, "_in");
  read(peers_argument(entity), "_peers");
  read(send_argument(entity), "_send");
  read(recv_argument(entity), "_recv");
  read(kCommArgument, "_comm");
  AccessNode& dst = st.add_access(array);
  st.add_edge(lib.id(), "_out", dst.id(), "",
              Memlet::simple(array, Subset::full(sdfg.arrays.at(array).shape)));
}

}  // namespace

std::string peers_argument(const std::string& entity) { return "__weir_" + entity + "_peers"; }
std::string send_argument(const std::string& entity) { return "__weir_" + entity + "_send"; }
std::string recv_argument(const std::string& entity) { return "__weir_" + entity + "_recv"; }

bool reads_array(const SDFG& sdfg, const std::string& name) {
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* n : st->nodes())
      if (const auto* a = n->as<AccessNode>(); a && a->data == name && !st->out_edges(n->id()).empty())
        return true;
  return false;
}

int insert_unstructured_exchanges(SDFG& sdfg, const std::map<std::string, std::string>& exchanged) {
  if (exchanged.empty()) return 0;
  for (const auto& [array, entity] : exchanged) {
    auto it = sdfg.arrays.find(array);
    if (it == sdfg.arrays.end() || it->second.is_scalar() || it->second.shape.empty())
      throw Error("program '" + sdfg.name + "': cannot exchange the halo rows of '" + array + "' on " +
                  entity + ": it is not an array of the program");
  }
  const BlockId start = sdfg.start_block();
  if (start == kNoBlock)
    throw Error("program '" + sdfg.name + "' has no start state to exchange halos before");
  SDFGState& st = sdfg.add_state("halo_exchange");
  sdfg.add_edge(st.id(), start);
  sdfg.set_start_block(st.id());
  add_comm_argument(sdfg);
  for (const auto& [array, entity] : exchanged) {
    add_list_arguments(sdfg, entity);
    add_exchange(sdfg, st, array, entity);
  }
  return static_cast<int>(exchanged.size());
}

}  // namespace weir::distributed
