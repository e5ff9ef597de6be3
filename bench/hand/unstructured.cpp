// Hand-written unstructured stencils: one parallel loop over the output locations, the vertical
// (unit-stride) loop innermost and vectorized; each neighbour's column is contiguous, so gathers
// happen per column, not per value. Where every neighbour exists (the periodic mesh), one pass
// over the levels reads all the columns (nabla: twelve, both sums in registers); with missing
// neighbours the columns are accumulated edge by edge. With Stores::Streaming an output column
// is computed into a buffer of the thread (L1) and copied to memory with non-temporal stores (no
// read of the output's lines before they are written; each thread fences them once, after its
// last column). The cell sum prefetches the columns of the cell eight ahead (as weir's code does,
// docs/adr/0041).
#include <immintrin.h>

#include <cstdint>
#include <vector>

#include "hand_kernels.h"

namespace weir::bench::hand {

using i64 = std::int64_t;

namespace {

/// n doubles of `src` to `dst`: the 64-byte aligned middle with non-temporal stores (AVX-512,
/// else SSE2), the ends as usual.
void stream_column(double* __restrict dst, const double* __restrict src, i64 n) {
  i64 k = 0;
#if defined(__AVX512F__)
  for (; k < n && (reinterpret_cast<std::uintptr_t>(dst + k) & 63) != 0; ++k) dst[k] = src[k];
  for (; k + 8 <= n; k += 8) _mm512_stream_pd(dst + k, _mm512_loadu_pd(src + k));
#elif defined(__SSE2__)
  for (; k < n && (reinterpret_cast<std::uintptr_t>(dst + k) & 15) != 0; ++k) dst[k] = src[k];
  for (; k + 2 <= n; k += 2) _mm_stream_pd(dst + k, _mm_loadu_pd(src + k));
#endif
  for (; k < n; ++k) dst[k] = src[k];
}

/// Orders this thread's non-temporal stores before the barrier that follows.
void stream_fence() {
#if defined(__SSE2__)
  _mm_sfence();
#endif
}

}  // namespace

void nabla(const double* pp, const double* S_MXX, const double* S_MYY, const double* sign, const double* vol,
           const std::int32_t* e2v, const std::int32_t* v2e, i64 v2e_max, double* out_x, double* out_y,
           i64 nv, i64 nk, Stores stores) {
  const bool streaming = stores == Stores::Streaming;
#pragma omp parallel
  {
    std::vector<double> bx(static_cast<std::size_t>(nk)), by(bx.size());
    double* __restrict ax = bx.data();
    double* __restrict ay = by.data();
#pragma omp for schedule(static) nowait
    for (i64 v = 0; v < nv; ++v) {
      double* __restrict ox = streaming ? ax : out_x + v * nk;
      double* __restrict oy = streaming ? ay : out_y + v * nk;
      const double vv = vol[v];
      bool complete = v2e_max == 6;
      for (i64 n = 0; n < v2e_max; ++n) complete = complete && v2e[v * v2e_max + n] >= 0;
      if (complete) {
        // Six edges (every vertex of a periodic mesh): one pass over the levels with the twelve
        // columns and both sums in registers, in the source's order of operations.
        const double* __restrict p0[6];
        const double* __restrict p1[6];
        double sx[6], sy[6], s[6];
        for (int n = 0; n < 6; ++n) {
          const i64 e = v2e[v * 6 + n];
          p0[n] = pp + static_cast<i64>(e2v[2 * e]) * nk;
          p1[n] = pp + static_cast<i64>(e2v[2 * e + 1]) * nk;
          sx[n] = S_MXX[e], sy[n] = S_MYY[e], s[n] = sign[v * 6 + n];
        }
#pragma omp simd
        for (i64 k = 0; k < nk; ++k) {
          double x = 0.0, y = 0.0;
          for (int n = 0; n < 6; ++n) {
            const double zavg = 0.5 * (p0[n][k] + p1[n][k]);
            x += sx[n] * zavg * s[n];
            y += sy[n] * zavg * s[n];
          }
          ox[k] = x / vv;
          oy[k] = y / vv;
        }
      } else {
        // Missing neighbours: edge by edge, accumulated in the column buffers.
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
#pragma omp simd
        for (i64 k = 0; k < nk; ++k) {
          ox[k] = ax[k] / vv;
          oy[k] = ay[k] / vv;
        }
      }
      if (streaming) {
        stream_column(out_x + v * nk, ax, nk);
        stream_column(out_y + v * nk, ay, nk);
      }
    }
    if (streaming) stream_fence();
  }
}

void cell_neighbour_sum(const double* f, const double* w, const std::int32_t* c2e2co, i64 nmax, double* out,
                        i64 nc, i64 nk, Stores stores) {
  const bool streaming = stores == Stores::Streaming;
  // The columns of the cell this far ahead are prefetched into L2: one of a cell's four columns
  // is new (the next row of cells), and the hardware prefetcher does not fetch such short
  // columns in other pages; without it each cell waits for memory.
  constexpr i64 kAhead = 8;
#pragma omp parallel
  {
    std::vector<double> column(streaming ? static_cast<std::size_t>(nk) : 0);
#pragma omp for schedule(static) nowait
    for (i64 c = 0; c < nc; ++c) {
      if (c + kAhead < nc)
        for (i64 n = 0; n < nmax; ++n)
          if (const std::int32_t nb = c2e2co[(c + kAhead) * nmax + n]; nb >= 0) {
            const char* col = reinterpret_cast<const char*>(f + static_cast<i64>(nb) * nk);
            for (i64 b = 0; b < nk * static_cast<i64>(sizeof(double)); b += 64)
              __builtin_prefetch(col + b, 0, 2);
          }
      double* __restrict o = streaming ? column.data() : out + c * nk;
      bool complete = nmax == 4;
      for (i64 n = 0; n < nmax; ++n) complete = complete && c2e2co[c * nmax + n] >= 0;
      if (complete) {
        // The cell and its three neighbours (every cell of a periodic mesh): one pass.
        const double* __restrict f0 = f + static_cast<i64>(c2e2co[c * 4]) * nk;
        const double* __restrict f1 = f + static_cast<i64>(c2e2co[c * 4 + 1]) * nk;
        const double* __restrict f2 = f + static_cast<i64>(c2e2co[c * 4 + 2]) * nk;
        const double* __restrict f3 = f + static_cast<i64>(c2e2co[c * 4 + 3]) * nk;
        const double w0 = w[c * 4], w1 = w[c * 4 + 1], w2 = w[c * 4 + 2], w3 = w[c * 4 + 3];
#pragma omp simd
        for (i64 k = 0; k < nk; ++k) o[k] = f0[k] * w0 + f1[k] * w1 + f2[k] * w2 + f3[k] * w3;
      } else {
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
      if (streaming) stream_column(out + c * nk, o, nk);
    }
    if (streaming) stream_fence();
  }
}

}  // namespace weir::bench::hand
