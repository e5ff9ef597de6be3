// The prelude's complex-number helpers, in generated code that uses complex numbers (or
// trusted user C++): |z| and products as NumPy computes them. Embedded into generated code
// (cmake/embed_text.cmake) after the standard headers.
#include <cmath>
#include <complex>
#include <limits>

// |z| as NumPy's absolute of a complex number, hypot of its parts, without a library call
// where the sum of squares neither overflows nor underflows: there sqrt(re^2 + im^2) is within
// 1 ulp of hypot. std::abs calls cabs (then hypot) for every element, 15-20 ns each, and no
// loop of it vectorizes: mandelbrot1's per-point loops spent most of their time there. Under
// WEIR_EXACT_MATH it is glibc's hypot, which cabs calls: the same values as std::abs.
template <class T>
[[maybe_unused]] static inline T weir_cabs(std::complex<T> z) {
#ifndef WEIR_EXACT_MATH
  T s = z.real() * z.real() + z.imag() * z.imag();
  if (__builtin_expect(
          (s >= std::numeric_limits<T>::min() * T(4) && s <= std::numeric_limits<T>::max() / T(4)) ||
              (z.real() == T(0) && z.imag() == T(0)),
          1))
    return std::sqrt(s);
#endif
  return std::hypot(z.real(), z.imag());
}
// NumPy's complex product: the textbook formula, no C99 Annex G recovery of infinities from NaN
// results (std::complex's operator* checks every product for NaN and calls __muldc3, a branch
// that keeps loops of complex products from vectorizing). The real part is written
// ar*br + (-ai)*bi, the same value as ar*br - ai*bi: GCC 12 matches the latter in vectorized
// loops as a complex product and emits a fused vfmaddsub despite -ffp-contract=off
// ((3e170+4e170j)(1e300+1e300j) gave -inf where NumPy gives nan).
template <class T>
[[maybe_unused]] static inline std::complex<T> weir_cmul(std::complex<T> a, std::complex<T> b) {
  return {a.real() * b.real() + (-a.imag()) * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}
