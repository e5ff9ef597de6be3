// The prelude of generated programs, part 2 of 3: Python's and NumPy's semantics of numbers
// (floor division, modulo, powers, min/max, NaN-aware maximum, float-to-integer conversion,
// sign). Pure functions, no state: the embedded backend (runtime/src/embedded/num_ops.cpp)
// includes this header too, so that both backends compute the same values by the same code.
// Embedded into generated code as weir_faults.h is (cmake/embed_text.cmake).
#define WEIR_PRELUDE_NUMBERS 1
#include <cmath>
#include <cstdint>
#include <type_traits>

// WEIR_HD: helpers that device code calls too (the CUDA generator defines it as __host__ __device__).
#ifndef WEIR_HD
#define WEIR_HD
#endif

// a // b and a % b with Python's floor semantics; by zero 0, as NumPy's integer floor_divide and
// remainder (docs/adr/0014); never a hardware trap (INT64_MIN // -1 wraps, as NumPy).
[[maybe_unused]] static inline WEIR_HD int64_t weir_floordiv(int64_t a, int64_t b) {
  if (b == 0) return 0;
  if (b == -1) return static_cast<int64_t>(0ull - static_cast<uint64_t>(a));
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}
[[maybe_unused]] static inline WEIR_HD int64_t weir_ceildiv(int64_t a, int64_t b) {
  return -weir_floordiv(-a, b);
}
[[maybe_unused]] static inline WEIR_HD int64_t weir_mod(int64_t a, int64_t b) {
  if (b == 0 || b == -1) return 0;
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
[[maybe_unused]] static inline WEIR_HD int64_t weir_iabs(int64_t a) { return a < 0 ? -a : a; }
// x ** n for a small integer n >= 2, by repeated multiplication.
template <class T>
static inline WEIR_HD T weir_powi(T x, int n) {
  T r = x;
  for (int i = 1; i < n; ++i) r *= x;
  return r;
}
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
  return (x > y || x != x) ? x : y;  // NOLINT(misc-redundant-expression): NaN test
}
template <class A, class B>
static inline WEIR_HD typename std::common_type<A, B>::type weir_minimum(A a, B b) {
  using T = typename std::common_type<A, B>::type;
  const T x = static_cast<T>(a), y = static_cast<T>(b);
  return (x < y || x != x) ? x : y;  // NOLINT(misc-redundant-expression): NaN test
}
// NumPy's fmax/fmin: NaN only where both are NaN.
template <class A, class B>
static inline WEIR_HD typename std::common_type<A, B>::type weir_fmax(A a, B b) {
  using T = typename std::common_type<A, B>::type;
  const T x = static_cast<T>(a), y = static_cast<T>(b);
  return (x > y || y != y) ? x : y;  // NOLINT(misc-redundant-expression): NaN test
}
template <class A, class B>
static inline WEIR_HD typename std::common_type<A, B>::type weir_fmin(A a, B b) {
  using T = typename std::common_type<A, B>::type;
  const T x = static_cast<T>(a), y = static_cast<T>(b);
  return (x < y || y != y) ? x : y;  // NOLINT(misc-redundant-expression): NaN test
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
    if (x >= 2147483648.0)
      return static_cast<T>(static_cast<uint32_t>(weir_f2i32(x - 2147483648.0)) ^ 0x80000000u);
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
  if (x != x) return x;  // NOLINT(misc-redundant-expression): np.sign(nan) is nan
  return static_cast<T>((T(0) < x) - (x < T(0)));
}
