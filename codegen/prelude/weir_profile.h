// The prelude's timers, only in programs with elements whose `instrument` is Timer
// (docs/adr/0048-profiling.md): code generation wraps each such element's code (a state call, a
// top-level map's whole loop nest, a library node, a copy) in weir_profile_now() ...
// weir_profile_record(), outside any parallel region, so one thread writes each slot. A map
// inside a map scope (run once per outer point, maybe on several threads) records into the
// running thread's own row of slots instead (weir_profile_thread_slot: no atomics, no locks),
// once per thread around the loops of the map it is the whole body of where it is that
// (weir_profile_record_chunk), else per execution; weir_profile_merged combines the rows when the
// timers are read. weir_run clears the slots
// (and the rows) when it starts; the runtime reads them after the call through
// weir_profile_read (codegen/include/weir/codegen/program_abi.h). A real header: embedded as
// the other parts are, compiled on its own by tests/codegen/test_prelude.cpp.
#define WEIR_PRELUDE_PROFILE 1
#include <time.h>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif
#ifdef _OPENMP
#include <omp.h>
#endif
#ifndef WEIR_PROGRAM_STATE
#define WEIR_PROGRAM_STATE static
#endif

// One timed element during one call: how often its code ran, for how long in total, and when it
// first started. During the call in ticks of the timers' clock (weir_profile_now);
// weir_profile_read converts them to nanoseconds of CLOCK_MONOTONIC (which
// std::chrono::steady_clock reads too).
struct weir_profile_slot {
  int64_t executions;
  int64_t ns;
  int64_t first_start_ns;
};

// Nanoseconds of CLOCK_MONOTONIC (a vDSO call: 25-40 ns on the machines measured).
[[maybe_unused]] static inline int64_t weir_profile_monotonic_ns() {
  timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<int64_t>(t.tv_sec) * 1000000000 + t.tv_nsec;
}

// True where the time-stamp counter runs at a constant rate in every power state (CPUID
// 0x80000007, EDX bit 8: "invariant TSC"), so that ticks are proportional to wall time.
[[maybe_unused]] static inline bool weir_profile_tsc_invariant() {
#if defined(__x86_64__)
  unsigned a = 0, b = 0, c = 0, d = 0;
  if (__get_cpuid(0x80000000u, &a, &b, &c, &d) == 0 || a < 0x80000007u) return false;
  if (__get_cpuid(0x80000007u, &a, &b, &c, &d) == 0) return false;
  return ((d >> 8) & 1u) != 0;
#else
  return false;
#endif
}

// The timers' clock, chosen at the program's first weir_run and kept while it is loaded
// (docs/adr/0048-profiling.md, "a cheaper clock"): the TSC (rdtsc, a few ns) where it is invariant
// and WEIR_PROFILE_CLOCK is not "monotonic", else CLOCK_MONOTONIC. The anchor is one
// (ticks, CLOCK_MONOTONIC ns) pair read at that first call: ticks convert to nanoseconds by the
// rate between the anchor and the latest read (weir_profile_calibrate).
struct weir_profile_clock_state {
  int tsc;  // -1 not chosen yet, 0 CLOCK_MONOTONIC, 1 TSC
  int64_t anchor_ticks;
  int64_t anchor_ns;
  double ns_per_tick;  // the latest calibration (1 for CLOCK_MONOTONIC)
};
WEIR_PROGRAM_STATE weir_profile_clock_state weir_profile_clock{-1, 0, 0, 1.0};

[[maybe_unused]] static inline int64_t weir_profile_now() {
#if defined(__x86_64__)
  if (weir_profile_clock.tsc == 1) return static_cast<int64_t>(__rdtsc());
#endif
  return weir_profile_monotonic_ns();
}

