// The prelude of a generated CUDA translation unit, after the common parts: the program's
// stream, checked launches and copies, device buffers and grid sizes (ADR 0020). Host code
// with the full standard headers (<string>, <stdexcept>), as CUDA programs always include.
#ifndef WEIR_PRELUDE_FAULTS
#include "weir_cuda_head.h"
#include "weir_faults.h"
#include "weir_numbers.h"
#include "weir_support.h"
#endif
#include <stdexcept>
#include <string>
// --- the CUDA runtime on the host ----------------------------------------------------------
[[maybe_unused]] static void weir_cuda_check(cudaError_t e, const char* where) {
  if (e != cudaSuccess)
    throw std::runtime_error(std::string(where) + ": CUDA error: " + cudaGetErrorString(e));
}
// The program's stream (one per program, ADR 0020): kernels and copies in program order.
static thread_local cudaStream_t weir_stream = nullptr;
// Waits for the state's kernels and copies, then reports a fault a kernel recorded.
[[maybe_unused]] static void weir_cuda_sync(const char* where) {
  weir_cuda_check(cudaStreamSynchronize(weir_stream), where);
  int kind = 0;
  weir_cuda_check(cudaMemcpyFromSymbol(&kind, weir_device_fault_kind, sizeof kind), where);
  if (kind == 0) return;
  long long v[3] = {0, 0, 0};
  weir_cuda_check(cudaMemcpyFromSymbol(v, weir_device_fault_values, sizeof v), where);
  char site[sizeof weir_device_fault_site] = {0};
  weir_cuda_check(cudaMemcpyFromSymbol(site, weir_device_fault_site, sizeof site), where);
  site[sizeof site - 1] = 0;
  int zero = 0;
  weir_cuda_check(cudaMemcpyToSymbol(weir_device_fault_kind, &zero, sizeof zero), where);
  std::string text = std::string(where) + ": ";
  if (site[0] != 0) text += std::string(site) + ": ";
  if (kind == 1)
    text +=
        "a kernel computed index " + std::to_string(v[0]) + " in dimension " + std::to_string(v[2]) +
        ", outside [0, " + std::to_string(v[1]) + ")" +
        (v[0] == -1 ? " (a -1 in a connectivity table marks a missing neighbour, which has no value to read)"
                    : "");
  else if (kind == 2)
    text += "integer power " + std::to_string(v[0]) + " ** " + std::to_string(v[1]) +
            ": an integer to a negative integer power has no integer value (NumPy raises ValueError)";
  else if (kind == 4)
    text += "a nested SDFG's layout does not hold for the symbol values of this call";
  else
    text += "a kernel could not allocate " + std::to_string(v[0]) + " elements of " + std::to_string(v[1]) +
            " bytes on the device heap";
  throw std::runtime_error(text);
}
// A GPU_Global argument must be device (or managed) memory: a host pointer would make every
// kernel that touches it fault with an address and no name.
[[maybe_unused]] static void weir_cuda_require_device(const void* p, const char* name) {
  if (p == nullptr) return;
  cudaPointerAttributes a{};
  if (cudaPointerGetAttributes(&a, p) != cudaSuccess) {
    (void)cudaGetLastError();  // CUDA before 11 fails on unregistered host memory
    a.type = cudaMemoryTypeUnregistered;
  }
  if (a.type != cudaMemoryTypeDevice && a.type != cudaMemoryTypeManaged)
    throw std::runtime_error(
        std::string("argument '") + name +
        "' is GPU_Global (device memory) but the pointer given is host memory: pass device "
        "memory to weir_run, or call weir_run_host, which copies host arrays to the device and back");
}
// Checks a kernel launch (its configuration, the device's state).
[[maybe_unused]] static void weir_cuda_launched(const char* where) {
  weir_cuda_check(cudaGetLastError(), where);
}
// Copies between host and device memory, in stream order; a copy to the host is waited for,
// because host code may read it next.
[[maybe_unused]] static void weir_cuda_copy(void* dst, const void* src, std::size_t bytes, bool to_host,
                                            const char* where) {
  if (bytes == 0) return;
  weir_cuda_check(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDefault, weir_stream), where);
  if (to_host) weir_cuda_check(cudaStreamSynchronize(weir_stream), where);
}
[[maybe_unused]] static void weir_cuda_zero(void* p, std::size_t bytes, const char* where) {
  weir_cuda_check(cudaMemsetAsync(p, 0, bytes, weir_stream), where);
}
// Device memory of n elements (at least one); throws on failure.
template <class T>
static T* weir_cuda_alloc(int64_t n, const char* name) {
  if (n < 0) throw std::runtime_error(std::string("negative size of transient '") + name + "'");
  void* p = nullptr;
  weir_cuda_check(cudaMalloc(&p, static_cast<std::size_t>(n > 0 ? n : 1) * sizeof(T)),
                  (std::string("allocating transient '") + name + "' on the device").c_str());
  return static_cast<T*>(p);
}
namespace {
// A device allocation freed at the end of the enclosing block (a state's GPU_Global transient).
template <class T>
struct weir_device_buffer {
  T* ptr;
  weir_device_buffer(int64_t n, const char* name) : ptr(weir_cuda_alloc<T>(n, name)) {}
  ~weir_device_buffer() { cudaFree(ptr); }
  weir_device_buffer(const weir_device_buffer&) = delete;
  weir_device_buffer& operator=(const weir_device_buffer&) = delete;
};
// A host array argument's copy in device memory for weir_run_host (ADR 0020): allocated and
// copied in here, copied back by copy_back(), freed at the end of the call.
template <class T>
struct weir_device_argument {
  T* host;
  int64_t elements;
  const char* name;
  T* device = nullptr;
  weir_device_argument(T* host_, int64_t elements_, int64_t allocated, const char* name_)
      : host(host_), elements(elements_), name(name_) {
    if (allocated < elements) allocated = elements;
    weir_cuda_check(cudaMalloc(reinterpret_cast<void**>(&device),
                               static_cast<std::size_t>(allocated > 0 ? allocated : 1) * sizeof(T)),
                    (std::string("allocating argument '") + name + "' on the device").c_str());
    weir_cuda_copy(device, host, static_cast<std::size_t>(elements) * sizeof(T), false,
                   (std::string("copying argument '") + name + "' to the device").c_str());
  }
  void copy_back() {
    weir_cuda_copy(host, device, static_cast<std::size_t>(elements) * sizeof(T), true,
                   (std::string("copying argument '") + name + "' back to the host").c_str());
  }
  ~weir_device_argument() { cudaFree(device); }
  weir_device_argument(const weir_device_argument&) = delete;
  weir_device_argument& operator=(const weir_device_argument&) = delete;
};
// As weir_scratch, in device memory.
template <class T>
struct weir_device_scratch {
  T* ptr = nullptr;
  int64_t cap = 0;
  T* get(int64_t n, const char* name) {
    if (n > cap || ptr == nullptr) {
      T* p = weir_cuda_alloc<T>(n, name);
      cudaFree(ptr);
      ptr = p;
      cap = n > 0 ? n : 1;
    }
    return ptr;
  }
  T* keep(int64_t n, const char* name) {
    if (n > cap || ptr == nullptr) {
      T* p = weir_cuda_alloc<T>(n, name);
      if (ptr != nullptr) {
        weir_cuda_check(cudaMemcpyAsync(p, ptr, static_cast<std::size_t>(cap) * sizeof(T), cudaMemcpyDefault,
                                        weir_stream),
                        name);
        weir_cuda_check(cudaStreamSynchronize(weir_stream), name);
      }
      cudaFree(ptr);
      ptr = p;
      cap = n > 0 ? n : 1;
    }
    return ptr;
  }
  ~weir_device_scratch() { cudaFree(ptr); }
};
}  // namespace
// Iterations of a map dimension start:end:step (inclusive end), 0 when empty.
[[maybe_unused]] static inline int64_t weir_map_count(int64_t start, int64_t end, int64_t step) {
  if (step > 0) return end >= start ? (end - start) / step + 1 : 0;
  if (step < 0) return start >= end ? (start - end) / (-step) + 1 : 0;
  return 0;
}
// Blocks of `block` threads covering n points (the grid's y and z have at most 65535 blocks).
[[maybe_unused]] static inline unsigned weir_grid_extent(int64_t n, unsigned block, unsigned limit,
                                                         const char* where) {
  int64_t g = (n + block - 1) / block;
  if (g > limit)
    throw std::runtime_error(std::string(where) + ": the kernel's grid needs " + std::to_string(g) +
                             " blocks in one dimension, more than CUDA's " + std::to_string(limit));
  return static_cast<unsigned>(g);
}
