// The GPU backend: a CompiledBackend whose compiler is nvcc (weir/runtime/nvcc.h). Its CUDA
// code generator is not written yet, so compiling a program on it fails with a clear
// BackendError; the nvcc driver, the device probe and the cache key are in place
// (docs/adr/0020-gpu-design.md).
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

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

/// The BackendError text compiling on the GPU backend gives until the CUDA generator exists.
inline constexpr const char* kNoCudaCodegen =
    "the gpu backend cannot compile programs yet: weir has no CUDA code generator (the GPU transformation, "
    "`weir optimize --auto gpu`, and the nvcc driver exist); run GPU-optimized SDFGs on the host with "
    "--backend cpu";

/// A CompiledBackend named "gpu". Arguments are host Fields (the CPU allocator; a program
/// copies them to the device and back). Its compiler step checks the architecture
/// (check_gpu_arch) and that the program's SDFG is valid, then throws BackendError
/// kNoCudaCodegen naming the program.
std::unique_ptr<CompiledBackend> make_gpu_backend(const GpuBackendConfig& config = {});

/// The program-cache key of a CUDA program: SHA-256 of weir's version, the program ABI's,
/// nvcc_identity(settings) (nvcc's path and version, architecture, flags) and the source.
/// Throws RuntimeError when nvcc cannot be found or run.
std::string gpu_program_fingerprint(const std::string& cuda_source, const NvccSettings& settings);

}  // namespace weir::runtime
