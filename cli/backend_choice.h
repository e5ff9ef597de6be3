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
/// the gpu backend; `exact_math` compiles the cpu backend's code with -DWEIR_EXACT_MATH (glibc's
/// scalar math functions, not their SIMD variants: ADR 0031). Throws UsageError for an unknown
/// backend, a malformed --gpu-arch, --gpu-arch with another backend and --exact-math with a
/// backend other than cpu.
std::unique_ptr<runtime::Backend> choose_backend(const std::string& name, const std::string& gpu_arch,
                                                 bool exact_math = false);

/// The help text of --exact-math.
inline constexpr const char* kExactMathHelp =
    "--backend cpu: call glibc's scalar math functions (sin, exp, ...; within 1 ulp, as the embedded "
    "backend) "
    "instead of their SIMD variants (within 4 ulp, as NumPy's; the default); part of the program cache key";

/// The help text of --gpu-arch.
inline constexpr const char* kGpuArchHelp =
    "CUDA architecture of --backend gpu (default sm_90: H100/H200/GH200; sm_80: A100); part of the program "
    "cache key";

}  // namespace weir::cli
