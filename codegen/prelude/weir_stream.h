// The prelude's streaming stores, in generated code whose sequential innermost maps stream an
// output row (codegen/src/streaming_stores.cpp, docs/adr/0041-loop-invariant-hoisting.md,
// "streaming stores"). Embedded into generated code (cmake/embed_text.cmake) after the common
// prelude. A row of an output written once per point is computed into a buffer on the stack
// (the vectorized loop stores there) and copied to memory with non-temporal stores: they write
// whole cache lines without first reading them (no write-allocate), which saves a third of the
// memory traffic of a gather-and-write stencil such as the unstructured cell Laplacian. The
// values are the same; only how they reach memory changes.
#include <time.h>
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <cstring>

// The widest non-temporal store of the target (movntdq of 64, 32 or 16 bytes), through the
// compiler's builtins: no intrinsics header, whose parsing would cost every streaming program a
// third of a second. Without SSE2 (or in CUDA code) rows are stored as usual.
#if defined(__SSE2__) && !defined(__CUDACC__) && (defined(__GNUC__) || defined(__clang__))
#define WEIR_STREAM_NT 1
#if defined(__AVX512F__)
#define WEIR_STREAM_BYTES 64
#elif defined(__AVX__)
#define WEIR_STREAM_BYTES 32
#else
#define WEIR_STREAM_BYTES 16
#endif
typedef long long weir_stream_vector __attribute__((vector_size(WEIR_STREAM_BYTES)));
// WEIR_STREAM_BYTES bytes from `src` to `dst` (aligned to them) with one non-temporal store.
static inline void weir_stream_one(char* dst, const char* src) {
  weir_stream_vector v;
  std::memcpy(&v, src, WEIR_STREAM_BYTES);
#if defined(__clang__)
  __builtin_nontemporal_store(v, reinterpret_cast<weir_stream_vector*>(dst));
#elif WEIR_STREAM_BYTES == 64
  __builtin_ia32_movntdq512(reinterpret_cast<weir_stream_vector*>(dst), v);
#elif WEIR_STREAM_BYTES == 32
  __builtin_ia32_movntdq256(reinterpret_cast<weir_stream_vector*>(dst), v);
#else
  __builtin_ia32_movntdq(reinterpret_cast<weir_stream_vector*>(dst), v);
#endif
}
#endif

// Elements of one block of a streamed row: each streamed output's buffer holds this many (the
// K loop runs in blocks of it; a column of 80 levels is one block).
[[maybe_unused]] static constexpr std::int64_t weir_stream_block = 256;
// Outputs smaller than this are stored as usual: they may still be in cache when the next
// stencil reads them, and non-temporal stores would send them to memory. 8 MiB is more than the
// private caches of the 2-core development machine (2 x 2 MiB of L2) with their share of L3.
[[maybe_unused]] static constexpr std::int64_t weir_stream_min_bytes = std::int64_t(8) << 20;
// Rows shorter than this are stored as usual: a non-temporal store of a partial cache line
// costs a read at the memory controller, and short rows leave partial lines at their ends.
[[maybe_unused]] static constexpr std::int64_t weir_stream_min_row_bytes = 256;
// Rows that leave elements of their dimension unwritten (a halo in K: heat3d's u_new[1:-1, 1:-1,
// 1:-1]) start and end inside cache lines with a gap to the next row: those lines are stored as
// usual, each a write miss among the streamed lines that the prefetchers do not see coming.
// Measured on 44 MB outputs (docs/adr/0041, "session 30"), streaming such rows took 1.15x the
// time of plain stores at 640 bytes, 1.02-1.04x at 2.6-5 KiB, 0.99x at 10 KiB and 0.95x at
// 16 KiB: they stream from 8 KiB.
[[maybe_unused]] static constexpr std::int64_t weir_stream_min_gapped_row_bytes = std::int64_t(8) << 10;

// Whole rows that start or end inside a cache line (the destination is not 64-byte aligned, as
// NumPy allocates arrays, or the row is not a multiple of 64 bytes) are stored as usual below
// this: each row's first and last lines are stored as usual among the streamed ones, a write
// miss at both ends of every row. Measured (docs/adr/0041, "2026-12-07, session 31"), streaming
// such rows took 1.2-1.6x the time of plain stores at 512 bytes, 0.9-1.1x at 1 KiB and mostly
// 0.5-0.95x from 2 KiB; with `--auto cpu` code on NumPy's arrays (rows of 512 bytes, 16 bytes
// off a line) the stencil took 3.7-6.5x the time it took on weir's aligned arrays.
[[maybe_unused]] static constexpr std::int64_t weir_stream_min_unaligned_row_bytes = std::int64_t(2) << 10;

