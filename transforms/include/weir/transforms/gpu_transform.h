// The GPU transformation of a whole SDFG (DaCe's GPUTransformSDFG): storage on the device,
// kernels for top-level maps, copies between host and device at the SDFG's boundary.
#pragma once

#include "weir/transforms/pipeline.h"

namespace weir::transforms {

/// Pass "gpu-transform". Host code stays the SDFG's control flow, copies and scalar-only
/// tasklets; everything else becomes device code:
///  * arrays the SDFG is called with get GPU_Global storage (DaCe's use_gpu_storage=True);
///    with `host_arguments` they stay in host memory (CPU_Heap) and every one the SDFG accesses
///    gets a GPU_Global transient copy `gpu_<name>` that the SDFG uses instead: a first state
///    copies each in, a last state (and one before every return block) copies every written one
///    out. Outputs are copied in too, so elements a program leaves unwritten keep their values.
///  * transients with an access node outside every map get GPU_Global storage; transients
///    accessed only inside maps (and every transient of a nested SDFG inside a kernel) become
///    Register, i.e. private to a GPU thread (with `register_transients`);
///  * scalars stay in host memory when only host code writes them (arguments, and results of
///    tasklets that read and write nothing but such scalars); kernels receive them by value;
///  * every map at the top level of a state (in loops, branches and regions too) becomes a
///    GPU_Device kernel; maps inside kernels become `inner_schedule` (Sequential, or
///    GPU_ThreadBlock for maps directly inside the kernel map); library nodes at the top level
///    get the GPU_Device schedule, inside kernels Sequential;
///  * other tasklets at the top level, and nested SDFGs at the top level without any map, run
///    in a one-point GPU_Device map; a nested SDFG at the top level with maps is transformed the
///    same way inside (its containers take the storage of the outer ones they are bound to), so
///    its maps become kernels (a LoopRegion of maps gives a kernel per map and iteration; a scan
///    in column form, a map around a nested SDFG with the K loop, one thread per column).
///  * control flow (interstate edges, loop statements, branch conditions) runs on the host:
///    what it reads from GPU memory gets a host mirror `host_<name>`, copied from the device at
///    the end of every state that writes it (and first, for an argument); with host arguments
///    the argument itself is refreshed from its device copy that way.
/// Throws TransformError, naming the map, for a top-level map whose range reads data from GPU
/// memory (a kernel's grid is computed on the host).
/// Returns the number of containers, maps and nodes changed (0 when the SDFG is already in
/// this form).
class GpuTransform final : public Pass {
 public:
  GpuTransform();

 protected:
  std::size_t run_pass(SDFG& sdfg, Transaction& tx) override;
};

}  // namespace weir::transforms
