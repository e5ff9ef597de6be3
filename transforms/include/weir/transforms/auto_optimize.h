// auto_optimize: the named pipeline of passes that makes an SDFG fast on a device (DaCe's
// auto_optimize), kept as a printable, editable list of passes.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"
#include "weir/transforms/pipeline.h"

namespace weir::transforms {

/// The passes of auto_optimize for `device`, in order, as pipeline text entries. CPU:
///   inline-sdfgs, simplify, copy-elision, loop-to-map, loop-map-interchange, map-collapse,
///   greedy-map-fusion, simplify, local-storage, transient-reuse, cpu-schedules
/// (fusion by recomputation removes the intermediate arrays of stencil chains, so no tiling:
/// see docs/adr/0010-fusion-and-auto-optimize.md). GPU: the same up to transient-reuse, then
///   gpu-transform, gpu-schedules
/// (docs/adr/0020-gpu-design.md). Throws TransformError for a device without a pipeline.
std::vector<std::string> auto_optimize_pass_names(DeviceType device);

/// The pipeline "auto-optimize-<device>" built from auto_optimize_pass_names; print it with
/// str_passes(), edit passes(), run it with run(). Throws TransformError as above.
std::unique_ptr<Pipeline> make_auto_optimize_pipeline(DeviceType device);

/// Runs make_auto_optimize_pipeline(device) on `sdfg` in place. Throws TransformError for an
/// unsupported device, or what a pass throws.
void auto_optimize(SDFG& sdfg, DeviceType device);

}  // namespace weir::transforms
