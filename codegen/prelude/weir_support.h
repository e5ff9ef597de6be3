// The prelude of generated programs, part 3 of 3: integer powers (with their fault), the
// measured choice between one thread and many, atomic updates, aligned allocation and scratch
// buffers, bounds checks and weir_fail. Needs parts 1 and 2 before it; in generated code they
// come before it in the same text (the guarded includes below are skipped there).
#define WEIR_PRELUDE_SUPPORT 1
#ifndef WEIR_PRELUDE_FAULTS
#include "weir_faults.h"
#endif
#ifndef WEIR_PRELUDE_NUMBERS
#include "weir_numbers.h"
#endif
#include <cstdlib>
#include <new>
#include <type_traits>
#ifdef _OPENMP
#include <omp.h>
#endif

// The lanes of `#pragma omp simd WEIR_SIMD_FULL(bytes)`: a loop whose accesses are all contiguous
// or invariant (codegen/src/simd_width.h) gets every lane of the target's widest registers for
// elements of `bytes` bytes. Only under AVX-512: GCC's tuning for Intel's AVX-512 cores prefers
// 256-bit vectors and leaves half of each register unused, where 64 / bytes lanes run the loop in
// half the instructions (docs/adr/0055, "session 33"); with narrower registers, and in CUDA
// code, the compiler's own choice is already the full width.
//
// A contiguous loop that reads a row at offsets that are not whole cache lines apart (a 2-D
// stencil's A[i, j - 1], A[i, j], A[i, j + 1]) runs in two versions (codegen/src/simd_width.h):
// where weir_simd_long_row(points, bytes) holds, with `WEIR_SIMD_HALF(bytes)`, 256-bit vectors
// (each 512-bit access off a line boundary spans two lines, a 256-bit one at every other access:
// over rows of 2 KiB and more the loop ran 1.2-1.6x faster so on an AVX-512 machine), else with
// WEIR_SIMD_FULL (over short rows, a K column of 80, the 512-bit loop's fewer iterations won by
// 1.1x). docs/adr/0055, "session 35". Without AVX-512 the test is false and the compiler keeps
// the full-width version only.
#if defined(__AVX512F__) && !defined(__CUDACC__)
#define WEIR_SIMD_FULL(bytes) simdlen(64 / (bytes))
#define WEIR_SIMD_HALF(bytes) simdlen(32 / (bytes))
[[maybe_unused]] static inline bool weir_simd_long_row(int64_t points, int64_t bytes) {
  return points * bytes >= 1280;
}
#else
#define WEIR_SIMD_FULL(bytes)
#define WEIR_SIMD_HALF(bytes)
[[maybe_unused]] static inline WEIR_HD bool weir_simd_long_row(int64_t, int64_t) { return false; }
#endif

