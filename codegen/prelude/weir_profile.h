// The prelude's timers, only in programs with elements whose `instrument` is Timer
// (docs/adr/0048-profiling.md): code generation wraps each such element's code (a state call, a
// top-level map's whole loop nest, a library node, a copy) in weir_profile_now() ...
// weir_profile_record(), outside any parallel region, so one thread writes each slot. A map
// inside a map scope (run once per outer point, maybe on several threads) records into the
// running thread's own row of slots instead (weir_profile_thread_slot: no atomics, no locks);
// weir_profile_merged combines the rows when the timers are read. weir_run clears the slots
// (and the rows) when it starts; the runtime reads them after the call through
// weir_profile_read (codegen/include/weir/codegen/program_abi.h). A real header: embedded as
// the other parts are, compiled on its own by tests/codegen/test_prelude.cpp.
#define WEIR_PRELUDE_PROFILE 1
#include <time.h>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#ifdef _OPENMP
#include <omp.h>
#endif
#ifndef WEIR_PROGRAM_STATE
#define WEIR_PROGRAM_STATE static
#endif

// One timed element during one call: how often its code ran, for how long in total, and when it
// first started (nanoseconds of CLOCK_MONOTONIC, which std::chrono::steady_clock reads too).
struct weir_profile_slot {
  int64_t executions;
  int64_t ns;
  int64_t first_start_ns;
};

[[maybe_unused]] static inline int64_t weir_profile_now() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

[[maybe_unused]] static inline void weir_profile_record(weir_profile_slot& s, int64_t start_ns) {
  const int64_t end = weir_profile_now();
  if (s.executions == 0) s.first_start_ns = start_ns;
  ++s.executions;
  s.ns += end - start_ns;
}

// Per-thread rows of slots for timers inside map scopes: row t (OpenMP thread t of the one
// parallel team weir's code opens; 0 outside it) starts at slot t * stride. stride = slots + 3:
// the last slot of a row and the first of the next are 72 bytes apart, so two threads never
// write the same cache line.
[[maybe_unused]] static inline int64_t weir_profile_stride(int64_t slots) { return slots + 3; }

[[maybe_unused]] static inline int64_t weir_profile_threads() {
#ifdef _OPENMP
  return omp_get_max_threads();
#else
  return 1;
#endif
}

// The slot `k` of the calling thread's row.
[[maybe_unused]] static inline weir_profile_slot& weir_profile_thread_slot(weir_profile_slot* rows,
                                                                           int64_t stride, int64_t k) {
#ifdef _OPENMP
  return rows[static_cast<int64_t>(omp_get_thread_num()) * stride + k];
#else
  (void)stride;
  return rows[k];
#endif
}

// Rows for `threads` threads, zeroed (reallocated when there are fewer); false when they cannot be
// allocated.
[[maybe_unused]] static inline bool weir_profile_clear_rows(weir_profile_slot*& rows, int64_t& rows_allocated,
                                                            int64_t threads, int64_t stride) {
  const size_t bytes = static_cast<size_t>(threads * stride) * sizeof(weir_profile_slot);
  if (rows == nullptr || rows_allocated < threads) {
    std::free(rows);
    rows = static_cast<weir_profile_slot*>(std::malloc(bytes));
    rows_allocated = rows == nullptr ? 0 : threads;
    if (rows == nullptr) return false;
  }
  std::memset(rows, 0, static_cast<size_t>(rows_allocated * stride) * sizeof(weir_profile_slot));
  return true;
}

// Slot `k` as the runtime reads it: `own` when it ran outside map scopes, else the rows merged:
// executions added, ns the largest thread's total (the busiest thread's time, comparable with the
// wall time of the map around it), the earliest start.
[[maybe_unused]] static inline weir_profile_slot weir_profile_merged(const weir_profile_slot& own,
                                                                     const weir_profile_slot* rows,
                                                                     int64_t rows_allocated, int64_t stride,
                                                                     int64_t k) {
  if (own.executions > 0 || rows == nullptr) return own;
  weir_profile_slot m{0, 0, 0};
  for (int64_t t = 0; t < rows_allocated; ++t) {
    const weir_profile_slot& r = rows[t * stride + k];
    if (r.executions == 0) continue;
    if (m.executions == 0 || r.first_start_ns < m.first_start_ns) m.first_start_ns = r.first_start_ns;
    m.executions += r.executions;
    if (r.ns > m.ns) m.ns = r.ns;
  }
  return m;
}
