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
  // glibc declares the SIMD variants of its math functions (libmvec: sin, cos, exp, log, pow,
  // atan2, ... on 2, 4 or 8 doubles, at most 4 ulp from the exact result, as NumPy's own SIMD
  // kernels) only under -ffast-math's __FAST_MATH__. Declared here, loops of them vectorize with
  // -fno-math-errno alone (ADR 0031); WEIR_EXACT_MATH keeps glibc's scalar functions (< 1 ulp).
  std::string h =
      "#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__CUDACC__) && \\\n"
      "    !defined(__FAST_MATH__) && !defined(WEIR_EXACT_MATH)\n"
      "#define __FAST_MATH__ 1\n#include <math.h>\n#undef __FAST_MATH__\n#endif\n"
      "#include <atomic>\n#include <cmath>\n#include <cstdarg>\n#include <cstdint>\n#include <cstdio>\n"
      "#include <cstdlib>\n#include <cstring>\n#include <exception>\n#include <limits>\n#include <new>\n"
      "#include <type_traits>\n"
      // omp_get_max_threads / omp_get_thread_num: per-thread copies of scatter reductions.
      "#ifdef _OPENMP\n#include <omp.h>\n#endif\n";
  // |z| as NumPy's absolute of a complex number, hypot of its parts, without a library call
  // where the sum of squares neither overflows nor underflows: there sqrt(re^2 + im^2) is within
  // 1 ulp of hypot. std::abs calls cabs (then hypot) for every element, 15-20 ns each, and no
  // loop of it vectorizes: mandelbrot1's per-point loops spent most of their time there. Under
  // WEIR_EXACT_MATH it is glibc's hypot, which cabs calls: the same values as std::abs.
  if (complex_numbers || user_code)
    h += "#include <complex>\n"
         "template <class T> [[maybe_unused]] static inline T weir_cabs(std::complex<T> z) {\n"
         "#ifndef WEIR_EXACT_MATH\n"
         "    T s = z.real() * z.real() + z.imag() * z.imag();\n"
         "    if (__builtin_expect((s >= std::numeric_limits<T>::min() * T(4) && s <= "
         "std::numeric_limits<T>::max() / T(4)) ||\n"
         "                         (z.real() == T(0) && z.imag() == T(0)), 1))\n"
         "        return std::sqrt(s);\n"
         "#endif\n"
         "    return std::hypot(z.real(), z.imag());\n"
         "}\n"
         // NumPy's complex product: the textbook formula, no C99 Annex G recovery of infinities
         // from NaN results (std::complex's operator* checks every product for NaN and calls
         // __muldc3, a branch that keeps loops of complex products from vectorizing). The real
         // part is written ar*br + (-ai)*bi, the same value as ar*br - ai*bi: GCC 12 matches the
         // latter in vectorized loops as a complex product and emits a fused vfmaddsub despite
         // -ffp-contract=off ((3e170+4e170j)(1e300+1e300j) gave -inf where NumPy gives nan).
         "template <class T> [[maybe_unused]] static inline std::complex<T> weir_cmul(std::complex<T> a, "
         "std::complex<T> b) { return {a.real() * b.real() + (-a.imag()) * b.imag(), "
         "a.real() * b.imag() + a.imag() * b.real()}; }\n";
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
// The fault in the program's terms, before the state that ran (a nested SDFG's bounds check with
// a source line): "file.py:3:5: 'f' is read over K: [-1, 0), outside its domain K: [0, 8)".
static char weir_fault_head[512];
// Which claim of the fault state is the current one, and the one this thread made: the thread
// that recorded an index fault adds the other dimensions of the same subscript to it.
static std::atomic<unsigned> weir_fault_generation{0};
static thread_local unsigned weir_fault_owner = 0;
[[maybe_unused]] static bool weir_fault_claim() noexcept {
    int expected = 0;
    if (!weir_fault_state.compare_exchange_strong(expected, 1, std::memory_order_acq_rel)) return false;
    weir_fault_owner = weir_fault_generation.fetch_add(1, std::memory_order_relaxed) + 1;
    weir_fault_head[0] = '\0';
    return true;
}
[[maybe_unused]] static void weir_fault_publish() noexcept { weir_fault_state.store(2, std::memory_order_release); }
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
    const char* origin[8];
};
static weir_index_record weir_fault_index;
// appends printf-style to `out` (capacity `size`, `used` so far); silently truncates.
[[maybe_unused, gnu::format(printf, 4, 5)]] static void weir_append(char* out, std::size_t size, std::size_t& used,
                                                                    const char* format, ...) noexcept {
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
        weir_append(out, size, used, "%sindex %lld in dimension %d is outside [0, %lld)", k ? " and " : "", r.i[e],
                    r.dim[e], r.extent[e]);
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
        else
            weir_append(out, size, used, "; the index in dimension %d is %s", r.dim[e], r.origin[e]);
    }
    if (missing)
        weir_append(out, size, used, " (a -1 in a connectivity table marks a missing neighbour, which has no value to read)");
    if (*r.detail) weir_append(out, size, used, "\n  in the SDFG: %s", r.detail);
}
// `names`: the enclosing maps' parameters, comma-separated, with their `values` at the fault.
[[maybe_unused]] static void weir_index_fault(int64_t i, int64_t n, const char* site, const char* detail, const char* origin,
                                              int dim, const char* names, const long long* values, std::size_t count) noexcept {
    weir_index_record& r = weir_fault_index;
    if (!weir_fault_claim()) {
        // Another dimension of the subscript whose fault this thread recorded (same access, same point).
        if (weir_fault_owner != weir_fault_generation.load(std::memory_order_relaxed) ||
            weir_fault_state.load(std::memory_order_acquire) != 2 || !weir_fault_located || r.n == 0 || r.n >= 8 ||
            std::strcmp(r.site, site) != 0 || r.count != count)
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
    r.origin[r.n] = origin;
    ++r.n;
    weir_index_format();
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
static inline WEIR_HD int64_t weir_index(int64_t i, int64_t n, const char* site, const char* detail, const char* origin,
                                         int dim, const char* names, P... point) {
    if (__builtin_expect(i >= 0 && i < n, 1)) return i;
#ifdef __CUDA_ARCH__
    weir_device_index_fault(i, n, dim, site);
    (void)site, (void)detail, (void)origin, (void)names;
#else
    const long long values[] = {static_cast<long long>(point)..., 0};
    weir_index_fault(i, n, site, detail, origin, dim, names, values, sizeof...(P));
#endif
    return 0;
}
// Throws the recorded fault, if any (and clears it); `where` (the state that ran) goes first
// unless the fault names its place itself.
[[maybe_unused]] static void weir_raise_fault(const char* where) {
    if (weir_fault_state.load(std::memory_order_acquire) != 2) return;
    weir_fault_state.store(0, std::memory_order_release);
    weir_throw("%s%s%s%s", weir_fault_head, *weir_fault_head ? "\n  in the SDFG: " : "", weir_fault_located ? "" : where,
               weir_fault_text);
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
// the same branch twice, its warm-up and its measurement); with one branch measured, the other
// is tried where that costs little (a one-thread run predicted under what a fork/join of
// passive threads saves, 30 us; a parallel run under 100 us); with both measured, the faster
// per point, and every 64th choice the other branch, so that a time measured once under other
// conditions (load, a cold cache) is measured again: a parallel run costs at most a fork/join
// more than a one-thread run; a one-thread run is tried only where it is predicted under 1 ms
// (threads x the parallel time), at most 1/64 of that per choice.
[[maybe_unused]] static inline bool weir_run_sequentially(weir_map_times& t, double points) {
    const int threads = omp_get_max_threads();
    if (threads <= 1) return true;
    const double s = t.sequential.load(std::memory_order_relaxed), p = t.parallel.load(std::memory_order_relaxed);
    if (s < 0 && p < 0) return points < 32768.0;
    if (p < 0) return s * points * (1.0 - 1.0 / threads) < 30e-6;
    if (s < 0) return p * points < 100e-6;
    const bool sequential = s <= p;
    if (t.choices.fetch_add(1, std::memory_order_relaxed) % 64 != 63) return sequential;
    return sequential ? false : p * points * threads < 1e-3;
}
#endif
// a <= b, for generated tests whose sides may be the same expression (no -Wtautological-compare).
[[maybe_unused]] static inline WEIR_HD bool weir_le(int64_t a, int64_t b) { return a <= b; }
// Python's min/max of two values: the first one unless the second is strictly smaller/larger.
template <class A, class B>
static inline WEIR_HD typename std::common_type<A, B>::type weir_min(A a, B b) {
    return (b < a) ? b : a;
}
template <class A, class B>
static inline WEIR_HD typename std::common_type<A, B>::type weir_max(A a, B b) {
    return (b > a) ? b : a;
}
// NumPy's maximum/minimum (np.maximum, np.max, gt4py's maximum and max_over): NaN in either
// argument gives NaN, whatever the order; otherwise the first argument where it is strictly
// larger (smaller), else the second, so maximum(-0.0, 0.0) is 0.0 and maximum(0.0, -0.0) is
// -0.0, as NumPy's. On integers a plain comparison (`x != x` is false); GCC vectorizes both.
template <class A, class B>
static inline WEIR_HD typename std::common_type<A, B>::type weir_maximum(A a, B b) {
    using T = typename std::common_type<A, B>::type;
    const T x = static_cast<T>(a), y = static_cast<T>(b);
    return (x > y || x != x) ? x : y;
}
template <class A, class B>
static inline WEIR_HD typename std::common_type<A, B>::type weir_minimum(A a, B b) {
    using T = typename std::common_type<A, B>::type;
    const T x = static_cast<T>(a), y = static_cast<T>(b);
    return (x < y || x != x) ? x : y;
}
// NumPy's fmax/fmin: NaN only where both are NaN.
template <class A, class B>
static inline WEIR_HD typename std::common_type<A, B>::type weir_fmax(A a, B b) {
    using T = typename std::common_type<A, B>::type;
    const T x = static_cast<T>(a), y = static_cast<T>(b);
    return (x > y || y != y) ? x : y;
}
template <class A, class B>
static inline WEIR_HD typename std::common_type<A, B>::type weir_fmin(A a, B b) {
    using T = typename std::common_type<A, B>::type;
    const T x = static_cast<T>(a), y = static_cast<T>(b);
    return (x < y || y != y) ? x : y;
}
// A float converted to an integer type as NumPy converts on x86 (C++ leaves a value outside the
// target's range undefined; docs/field-view-differences.md, "Values at run time"): int32 and
// int64 truncate toward zero, and NaN, +-inf and values outside the range give the type's
// minimum; int8, int16, uint8 and uint16 take the int32 value wrapped to their width; uint32
// and uint64 (N bits) take x - 2**(N-1) as a signed N-bit value plus 2**(N-1) where x >=
// 2**(N-1), else the signed N-bit value, wrapped (NaN: 2**(N-1)).
static inline WEIR_HD int32_t weir_f2i32(double x) {
    return (x > -2147483649.0 && x < 2147483648.0) ? static_cast<int32_t>(x) : static_cast<int32_t>(INT32_MIN);
}
static inline WEIR_HD int64_t weir_f2i64(double x) {
    return (x >= -9223372036854775808.0 && x < 9223372036854775808.0) ? static_cast<int64_t>(x)
                                                                       : static_cast<int64_t>(INT64_MIN);
}
template <class T>
static inline WEIR_HD T weir_ftoi(double x) {
    if constexpr (sizeof(T) == 8) {
        if constexpr (std::is_signed<T>::value) return weir_f2i64(x);
        if (x >= 9223372036854775808.0)
            return static_cast<T>(static_cast<uint64_t>(weir_f2i64(x - 9223372036854775808.0)) ^ (1ull << 63));
        return static_cast<T>(weir_f2i64(x));
    } else if constexpr (sizeof(T) == 4) {
        if constexpr (std::is_signed<T>::value) return weir_f2i32(x);
        if (x >= 2147483648.0) return static_cast<T>(static_cast<uint32_t>(weir_f2i32(x - 2147483648.0)) ^ 0x80000000u);
        return static_cast<T>(static_cast<uint32_t>(weir_f2i32(x)));
    } else {
        return static_cast<T>(static_cast<uint32_t>(weir_f2i32(x)));
    }
}
// NumPy's floor_divide and remainder of floats (npy_divmod, Python's float // and %): the
// quotient from fmod, so 1.0 // 0.1 is 9.0 (floor(1.0 / 0.1) is 10.0); a zero remainder has the
// divisor's sign; by zero a / b and NaN.
template <class T>
static inline WEIR_HD T weir_ffloordiv(T a, T b) {
    if (b == 0) return a / b;
    const T mod = std::fmod(a, b);
    T div = (a - mod) / b;
    if (mod != 0 && ((b < 0) != (mod < 0))) div -= T(1);
    if (div != 0) {
        T f = std::floor(div);
        if (div - f > T(0.5)) f += T(1);
        return f;
    }
    return std::copysign(T(0), a / b);
}
template <class T>
static inline WEIR_HD T weir_fmod(T a, T b) {
    T mod = std::fmod(a, b);
    if (b == 0) return mod;
    if (mod != 0) {
        if ((b < 0) != (mod < 0)) mod += b;
    } else {
        mod = std::copysign(T(0), b);
    }
    return mod;
}
// NumPy's fmod of integers: the sign of the dividend (C's %); by 0 (and by -1) 0, never a trap.
[[maybe_unused]] static inline WEIR_HD int64_t weir_ifmod(int64_t a, int64_t b) {
    return (b == 0 || b == -1) ? 0 : a % b;
}
template <class T>
static inline WEIR_HD T weir_sign(T x) {
    if (x != x) return x;  // np.sign(nan) is nan
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
static inline WEIR_HD bool weir_dim_inside(const weir_dim_check& d) { return weir_in(d.lo, d.hi, d.offset, d.extent); }
// "where: reads A[1 .. 3] in dimension 0 of A with shape 3 and A[...] in dimension 1 of A with
// shape 2 (hint)": every dimension outside, each distinct hint once.
[[maybe_unused]] static void weir_bounds_text(char* out, std::size_t size, std::size_t& used, const char* where,
                                              const char* access, const char* data, const weir_dim_check* d,
                                              std::size_t k) noexcept {
    weir_append(out, size, used, "%s: %s ", where, access);
    bool first = true;
    for (std::size_t j = 0; j < k; ++j) {
        if (weir_dim_inside(d[j])) continue;
        weir_append(out, size, used, "%s%s[%lld .. %lld] in dimension %d of %s with shape %lld", first ? "" : " and ",
                    data, static_cast<long long>(d[j].lo), static_cast<long long>(d[j].hi), d[j].dim, data,
                    static_cast<long long>(d[j].extent));
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
// by name where known, half-open as in gt4py.
template <std::size_t K>
[[maybe_unused]] static void weir_bounds_head(char* text, std::size_t size, std::size_t& used, const char* source,
                                              const char* access, const char* data, const weir_dim_check (&d)[K]) noexcept {
    char dims[K][96];
    for (std::size_t j = 0; j < K; ++j) {
        if (*d[j].name) std::snprintf(dims[j], sizeof dims[j], "%s", d[j].name);
        else std::snprintf(dims[j], sizeof dims[j], "dimension %d", d[j].dim);
    }
    weir_append(text, size, used, "%s: '%s' is %s over ", source, data, access[0] == 'w' ? "written" : "read");
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
// domain, half-open as in gt4py; then where in the SDFG, and the hints.
template <std::size_t K>
static inline void weir_check_bounds(const char* where, const char* access, const char* data, const char* source,
                                     const weir_dim_check (&d)[K]) {
    bool inside = true;
    for (std::size_t j = 0; j < K; ++j) inside = inside && weir_dim_inside(d[j]);
    if (inside) return;
    char text[2048];
    std::size_t used = 0;
    const std::size_t size = sizeof text;
    if (*source) {
        weir_bounds_head(text, size, used, source, access, data, d);
        weir_append(text, size, used, "\n  in the SDFG: ");
    }
    weir_bounds_text(text, size, used, where, access, data, d, K);
    weir_throw("%s", text);
}
// As weir_check_bounds where code cannot throw (a nested SDFG's body, maybe inside a parallel
// loop): false after recording the violation, which weir_raise_fault() throws after the state.
template <std::size_t K>
[[maybe_unused]] static WEIR_HD bool weir_bounds_ok(const char* where, const char* access, const char* data,
                                                    const char* source, const weir_dim_check (&d)[K]) noexcept {
    std::size_t outside = K;
    for (std::size_t j = 0; j < K; ++j)
        if (outside == K && !weir_dim_inside(d[j])) outside = j;
    if (__builtin_expect(outside == K, 1)) return true;
#ifdef __CUDA_ARCH__
    // Device code (a nested SDFG called in a kernel): the host reads the fault after the state
    // (the first dimension outside).
    (void)access; (void)data; (void)source;
    const weir_dim_check& o = d[outside];
    weir_device_fault(1, o.lo + o.offset < 0 ? o.lo + o.offset : o.hi + o.offset, o.extent, o.dim, where);
    return false;
#else
    if (!weir_fault_claim()) return false;
    weir_fault_located = false;
    std::size_t used = 0;
    if (*source) weir_bounds_head(weir_fault_head, sizeof weir_fault_head, used, source, access, data, d);
    used = 0;
    weir_bounds_text(weir_fault_text, sizeof weir_fault_text, used, where, access, data, d, K);
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
  for (const char* decl :
       {"static std::atomic<int> weir_fault_state", "static char weir_fault_text",
        "static bool weir_fault_located", "static char weir_fault_head",
        "static std::atomic<unsigned> weir_fault_generation", "static thread_local unsigned weir_fault_owner",
        "static weir_index_record weir_fault_index"}) {
    std::size_t at = p.find(decl);
    if (at == std::string::npos) throw GenFailure(std::string("internal: the prelude has no '") + decl + "'");
    p.replace(at, 7, "[[gnu::visibility(\"hidden\")]] inline ");
  }
  return p;
}

}  // namespace weir::codegen::detail
