#include "backend_choice.h"

#include "targets.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/gpu_backend.h"

namespace weir::cli {

std::unique_ptr<runtime::Backend> choose_backend(const std::string& name, const std::string& gpu_arch) {
  try {
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
