#include "gpu_on_host.h"

#include "weir/sdfg/sdfg.h"

namespace weir::cli {
namespace {

bool is_gpu(ScheduleType s) {
  return s == ScheduleType::GPU_Default || s == ScheduleType::GPU_Device ||
         s == ScheduleType::GPU_ThreadBlock || s == ScheduleType::GPU_ThreadBlock_Dynamic ||
         s == ScheduleType::GPU_Persistent;
}

void count(const SDFG& sdfg, int& maps, int& containers) {
  for (const auto& [name, d] : sdfg.arrays)
    if (d.storage == StorageType::GPU_Global || d.storage == StorageType::GPU_Shared) ++containers;
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* n : st->nodes()) {
      if (const auto* me = n->as<MapEntry>(); me && is_gpu(me->map->schedule)) ++maps;
      if (const auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg) count(*ns->sdfg, maps, containers);
    }
}

}  // namespace

std::string gpu_on_host_note(const SDFG& sdfg) {
  int maps = 0, containers = 0;
  count(sdfg, maps, containers);
  if (!maps && !containers) return "";
  return "note: this SDFG was optimized for a GPU; the cpu backend runs its GPU maps (" +
         std::to_string(maps) + ") on the host as OpenMP loops and keeps its GPU containers (" +
         std::to_string(containers) + ") in host memory";
}

}  // namespace weir::cli
