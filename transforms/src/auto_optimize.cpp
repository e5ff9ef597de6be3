// auto_optimize pipelines (see the header).
#include "weir/transforms/auto_optimize.h"

#include "weir/transforms/registry.h"

namespace weir::transforms {

std::vector<std::string> auto_optimize_pass_names(DeviceType device) {
  if (device != DeviceType::CPU)
    throw TransformError("auto_optimize has no pipeline for device " + std::string(to_string(device)) + " yet");
  // loop-map-interchange puts the levels of scans inside a parallel map over columns (ADR 0011),
  // before fusion sees the maps.
  return {"simplify",      "loop-to-map",   "loop-map-interchange", "map-collapse", "greedy-map-fusion",
          "simplify",      "local-storage", "transient-reuse",      "cpu-schedules"};
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
                                        ": simplify, loops to maps, scans inside column maps, collapse and fuse "
                                        "maps (recomputing stencil intermediates), local sums, transient reuse, "
                                        "schedules");
}

void auto_optimize(SDFG& sdfg, DeviceType device) { make_auto_optimize_pipeline(device)->run(sdfg); }

}  // namespace weir::transforms
