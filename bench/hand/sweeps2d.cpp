// Hand-written 2-D Jacobi sweeps (the corpus's laplace2d and jacobi_2d): one parallel region
// for the whole time loop, one work-shared sweep per half step (its implicit barrier orders
// the sweeps), the unit-stride j loop vectorized.
#include "hand_kernels.h"

namespace weir::bench::hand {

using i64 = std::int64_t;

namespace {

inline void sweep4(const double* __restrict src, double* __restrict dst, i64 n) {
#pragma omp for schedule(static)
  for (i64 i = 1; i < n - 1; ++i) {
    const double* __restrict up = src + (i - 1) * n;
    const double* __restrict mid = src + i * n;
    const double* __restrict down = src + (i + 1) * n;
    double* __restrict o = dst + i * n;
#pragma omp simd
    for (i64 j = 1; j < n - 1; ++j) o[j] = 0.25 * (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
  }
}

inline void sweep5(const double* __restrict src, double* __restrict dst, i64 n) {
#pragma omp for schedule(static)
  for (i64 i = 1; i < n - 1; ++i) {
    const double* __restrict up = src + (i - 1) * n;
    const double* __restrict mid = src + i * n;
    const double* __restrict down = src + (i + 1) * n;
    double* __restrict o = dst + i * n;
#pragma omp simd
    for (i64 j = 1; j < n - 1; ++j) o[j] = 0.2 * (mid[j] + mid[j - 1] + mid[j + 1] + down[j] + up[j]);
  }
}

}  // namespace

void laplace2d(double* A, double* B, i64 n, i64 tsteps) {
#pragma omp parallel
  for (i64 t = 0; t < tsteps; ++t) {
    sweep4(A, B, n);
    sweep4(B, A, n);
  }
}

void jacobi2d(double* A, double* B, i64 n, i64 tsteps) {
#pragma omp parallel
  for (i64 t = 1; t < tsteps; ++t) {
    sweep5(A, B, n);
    sweep5(B, A, n);
  }
}

}  // namespace weir::bench::hand
