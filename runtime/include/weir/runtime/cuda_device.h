// Whether this machine can run CUDA programs, found at run time: the CUDA driver library is
// opened with dlopen, so weir has no link-time dependency on CUDA and runs where none exists.
#pragma once

#include <string>

namespace weir::runtime {

/// What probe_cuda_devices() found.
struct CudaDevices {
  /// CUDA devices the driver reports (0 when there is no driver or no device).
  int count = 0;
  /// Why there is none, e.g. "the CUDA driver library libcuda.so.1 is not installed (...)" or
  /// "cuInit failed with CUDA error 100 (no CUDA-capable device is detected)"; empty when
  /// count > 0.
  std::string reason;
  bool available() const { return count > 0; }
};

/// Opens libcuda.so.1 (the driver; libcuda.so as a fallback), calls cuInit(0) and
/// cuDeviceGetCount. Never throws. The environment variable WEIR_CUDA_DRIVER, when set, names
/// the library to open instead (tests use a path that does not exist).
CudaDevices probe_cuda_devices();

/// Throws BackendError "no CUDA device: <reason>" unless probe_cuda_devices() finds a device.
void require_cuda_device();

}  // namespace weir::runtime
