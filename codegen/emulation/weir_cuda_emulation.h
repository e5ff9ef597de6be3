// Host emulation of the part of CUDA that weir's generated programs use, so that a generated
// .cu compiles as host C++ (-DWEIR_CUDA_EMULATION, this folder on the include path) and its
// kernels run on the CPU: a launch loops over every block and every thread of the grid in order,
// with blockIdx/threadIdx as the loop variables, so the kernels' index arithmetic and bounds
// guards are the ones nvcc compiles. Device memory is host memory, but cudaMalloc records what it
// hands out, so that cudaPointerGetAttributes tells device from host pointers as CUDA does (a
// program given a host array where it needs device memory fails here as on a GPU); streams are
// in-order no-ops.
// Generated code has no __syncthreads or shared memory (a sequential loop over threads could not
// emulate them). Test-only: the gpu backend compiles the same source with nvcc.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <iterator>
#include <map>
#include <mutex>
#include <type_traits>

#define __global__
#define __device__
#define __host__
#define __launch_bounds__(n)

struct dim3 {
  unsigned x, y, z;
  constexpr dim3(unsigned a = 1, unsigned b = 1, unsigned c = 1) : x(a), y(b), z(c) {}
};
using uint3 = dim3;
inline thread_local dim3 threadIdx{0, 0, 0}, blockIdx{0, 0, 0}, blockDim{1, 1, 1}, gridDim{1, 1, 1};

// Runs `kernel` (a closure calling the kernel with its arguments) once per thread of the grid.
template <class F>
inline void weir_emu_launch(dim3 grid, dim3 block, F&& kernel) {
  gridDim = grid;
  blockDim = block;
  for (unsigned bz = 0; bz < grid.z; ++bz)
    for (unsigned by = 0; by < grid.y; ++by)
      for (unsigned bx = 0; bx < grid.x; ++bx)
        for (unsigned tz = 0; tz < block.z; ++tz)
          for (unsigned ty = 0; ty < block.y; ++ty)
            for (unsigned tx = 0; tx < block.x; ++tx) {
              blockIdx = dim3(bx, by, bz);
              threadIdx = dim3(tx, ty, tz);
              kernel();
            }
}

// --- the runtime API --------------------------------------------------------------------------
enum cudaError_t { cudaSuccess = 0, cudaErrorMemoryAllocation = 2 };
enum cudaMemcpyKind {
  cudaMemcpyHostToHost,
  cudaMemcpyHostToDevice,
  cudaMemcpyDeviceToHost,
  cudaMemcpyDeviceToDevice,
  cudaMemcpyDefault
};
using cudaStream_t = struct weir_emu_stream*;
inline constexpr unsigned cudaStreamNonBlocking = 1;
inline const char* cudaGetErrorString(cudaError_t e) {
  return e == cudaSuccess ? "no error" : "out of memory";
}
inline cudaError_t cudaGetLastError() { return cudaSuccess; }
// "Device" allocations: start address -> bytes.
struct weir_emu_device_memory {
  std::mutex mu;
  std::map<std::uintptr_t, std::size_t> blocks;
};
inline weir_emu_device_memory& weir_emu_device() {
  static weir_emu_device_memory m;
  return m;
}
inline cudaError_t cudaMalloc(void** p, std::size_t bytes) {
  *p = std::malloc(bytes);
  if (!*p) return cudaErrorMemoryAllocation;
  std::lock_guard<std::mutex> lock(weir_emu_device().mu);
  weir_emu_device().blocks[reinterpret_cast<std::uintptr_t>(*p)] = bytes;
  return cudaSuccess;
}
inline cudaError_t cudaFree(void* p) {
  if (p) {
    std::lock_guard<std::mutex> lock(weir_emu_device().mu);
    weir_emu_device().blocks.erase(reinterpret_cast<std::uintptr_t>(p));
  }
  std::free(p);
  return cudaSuccess;
}
enum cudaMemoryType {
  cudaMemoryTypeUnregistered = 0,
  cudaMemoryTypeHost = 1,
  cudaMemoryTypeDevice = 2,
  cudaMemoryTypeManaged = 3
};
struct cudaPointerAttributes {
  cudaMemoryType type = cudaMemoryTypeUnregistered;
  int device = 0;
  void* devicePointer = nullptr;
  void* hostPointer = nullptr;
};
// Device memory when `p` lies inside a cudaMalloc block, else unregistered host memory.
inline cudaError_t cudaPointerGetAttributes(cudaPointerAttributes* a, const void* p) {
  *a = cudaPointerAttributes{};
  auto q = reinterpret_cast<std::uintptr_t>(p);
  std::lock_guard<std::mutex> lock(weir_emu_device().mu);
  auto& blocks = weir_emu_device().blocks;
  auto it = blocks.upper_bound(q);
  if (it != blocks.begin() && q < std::prev(it)->first + std::prev(it)->second) {
    a->type = cudaMemoryTypeDevice;
    a->devicePointer = const_cast<void*>(p);
  } else {
    a->hostPointer = const_cast<void*>(p);
  }
  return cudaSuccess;
}
inline cudaError_t cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, cudaMemcpyKind,
                                   cudaStream_t) {
  std::memmove(dst, src, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaMemsetAsync(void* p, int value, std::size_t bytes, cudaStream_t) {
  std::memset(p, value, bytes);
  return cudaSuccess;
}
inline cudaError_t cudaStreamCreateWithFlags(cudaStream_t* s, unsigned) {
  *s = nullptr;
  return cudaSuccess;
}
inline cudaError_t cudaStreamDestroy(cudaStream_t) { return cudaSuccess; }
inline cudaError_t cudaStreamSynchronize(cudaStream_t) { return cudaSuccess; }
template <class T>
inline cudaError_t cudaMemcpyFromSymbol(void* dst, const T& symbol, std::size_t bytes) {
  std::memcpy(dst, &symbol, bytes);
  return cudaSuccess;
}
template <class T>
inline cudaError_t cudaMemcpyToSymbol(T& symbol, const void* src, std::size_t bytes) {
  std::memcpy(&symbol, src, bytes);
  return cudaSuccess;
}

// --- device functions (threads run one at a time, so plain updates are atomic) -----------------
template <class T>
inline T atomicAdd(T* p, T v) {
  T old = *p;
  *p = old + v;
  return old;
}
template <class T>
inline T atomicCAS(T* p, T compare, T value) {
  T old = *p;
  if (old == compare) *p = value;
  return old;
}
template <class T>
inline T atomicExch(T* p, T value) {
  T old = *p;
  *p = value;
  return old;
}
inline void __threadfence() {}
