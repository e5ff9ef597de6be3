// The built-in registry of transformations and passes: one table, one row per entry.
#include "weir/transforms/registry.h"

#include <cctype>

#include "weir/transforms/auto_optimize.h"
#include "weir/transforms/code_read_fusion.h"
#include "weir/transforms/copy_elision.h"
#include "weir/transforms/copy_into_map.h"
#include "weir/transforms/cpu_schedules.h"
#include "weir/transforms/dead_assignment_elimination.h"
#include "weir/transforms/dead_dataflow_elimination.h"
#include "weir/transforms/dead_state_elimination.h"
#include "weir/transforms/gpu_schedules.h"
#include "weir/transforms/gpu_transform.h"
#include "weir/transforms/greedy_map_fusion.h"
#include "weir/transforms/halo_exchange_overlap.h"
#include "weir/transforms/inline_sdfg.h"
#include "weir/transforms/instrument_timers.h"
#include "weir/transforms/library_expansion.h"
#include "weir/transforms/local_storage.h"
#include "weir/transforms/loop_map_interchange.h"
#include "weir/transforms/loop_to_map.h"
#include "weir/transforms/map_collapse.h"
#include "weir/transforms/map_expansion.h"
#include "weir/transforms/map_fission.h"
#include "weir/transforms/map_fusion.h"
#include "weir/transforms/map_fusion_horizontal.h"
#include "weir/transforms/map_interchange.h"
#include "weir/transforms/map_tiling.h"
#include "weir/transforms/map_to_for_loop.h"
#include "weir/transforms/map_unroll.h"
#include "weir/transforms/map_vectorization.h"
#include "weir/transforms/otf_map_fusion.h"
#include "weir/transforms/redundant_array_removal.h"
#include "weir/transforms/scan_column_blocking.h"
#include "weir/transforms/scan_full_blocks.h"
#include "weir/transforms/simplify.h"
#include "weir/transforms/state_fusion.h"
#include "weir/transforms/state_fusion_pass.h"
#include "weir/transforms/symbol_propagation.h"
#include "weir/transforms/transient_reuse.h"
#include "weir/transforms/trivial_map_elimination.h"

namespace weir::transforms {

namespace {

template <class T>
RegistryEntry transformation() {
  return {T().name(), [] { return std::make_unique<T>(); }, nullptr};
}

template <class P>
RegistryEntry pass() {
  return {P().name(), nullptr, [] { return std::make_unique<P>(); }};
}

RegistryEntry pipeline(std::string name, std::function<std::unique_ptr<Pass>()> make) {
  return {std::move(name), nullptr, std::move(make)};
}

/// The table, in listing order (`weir transforms list`, pass_names()). A new transformation or
/// pass is one row here (and its header above); a pipeline is a name and a factory.
std::vector<RegistryEntry>& table() {
  static std::vector<RegistryEntry> rows{
      pipeline("simplify", [] { return make_simplify_pipeline(); }),
      transformation<MapCollapse>(),
      transformation<MapExpansion>(),
      transformation<MapInterchange>(),
      transformation<MapTiling>(),
      transformation<MapFission>(),
      transformation<MapUnroll>(),
      transformation<MapVectorization>(),
      transformation<MapFusion>(),
      transformation<TrivialMapElimination>(),
      // The pass fuses whole chains in linear time; the transformation matches pairs.
      {StateFusion().name(), [] { return std::make_unique<StateFusion>(); },
       [] { return std::make_unique<StateFusionPass>(); }},
      transformation<DeadStateElimination>(),
      transformation<DeadDataflowElimination>(),
      transformation<RedundantArrayRemoval>(),
      transformation<CopyIntoMap>(),
      transformation<OTFMapFusion>(),
      transformation<CodeReadFusion>(),
      transformation<MapFusionHorizontal>(),
      transformation<LoopToMap>(),
      transformation<MapToForLoop>(),
      transformation<InlineSDFG>(),
      pass<InlineSDFGs>(),
      transformation<LoopMapInterchange>(),
      transformation<ScanColumnBlocking>(),
      transformation<ScanFullBlocks>(),
      transformation<HaloExchangeOverlap>(),
      pass<GreedyMapFusion>(),
      pass<LocalStorage>(),
      pass<TransientReuse>(),
      pass<CopyElision>(),
      pass<CpuSchedules>(),
      pipeline("auto-optimize-cpu", [] { return make_auto_optimize_pipeline(DeviceType::CPU); }),
      pass<GpuTransform>(),
      pass<GpuSchedules>(),
      pipeline("auto-optimize-gpu", [] { return make_auto_optimize_pipeline(DeviceType::GPU); }),
      pass<SymbolPropagation>(),
      pass<DeadAssignmentElimination>(),
      pass<LibraryExpansion>(),
      pass<InstrumentTimers>(),
  };
  return rows;
}

/// The row whose name is `name`: a transformation's class or pass name, a pass's name or the
/// pass name of a class-style spelling ("SymbolPropagation").
const RegistryEntry* find(const std::string& name) {
  for (const auto& e : table())
    if (name == e.name || name == pass_name_of(e.name) || pass_name_of(name) == e.name) return &e;
  return nullptr;
}

}  // namespace

const std::vector<RegistryEntry>& registry() { return table(); }

void register_pass(std::string name, std::function<std::unique_ptr<Pass>()> make) {
  if (find(name)) throw TransformError("a pass named '" + name + "' is already registered");
  table().push_back({std::move(name), nullptr, std::move(make)});
}

std::vector<std::string> transformation_names() {
  std::vector<std::string> out;
  for (const auto& e : table())
    if (e.transformation) out.push_back(e.name);
  return out;
}

std::unique_ptr<Transformation> make_transformation(const std::string& name) {
  const RegistryEntry* e = find(name);
  return e && e->transformation ? e->transformation() : nullptr;
}

std::string pass_name_of(const std::string& class_name) {
  std::string s;
  for (std::size_t i = 0; i < class_name.size(); ++i) {
    char c = class_name[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      // A run of capitals is one word: "InlineSDFG" -> "inline-sdfg".
      bool prev_upper = i && std::isupper(static_cast<unsigned char>(class_name[i - 1]));
      bool next_lower =
          i + 1 < class_name.size() && std::islower(static_cast<unsigned char>(class_name[i + 1]));
      if (i && (!prev_upper || next_lower)) s += '-';
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      s += c;
    }
  }
  return s;
}

std::vector<std::string> pass_names() {
  std::vector<std::string> out;
  for (const auto& e : table()) out.push_back(e.transformation ? pass_name_of(e.name) : e.name);
  return out;
}

std::unique_ptr<Pass> make_pass(const std::string& name) {
  const RegistryEntry* e = find(name);
  if (!e) return nullptr;
  // A row with both: the transformation has a pass of its own that reaches the same fixed point.
  if (e->pass) return e->pass();
  if (e->transformation) return std::make_unique<TransformationPass>(e->transformation());
  return e->pass();
}

}  // namespace weir::transforms
