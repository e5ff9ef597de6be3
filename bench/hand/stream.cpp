// The bandwidth probe: STREAM-like copy and triad over arrays much larger than the last-level
// cache, with the same OpenMP static schedule as the first-touch fill (so each thread streams
// the pages it placed).
#include "hand_kernels.h"

namespace weir::bench::hand {

using i64 = std::int64_t;

void stream_copy(double* __restrict a, const double* __restrict b, i64 n) {
#pragma omp parallel for simd schedule(static)
  for (i64 i = 0; i < n; ++i) a[i] = b[i];
}

void stream_triad(double* __restrict a, const double* __restrict b, const double* __restrict c, double s,
                  i64 n) {
#pragma omp parallel for simd schedule(static)
  for (i64 i = 0; i < n; ++i) a[i] = b[i] + s * c[i];
}

void stream_fill(double* a, double value, i64 n) {
#pragma omp parallel for simd schedule(static)
  for (i64 i = 0; i < n; ++i) a[i] = value;
}

}  // namespace weir::bench::hand
