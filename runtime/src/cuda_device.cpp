#include "weir/runtime/cuda_device.h"

#include <dlfcn.h>

#include <cstdlib>

#include "weir/runtime/errors.h"

namespace weir::runtime {

namespace {

// The driver API's entry points (cuda.h), declared by hand: CUresult is an int enum.
using CuInit = int (*)(unsigned);
using CuDeviceGetCount = int (*)(int*);
using CuGetErrorString = int (*)(int, const char**);

std::string cuda_error(void* lib, int code) {
  std::string s = "CUDA error " + std::to_string(code);
  if (auto str = reinterpret_cast<CuGetErrorString>(dlsym(lib, "cuGetErrorString"))) {
    const char* text = nullptr;
    if (str(code, &text) == 0 && text) s += " (" + std::string(text) + ")";
  }
  return s;
}

}  // namespace

CudaDevices probe_cuda_devices() {
  CudaDevices r;
  const char* override_lib = std::getenv("WEIR_CUDA_DRIVER");
  std::string tried;
  void* lib = nullptr;
  for (const char* name :
       {override_lib, override_lib ? nullptr : "libcuda.so.1", override_lib ? nullptr : "libcuda.so"}) {
    if (!name) continue;
    lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (lib) break;
    const char* err = dlerror();
    tried += (tried.empty() ? "" : "; ") + std::string(err ? err : name);
  }
  if (!lib) {
    r.reason = "the CUDA driver library (libcuda.so.1) is not installed: " + tried;
    return r;
  }
  auto init = reinterpret_cast<CuInit>(dlsym(lib, "cuInit"));
  auto count = reinterpret_cast<CuDeviceGetCount>(dlsym(lib, "cuDeviceGetCount"));
  if (!init || !count) {
    r.reason = "the CUDA driver library has no cuInit/cuDeviceGetCount";
  } else if (int rc = init(0); rc != 0) {
    r.reason = "cuInit failed with " + cuda_error(lib, rc);
  } else if (int rc2 = count(&r.count); rc2 != 0) {
    r.count = 0;
    r.reason = "cuDeviceGetCount failed with " + cuda_error(lib, rc2);
  } else if (r.count == 0) {
    r.reason = "the CUDA driver reports no device";
  }
  // The driver stays loaded: unloading it again is not supported by every driver version.
  return r;
}

void require_cuda_device() {
  CudaDevices d = probe_cuda_devices();
  if (!d.available()) throw BackendError("no CUDA device: " + d.reason);
}

}  // namespace weir::runtime
