#include "backend_choice.h"

#include "targets.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/gpu_backend.h"

namespace weir::cli {

std::unique_ptr<runtime::Backend> choose_backend(const std::string& name, const std::string& gpu_arch,
                                                 bool exact_math) {
  try {
    if (exact_math && name != "cpu")
      throw UsageError("--exact-math applies to --backend cpu only (the backend is '" + name + "'; " +
                       (name == "gpu" ? "CUDA's device math library has no such choice"
                                      : "the embedded backend always calls the scalar functions") +
                       ")");
    if (exact_math) {
      runtime::CompiledBackendConfig config;
      config.flags.push_back("-DWEIR_EXACT_MATH");
      return runtime::make_cpu_backend(config);
    }
    if (name == "gpu") {
      runtime::GpuBackendConfig config;
      if (!gpu_arch.empty()) config.nvcc.gpu_arch = gpu_arch;
      return runtime::make_gpu_backend(config);
    }
    if (!gpu_arch.empty())
      throw UsageError("--gpu-arch applies to --backend gpu only (the backend is '" + name + "')");
    return runtime::make_backend(name);
  } catch (const runtime::BackendError& e) {
    throw UsageError(name == "gpu" ? std::string(e.what()) : "--backend: " + std::string(e.what()));
  }
}

}  // namespace weir::cli
