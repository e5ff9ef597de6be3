// The GPU backend: a CompiledBackend whose code generator is codegen::generate_cuda and whose
// compiler is nvcc (weir/runtime/nvcc.h); running needs a CUDA device (docs/adr/0020-gpu-design.md).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "weir/codegen/cuda_codegen.h"
#include "weir/runtime/backend.h"
#include "weir/runtime/nvcc.h"

namespace weir::runtime {

/// Configuration of the GPU backend.
struct GpuBackendConfig {
  /// nvcc, target architecture (default sm_90) and flags.
  NvccSettings nvcc;
  /// Program cache directory; default: ProgramCache::default_root().
  std::optional<std::filesystem::path> cache_dir;
};

/// The SDFG the gpu backend generates CUDA for: `sdfg` itself when it already has a GPU placement
/// (GPU storage or GPU schedules: DaCe's GPU stages, `weir optimize --auto gpu`, the toolchain's
/// lowering for this backend), else a copy with `gpu-transform{host_arguments=true}` and
/// `gpu-schedules` applied (the backend's arguments are host Fields, so the program copies them
/// in and out). Never modifies `sdfg`. Throws TransformError as those passes do.
std::shared_ptr<const SDFG> gpu_placed_sdfg(const std::shared_ptr<const SDFG>& sdfg);

/// The CUDA source the gpu backend compiles for `program`: validation (BackendError "ORIGIN:
/// cannot compile an invalid SDFG ..." as the cpu backend's), gpu_placed_sdfg, then
/// codegen::generate_cuda with the program's options. `placed` receives the SDFG the source was
/// generated from (its signature is the program's). With `locations` the source names its source
/// locations by token and `locations` receives their table (ADR 0061,
/// codegen::generate_cuda_with_location_table), as the gpu backend compiles it; without, the
/// source names them itself.
codegen::GeneratedCode generate_gpu_program(const CompilableProgram& program,
                                            std::shared_ptr<const SDFG>* placed = nullptr,
                                            std::vector<std::string>* locations = nullptr);

/// A CompiledBackend named "gpu". Arguments are host Fields (the CPU allocator; the program
/// copies them to the device and back). Its compiler step checks the architecture
/// (check_gpu_arch), generates the CUDA source (generate_gpu_program) and returns the cached
/// library for gpu_program_fingerprint, running nvcc (compile_cuda_library) on a miss; its loader
/// first requires a CUDA device (require_cuda_device: BackendError "no CUDA device: ..."), then
/// loads the library as the cpu backend does.
std::unique_ptr<CompiledBackend> make_gpu_backend(const GpuBackendConfig& config = {});

/// The program-cache key of a CUDA program: SHA-256 of weir's version, the program ABI's,
/// nvcc_identity(settings) (nvcc's path and version, architecture, flags) and the source.
/// Throws RuntimeError when nvcc cannot be found or run.
std::string gpu_program_fingerprint(const std::string& cuda_source, const NvccSettings& settings);

}  // namespace weir::runtime
