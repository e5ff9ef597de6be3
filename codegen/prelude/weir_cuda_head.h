// The prelude of a generated CUDA translation unit, before the common parts (weir_faults.h,
// weir_numbers.h, weir_support.h): WEIR_HD, the CUDA runtime (or, with WEIR_CUDA_EMULATION,
// the host emulation header codegen/emulation/weir_cuda_emulation.h), device-side faults,
// device allocation and atomics. Embedded into generated code (cmake/embed_text.cmake);
// tests/codegen/test_prelude.cpp compiles it with the emulation header.
#define WEIR_HD __host__ __device__
#ifdef WEIR_CUDA_EMULATION
// The same source compiled as host C++ (tests): kernels run as loops over blocks and threads.
#include "weir_cuda_emulation.h"
#define WEIR_LAUNCH(kernel, grid, block, stream, ...) \
  weir_emu_launch(grid, block, [&] { kernel(__VA_ARGS__); })
#else
#include <cuda_runtime.h>
#define WEIR_LAUNCH(kernel, grid, block, stream, ...) kernel<<<grid, block, 0, stream>>>(__VA_ARGS__)
#endif
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <type_traits>

// --- faults in device code ------------------------------------------------------------------
// A kernel cannot throw or format text: the first fault's kind and values are recorded in
// device memory, and the host reads them after the state (weir_cuda_device_faults).
// 0: none, 1: index, 2: integer power, 3: allocation, 4: a nested SDFG's layout (the site says which)
static __device__ int weir_device_fault_kind = 0;
static __device__ long long weir_device_fault_values[3];
// Where the fault happened, as the CPU's checks name it (state, map, tasklet, connector, array):
// the site's text is copied, since a device string's address means nothing to the host.
static __device__ char weir_device_fault_site[512];
[[maybe_unused]] static __device__ void weir_device_fault(int kind, long long a, long long b, long long c,
                                                          const char* site = nullptr) {
  if (atomicCAS(&weir_device_fault_kind, 0, -1) != 0) return;
  weir_device_fault_values[0] = a;
  weir_device_fault_values[1] = b;
  weir_device_fault_values[2] = c;
  int k = 0;
  for (; site != nullptr && k < static_cast<int>(sizeof weir_device_fault_site) - 1 && site[k] != 0; ++k)
    weir_device_fault_site[k] = site[k];
  weir_device_fault_site[k] = 0;
  __threadfence();
  atomicExch(&weir_device_fault_kind, kind);
}
[[maybe_unused]] static __device__ void weir_device_index_fault(long long i, long long n, int dim,
                                                                const char* site) {
  weir_device_fault(1, i, n, dim, site);
}
[[maybe_unused]] static __device__ void weir_device_pow_fault(long long b, long long e) {
  weir_device_fault(2, b, e, 0);
}
// Thread-private heap memory (a transient larger than the stack limit, a column buffer of
// symbolic size): the device heap; nullptr records a fault.
template <class T>
static __device__ T* weir_device_malloc(int64_t n, const char*) {
  void* p = malloc(static_cast<std::size_t>(n > 0 ? n : 1) * sizeof(T));
  if (p == nullptr) weir_device_fault(3, n, static_cast<long long>(sizeof(T)), 0);
  return static_cast<T*>(p);
}
// *p = f(*p, v) atomically for any write-conflict resolution: compare-and-swap on the bits.
template <class T, class F>
static __device__ void weir_device_atomic_update(T* p, T v, F f) {
  static_assert(sizeof(T) == 4 || sizeof(T) == 8, "atomic updates of 4- and 8-byte values only");
  using U = typename std::conditional<sizeof(T) == 4, unsigned int, unsigned long long>::type;
  U* q = reinterpret_cast<U*>(p);
  U old = *q, assumed;
  do {
    assumed = old;
    T cur;
    memcpy(&cur, &assumed, sizeof(T));
    T next = f(cur, v);
    U bits;
    memcpy(&bits, &next, sizeof(T));
    old = atomicCAS(q, assumed, bits);
  } while (old != assumed);
}
