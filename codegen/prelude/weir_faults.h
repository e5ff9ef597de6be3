// The prelude of generated programs, part 1 of 3: errors and run-time faults. A real header:
// code generation embeds this file's text (cmake/embed_text.cmake) at the top of every
// generated translation unit, after the standard headers (codegen/src/prelude.cpp), and
// tests/codegen/test_prelude.cpp compiles it on its own. Only light headers (compile time of
// small programs, docs/benchmarks.md). Internal linkage throughout, except WEIR_PROGRAM_STATE:
// a program of several translation units defines it as a hidden inline variable, so that a
// fault recorded in one unit is raised by weir_run in another.
#define WEIR_PRELUDE_FAULTS 1
#include <atomic>
#include <cstdarg>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <exception>
#ifndef WEIR_PROGRAM_STATE
#define WEIR_PROGRAM_STATE static
#endif
// --- errors ------------------------------------------------------------------------------
// What generated code throws: a message in a fixed buffer (no <string>, no allocation).
namespace {
struct weir_error : std::exception {
  char text[4096];
  const char* what() const noexcept override { return text; }
};
}  // namespace
[[noreturn, maybe_unused, gnu::cold, gnu::noinline, gnu::format(printf, 1, 2)]] static void weir_throw(
    const char* format, ...) {
  weir_error e;
  va_list ap;
  va_start(ap, format);
  std::vsnprintf(e.text, sizeof e.text, format, ap);
  va_end(ap);
  throw e;
}

// WEIR_HD: helpers that device code calls too (the CUDA generator defines it as __host__ __device__).
#ifndef WEIR_HD
#define WEIR_HD
#endif

