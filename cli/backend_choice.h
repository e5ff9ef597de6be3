// The backend `weir run` and `weir compile` use: --backend NAME with --gpu-arch for the gpu
// backend.
#pragma once

#include <memory>
#include <string>

namespace weir::runtime {
class Backend;
}

namespace weir::cli {

/// The backend named `name` ("embedded", "cpu", "gpu"); `gpu_arch` (empty: sm_90) configures
/// the gpu backend. Throws UsageError for an unknown backend, a malformed --gpu-arch and
/// --gpu-arch with another backend.
std::unique_ptr<runtime::Backend> choose_backend(const std::string& name, const std::string& gpu_arch);

/// The help text of --gpu-arch.
inline constexpr const char* kGpuArchHelp =
    "CUDA architecture of --backend gpu (default sm_90: H100/H200/GH200; sm_80: A100); part of the program "
    "cache key";

}  // namespace weir::cli
