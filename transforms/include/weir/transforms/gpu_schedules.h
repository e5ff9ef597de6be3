// Kernel shapes for auto_optimize on the GPU: which map parameter becomes threadIdx.x and the
// thread-block sizes, with gt4py's defaults.
#pragma once

#include "weir/transforms/pipeline.h"

namespace weir::transforms {

/// Pass "gpu-schedules". For every GPU_Device map in host code (the SDFG's states and nested
/// SDFGs called from host code; kernels' insides are not entered):
///  * ordering: the parameter that indexes the smallest-stride dimension of the data the
///    kernel's body accesses moves to the end of the map's parameters. DaCe's CUDA code maps a
///    kernel map's parameters in reverse to the grid (the last parameter is x: its grid is the
///    map's range reversed), so the last parameter is threadIdx.x and neighbouring threads of a
///    warp touch neighbouring elements (coalesced). Strides are compared with every size symbol
///    set to 1000; a map whose body accesses no data by its parameters keeps its order;
///  * block size (MapInfo::gpu_block_size, [x, y, z] as DaCe's) for kernels that have none and
///    no thread-block map inside: `block_size_1d` for one-parameter kernels, `block_size_2d`
///    for two, `block_size_3d` for three or more (DaCe folds dimensions past the third into z);
///    an empty 2-D/3-D option means `block_size`. Defaults are gt4py's: (32, 8, 1) and
///    (64, 1, 1) for 1-D. A size that does not fit a kernel (more than three values, or more
///    than one thread along a dimension the kernel does not have, which would run each point
///    several times: weir/sdfg/gpu_block_size.h) throws TransformError naming the option, the
///    map and its parameters.
/// Returns the number of maps changed.
class GpuSchedules final : public Pass {
 public:
  GpuSchedules();

 protected:
  std::size_t run_pass(SDFG& root, Transaction& tx) override;
};

}  // namespace weir::transforms
