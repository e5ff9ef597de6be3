// auto_optimize pipelines (see the header).
#include "weir/transforms/auto_optimize.h"

#include "weir/transforms/registry.h"

namespace weir::transforms {

std::vector<std::string> auto_optimize_pass_names(DeviceType device) {
  if (device != DeviceType::CPU)
    throw TransformError("auto_optimize has no pipeline for device " + std::string(to_string(device)) + " yet");
  std::vector<std::string> names{"simplify"};
  // Written on another branch; used when the registry has it.
  if (make_pass("loop-to-map")) names.push_back("loop-to-map");
  // Scans: levels inside a parallel map over columns (ADR 0008), before fusion sees the maps.
  names.push_back("loop-map-interchange");
  for (const char* n : {"map-collapse", "greedy-map-fusion", "simplify", "local-storage", "transient-reuse", "cpu-schedules"})
    names.push_back(n);
  return names;
}

std::unique_ptr<Pipeline> make_auto_optimize_pipeline(DeviceType device) {
  std::vector<std::unique_ptr<Pass>> passes;
  for (const auto& n : auto_optimize_pass_names(device)) {
    auto p = make_pass(n);
    if (!p) throw TransformError("auto_optimize: pass '" + n + "' is not registered");
    passes.push_back(std::move(p));
  }
  std::string dev = device == DeviceType::CPU ? "cpu" : "gpu";
  return std::make_unique<Pipeline>("auto-optimize-" + dev, std::move(passes), false,
                                    "Optimize for the " + std::string(to_string(device)) +
                                        ": simplify, fuse maps (recomputing stencil intermediates), schedules");
}

void auto_optimize(SDFG& sdfg, DeviceType device) { make_auto_optimize_pipeline(device)->run(sdfg); }

}  // namespace weir::transforms
