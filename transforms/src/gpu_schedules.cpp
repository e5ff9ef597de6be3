// Kernel shapes: threadIdx.x on the unit-stride parameter, block sizes (see the header).
#include "weir/transforms/gpu_schedules.h"

#include <algorithm>
#include <functional>
#include <limits>

#include "dataflow_util.h"
#include "weir/sdfg/gpu_block_size.h"

namespace weir::transforms {

GpuSchedules::GpuSchedules()
    : Pass("gpu-schedules",
           "GPU kernel shapes: the unit-stride parameter last (threadIdx.x, coalesced), thread-block sizes "
           "(gt4py's "
           "defaults (32,8,1), 1-D (64,1,1))",
           {{"block_size", std::vector<long long>{32, 8, 1},
             "thread-block size (x, y, z) of 2-D and 3-D kernels", 1},
            {"block_size_1d", std::vector<long long>{64, 1, 1}, "thread-block size of 1-D kernels", 1},
            {"block_size_2d", std::vector<long long>{},
             "thread-block size of 2-D kernels (empty: block_size)", 1},
            {"block_size_3d", std::vector<long long>{},
             "thread-block size of kernels with 3 or more dimensions "
             "(empty: block_size)",
             1},
            {"order", true, "move the parameter of the unit-stride dimension last (threadIdx.x)"}}) {}

namespace {

/// Stride of dimension `d` of `desc` with every size symbol at 1000 (unknown: by position).
long long stride_value(const DataDescriptor& desc, std::size_t d) {
  if (d < desc.strides.size()) {
    std::map<std::string, long long> values;
    for (const std::string& s : desc.strides[d].free_symbols()) values[s] = 1000;
    if (auto v = desc.strides[d].try_evaluate(values)) return *v;
  }
  return static_cast<long long>(desc.shape.size() - d) * 1000000;
}

/// The parameter of `me` indexing the smallest-stride dimension among the memlets of its body's
/// boundary, or "" when no memlet is indexed by a parameter.
std::string unit_stride_param(const SDFG& sdfg, const SDFGState& st, const MapEntry& me) {
  std::string best;
  long long best_stride = std::numeric_limits<long long>::max();
  auto look = [&](const Memlet& m) {
    if (m.is_empty() || !sdfg.has_data(m.data)) return;
    const DataDescriptor& d = sdfg.data(m.data);
    for (std::size_t k = 0; k < m.subset.dims(); ++k) {
      std::set<std::string> syms = m.subset[k].start.free_symbols();
      for (const std::string& p : me.map->params) {
        if (!syms.count(p)) continue;
        long long s = stride_value(d, k);
        // Ties keep the parameter already last.
        if (s < best_stride || (s == best_stride && p == me.map->params.back())) best_stride = s, best = p;
      }
    }
  };
  for (EdgeId e : st.out_edges(me.id())) look(st.edge(e).memlet);
  if (st.has_node(me.exit))
    for (EdgeId e : st.in_edges(me.exit)) look(st.edge(e).memlet);
  return best;
}

bool has_thread_block_map(const SDFGState& st, const ScopeTree& tree, const MapEntry& me) {
  for (NodeId n : detail::scope_body(st, tree, me.id()))
    if (const auto* inner = st.node(n).as<MapEntry>();
        inner && (inner->map->schedule == ScheduleType::GPU_ThreadBlock ||
                  inner->map->schedule == ScheduleType::GPU_ThreadBlock_Dynamic))
      return true;
  return false;
}

}  // namespace

std::size_t GpuSchedules::run_pass(SDFG& root, Transaction& tx) {
  std::size_t changed = 0;
  auto pick = [&](const MapInfo& m) {
    const std::size_t dims = m.params.size();
    const auto& b2 = options().get_int_list("block_size_2d");
    const auto& b3 = options().get_int_list("block_size_3d");
    const char* option = dims <= 1                  ? "block_size_1d"
                         : dims == 2 && !b2.empty() ? "block_size_2d"
                         : dims >= 3 && !b3.empty() ? "block_size_3d"
                                                    : "block_size";
    const auto& chosen = options().get_int_list(option);
    if (auto why = gpu_block_size_misfit(chosen, m); !why.empty())
      throw TransformError(std::string("gpu-schedules: option '") + option + "': " + why);
    std::vector<std::string> out;
    for (long long v : chosen) out.push_back(std::to_string(v));
    return out;
  };
  std::function<void(SDFG&)> visit = [&](SDFG& sdfg) {
    for (SDFGState* stp : sdfg.all_states()) {
      SDFGState& st = *stp;
      ScopeTree tree = st.scope_tree();
      for (Node* n : st.nodes()) {
        if (tree.parent[n->id()] != kNoNode) continue;
        if (auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg) visit(*ns->sdfg);
        auto* me = n->as<MapEntry>();
        if (!me || me->map->schedule != ScheduleType::GPU_Device || me->map->params.empty()) continue;
        MapInfo& m = *me->map;
        if (options().get_bool("order") && m.range.dims() == m.params.size()) {
          std::string p = unit_stride_param(sdfg, st, *me);
          if (!p.empty() && p != m.params.back()) {
            std::size_t i = std::find(m.params.begin(), m.params.end(), p) - m.params.begin();
            Range r = m.range[i];
            m.params.erase(m.params.begin() + static_cast<long>(i));
            m.range.ranges().erase(m.range.ranges().begin() + static_cast<long>(i));
            m.params.push_back(p);
            m.range.ranges().push_back(r);
            ++changed;
          }
        }
        if (m.gpu_block_size.empty() && !has_thread_block_map(st, tree, *me)) {
          m.gpu_block_size = pick(m);
          ++changed;
        }
      }
    }
  };
  // Map parameters and block sizes of kernels in this SDFG and nested ones.
  tx.modify_all([&] { visit(root); });
  return changed;
}

}  // namespace weir::transforms