// Whether the row of `row_bytes` at `dst` covers whole cache lines: it starts on a 64-byte
// boundary and is a multiple of 64 bytes long.
[[maybe_unused]] static inline bool weir_stream_whole_lines(const void* dst, std::int64_t row_bytes) {
  return (reinterpret_cast<std::uintptr_t>(dst) & 63) == 0 && (row_bytes & 63) == 0;
}

// Whether some row of an output of `total_bytes` whose rows are `row_bytes` long may stream in
// this call, wherever it starts (the least of weir_stream_wanted's thresholds): tested once
// before a map chooses its store kind, so that a call in which no row can stream runs the plain
// copy of the map's code and is not timed as a streamed one (docs/adr/0041, "session 38").
[[maybe_unused]] static inline bool weir_stream_may(std::int64_t total_bytes, std::int64_t row_bytes,
                                                    bool whole) {
  return total_bytes >= weir_stream_min_bytes &&
         row_bytes >= (whole ? weir_stream_min_row_bytes : weir_stream_min_gapped_row_bytes);
}

// Whether a map of `points` points that chooses its store kind in its parallel branch runs that
// branch although one thread runs it, in a program of `threads` OpenMP threads: with one
// (OMP_NUM_THREADS=1, an MPI rank per core) the measured thread choice always takes the
// one-thread branch, which stores plainly, so a map that may write weir_stream_min_bytes (as many
// points of 8 bytes) runs the branch that chooses: a parallel region of one thread costs
// microseconds, such a map milliseconds (docs/adr/0041, "session 38").
[[maybe_unused]] static inline bool weir_stream_one_thread_of(int threads, double points) {
  return threads <= 1 && points >= static_cast<double>(weir_stream_min_bytes / 8);
}
#ifdef _OPENMP
#include <omp.h>
[[maybe_unused]] static inline bool weir_stream_one_thread(double points) {
  return weir_stream_one_thread_of(omp_get_max_threads(), points);
}
#endif

// Whether an output of `total_bytes` whose rows are `row_bytes` long is streamed; `whole`: the
// rows are whole last dimensions (adjacent, no unwritten elements between them); `dst`: where
// this row starts in the caller's array (so the test is made per row, at run time). Whole
// rows of whole cache lines stream from weir_stream_min_row_bytes, other whole rows from
// weir_stream_min_unaligned_row_bytes, rows with gaps from weir_stream_min_gapped_row_bytes.
[[maybe_unused]] static inline bool weir_stream_wanted(std::int64_t total_bytes, std::int64_t row_bytes,
                                                       bool whole, const void* dst) {
  const std::int64_t min_row = !whole ? weir_stream_min_gapped_row_bytes
                               : weir_stream_whole_lines(dst, row_bytes)
                                   ? weir_stream_min_row_bytes
                                   : weir_stream_min_unaligned_row_bytes;
  return total_bytes >= weir_stream_min_bytes && row_bytes >= min_row;
}

// Copies `bytes` bytes of `src` (a row's buffer) to `dst`: with `stream`, the part of `dst`
// aligned to WEIR_STREAM_BYTES with non-temporal stores (a 64-byte store fills a cache line; the
// write-combining buffer merges narrower ones), its unaligned ends as usual; without `stream` (or
// without non-temporal stores), all of it as usual. Nothing where `src` is `dst` (the loop wrote
// a row that does not stream straight to the output).
[[maybe_unused]] static inline void weir_stream_store(void* dst, const void* src, std::int64_t bytes,
                                                      bool stream) {
  if (bytes <= 0 || dst == src) return;
#ifdef WEIR_STREAM_NT
  if (stream) {
    auto* d = static_cast<char*>(dst);
    const auto* s = static_cast<const char*>(src);
    const auto misaligned =
        static_cast<std::int64_t>(reinterpret_cast<std::uintptr_t>(d) & (WEIR_STREAM_BYTES - 1));
    std::int64_t i = misaligned != 0 ? WEIR_STREAM_BYTES - misaligned : 0;
    if (i > bytes) i = bytes;
    std::memcpy(d, s, static_cast<std::size_t>(i));
    for (; i + WEIR_STREAM_BYTES <= bytes; i += WEIR_STREAM_BYTES) weir_stream_one(d + i, s + i);
    std::memcpy(d + i, s + i, static_cast<std::size_t>(bytes - i));
    return;
  }
#else
  (void)stream;
#endif
  std::memcpy(dst, src, static_cast<std::size_t>(bytes));
}

