// The helper code every generated translation unit starts with: Python integer semantics
// (floor division, modulo, powers), min/max, atomic updates for write-conflict resolution,
// aligned allocation and error reporting. Everything has internal linkage.
#include "codegen_internal.h"

namespace weir::codegen::detail {

const char* prelude_text() {
  return R"PRELUDE(#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <new>
#include <stdexcept>
#include <string>
#include <type_traits>

// --- helpers (Python semantics for integers, allocation, errors) --------------------------
// a // b and a % b with Python's floor semantics.
[[maybe_unused]] static inline int64_t weir_floordiv(int64_t a, int64_t b) {
    int64_t q = a / b;
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
}
[[maybe_unused]] static inline int64_t weir_ceildiv(int64_t a, int64_t b) { return -weir_floordiv(-a, b); }
[[maybe_unused]] static inline int64_t weir_mod(int64_t a, int64_t b) {
    int64_t r = a % b;
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
[[maybe_unused]] static inline double weir_fmod(double a, double b) {
    double r = std::fmod(a, b);
    if (r != 0 && ((r < 0) != (b < 0))) r += b;
    return r;
}
[[maybe_unused]] static inline int64_t weir_iabs(int64_t a) { return a < 0 ? -a : a; }
// Integer power (non-negative exponent).
[[maybe_unused]] static inline int64_t weir_ipow(int64_t b, int64_t e) {
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
static inline T weir_powi(T x, int n) {
    T r = x;
    for (int i = 1; i < n; ++i) r *= x;
    return r;
}
// Python's min/max of two values: the first one unless the second is strictly smaller/larger.
template <class A, class B>
static inline typename std::common_type<A, B>::type weir_min(A a, B b) {
    return (b < a) ? b : a;
}
template <class A, class B>
static inline typename std::common_type<A, B>::type weir_max(A a, B b) {
    return (b > a) ? b : a;
}
template <class T>
static inline T weir_sign(T x) {
    return static_cast<T>((T(0) < x) - (x < T(0)));
}
// *p = f(*p, v) atomically (compare-and-swap loop), for write-conflict resolutions that
// `#pragma omp atomic` cannot express.
template <class T, class F>
static inline void weir_atomic_update(T* p, T v, F f) {
    T expected;
    __atomic_load(p, &expected, __ATOMIC_RELAXED);
    T desired = f(expected, v);
    while (!__atomic_compare_exchange(p, &expected, &desired, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED))
        desired = f(expected, v);
}
// 64-byte aligned allocation of n elements (at least one); throws on failure.
template <class T>
static inline T* weir_alloc(int64_t n, const char* name) {
    if (n < 0) throw std::runtime_error(std::string("negative size of transient '") + name + "'");
    std::size_t bytes = static_cast<std::size_t>(n > 0 ? n : 1) * sizeof(T);
    bytes = (bytes + 63) / 64 * 64;
    void* p = std::aligned_alloc(64, bytes);
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
}
// An allocation freed at the end of the enclosing block.
namespace {
template <class T>
struct weir_buffer {
    T* ptr;
    weir_buffer(int64_t n, const char* name) : ptr(weir_alloc<T>(n, name)) {}
    ~weir_buffer() { std::free(ptr); }
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
static inline void weir_check_bounds(int64_t lo, int64_t hi, int64_t offset, int64_t extent, const char* where,
                                     const char* access, const char* data, int dim, const char* hint) {
    if (lo > hi || (lo + offset >= 0 && hi + offset < extent)) return;
    throw std::runtime_error(std::string(where) + ": " + access + " " + data + "[" + std::to_string(lo) + " .. " +
                             std::to_string(hi) + "] in dimension " + std::to_string(dim) + " of " + data +
                             " with shape " + std::to_string(extent) + " (" + hint + ")");
}
static thread_local std::string weir_error_text;
static inline int weir_fail(const std::string& message) {
    weir_error_text = message;
    return 1;
}
)PRELUDE";
}

}  // namespace weir::codegen::detail
