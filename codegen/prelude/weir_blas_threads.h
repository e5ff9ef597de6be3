// The prelude's choice of OpenBLAS threads for each CBLAS call of a program
// (codegen/src/tasklet_code.cpp, docs/adr/0053-weir-runs-what-dace-writes.md, session 33).
// Embedded into generated code (cmake/embed_text.cmake) after the common prelude, only where a
// C++ tasklet calls CBLAS. OpenBLAS splits a call over its own thread pool above a fixed size
// (a gemv of 9,216 elements); below a few hundred microseconds of work the split is a gamble on
// where the pool's threads run: on the 2-core machine, npbench atax's two cblas_dgemv calls
// (400 x 500) ran 0.030 or 0.050 ms depending on the process, and 0.040-0.046 ms on one
// thread. So each call site measures its runs on OpenBLAS's threads and on one thread and
// takes the faster, by the rule of weir's parallel maps (weir_run_sequentially: the call is
// work of unknown size, so its first runs use OpenBLAS's threads; one thread is tried where
// those took under 100 us; every 64th choice tries the other branch again). The count is set
// around a one-thread call and restored after it, so OpenBLAS keeps its own count between
// calls. A program linked to another CBLAS (no openblas_set_num_threads), or a call inside a
// parallel region (OpenBLAS runs those on one thread itself), is left as it is.
#ifndef WEIR_PRELUDE_SUPPORT
#include "weir_support.h"
#endif

// OpenBLAS's thread controls, weak: null where the program's CBLAS is not OpenBLAS.
extern "C" {
[[gnu::weak]] void openblas_set_num_threads(int);
[[gnu::weak]] int openblas_get_num_threads(void);
}

// The fewest elements of work (a dot's n, a gemv's M x N, a gemm's M x N x K) at which OpenBLAS
// splits one of these calls over its threads: gemv's 2304 x GEMM_MULTITHREAD_THRESHOLD (4); a
// dot splits above 10,000 elements, a gemm above 65,536 x 4. A smaller call runs on one thread
// whatever OpenBLAS's count, so the code generator calls it as it is: choosing and setting the
// count would only cost (npbench cholesky's cblas_ddot calls of 1-99 elements, 5,050 per run:
// 0.48 ms with the choice, 0.07 ms without; docs/adr/0053, "session 35").
[[maybe_unused]] static constexpr long long weir_blas_split_min = 9216;
// Whether a call of `elements` of work may run on more than one of OpenBLAS's threads.
[[maybe_unused]] static inline bool weir_blas_splits(long long elements) {
  return elements >= weir_blas_split_min;
}

// A call site's measured times (a block-scope static of the generated code).
#ifdef _OPENMP
using weir_blas_times = weir_map_times;
[[maybe_unused]] static inline double weir_blas_now() { return omp_get_wtime(); }
// Before a CBLAS call: -1 where the call is left as it is (not OpenBLAS, one thread only, in a
// parallel region), 0 where it runs on OpenBLAS's threads, else it runs on one thread and the
// value is OpenBLAS's count to restore after it (weir_blas_after).
[[maybe_unused]] static inline int weir_blas_before(weir_blas_times& t) {
  if (!openblas_set_num_threads || !openblas_get_num_threads || omp_in_parallel()) return -1;
  const int threads = openblas_get_num_threads();
  if (threads <= 1) return -1;
  if (!weir_run_sequentially(t, 1.0, true)) return 0;
  openblas_set_num_threads(1);
  return threads;
}
// After the call that weir_blas_before prepared (`how`), which took `seconds`: the time recorded
// for its branch, OpenBLAS's count restored. Apart from weir_blas_after so that tests give
// exact times (a clock read around the call also counts a preemption under load).
[[maybe_unused]] static inline void weir_blas_ran(weir_blas_times& t, int how, double seconds) {
  if (how < 0) return;
  if (how == 0) {
    weir_map_ran(t.parallel, t.parallel_runs, seconds);
  } else {
    openblas_set_num_threads(how);
    weir_map_ran(t.sequential, t.sequential_runs, seconds);
  }
}
// After the call that weir_blas_before prepared (`how`, begun at weir_blas_now() `t0`).
[[maybe_unused]] static inline void weir_blas_after(weir_blas_times& t, int how, double t0) {
  if (how >= 0) weir_blas_ran(t, how, omp_get_wtime() - t0);
}
#else
// Without OpenMP nothing is measured: every call is left as it is.
struct weir_blas_times {};
[[maybe_unused]] static inline double weir_blas_now() { return 0.0; }
[[maybe_unused]] static inline int weir_blas_before(weir_blas_times&) { return -1; }
[[maybe_unused]] static inline void weir_blas_ran(weir_blas_times&, int, double) {}
[[maybe_unused]] static inline void weir_blas_after(weir_blas_times&, int, double) {}
#endif

// A call large enough for OpenBLAS to split (`call`: a lambda around it) between the choice of
// threads and the record of its time in the call site's `times` (a block-scope static of the
// caller, one per call site even where the code generator emits the site twice), out of line. The code
// generator emits it in the branch of such calls only, after the test of the size: the smaller calls' path is
// the call alone, as small and as inlinable as without the choice (npbench cholesky's dots of 0-99 elements
// ran 7% slower with the choice's code beside them in the caller, though it never ran; docs/adr/0053,
// "session 36").
template <class F>
[[gnu::noinline, gnu::cold, maybe_unused]] static void weir_blas_chosen(weir_blas_times& times,
                                                                        const F& call) {
  const int how = weir_blas_before(times);
  const double t0 = how < 0 ? 0.0 : weir_blas_now();
  call();
  weir_blas_after(times, how, t0);
}
