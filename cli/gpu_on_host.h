// DaCe SDFGs optimized for the GPU (GPU_Device maps, GPU_Global transients) run on the cpu
// backend with their GPU maps as host loops (codegen's gpu_as_cpu): `weir run` says so.
#pragma once

#include <string>

namespace weir {
class SDFG;
}

namespace weir::cli {

/// "note: ..." naming how many GPU-scheduled maps and GPU-storage containers `sdfg` (and its
/// nested SDFGs) has and that they run on the host; "" when it has none.
std::string gpu_on_host_note(const SDFG& sdfg);

}  // namespace weir::cli