// One (ticks, ns) pair: the ns read between two counter reads, paired with their middle. The
// tightest of 16 tries: a thread descheduled between the reads (a loaded machine) would pair the
// ns with a middle milliseconds away and skew the rate by that over the calibration interval.
[[maybe_unused]] static inline void weir_profile_clock_pair(int64_t& ticks, int64_t& ns) {
  int64_t best = -1;
  for (int i = 0; i < 16; ++i) {
    const int64_t t0 = weir_profile_now();
    const int64_t n = weir_profile_monotonic_ns();
    const int64_t t1 = weir_profile_now();
    if (best < 0 || t1 - t0 < best) {
      best = t1 - t0;
      ticks = t0 + (t1 - t0) / 2;
      ns = n;
    }
  }
}

// Chooses the clock (once per program load) and anchors it; called when weir_run starts.
[[maybe_unused]] static inline void weir_profile_choose_clock() {
  if (weir_profile_clock.tsc >= 0) return;
  const char* env = std::getenv("WEIR_PROFILE_CLOCK");
  const bool monotonic = env != nullptr && std::strcmp(env, "monotonic") == 0;
  weir_profile_clock.tsc = !monotonic && weir_profile_tsc_invariant() ? 1 : 0;
  weir_profile_clock.ns_per_tick = 1.0;
  if (weir_profile_clock.tsc == 1)
    weir_profile_clock_pair(weir_profile_clock.anchor_ticks, weir_profile_clock.anchor_ns);
}

// The nanoseconds per tick measured from the anchor to now; at least 2 ms apart (waits for the
// rest when the program was loaded less than 2 ms ago: a pair's read error, some 50 ns, is then
// under 3e-5 of the interval).
[[maybe_unused]] static inline double weir_profile_calibrate() {
  if (weir_profile_clock.tsc != 1) return 1.0;
  int64_t ticks = 0, ns = 0;
  weir_profile_clock_pair(ticks, ns);
  while (ns - weir_profile_clock.anchor_ns < 2000000 || ticks <= weir_profile_clock.anchor_ticks)
    weir_profile_clock_pair(ticks, ns);
  weir_profile_clock.ns_per_tick = static_cast<double>(ns - weir_profile_clock.anchor_ns) /
                                   static_cast<double>(ticks - weir_profile_clock.anchor_ticks);
  return weir_profile_clock.ns_per_tick;
}

// A slot in ticks converted to nanoseconds with `ns_per_tick` (the start to CLOCK_MONOTONIC).
[[maybe_unused]] static inline weir_profile_slot weir_profile_to_ns(weir_profile_slot s, double ns_per_tick) {
  if (weir_profile_clock.tsc != 1 || s.executions == 0) return s;
  s.ns = std::llround(static_cast<double>(s.ns) * ns_per_tick);
  s.first_start_ns =
      weir_profile_clock.anchor_ns +
      std::llround(static_cast<double>(s.first_start_ns - weir_profile_clock.anchor_ticks) * ns_per_tick);
  return s;
}

// The clock as the report names it: {"clock": "tsc" or "clock_monotonic", "ticks_per_second"}.
[[maybe_unused]] static inline const char* weir_profile_clock_json() {
  static char text[96];
  std::snprintf(text, sizeof text, "{\"clock\":\"%s\",\"ticks_per_second\":%.6e}",
                weir_profile_clock.tsc == 1 ? "tsc" : "clock_monotonic",
                1e9 / weir_profile_clock.ns_per_tick);
  return text;
}

[[maybe_unused]] static inline void weir_profile_record(weir_profile_slot& s, int64_t start_ns) {
  const int64_t end = weir_profile_now();
  if (s.executions == 0) s.first_start_ns = start_ns;
  ++s.executions;
  s.ns += end - start_ns;
}

// A timed map that is the whole body of the loop nest around it, on one thread: `executions` of
// it ran back to back since `start` (one clock read before the thread's share of the enclosing
// loops and one after, instead of two per execution: docs/adr/0048-profiling.md, "one clock read
// per chunk"). A thread that ran none records nothing.
[[maybe_unused]] static inline void weir_profile_record_chunk(weir_profile_slot& s, int64_t start,
                                                              int64_t executions) {
  const int64_t end = weir_profile_now();
  if (executions == 0) return;
  if (s.executions == 0) s.first_start_ns = start;
  s.executions += executions;
  s.ns += end - start;
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