// Integer power; a negative exponent is a fault (NumPy raises), 0 is read instead. `line`: the
// tasklet's source line ("file.py:43:14") and `tasklet` its name, which the error names, or "".
[[maybe_unused]] static inline WEIR_HD int64_t weir_ipow(int64_t b, int64_t e, const char* line = "",
                                                         const char* tasklet = "") {
  if (e < 0) {
#ifdef __CUDA_ARCH__
    weir_device_pow_fault(b, e);
    (void)line, (void)tasklet;
#else
    weir_pow_fault(b, e, line, tasklet);
#endif
    return 0;
  }
  int64_t r = 1;
  while (e > 0) {
    if (e & 1) r *= b;
    e >>= 1;
    if (e > 0) b *= b;
  }
  return r;
}
#ifdef _OPENMP
// How a parallel map with a run-time choice ran (parallel_threshold.cpp): seconds per point of
// its last one-thread run and of its last parallel run (fork/join included), -1 until measured;
// how often each branch ran, and how many choices were made.
struct weir_map_times {
  std::atomic<double> sequential{-1.0};
  std::atomic<double> parallel{-1.0};
  std::atomic<unsigned> sequential_runs{0};
  std::atomic<unsigned> parallel_runs{0};
  std::atomic<unsigned> choices{0};
};
// Records a branch's run. A branch's first run is a warm-up and not kept: it pays page faults
// on fresh outputs and, for the first parallel region, the start of the threads (arc_distance's
// first one-thread runs measured 5x their later time, and the maps stayed parallel, 6x slower).
[[maybe_unused]] static inline void weir_map_ran(std::atomic<double>& per_point, std::atomic<unsigned>& runs,
                                                 double seconds_per_point) {
  if (runs.fetch_add(1, std::memory_order_relaxed) > 0)
    per_point.store(seconds_per_point, std::memory_order_relaxed);
}
// Whether the map runs on one thread this time: with nothing measured, below 32768 points (so
// the same branch twice, its warm-up and its measurement), and never where the work of a point
// is unknown (`unknown_work`: a nested SDFG with loops, a library node): a parallel first try
// costs at most a fork/join more than one thread, a one-thread first try of a body with loops up
// to the threads' count times the map's time (deriche's column recurrences, 1,200 points of
// 1,600 steps each, ran their first two calls on one thread, 2x slower than DaCe's parallel
// loops there; DaCe's maps are always parallel); with one branch measured, the other
// is tried where that costs little (a one-thread run predicted under what a fork/join of
// passive threads saves, 30 us; a parallel run under 100 us); with both measured, the faster
// per point, and every 64th choice the other branch, so that a time measured once under other
// conditions (load, a cold cache) is measured again: a parallel run costs at most a fork/join
// more than a one-thread run. A one-thread run is tried again on a schedule also where it was
// never measured after a parallel run over 100 us: every 64th choice where it is predicted under
// 1 ms (threads x the parallel time), else every (64 x threads)th, so that the tries cost at most
// 1/64 of the parallel time per choice. Under load a parallel region waits for a descheduled
// thread at every fork/join: floyd_warshall's 1,000 steps of a 1,000,000-point map took 530-580
// ms on two threads against 57-100 ms on one at load 6 on 2 cores (ADR 0053, session 38).
[[maybe_unused]] static inline bool weir_run_sequentially(weir_map_times& t, double points,
                                                          bool unknown_work = false) {
  const int threads = omp_get_max_threads();
  if (threads <= 1) return true;
  const double s = t.sequential.load(std::memory_order_relaxed),
               p = t.parallel.load(std::memory_order_relaxed);
  if (s < 0 && p < 0) return !unknown_work && points < 32768.0;
  if (p < 0) return s * points * (1.0 - 1.0 / threads) < 30e-6;
  if (s < 0 && p * points < 100e-6) return true;
  const unsigned choice = t.choices.fetch_add(1, std::memory_order_relaxed);
  const unsigned period = p * points * threads < 1e-3 ? 64u : 64u * static_cast<unsigned>(threads);
  const bool try_one_thread = choice % period == period - 1;
  if (s < 0 || s > p) return try_one_thread;
  return choice % 64 != 63;
}
#endif
// *p = f(*p, v) atomically (compare-and-swap loop), for write-conflict resolutions that
// `#pragma omp atomic` cannot express.
template <class T, class F>
static inline WEIR_HD void weir_atomic_update(T* p, T v, F f) {
#ifdef __CUDA_ARCH__
  weir_device_atomic_update(p, v, f);
#else
  T expected;
  __atomic_load(p, &expected, __ATOMIC_RELAXED);
  T desired = f(expected, v);
  while (!__atomic_compare_exchange(p, &expected, &desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
    desired = f(expected, v);
#endif
}
// 64-byte aligned allocation of n elements (at least one); throws on failure.
template <class T>
static inline WEIR_HD T* weir_alloc(int64_t n, const char* name) {
#ifdef __CUDA_ARCH__
  return weir_device_malloc<T>(n, name);
#else
  if (n < 0) weir_throw("negative size of transient '%s'", name);
  std::size_t bytes = static_cast<std::size_t>(n > 0 ? n : 1) * sizeof(T);
  bytes = (bytes + 63) / 64 * 64;
  void* p = std::aligned_alloc(64, bytes);
  if (p == nullptr) throw std::bad_alloc();
  return static_cast<T*>(p);
#endif
}
// An allocation freed at the end of the enclosing block.
namespace {
template <class T>
struct weir_buffer {
  T* ptr;
  WEIR_HD weir_buffer(int64_t n, const char* name) : ptr(weir_alloc<T>(n, name)) {}
  WEIR_HD ~weir_buffer() { free(ptr); }
  weir_buffer(const weir_buffer&) = delete;
  weir_buffer& operator=(const weir_buffer&) = delete;
};
// A state's transient whose size is known only at run time, on the CPU: up to 512 bytes on the
// stack (a loop body's slice of a few elements, spmv's row: no allocation per iteration), else
// as weir_buffer.
template <class T>
struct weir_local_buffer {
  alignas(64) unsigned char small[512];
  T* ptr;
  weir_local_buffer(int64_t n, const char* name)
      : ptr(n >= 0 && static_cast<std::size_t>(n) * sizeof(T) <= sizeof small ? reinterpret_cast<T*>(small)
                                                                              : weir_alloc<T>(n, name)) {}
  ~weir_local_buffer() {
    if (ptr != reinterpret_cast<T*>(small)) free(ptr);
  }
  weir_local_buffer(const weir_local_buffer&) = delete;
  weir_local_buffer& operator=(const weir_local_buffer&) = delete;
};
// A per-thread buffer that grows to the largest size asked for and is kept between calls: the
// transients of a nested SDFG called at every point of a parallel map (a scan's column
// buffers) would otherwise cost an allocation per point. One per (function, transient), so
// never shared by two live frames (SDFG nesting has no recursion).
template <class T>
struct weir_scratch {
  T* ptr = nullptr;
  int64_t cap = 0;
  T* get(int64_t n, const char* name) {
    if (n > cap || ptr == nullptr) {
      T* p = weir_alloc<T>(n, name);
      std::free(ptr);
      ptr = p;
      cap = n > 0 ? n : 1;
    }
    return ptr;
  }
  // As get(), keeping the elements it held when it grows.
  T* keep(int64_t n, const char* name) {
    if (n > cap || ptr == nullptr) {
      T* p = weir_alloc<T>(n, name);
      if (ptr != nullptr)
        std::memcpy(static_cast<void*>(p), static_cast<const void*>(ptr),
                    static_cast<std::size_t>(cap) * sizeof(T));
      std::free(ptr);
      ptr = p;
      cap = n > 0 ? n : 1;
    }
    return ptr;
  }
  ~weir_scratch() { std::free(ptr); }
};
}  // namespace
// One dimension of a memlet's bounds check (CodegenOptions::bounds_checks): indices lo..hi
// (inclusive; empty when lo > hi) of dimension `dim`, valid when 0 <= index + offset < extent;
// `hint` says what to change, `name` is the field's dimension ("I"), "" if unknown.
struct weir_dim_check {
  int64_t lo, hi, offset, extent;
  int dim;
  const char* hint;
  const char* name;
};
static inline WEIR_HD weir_dim_check weir_dim(int64_t lo, int64_t hi, int64_t offset, int64_t extent, int dim,
                                              const char* hint, const char* name) {
  return weir_dim_check{lo, hi, offset, extent, dim, hint, name};
}
static inline WEIR_HD bool weir_in(int64_t lo, int64_t hi, int64_t offset, int64_t extent) {
  return lo > hi || (lo + offset >= 0 && hi + offset < extent);
}
static inline WEIR_HD bool weir_dim_inside(const weir_dim_check& d) {
  return weir_in(d.lo, d.hi, d.offset, d.extent);
}
// "where: reads A[1 .. 3] in dimension 0 of A with shape 3 and A[...] in dimension 1 of A with
// shape 2 (hint)": every dimension outside, each distinct hint once.
[[maybe_unused]] static void weir_bounds_text(char* out, std::size_t size, std::size_t& used,
                                              const char* where, const char* access, const char* data,
                                              const weir_dim_check* d, std::size_t k) noexcept {
  weir_append(out, size, used, "%s: %s ", where, access);
  bool first = true;
  for (std::size_t j = 0; j < k; ++j) {
    if (weir_dim_inside(d[j])) continue;
    weir_append(out, size, used, "%s%s[%lld .. %lld] in dimension %d of %s with shape %lld",
                first ? "" : " and ", data, static_cast<long long>(d[j].lo), static_cast<long long>(d[j].hi),
                d[j].dim, data, static_cast<long long>(d[j].extent));
    first = false;
  }
  first = true;
  for (std::size_t j = 0; j < k; ++j) {
    if (weir_dim_inside(d[j])) continue;
    bool said = false;
    for (std::size_t i = 0; i < j; ++i)
      said = said || (!weir_dim_inside(d[i]) && std::strcmp(d[i].hint, d[j].hint) == 0);
    if (said) continue;
    weir_append(out, size, used, "%s%s", first ? " (" : "; ", d[j].hint);
    first = false;
  }
  weir_append(out, size, used, ")");
}
// "source: 'f' is read over K: [-1, 0), outside its domain K: [0, 8)": the dimensions outside,
// by name where known, half-open as in gt4py; `field` is the container's name in the program.
template <std::size_t K>
[[maybe_unused]] static void weir_bounds_head(char* text, std::size_t size, std::size_t& used,
                                              const char* source, const char* access, const char* field,
                                              const weir_dim_check (&d)[K]) noexcept {
  char dims[K][96];
  for (std::size_t j = 0; j < K; ++j) {
    if (*d[j].name)
      std::snprintf(dims[j], sizeof dims[j], "%s", d[j].name);
    else
      std::snprintf(dims[j], sizeof dims[j], "dimension %d", d[j].dim);
  }
  weir_append(text, size, used, "%s: '%s' is %s over ", source, field, access[0] == 'w' ? "written" : "read");
  bool first = true;
  for (std::size_t j = 0; j < K; ++j) {
    if (weir_dim_inside(d[j])) continue;
    weir_append(text, size, used, "%s%s: [%lld, %lld)", first ? "" : " and ", dims[j],
                static_cast<long long>(d[j].lo), static_cast<long long>(d[j].hi + 1));
    first = false;
  }
  weir_append(text, size, used, ", outside its domain ");
  first = true;
  for (std::size_t j = 0; j < K; ++j) {
    if (weir_dim_inside(d[j])) continue;
    weir_append(text, size, used, "%s%s: [%lld, %lld)", first ? "" : " and ", dims[j],
                static_cast<long long>(-d[j].offset), static_cast<long long>(d[j].extent - d[j].offset));
    first = false;
  }
}
// The check of one memlet at the top level: throws naming every dimension outside. With the
// access's source line (`source`, from debuginfo) the error says it in the program's terms
// first: the field, its dimensions (by name where known), the ranges accessed and the field's
// domain, half-open as in gt4py; then where in the SDFG, and the hints. `data` is the container
// in the SDFG, `field` the one it stands for in the program (a device copy names its argument).
template <std::size_t K>
static inline void weir_check_bounds(const char* where, const char* access, const char* data,
                                     const char* field, const char* source, const weir_dim_check (&d)[K]) {
  bool inside = true;
  for (std::size_t j = 0; j < K; ++j) inside = inside && weir_dim_inside(d[j]);
  if (inside) return;
  char text[2048];
  std::size_t used = 0;
  const std::size_t size = sizeof text;
  if (*source) {
    weir_bounds_head(text, size, used, source, access, field, d);
    weir_append(text, size, used, "\n  in the SDFG: ");
  }
  weir_bounds_text(text, size, used, where, access, data, d, K);
  weir_throw("%s", text);
}
// One use of a connectivity table's entries as indices (docs/adr/0051): of container `data` in
// dimension `dim`, whose extent there is `extent`.
struct weir_table_use {
  const char* data;
  int dim;
  int64_t extent;
};
// The entry check of a connectivity table whose entries index without checks in the loops: every
// entry (r, c) of the rows x cols table (strides in elements) is -1 (a missing neighbour, which
// the code never uses as an index) or below the extent of every use. Throws naming the table, the
// entry, its value and the use it fails. It runs at every call, before the first state, so that a
// bad entry is refused before anything is written (docs/adr/0051).
//
// Entries bad for the smallest extent `bound`: below -1 or at least `bound`; an entry bad for
// some use is bad for it, and the reverse. The first bad one in row-major order is found by a
// parallel pass (weir_first_bad_entry) that completes before the message is made, so the message
// names the same entry as a search on one thread would. On one thread this check took 0.15-0.9
// ms of cell_laplacian's 4.8 ms per call (C2E2CO, 100,352 x 4 int32) while the other threads
// waited for the first parallel state (docs/adr/0051, 2026-12-07).
//
// The table's rows in blocks of this many entries (about): each block is one pass with no early
// exit (so that it vectorizes), and a block with a bad entry is searched for its first one.
constexpr int64_t weir_table_block_entries = 4096;
// Tables with fewer entries are checked on the calling thread: a fork/join costs more than the
// pass over them (64 Ki int32 entries, 256 KiB, take about 10 us on one core).
constexpr int64_t weir_table_parallel_entries = 65536;
// The test of an entry v against `bound` (at least 0) in T's own width, so that a pass over an
// int32 table compares 8 entries per AVX2 instruction, not 4 widened ones: v is good (-1 <= v <
// bound) exactly when U(v) + 1 < U(min(bound, max of T + 1)) + 1, U the unsigned type of T's
// width (-1 maps to 0, entries below -1 above max of T + 1).
template <typename T>
struct weir_entry_test {
  using U = std::make_unsigned_t<T>;
  U limit;
  explicit weir_entry_test(int64_t bound) {
    const int64_t top = static_cast<int64_t>(static_cast<U>(~U{0}) >> 1);  // max of T
    const int64_t b = bound < 0 ? 0 : bound;
    limit = static_cast<U>(static_cast<U>(b > top ? static_cast<U>(top) + 1u : static_cast<U>(b)) + 1u);
  }
  int bad(T v) const { return static_cast<int>(static_cast<U>(static_cast<U>(v) + 1u) >= limit); }
};
// Rows [r0, r1) of the table: the row-major index (r * cols + c) of their first bad entry, or
// `none` when they have none. A contiguous table is one flat pass over the block's entries.
template <typename T>
static inline int64_t weir_first_bad_in_rows(const T* t, int64_t r0, int64_t r1, int64_t cols,
                                             int64_t row_stride, int64_t col_stride,
                                             const weir_entry_test<T>& test, int64_t none) {
  int bad = 0;
  if (col_stride == 1 && row_stride == cols) {
    const T* block = t + r0 * cols;
    const int64_t entries = (r1 - r0) * cols;
    for (int64_t i = 0; i < entries; ++i) bad |= test.bad(block[i]);
  } else {
    for (int64_t r = r0; r < r1; ++r)
      for (int64_t c = 0; c < cols; ++c) bad |= test.bad(t[r * row_stride + c * col_stride]);
  }
  if (bad == 0) return none;
  for (int64_t r = r0; r < r1; ++r)
    for (int64_t c = 0; c < cols; ++c)
      if (test.bad(t[r * row_stride + c * col_stride])) return r * cols + c;
  return none;
}
// The row-major index of the table's first bad entry, or rows * cols when every entry is good:
// blocks of rows checked in parallel (an OpenMP min reduction of the blocks' first bad indices;
// the region ends before this returns) where the table has weir_table_parallel_entries or more
// and the measured choice of a parallel map (weir_run_sequentially, per entry, over the calls of
// this program's checks of T's tables) finds it faster than one thread: with the cores held by
// other processes, a parallel region waits for a descheduled thread (cell_laplacian and nabla
// ran 1.2-1.6x the hand-written kernels at load 12 on 2 cores with this pass always parallel,
// 1.0x with it on one thread; docs/adr/0051, 2026-12-07).
template <typename T>
[[maybe_unused]] static int64_t weir_first_bad_entry(const T* t, int64_t rows, int64_t cols,
                                                     int64_t row_stride, int64_t col_stride, int64_t bound) {
  const int64_t none = rows * cols;
  if (rows <= 0 || cols <= 0) return none;
  const int64_t block_rows = cols >= weir_table_block_entries ? 1 : weir_table_block_entries / cols;
  const int64_t blocks = (rows + block_rows - 1) / block_rows;
  const weir_entry_test<T> test(bound);
  int64_t first = none;
#ifdef _OPENMP
  static weir_map_times times;
  const double entries = static_cast<double>(none);
  const bool measured = none >= weir_table_parallel_entries;
  const bool parallel = measured && !weir_run_sequentially(times, entries);
  const double t0 = measured ? omp_get_wtime() : 0.0;
#pragma omp parallel for schedule(static) reduction(min : first) if (parallel)
#endif
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t r0 = b * block_rows;
    const int64_t r1 = r0 + block_rows < rows ? r0 + block_rows : rows;
    const int64_t found = weir_first_bad_in_rows(t, r0, r1, cols, row_stride, col_stride, test, none);
    first = found < first ? found : first;
  }
#ifdef _OPENMP
  if (measured)
    weir_map_ran(parallel ? times.parallel : times.sequential,
                 parallel ? times.parallel_runs : times.sequential_runs, (omp_get_wtime() - t0) / entries);
#endif
  return first;
}
template <typename T>
[[maybe_unused]] static void weir_check_table(const char* table, const T* t, int64_t rows, int64_t cols,
                                              int64_t row_stride, int64_t col_stride,
                                              const weir_table_use* uses, std::size_t n) {
  int64_t bound = INT64_MAX;
  for (std::size_t k = 0; k < n; ++k) bound = uses[k].extent < bound ? uses[k].extent : bound;
  const int64_t first = weir_first_bad_entry(t, rows, cols, row_stride, col_stride, bound);
  if (first >= rows * cols) return;
  const int64_t r = first / cols, c = first % cols;
  const int64_t v = static_cast<int64_t>(t[r * row_stride + c * col_stride]);
  for (std::size_t k = 0; k < n; ++k)
    if (v < 0 || v >= uses[k].extent)
      weir_throw(
          "connectivity table '%s': entry [%lld, %lld] = %lld is outside [0, %lld), the extent of '%s' "
          "in dimension %d, which it indexes (an entry must be a neighbour's index or -1, a missing "
          "neighbour)",
          table, static_cast<long long>(r), static_cast<long long>(c), static_cast<long long>(v),
          static_cast<long long>(uses[k].extent), uses[k].data, uses[k].dim);
}
// As weir_check_bounds where code cannot throw (a nested SDFG's body, maybe inside a parallel
// loop): false after recording the violation, which weir_raise_fault() throws after the state.
template <std::size_t K>
[[maybe_unused]] static WEIR_HD bool weir_bounds_ok(const char* where, const char* access, const char* data,
                                                    const char* field, const char* source,
                                                    const weir_dim_check (&d)[K]) noexcept {
  std::size_t outside = K;
  for (std::size_t j = 0; j < K; ++j)
    if (outside == K && !weir_dim_inside(d[j])) outside = j;
  if (__builtin_expect(outside == K, 1)) return true;
#ifdef __CUDA_ARCH__
  // Device code (a nested SDFG called in a kernel): the host reads the fault after the state
  // (the first dimension outside).
  (void)access;
  (void)data;
  (void)field;
  (void)source;
  const weir_dim_check& o = d[outside];
  weir_device_fault(1, o.lo + o.offset < 0 ? o.lo + o.offset : o.hi + o.offset, o.extent, o.dim, where);
  return false;
#else
  if (!weir_fault_claim()) return false;
  weir_fault_located = false;
  std::size_t used = 0;
  if (*source) weir_bounds_head(weir_fault_head, sizeof weir_fault_head, used, source, access, field, d);
  used = 0;
  weir_bounds_text(weir_fault_text, sizeof weir_fault_text, used, where, access, data, d, K);
  weir_fault_publish();
  return false;
#endif
}
// The message weir_last_error() returns; weir_fail records it and returns weir_run's 1.
static thread_local char weir_error_text[4096];
[[maybe_unused, gnu::cold, gnu::noinline, gnu::format(printf, 1, 2)]] static int weir_fail(const char* format,
                                                                                           ...) {
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(weir_error_text, sizeof weir_error_text, format, ap);
  va_end(ap);
  return 1;
}
