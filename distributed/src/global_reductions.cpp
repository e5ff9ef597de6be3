#include "weir/distributed/global_reductions.h"

#include <algorithm>
#include <memory>
#include <optional>

#include <nlohmann/json.hpp>

#include "weir/distributed/halo_exchange.h"
#include "weir/sdfg/errors.h"

namespace weir::distributed {

namespace {

// Restricts one Reduce node's input to the owned points and adds its Allreduce.
void rewrite(SDFG& sdfg, SDFGState& st, LibraryNode& n, const ProgramHalos& halos,
             const std::vector<std::string>& dims) {
  const std::map<std::string, Margin>& frame = halos.frame;
  std::vector<EdgeId> ins = st.in_edges(n.id()), outs = st.out_edges(n.id());
  if (ins.size() != 1 || outs.size() != 1)
    throw Error(reduce_location(n) + "Reduce '" + n.label +
                "': a decomposition needs one input and one output");
  DataflowEdge& in = st.edge(ins[0]);
  const std::string array = in.memlet.data;
  const std::string field = array.rfind("__", 0) == 0 ? array.substr(2) : array;
  const DataDescriptor& d = sdfg.arrays.at(array);
  const auto lower = reduce_slice_bounds(n, "slice_lower"), upper = reduce_slice_bounds(n, "slice_upper");
  std::vector<std::string> found;
  for (std::size_t k = 0; k < d.shape.size() && k < in.memlet.subset.dims(); ++k) {
    const std::string dim = axis_dimension(sdfg, array, k);
    if (std::find(dims.begin(), dims.end(), dim) == dims.end()) continue;
    found.push_back(dim);
    const Margin f = frame.at(dim);
    const std::int64_t lo = k < lower.size() && lower[k] ? *lower[k] : 0;
    const bool has_hi = k < upper.size() && upper[k].has_value();
    const std::int64_t hi = has_hi ? upper[k].value() : 0;
    if (lo < 0 || lo > f.lo || (has_hi && (hi >= 0 || hi < -f.hi))) {
      const std::string text = (k < lower.size() && lower[k] ? std::to_string(*lower[k]) : "") + ":" +
                               (has_hi ? std::to_string(hi) : "");
      throw Error(reduce_location(n) + "cannot decompose the reduction over '" + field + "': its slice " +
                  text + " along " + dim + " reaches past the frame (" + std::to_string(f.lo) + " point" +
                  (f.lo == 1 ? "" : "s") + " before, " + std::to_string(f.hi) +
                  " after) into the ranks' parts; reduce over the whole field, or cut at most the frame "
                  "(e.g. [" +
                  std::to_string(f.lo) + ":" + (f.hi ? std::to_string(-f.hi) : "") + "])");
    }
    // First rank: the slice's own lower bound (its local and global indices agree); others:
    // after the frame (what lies before it is the lower neighbour's). Likewise at the top.
    const sym::Expr first = sym::Expr::symbol(first_symbol(dim)), last = sym::Expr::symbol(last_symbol(dim));
    sym::Expr begin = sym::Expr(f.lo) + first * sym::Expr(lo - f.lo);
    sym::Expr end = d.shape[k] - sym::Expr(f.hi) + last * sym::Expr(f.hi + hi);
    in.memlet.subset.ranges()[k] = Range(begin, end - sym::Expr(1));
  }
  for (const std::string& dim : dims)
    if (std::find(found.begin(), found.end(), dim) == found.end())
      throw Error(reduce_location(n) + "cannot decompose the reduction over '" + field +
                  "': it has no dimension " + dim +
                  ", along which the program is split (every rank would reduce the same points)");
  // Only arrays a call reads or writes are split (scattered as windows); any other is whole on
  // every rank.
  const bool split =
      halos.outputs.count(array) > 0 || std::any_of(halos.inputs.begin(), halos.inputs.end(),
                                                    [&](const InputHalo& in) { return in.field == array; });
  if (!split)
    throw Error(reduce_location(n) + "cannot decompose the reduction over '" + field +
                "': no call of the function reads or writes it, so the decomposition does not split it "
                "(every rank would hold it whole)");
  const NodeId scalar = st.edge(outs[0]).dst;
  const std::string data = st.edge(outs[0]).memlet.data;  // (a copy: adding nodes moves edges)
  add_allreduce(sdfg, st, n, scalar, data);
}

}  // namespace

std::string reduce_location(const LibraryNode& n) {
  const std::string* text = n.extra.find("debuginfo");
  nlohmann::json j = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json();
  if (!j.is_object() || !j.contains("start_line")) return "";
  return j.value("filename", std::string()) + ":" + std::to_string(j.value("start_line", 0)) + ":" +
         std::to_string(j.value("start_column", 0)) + ": ";
}

std::vector<std::optional<std::int64_t>> reduce_slice_bounds(const LibraryNode& n, const std::string& key) {
  const std::string* text = n.extra.find(key);
  nlohmann::json j = text ? nlohmann::json::parse(*text, nullptr, false) : nlohmann::json::array();
  std::vector<std::optional<std::int64_t>> out;
  if (!j.is_array())
    throw Error(reduce_location(n) + "Reduce '" + n.label + "': attribute '" + key + "' is not a list");
  for (const auto& x : j) {
    if (x.is_null())
      out.emplace_back(std::nullopt);
    else if (x.is_number_integer())
      out.emplace_back(x.get<std::int64_t>());
    else
      throw Error(reduce_location(n) + "Reduce '" + n.label + "': attribute '" + key +
                  "' holds a non-integer");
  }
  return out;
}

void add_allreduce(SDFG& sdfg, SDFGState& st, const LibraryNode& reduce, NodeId scalar,
                   const std::string& data) {
  // The orchestration lowering names the kind (its max/min lambdas propagate NaN as NumPy's and
  // spell no `max`); a Reduce from an SDFG file has DaCe's `max(a, b)` or `a + b`.
  const std::string* kind = reduce.extra.find("reduction");
  const std::string op = kind && *kind == "\"max\""                    ? "max"
                         : kind && *kind == "\"min\""                  ? "min"
                         : kind && *kind == "\"sum\""                  ? "sum"
                         : reduce.wcr.find("max") != std::string::npos ? "max"
                         : reduce.wcr.find("min") != std::string::npos ? "min"
                                                                       : "sum";
  if (op == "sum" && !kind && reduce.wcr.find('+') == std::string::npos)
    throw Error(reduce_location(reduce) + "Reduce '" + reduce.label + "' (" + reduce.wcr +
                "): only max, min and sums become an MPI_Allreduce");
  auto node = std::make_unique<LibraryNode>("allreduce_" + op + "_" + data, kAllreduceClass);
  node->classpath = std::string("weir.distributed.") + kAllreduceClass;
  node->extra.set("op", "\"" + op + "\"");
  if (const std::string* d = reduce.extra.find("debuginfo")) node->extra.set("debuginfo", *d);
  node->in_connectors["_in"] = std::nullopt;
  node->in_connectors["_comm"] = std::nullopt;
  node->out_connectors["_out"] = std::nullopt;
  add_comm_argument(sdfg);
  Node& lib = st.add_node(std::move(node));
  const Subset one({Range::index(0)});
  st.add_edge(scalar, "", lib.id(), "_in", Memlet::simple(data, one));
  AccessNode& comm = st.add_access(kCommArgument);
  st.add_edge(comm.id(), "", lib.id(), "_comm",
              Memlet::simple(kCommArgument, Subset::full(sdfg.arrays.at(kCommArgument).shape)));
  AccessNode& dst = st.add_access(data);
  st.add_edge(lib.id(), "_out", dst.id(), "", Memlet::simple(data, one));
}

std::string first_symbol(const std::string& dim) { return "__weir_first_" + dim; }
std::string last_symbol(const std::string& dim) { return "__weir_last_" + dim; }

int insert_global_reductions(SDFG& sdfg, const ProgramHalos& halos, const std::vector<std::string>& dims) {
  int n = 0;
  for (SDFGState* st : sdfg.all_states()) {
    std::vector<LibraryNode*> reduces;
    for (Node* node : st->nodes())
      if (auto* l = node->as<LibraryNode>(); l && l->is_reduce()) reduces.push_back(l);
    for (LibraryNode* l : reduces) rewrite(sdfg, *st, *l, halos, dims);
    n += static_cast<int>(reduces.size());
  }
  if (n == 0) return 0;
  for (const std::string& dim : dims)
    for (const std::string& s : {first_symbol(dim), last_symbol(dim)})
      if (!sdfg.symbols.count(s)) {
        sdfg.add_symbol(s, ScalarType::Int64);
        sdfg.arg_names.push_back(s);
      }
  return n;
}

}  // namespace weir::distributed