// --- run-time faults inside the dataflow ---------------------------------------------------
// An index computed from data that leaves its container, an integer to a negative power: code
// inside a parallel loop cannot throw, so the first fault is recorded (lock-free, no
// allocation) and weir_raise_fault() throws it after the state that ran into it.
WEIR_PROGRAM_STATE std::atomic<int> weir_fault_state{0};  // 0: none, 1: being written, 2: recorded
WEIR_PROGRAM_STATE char weir_fault_text[1024];
WEIR_PROGRAM_STATE bool weir_fault_located = false;  // the text names its state (index faults do)
// The fault in the program's terms, before the state that ran (a nested SDFG's bounds check with
// a source line): "file.py:3:5: 'f' is read over K: [-1, 0), outside its domain K: [0, 8)".
WEIR_PROGRAM_STATE char weir_fault_head[512];
// Which claim of the fault state is the current one, and the one this thread made: the thread
// that recorded an index fault adds the other dimensions of the same subscript to it.
WEIR_PROGRAM_STATE std::atomic<unsigned> weir_fault_generation{0};
WEIR_PROGRAM_STATE thread_local unsigned weir_fault_owner = 0;
[[maybe_unused]] static bool weir_fault_claim() noexcept {
  int expected = 0;
  if (!weir_fault_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) return false;
  weir_fault_owner = weir_fault_generation.fetch_add(1, std::memory_order_relaxed) + 1;
  weir_fault_head[0] = '\0';
  return true;
}
[[maybe_unused]] static void weir_fault_publish() noexcept {
  weir_fault_state.store(2, std::memory_order_release);
}
// The index fault recorded: the access (`site`: the source line and field, or the SDFG's names;
// `detail`: the SDFG's names after a source line, else ""), the map point, and each dimension
// of the access found outside its extent, with where its index came from.
struct weir_index_record {
  const char* site;
  const char* detail;
  const char* names;
  long long values[16];
  std::size_t count;
  int n;
  long long i[8], extent[8];
  int dim[8];
  const char* along[8];  // the dimension's name in the program ("Cell"), or ""
  const char* origin[8];
};
WEIR_PROGRAM_STATE weir_index_record weir_fault_index;
// appends printf-style to `out` (capacity `size`, `used` so far); silently truncates.
[[maybe_unused, gnu::format(printf, 4, 5)]] static void weir_append(char* out, std::size_t size,
                                                                    std::size_t& used, const char* format,
                                                                    ...) noexcept {
  if (used + 1 >= size) return;
  va_list ap;
  va_start(ap, format);
  int w = std::vsnprintf(out + used, size - used, format, ap);
  va_end(ap);
  if (w > 0) used = used + static_cast<std::size_t>(w) < size ? used + static_cast<std::size_t>(w) : size - 1;
}
// weir_fault_text of the recorded index fault: every dimension outside, lowest first.
[[maybe_unused]] static void weir_index_format() noexcept {
  const weir_index_record& r = weir_fault_index;
  int order[8];
  for (int k = 0; k < r.n; ++k) order[k] = k;
  for (int k = 1; k < r.n; ++k)
    for (int j = k; j > 0 && r.dim[order[j]] < r.dim[order[j - 1]]; --j) {
      int t = order[j];
      order[j] = order[j - 1];
      order[j - 1] = t;
    }
  std::size_t used = 0;
  char* out = weir_fault_text;
  const std::size_t size = sizeof weir_fault_text;
  weir_append(out, size, used, "%s: ", r.site);
  bool missing = false;
  for (int k = 0; k < r.n; ++k) {
    int e = order[k];
    if (*r.along[e])
      weir_append(out, size, used, "%sindex %lld along %s is outside [0, %lld)", k ? " and " : "", r.i[e],
                  r.along[e], r.extent[e]);
    else
      weir_append(out, size, used, "%sindex %lld in dimension %d is outside [0, %lld)", k ? " and " : "",
                  r.i[e], r.dim[e], r.extent[e]);
    missing = missing || r.i[e] == -1;
  }
  const char* names = r.names;
  for (std::size_t k = 0; k < r.count; ++k) {
    const char* end = std::strchr(names, ',');
    int len = static_cast<int>(end ? end - names : std::strlen(names));
    weir_append(out, size, used, "%s%.*s=%lld", k ? ", " : " at (", len, names, r.values[k]);
    names = end ? end + 1 : names + len;
  }
  if (r.count > 0) weir_append(out, size, used, ")");
  for (int k = 0; k < r.n; ++k) {
    int e = order[k];
    if (!*r.origin[e]) continue;
    if (r.n == 1)
      weir_append(out, size, used, "; the index is %s", r.origin[e]);
    else if (*r.along[e])
      weir_append(out, size, used, "; the index along %s is %s", r.along[e], r.origin[e]);
    else
      weir_append(out, size, used, "; the index in dimension %d is %s", r.dim[e], r.origin[e]);
  }
  if (missing)
    weir_append(out, size, used,
                " (a -1 in a connectivity table marks a missing neighbour, which has no value to read)");
  if (*r.detail) weir_append(out, size, used, "\n  in the SDFG: %s", r.detail);
}
// `names`: the enclosing maps' parameters, comma-separated, with their `values` at the fault.
// `along`: the name of dimension `dim` in the program, or "" (the message then numbers it).
[[maybe_unused]] static void weir_index_fault(int64_t i, int64_t n, const char* site, const char* detail,
                                              const char* origin, int dim, const char* along,
                                              const char* names, const long long* values,
                                              std::size_t count) noexcept {
  weir_index_record& r = weir_fault_index;
  if (!weir_fault_claim()) {
    // Another dimension of the subscript whose fault this thread recorded (same access, same point).
    if (weir_fault_owner != weir_fault_generation.load(std::memory_order_relaxed) ||
        weir_fault_state.load(std::memory_order_acquire) != 2 || !weir_fault_located || r.n == 0 ||
        r.n >= 8 || std::strcmp(r.site, site) != 0 || r.count != count)
      return;
    for (std::size_t k = 0; k < count && k < 16; ++k)
      if (r.values[k] != values[k]) return;
    for (int k = 0; k < r.n; ++k)
      if (r.dim[k] == dim && r.i[k] == i) return;
  } else {
    weir_fault_located = true;
    r.site = site;
    r.detail = detail;
    r.names = names;
    r.count = count < 16 ? count : 16;
    for (std::size_t k = 0; k < r.count; ++k) r.values[k] = values[k];
    r.n = 0;
  }
  r.i[r.n] = i;
  r.extent[r.n] = n;
  r.dim[r.n] = dim;
  r.along[r.n] = along;
  r.origin[r.n] = origin;
  ++r.n;
  weir_index_format();
  weir_fault_publish();
}
// A condition on a nested SDFG's layout that fails for the symbol values of this call (ADR
// 0037): recorded where the body cannot throw (it may run inside a parallel loop).
[[maybe_unused]] static WEIR_HD void weir_layout_fault(const char* text) noexcept {
#ifdef __CUDA_ARCH__
  weir_device_fault(4, 0, 0, 0, text);  // the host reads the text as the fault's site
#else
  if (!weir_fault_claim()) return;
  weir_fault_located = false;
  std::snprintf(weir_fault_text, sizeof weir_fault_text, "%s", text);
  weir_fault_publish();
#endif
}
// With the tasklet's source `line`, the error leads with it and names the state and `tasklet`
// after "in the SDFG:" (as an index fault's does); else the state that ran goes first.
[[maybe_unused]] static void weir_pow_fault(int64_t b, int64_t e, const char* line = "",
                                            const char* tasklet = "") noexcept {
  if (!weir_fault_claim()) return;
  weir_fault_located = false;
  char* what = *line ? weir_fault_head : weir_fault_text;
  const std::size_t size = *line ? sizeof weir_fault_head : sizeof weir_fault_text;
  std::snprintf(what, size,
                "%s%sinteger power %lld ** %lld: an integer to a negative integer power has no integer value "
                "(NumPy raises ValueError)",
                line, *line ? ": " : "", static_cast<long long>(b), static_cast<long long>(e));
  if (*line) std::snprintf(weir_fault_text, sizeof weir_fault_text, "%s", tasklet);
  weir_fault_publish();
}
// The index `i` of dimension `dim` (extent `n`; `along`: its name in the program, or "") of a
// connector the code subscripts with a computed index (`origin`: where it was read, or "");
// outside [0, n) a fault is recorded and 0 is read instead (the run fails).
template <class... P>
static inline WEIR_HD int64_t weir_index(int64_t i, int64_t n, const char* site, const char* detail,
                                         const char* origin, int dim, const char* along, const char* names,
                                         P... point) {
  if (__builtin_expect(i >= 0 && i < n, 1)) return i;
#ifdef __CUDA_ARCH__
  weir_device_index_fault(i, n, dim, site);
  (void)site, (void)detail, (void)origin, (void)along, (void)names;
#else
  const long long values[] = {static_cast<long long>(point)..., 0};
  weir_index_fault(i, n, site, detail, origin, dim, along, names, values, sizeof...(P));
#endif
  return 0;
}
// Throws the recorded fault, if any (and clears it); `where` (the state that ran) goes first
// unless the fault names its place itself.
[[maybe_unused]] static void weir_raise_fault(const char* where) {
  if (weir_fault_state.load(std::memory_order_acquire) != 2) return;
  weir_fault_state.store(0, std::memory_order_release);
  weir_throw("%s%s%s%s", weir_fault_head, *weir_fault_head ? "\n  in the SDFG: " : "",
             weir_fault_located ? "" : where, weir_fault_text);
}
[[maybe_unused]] static void weir_clear_fault() { weir_fault_state.store(0, std::memory_order_release); }
// Whether a fault is recorded (or being recorded): a nested SDFG stops after such a state.
[[maybe_unused]] static inline WEIR_HD bool weir_fault_pending() {
#ifdef __CUDA_ARCH__
  return weir_device_fault_kind != 0;
#else
  return weir_fault_state.load(std::memory_order_acquire) != 0;
#endif
}
// --- interruption ------------------------------------------------------------------------
// The caller's question "was the run interrupted?" (the signal's number, 0: no), which it gives
// through weir_set_interrupt_poll (runtime/src/loader.cpp: SIGINT or SIGTERM while the program
// runs). Each iteration of a top-level loop asks it once (control_flow_codegen.cpp), never code
// inside a state, and the run stops there: every state before it ran whole, none after began.
WEIR_PROGRAM_STATE int (*weir_interrupt_poll)() = nullptr;
[[maybe_unused]] static inline void weir_poll_interrupt() {
  if (__builtin_expect(weir_interrupt_poll == nullptr, 1)) return;
  if (const int signo = weir_interrupt_poll(); signo != 0)
    weir_throw(
        "interrupted (signal %d) between two iterations of a loop; the arrays hold what the "
        "iterations before it wrote",
        signo);
}