// Orders this thread's non-temporal stores before what it does next (sfence): each thread runs
// it after its last streamed row of a parallel loop, before the barrier at the loop's end, so
// that every thread after the barrier (and the caller after weir_run) reads the values.
[[maybe_unused]] static inline void weir_stream_fence() {
#ifdef WEIR_STREAM_NT
  __builtin_ia32_sfence();
#endif
}

// --- Which store kind pays on the machine the program runs on (docs/adr/0041, "session 34") ---
// Non-temporal stores paid on Intel machines (laplacian 0.79x the time of plain stores, cell
// Laplacian 0.78x) and cost 1.4x on an AMD EPYC (Zen 5) whose plain stores of the same rows ran
// at the machine's copy bandwidth: which kind wins depends on the machine, which the code
// generator does not know. So each map that fences streamed rows (the enclosing map of the
// streamed loops) chooses per call at run time, as parallel maps choose their threads
// (weir_run_sequentially): its first call is a warm-up (page faults of fresh outputs) and
// streams; the next 2 x weir_stream_samples calls alternate streamed and plain stores and are
// timed; from then on the kind with the shorter least time per point runs, and every 32nd choice
// the other one. One timed call of each kind decided in session 34 and flipped from run to run
// (laplacian 1.16-1.22x hand where plain stores gave 1.15x): a call slowed once by load or a cold
// cache decided for good. The least of several alternating calls is what each kind can do here;
// a retry that runs faster lowers its kind's time. The rows' own run-time test
// (weir_stream_wanted: the output's size, the rows' length and alignment) still applies where
// the choice is to stream. Values are the same either way.

// Timed calls of each kind before the first choice.
[[maybe_unused]] static constexpr unsigned weir_stream_samples = 3;

// A map's measured times (a block-scope static of the generated code): the least seconds per
// point of its timed calls with streamed and with plain stores, -1 until measured; calls
// recorded; choices made.
struct weir_store_times {
  std::atomic<double> streamed{-1.0};
  std::atomic<double> plain{-1.0};
  std::atomic<unsigned> runs{0};
  std::atomic<unsigned> choices{0};
};

// The environment's WEIR_STREAMING_STORES as a forced choice: "on" 1 (stream wherever the rows'
// test allows), "off" 0 (plain stores), anything else, unset included, -1 (measured).
[[maybe_unused]] static inline int weir_stream_mode_of(const char* v) {
  if (v != nullptr && std::strcmp(v, "on") == 0) return 1;
  if (v != nullptr && std::strcmp(v, "off") == 0) return 0;
  return -1;
}

// The choice forced by the environment, read once per program (docs/README: WEIR_STREAMING_STORES).
[[maybe_unused]] static inline int weir_stream_forced() {
  static const int mode = weir_stream_mode_of(std::getenv("WEIR_STREAMING_STORES"));
  return mode;
}

// Every how many choices, once both kinds are measured, the slower kind runs again.
[[maybe_unused]] static constexpr unsigned weir_stream_retry = 32;

// Whether this call of the map streams, from its measured times `t` (`forced`: 1 or 0 decides,
// -1 measures): the first call streams (warm-up), calls 2 .. 1 + 2 x weir_stream_samples
// alternate streamed (the even calls) and plain (the odd ones), then the kind with the lesser time per point,
// and every weir_stream_retry-th choice the other.
[[maybe_unused]] static inline bool weir_stream_choose(weir_store_times& t, int forced) {
  if (forced >= 0) return forced != 0;
  const unsigned n = t.runs.load(std::memory_order_relaxed);
  if (n <= 2 * weir_stream_samples) return n == 0 || n % 2 == 1;
  const double s = t.streamed.load(std::memory_order_relaxed), p = t.plain.load(std::memory_order_relaxed);
  const bool stream = s <= p;
  if (t.choices.fetch_add(1, std::memory_order_relaxed) % weir_stream_retry == weir_stream_retry - 1)
    return !stream;
  return stream;
}

// Records a call of the map that chose `streamed`, of `seconds_per_point`: its kind keeps the
// lesser time; the first call is a warm-up and not kept.
[[maybe_unused]] static inline void weir_stream_ran(weir_store_times& t, bool streamed,
                                                    double seconds_per_point) {
  if (t.runs.fetch_add(1, std::memory_order_relaxed) == 0) return;
  std::atomic<double>& kept = streamed ? t.streamed : t.plain;
  const double old = kept.load(std::memory_order_relaxed);
  if (old < 0 || seconds_per_point < old) kept.store(seconds_per_point, std::memory_order_relaxed);
}

// Seconds of a monotonic clock (about 20 ns a read), for the maps' times.
[[maybe_unused]] static inline double weir_stream_now() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return static_cast<double>(ts.tv_sec) + 1e-9 * static_cast<double>(ts.tv_nsec);
}
