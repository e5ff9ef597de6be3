// The CUDA code generator: an SDFG placed on the GPU (gpu-transform, gpu-schedules; ADR 0020) ->
// one CUDA translation unit that exports the same C entry points as the CPU's (program_abi.h),
// so the runtime loads it the same way; only the compiler (nvcc) differs.
#pragma once

#include "weir/codegen/cpu_codegen.h"

namespace weir::codegen {

/// Generates the CUDA program for `sdfg`: every GPU_Device map at the top level of a state (of
/// the SDFG or of a nested SDFG called from host code) becomes a `__global__` kernel launched on
/// the program's stream, its grid from the map's range and MapInfo::gpu_block_size (DaCe's
/// order: the last parameter is x), one thread per point, a bounds guard for the last block;
/// maps inside kernels are loops; Register transients are thread-private locals; GPU_Global
/// containers are device memory (persistent ones cudaMalloc'd in weir_init, freed in
/// weir_finalize); copies between host and device are cudaMemcpyAsync on the stream, and every
/// state ends with a stream synchronisation, a launch-error check and a device-fault check named
/// by the state. Control flow, host scalars and scalar-only tasklets run on the host. Tasklet
/// code is translated as for the CPU with cuda_target()'s spellings (atomics for racing WCRs).
/// `options.openmp` and `options.target` are ignored (no OpenMP; the CUDA target). The source
/// also compiles as host C++ with -DWEIR_CUDA_EMULATION and codegen/emulation on the include
/// path (the test harness). Throws CodegenError as generate_cpu does, and for what has no CUDA
/// form yet: GPU_Shared storage, kernels with dynamic range inputs or ranges that depend on
/// each other, copies with write-conflict resolution between host and device.
GeneratedCode generate_cuda(const SDFG& sdfg, const CodegenOptions& options = {});

}  // namespace weir::codegen
