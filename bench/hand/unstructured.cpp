// Hand-written unstructured stencils: one parallel loop over the output locations, neighbour
// loops inside, the vertical (unit-stride) loop innermost and vectorized; each neighbour's
// column is contiguous, so gathers happen per column, not per value.
#include <vector>

#include "hand_kernels.h"

namespace weir::bench::hand {

using i64 = std::int64_t;

void nabla(const double* pp, const double* S_MXX, const double* S_MYY, const double* sign, const double* vol,
           const std::int32_t* e2v, const std::int32_t* v2e, i64 v2e_max, double* out_x, double* out_y,
           i64 nv, i64 nk) {
#pragma omp parallel
  {
    std::vector<double> bx(static_cast<std::size_t>(nk)), by(bx.size());
    double* __restrict ax = bx.data();
    double* __restrict ay = by.data();
#pragma omp for schedule(static)
    for (i64 v = 0; v < nv; ++v) {
      for (i64 k = 0; k < nk; ++k) ax[k] = ay[k] = 0.0;
      for (i64 n = 0; n < v2e_max; ++n) {
        const std::int32_t e = v2e[v * v2e_max + n];
        if (e < 0) continue;
        const double s = sign[v * v2e_max + n], sx = S_MXX[e], sy = S_MYY[e];
        const double* __restrict p0 = pp + static_cast<i64>(e2v[2 * static_cast<i64>(e)]) * nk;
        const double* __restrict p1 = pp + static_cast<i64>(e2v[2 * static_cast<i64>(e) + 1]) * nk;
#pragma omp simd
        for (i64 k = 0; k < nk; ++k) {
          double zavg = 0.5 * (p0[k] + p1[k]);
          ax[k] += sx * zavg * s;
          ay[k] += sy * zavg * s;
        }
      }
      double* __restrict ox = out_x + v * nk;
      double* __restrict oy = out_y + v * nk;
      const double vv = vol[v];
#pragma omp simd
      for (i64 k = 0; k < nk; ++k) {
        ox[k] = ax[k] / vv;
        oy[k] = ay[k] / vv;
      }
    }
  }
}

void cell_neighbour_sum(const double* f, const double* w, const std::int32_t* c2e2co, i64 nmax, double* out,
                        i64 nc, i64 nk) {
#pragma omp parallel for schedule(static)
  for (i64 c = 0; c < nc; ++c) {
    double* __restrict o = out + c * nk;
    for (i64 k = 0; k < nk; ++k) o[k] = 0.0;
    for (i64 n = 0; n < nmax; ++n) {
      const std::int32_t nb = c2e2co[c * nmax + n];
      if (nb < 0) continue;
      const double wn = w[c * nmax + n];
      const double* __restrict fn = f + static_cast<i64>(nb) * nk;
#pragma omp simd
      for (i64 k = 0; k < nk; ++k) o[k] += fn[k] * wn;
    }
  }
}

}  // namespace weir::bench::hand
