// nvcc, the CUDA toolkit's compiler driver: where it is, what identifies it for the program
// cache, and the command that builds a CUDA translation unit into a shared library (the GPU
// backend's compiler half; docs/adr/0020-gpu-design.md).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "weir/runtime/compiler.h"

namespace weir::runtime {

/// The GPU architecture weir compiles for unless told otherwise: sm_90 (H100, H200, GH200).
inline constexpr const char* kDefaultGpuArch = "sm_90";

/// How nvcc builds a generated CUDA program.
struct NvccSettings {
  /// nvcc's path; empty: find_nvcc() at each use.
  std::string nvcc;
  /// Target architecture, as nvcc's -arch takes it: sm_NN (or sm_NNa), compute_NN.
  std::string gpu_arch = kDefaultGpuArch;
  /// Language and optimization flags. --fmad=false: no fused multiply-add contraction, so device
  /// results round like the cpu backend's (-ffp-contract=off) and NumPy's.
  /// --expt-relaxed-constexpr: device code calls constexpr host functions (std::numeric_limits).
  std::vector<std::string> flags = {"-std=c++17", "-O3", "--expt-relaxed-constexpr", "--fmad=false"};

  /// flags, then -arch=<gpu_arch>, -Xcompiler -fPIC, -shared.
  std::vector<std::string> all_flags() const;
  /// nvcc, all_flags(), -o output, -x cu, source. Throws RuntimeError when nvcc is empty and
  /// find_nvcc() finds none.
  std::vector<std::string> command(const std::filesystem::path& source,
                                   const std::filesystem::path& output) const;
};

/// Where nvcc is: $CUDACXX when set (it must be an executable, else RuntimeError naming it),
/// else `nvcc` in PATH, else /usr/local/cuda/bin/nvcc. Throws RuntimeError "nvcc not found
/// (CUDACXX is not set, no nvcc in PATH, none at /usr/local/cuda/bin/nvcc): install the CUDA
/// toolkit or set CUDACXX" when none of them exists.
std::filesystem::path find_nvcc();

/// Throws BackendError unless `arch` is sm_<digits>[a] or compute_<digits> ("--gpu-arch 'x': ...").
void check_gpu_arch(const std::string& arch);

/// What identifies the CUDA compiler for the program cache: nvcc's resolved path and
/// `nvcc --version` output (compiler_identity), the target architecture and every flag.
/// Throws RuntimeError when nvcc cannot be found or run.
std::string nvcc_identity(const NvccSettings& settings);

/// Compiles the CUDA translation unit `source` into the shared library `output` (run_compiler:
/// CompileError with nvcc's first error lines and the source path when it fails).
void compile_cuda_library(const NvccSettings& settings, const std::filesystem::path& source,
                          const std::filesystem::path& output, const std::string& program,
                          const CompilerInvocation& invoke = run_process);

}  // namespace weir::runtime
