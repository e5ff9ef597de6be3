// auto_optimize pipelines (see the header).
#include "weir/transforms/auto_optimize.h"

#include <algorithm>

#include "weir/transforms/registry.h"

namespace weir::transforms {

std::vector<std::string> auto_optimize_pass_names(DeviceType device) {
  if (device != DeviceType::CPU && device != DeviceType::GPU)
    throw TransformError("auto_optimize has no pipeline for device " + std::string(to_string(device)));
  // loop-map-interchange puts the levels of scans inside a parallel map over columns (ADR 0011),
  // before fusion sees the maps. The same fusion for both devices; then the device's placement
  // and schedules. No simplify after gpu-transform: removing a "redundant" copy would undo a
  // host<->device copy. copy-elision right after the first simplify: a scan's result copied into
  // the output is written there directly, before loop-map-interchange nests the scan. First of
  // all, nested SDFGs of one state are inlined (an orchestration function's calls, a composed
  // SDFG's, DaCe's), so that simplify and fusion see their maps side by side.
  // loop-map-interchange once more after fusion: a loop whose states held several maps over one
  // range (deriche's recursions over j, one map over i per term) has one map per state now, and
  // goes inside one parallel map over i instead of a parallel map (a fork/join) per level.
  // copy-into-map after fusion (the map that writes a copied array is whole then): a map's result
  // copied after it (vadv's `data_col[:] = datacol`, `ccol[:, :, k] = t`) is written by the map's
  // points instead, and fusion runs once more: the copy no longer stands between the map and the
  // maps reading the destination, nor between a level's maps and the loop around them (ADR 0053,
  // session 31).
  std::vector<std::string> names{
      "inline-sdfgs",         "simplify",     "copy-elision",         "loop-to-map",
      "loop-map-interchange", "map-collapse", "greedy-map-fusion",    "copy-into-map",
      "greedy-map-fusion",    "simplify",     "loop-map-interchange", "local-storage",
      "transient-reuse"};
  if (device == DeviceType::CPU) {
    // Blocks of columns innermost in each level of a scan (ADR 0044): the levels' dependent
    // divisions of several columns overlap. Right after each loop-map-interchange made column
    // maps: the second makes those of recursions whose levels fusion joined first (deriche's four
    // recursions, vadv's sweeps; ADR 0053, session 34).
    for (auto it = names.begin(); (it = std::find(it, names.end(), "loop-map-interchange")) != names.end();)
      it = names.insert(it + 1, "scan-column-blocking") + 1;
    names.push_back("cpu-schedules");
  } else {
    names.push_back("gpu-transform");
    names.push_back("gpu-schedules");
  }
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
  return std::make_unique<Pipeline>(
      "auto-optimize-" + dev, std::move(passes), false,
      "Optimize for the " + std::string(to_string(device)) +
          ": inline nested SDFGs, simplify, copy elision, loops to maps, scans inside column maps, collapse "
          "and fuse "
          "maps (recomputing stencil intermediates), local sums, transient reuse, " +
          (device == DeviceType::CPU ? "schedules" : "GPU placement, kernel shapes"));
}

void auto_optimize(SDFG& sdfg, DeviceType device) { make_auto_optimize_pipeline(device)->run(sdfg); }

}  // namespace weir::transforms
