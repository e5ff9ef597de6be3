// The prelude's timers, only in programs with elements whose `instrument` is Timer
// (docs/adr/0048-profiling.md): code generation wraps each such element's code (a state call, a
// top-level map's whole loop nest, a library node, a copy) in weir_profile_now() ...
// weir_profile_record(), outside any parallel region, so one thread writes each slot. weir_run
// clears the slots when it starts; the runtime reads them after the call through
// weir_profile_read (codegen/include/weir/codegen/program_abi.h). A real header: embedded as
// the other parts are, compiled on its own by tests/codegen/test_prelude.cpp.
#define WEIR_PRELUDE_PROFILE 1
#include <time.h>
#include <cstdint>
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
