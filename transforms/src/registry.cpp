// The built-in registry of transformations and passes.
#include "weir/transforms/registry.h"

#include <cctype>
#include <functional>

#include "weir/transforms/dead_dataflow_elimination.h"
#include "weir/transforms/dead_state_elimination.h"
#include "weir/transforms/auto_optimize.h"
#include "weir/transforms/cpu_schedules.h"
#include "weir/transforms/gpu_schedules.h"
#include "weir/transforms/gpu_transform.h"
#include "weir/transforms/greedy_map_fusion.h"
#include "weir/transforms/local_storage.h"
#include "weir/transforms/map_fusion_horizontal.h"
#include "weir/transforms/otf_map_fusion.h"
#include "weir/transforms/transient_reuse.h"
#include "weir/transforms/map_collapse.h"
#include "weir/transforms/map_expansion.h"
#include "weir/transforms/map_fusion.h"
#include "weir/transforms/map_interchange.h"
#include "weir/transforms/map_tiling.h"
#include "weir/transforms/redundant_array_removal.h"
#include "weir/transforms/simplify.h"
#include "weir/transforms/state_fusion.h"
#include "weir/transforms/trivial_map_elimination.h"
#include "weir/transforms/loop_to_map.h"
#include "weir/transforms/map_to_for_loop.h"
#include "weir/transforms/inline_sdfg.h"
#include "weir/transforms/symbol_propagation.h"
#include "weir/transforms/loop_map_interchange.h"

namespace weir::transforms {

namespace {

struct Entry {
  const char* name;
  std::function<std::unique_ptr<Transformation>()> make;
};

template <class T>
Entry entry(const char* name) {
  return {name, [] { return std::make_unique<T>(); }};
}

const std::vector<Entry>& entries() {
  static const std::vector<Entry> all{
      entry<MapCollapse>("MapCollapse"),
      entry<MapExpansion>("MapExpansion"),
      entry<MapInterchange>("MapInterchange"),
      entry<MapTiling>("MapTiling"),
      entry<MapFusion>("MapFusion"),
      entry<TrivialMapElimination>("TrivialMapElimination"),
      entry<StateFusion>("StateFusion"),
      entry<DeadStateElimination>("DeadStateElimination"),
      entry<DeadDataflowElimination>("DeadDataflowElimination"),
      entry<RedundantArrayRemoval>("RedundantArrayRemoval"),
      entry<OTFMapFusion>("OTFMapFusion"),
      entry<MapFusionHorizontal>("MapFusionHorizontal"),
      entry<LoopToMap>("LoopToMap"),
      entry<MapToForLoop>("MapToForLoop"),
      entry<InlineSDFG>("InlineSDFG"),
      entry<LoopMapInterchange>("LoopMapInterchange"),
  };
  return all;
}

}  // namespace

std::vector<std::string> transformation_names() {
  std::vector<std::string> out;
  for (const auto& e : entries()) out.push_back(e.name);
  return out;
}

std::unique_ptr<Transformation> make_transformation(const std::string& name) {
  for (const auto& e : entries())
    if (name == e.name || name == pass_name_of(e.name)) return e.make();
  return nullptr;
}

std::string pass_name_of(const std::string& class_name) {
  std::string s;
  for (std::size_t i = 0; i < class_name.size(); ++i) {
    char c = class_name[i];
    if (std::isupper(static_cast<unsigned char>(c))) {
      // A run of capitals is one word: "InlineSDFG" -> "inline-sdfg".
      bool prev_upper = i && std::isupper(static_cast<unsigned char>(class_name[i - 1]));
      bool next_lower = i + 1 < class_name.size() && std::islower(static_cast<unsigned char>(class_name[i + 1]));
      if (i && (!prev_upper || next_lower)) s += '-';
      s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else {
      s += c;
    }
  }
  return s;
}

std::vector<std::string> pass_names() {
  std::vector<std::string> out{"simplify"};
  for (const auto& e : entries()) out.push_back(pass_name_of(e.name));
  for (const char* p : {"greedy-map-fusion", "local-storage", "transient-reuse", "cpu-schedules", "auto-optimize-cpu",
                        "gpu-transform", "gpu-schedules", "auto-optimize-gpu"})
    out.push_back(p);
  out.push_back("symbol-propagation");
  return out;
}

std::unique_ptr<Pass> make_pass(const std::string& name) {
  if (name == "simplify") return make_simplify_pipeline();
  if (name == "greedy-map-fusion") return std::make_unique<GreedyMapFusion>();
  if (name == "local-storage") return std::make_unique<LocalStorage>();
  if (name == "transient-reuse") return std::make_unique<TransientReuse>();
  if (name == "cpu-schedules") return std::make_unique<CpuSchedules>();
  if (name == "auto-optimize-cpu") return make_auto_optimize_pipeline(DeviceType::CPU);
  if (name == "gpu-transform") return std::make_unique<GpuTransform>();
  if (name == "gpu-schedules") return std::make_unique<GpuSchedules>();
  if (name == "auto-optimize-gpu") return make_auto_optimize_pipeline(DeviceType::GPU);
  if (name == "symbol-propagation" || name == "SymbolPropagation") return std::make_unique<SymbolPropagation>();
  for (const auto& e : entries())
    if (name == e.name || name == pass_name_of(e.name)) return std::make_unique<TransformationPass>(e.make());
  return nullptr;
}

}  // namespace weir::transforms
