// The helper code every generated translation unit starts with: Python integer semantics
// (floor division, modulo, powers), min/max, atomic updates for write-conflict resolution,
// aligned allocation and error reporting. Everything has internal linkage, except the fault state
// of a program of several translation units (unit_prelude_text).
#include "codegen_internal.h"
#include "weir/codegen/generated_headers.h"

namespace weir::codegen {

std::string generated_headers() { return detail::prelude_headers(false, false); }

}  // namespace weir::codegen

namespace weir::codegen::detail {

std::string prelude_headers(bool complex_numbers, bool user_code) {
  // Only light C and language-support headers: <string>, <stdexcept> and <complex> cost more
  // to parse than most programs' own code (docs/benchmarks.md, "Compiling a small program").
  std::string h =
      "#include <atomic>\n#include <cmath>\n#include <cstdarg>\n#include <cstdint>\n#include <cstdio>\n"
      "#include <cstdlib>\n#include <cstring>\n#include <exception>\n#include <limits>\n#include <new>\n"
      "#include <type_traits>\n";
  if (complex_numbers || user_code) h += "#include <complex>\n";
  // User-written C++ (trusted) was written against the full set the prelude once had.
  if (user_code) h += "#include <algorithm>\n#include <stdexcept>\n#include <string>\n";
  return h;
}

const char* prelude_text() {
  return R"PRELUDE(
// --- errors ------------------------------------------------------------------------------
// What generated code throws: a message in a fixed buffer (no <string>, no allocation).
namespace {
struct weir_error : std::exception {
    char text[4096];
    const char* what() const noexcept override { return text; }
};
}  // namespace
[[noreturn, maybe_unused, gnu::cold, gnu::noinline, gnu::format(printf, 1, 2)]] static void weir_throw(const char* format, ...) {
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
static std::atomic<int> weir_fault_state{0};  // 0: none, 1: being written, 2: recorded
static char weir_fault_text[1024];
static bool weir_fault_located = false;  // the text names its state (index faults do)
[[maybe_unused]] static bool weir_fault_claim() noexcept {
    int expected = 0;
    return weir_fault_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel);
}
[[maybe_unused]] static void weir_fault_publish() noexcept { weir_fault_state.store(2, std::memory_order_release); }
// `names`: the enclosing maps' parameters, comma-separated, with their `values` at the fault.
[[maybe_unused]] static void weir_index_fault(int64_t i, int64_t n, const char* site, const char* origin, int dim,
                                              const char* names, const long long* values, std::size_t count) noexcept {
    if (!weir_fault_claim()) return;
    weir_fault_located = true;
    char point[256] = "";
    std::size_t used = 0;
    for (std::size_t k = 0; k < count && used < sizeof point; ++k) {
        const char* end = std::strchr(names, ',');
        int len = static_cast<int>(end ? end - names : std::strlen(names));
        int w = std::snprintf(point + used, sizeof point - used, "%s%.*s=%lld", k ? ", " : " at (", len, names, values[k]);
        if (w < 0) break;
        used += static_cast<std::size_t>(w);
        names = end ? end + 1 : names + len;
    }
    if (count > 0 && used < sizeof point) std::snprintf(point + used, sizeof point - used, ")");
    std::snprintf(weir_fault_text, sizeof weir_fault_text, "%s: index %lld in dimension %d is outside [0, %lld)%s%s%s%s",
                  site, static_cast<long long>(i), dim, static_cast<long long>(n), point, *origin ? "; the index is " : "",
                  origin, i == -1 ? " (a -1 in a connectivity table marks a missing neighbour, which has no value to read)" : "");
    weir_fault_publish();
}
[[maybe_unused]] static void weir_pow_fault(int64_t b, int64_t e) noexcept {
    if (!weir_fault_claim()) return;
    weir_fault_located = false;
    std::snprintf(weir_fault_text, sizeof weir_fault_text,
                  "integer power %lld ** %lld: an integer to a negative integer power has no integer value "
                  "(NumPy raises ValueError)", static_cast<long long>(b), static_cast<long long>(e));
    weir_fault_publish();
}
// The index `i` of dimension `dim` (extent `n`) of a connector the code subscripts with a
// computed index (`origin`: where it was read, or ""); outside [0, n) a fault is recorded and 0
// is read instead (the run fails).
template <class... P>
static inline WEIR_HD int64_t weir_index(int64_t i, int64_t n, const char* site, const char* origin, int dim, const char* names,
                                 P... point) {
    if (__builtin_expect(i >= 0 && i < n, 1)) return i;
#ifdef __CUDA_ARCH__
    weir_device_index_fault(i, n, dim, site);
    (void)site, (void)origin, (void)names;
#else
    const long long values[] = {static_cast<long long>(point)..., 0};
    weir_index_fault(i, n, site, origin, dim, names, values, sizeof...(P));
#endif
    return 0;
}
// Throws the recorded fault, if any (and clears it); `where` (the state that ran) goes first
// unless the fault names its place itself.
[[maybe_unused]] static void weir_raise_fault(const char* where) {
    if (weir_fault_state.load(std::memory_order_acquire) != 2) return;
    weir_fault_state.store(0, std::memory_order_release);
    weir_throw("%s%s", weir_fault_located ? "" : where, weir_fault_text);
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

// --- helpers (Python semantics for integers, allocation, errors) --------------------------
// a // b and a % b with Python's floor semantics; by zero 0, as NumPy's integer floor_divide and
// remainder (docs/adr/0014); never a hardware trap (INT64_MIN // -1 wraps, as NumPy).
[[maybe_unused]] static inline WEIR_HD int64_t weir_floordiv(int64_t a, int64_t b) {
    if (b == 0) return 0;
    if (b == -1) return static_cast<int64_t>(0ull - static_cast<uint64_t>(a));
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}
[[maybe_unused]] static inline WEIR_HD int64_t weir_ceildiv(int64_t a, int64_t b) { return -weir_floordiv(-a, b); }
[[maybe_unused]] static inline WEIR_HD int64_t weir_mod(int64_t a, int64_t b) {
    if (b == 0 || b == -1) return 0;
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
[[maybe_unused]] static inline WEIR_HD double weir_fmod(double a, double b) {
    double r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
[[maybe_unused]] static inline WEIR_HD int64_t weir_iabs(int64_t a) { return a < 0 ? -a : a; }
// Integer power; a negative exponent is a fault (NumPy raises), 0 is read instead.
[[maybe_unused]] static inline WEIR_HD int64_t weir_ipow(int64_t b, int64_t e) {
    if (e < 0) {
#ifdef __CUDA_ARCH__
        weir_device_pow_fault(b, e);
#else
        weir_pow_fault(b, e);
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
// x ** n for a small integer n >= 2, by repeated multiplication.
template <class T>
static inline WEIR_HD T weir_powi(T x, int n) {
    T r = x;
    for (int i = 1; i < n; ++i) r *= x;
    return r;
}
// Python's min/max of two values: the first one unless the second is strictly smaller/larger.
template <class A, class B>
static inline WEIR_HD typename std::common_type<A, B>::type weir_min(A a, B b) {
    return (b < a) ? b : a;
}
template <class A, class B>
static inline WEIR_HD typename std::common_type<A, B>::type weir_max(A a, B b) {
    return (b > a) ? b : a;
}
template <class T>
static inline WEIR_HD T weir_sign(T x) {
    return static_cast<T>((T(0) < x) - (x < T(0)));
}
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
            if (ptr != nullptr) std::memcpy(static_cast<void*>(p), static_cast<const void*>(ptr), static_cast<std::size_t>(cap) * sizeof(T));
            std::free(ptr);
            ptr = p;
            cap = n > 0 ? n : 1;
        }
        return ptr;
    }
    ~weir_scratch() { std::free(ptr); }
};
}  // namespace
// A memlet reaching outside its container (CodegenOptions::bounds_checks): indices lo..hi
// (inclusive; empty when lo > hi) of dimension `dim`, valid when 0 <= index + offset < extent.
// With the access's source line (`source`, from debuginfo) the error says it in the program's
// terms first: the field, the dimension (`dim_name`, "" if unknown), the range accessed and the
// field's domain, half-open as in gt4py; then where in the SDFG, and the hint.
static inline void weir_check_bounds(int64_t lo, int64_t hi, int64_t offset, int64_t extent, const char* where,
                                     const char* access, const char* data, int dim, const char* hint,
                                     const char* source, const char* dim_name) {
    if (lo > hi || (lo + offset >= 0 && hi + offset < extent)) return;
    if (!*source)
        weir_throw("%s: %s %s[%lld .. %lld] in dimension %d of %s with shape %lld (%s)", where, access, data,
                   static_cast<long long>(lo), static_cast<long long>(hi), dim, data, static_cast<long long>(extent),
                   hint);
    char d[96];
    if (*dim_name) std::snprintf(d, sizeof d, "%s", dim_name);
    else std::snprintf(d, sizeof d, "dimension %d", dim);
    weir_throw("%s: '%s' is %s over %s: [%lld, %lld), outside its domain %s: [%lld, %lld)\n  in the SDFG: "
               "%s: %s %s[%lld .. %lld] in dimension %d of %s with shape %lld (%s)",
               source, data, access[0] == 'w' ? "written" : "read", d, static_cast<long long>(lo),
               static_cast<long long>(hi + 1), d, static_cast<long long>(-offset),
               static_cast<long long>(extent - offset), where, access, data, static_cast<long long>(lo),
               static_cast<long long>(hi), dim, data, static_cast<long long>(extent), hint);
}
// As weir_check_bounds where code cannot throw (a nested SDFG's body, maybe inside a parallel
// loop): false after recording the violation, which weir_raise_fault() throws after the state.
[[maybe_unused]] static WEIR_HD bool weir_bounds_ok(int64_t lo, int64_t hi, int64_t offset, int64_t extent, const char* where,
                                            const char* access, const char* data, int dim, const char* hint) noexcept {
#ifdef __CUDA_ARCH__
    // Device code (a nested SDFG called in a kernel): the host reads the fault after the state.
    if (lo > hi || (lo + offset >= 0 && hi + offset < extent)) return true;
    (void)access; (void)data; (void)hint;
    weir_device_fault(1, lo + offset < 0 ? lo + offset : hi + offset, extent, dim, where);
    return false;
#else
    if (__builtin_expect(lo > hi || (lo + offset >= 0 && hi + offset < extent), 1)) return true;
    if (!weir_fault_claim()) return false;
    weir_fault_located = false;
    std::snprintf(weir_fault_text, sizeof weir_fault_text, "%s: %s %s[%lld .. %lld] in dimension %d of %s with shape %lld (%s)",
                  where, access, data, static_cast<long long>(lo), static_cast<long long>(hi), dim, data,
                  static_cast<long long>(extent), hint);
    weir_fault_publish();
    return false;
#endif
}
// The message weir_last_error() returns; weir_fail records it and returns weir_run's 1.
static thread_local char weir_error_text[4096];
[[maybe_unused, gnu::cold, gnu::noinline, gnu::format(printf, 1, 2)]] static int weir_fail(const char* format, ...) {
    va_list ap;
    va_start(ap, format);
    std::vsnprintf(weir_error_text, sizeof weir_error_text, format, ap);
    va_end(ap);
    return 1;
}
)PRELUDE";
}

std::string unit_prelude_text() {
  // The fault state must be one for the whole program: a fault recorded in a state function of
  // one unit is raised by weir_run in unit 0. Inline variables are merged by the linker.
  std::string p = prelude_text();
  for (const char* decl : {"static std::atomic<int> weir_fault_state", "static char weir_fault_text",
                           "static bool weir_fault_located"}) {
    std::size_t at = p.find(decl);
    if (at == std::string::npos) throw GenFailure(std::string("internal: the prelude has no '") + decl + "'");
    p.replace(at, 7, "[[gnu::visibility(\"hidden\")]] inline ");
  }
  return p;
}

}  // namespace weir::codegen::detail
