// Hand-written Cartesian stencils (see hand_kernels.h). Every kernel: the (i, j) loops are
// parallel (collapsed, static schedule), k is innermost, unit-stride and vectorized; the
// arithmetic follows the field-view source's order of operations, so results agree with weir's
// to the last bits where the algorithm is the same.
#include <algorithm>
#include <vector>

#include "hand_kernels.h"

namespace weir::bench::hand {

using i64 = std::int64_t;

void laplacian(const double* f, Strides3 fs, double* out, Strides3 os, i64 ni, i64 nj, i64 nk) {
#pragma omp parallel for collapse(2) schedule(static)
  for (i64 i = 0; i < ni; ++i)
    for (i64 j = 0; j < nj; ++j) {
      const double* __restrict c = f + i * fs.si + j * fs.sj;
      const double* __restrict ip = c + fs.si;
      const double* __restrict im = c - fs.si;
      const double* __restrict jp = c + fs.sj;
      const double* __restrict jm = c - fs.sj;
      double* __restrict o = out + i * os.si + j * os.sj;
#pragma omp simd
      for (i64 k = 0; k < nk; ++k) o[k] = -4.0 * c[k] + ip[k] + im[k] + jp[k] + jm[k];
    }
}

void laplap(const double* f, Strides3 fs, double* out, Strides3 os, i64 ni, i64 nj, i64 nk) {
  const i64 si = fs.si, sj = fs.sj;
#pragma omp parallel for collapse(2) schedule(static)
  for (i64 i = 0; i < ni; ++i)
    for (i64 j = 0; j < nj; ++j) {
      const double* __restrict c = f + i * si + j * sj;
      double* __restrict o = out + i * os.si + j * os.sj;
#pragma omp simd
      for (i64 k = 0; k < nk; ++k) {
        double axial = c[k + si] + c[k - si] + c[k + sj] + c[k - sj];
        double diagonal = c[k + si + sj] + c[k + si - sj] + c[k - si + sj] + c[k - si - sj];
        double far = c[k + 2 * si] + c[k - 2 * si] + c[k + 2 * sj] + c[k - 2 * sj];
        o[k] = 20.0 * c[k] - 8.0 * axial + 2.0 * diagonal + far;
      }
    }
}

namespace {
// hdiff tile: 16 x 16 columns; the Laplacian of a tile and its 1-point rim, (16+2)^2 columns of
// nk values (200 KiB at nk = 80), stays in L2 while the fluxes and the output are computed.
constexpr i64 kTile = 16;
}  // namespace

void hdiff(const double* u, Strides3 us, const double* coeff, Strides3 cs, double* out, Strides3 os, i64 ni,
           i64 nj, i64 nk) {
  const i64 nti = (ni + kTile - 1) / kTile, ntj = (nj + kTile - 1) / kTile;
  const i64 si = us.si, sj = us.sj;
#pragma omp parallel
  {
    std::vector<double> lap_tile(static_cast<std::size_t>((kTile + 2) * (kTile + 2) * nk));
    double* __restrict lap = lap_tile.data();
#pragma omp for collapse(2) schedule(static)
    for (i64 ti = 0; ti < nti; ++ti)
      for (i64 tj = 0; tj < ntj; ++tj) {
        const i64 i0 = ti * kTile, i1 = std::min(i0 + kTile, ni);
        const i64 j0 = tj * kTile, j1 = std::min(j0 + kTile, nj);
        // Column (i, j) of the tile's Laplacian buffer, for i0-1 <= i <= i1, j0-1 <= j <= j1.
        auto L = [&](i64 i, i64 j) { return lap + ((i - i0 + 1) * (kTile + 2) + (j - j0 + 1)) * nk; };
        for (i64 i = i0 - 1; i <= i1; ++i)
          for (i64 j = j0 - 1; j <= j1; ++j) {
            const double* __restrict c = u + i * si + j * sj;
            double* __restrict l = L(i, j);
#pragma omp simd
            for (i64 k = 0; k < nk; ++k) l[k] = 4.0 * c[k] - (c[k - si] + c[k + si] + c[k - sj] + c[k + sj]);
          }
        for (i64 i = i0; i < i1; ++i)
          for (i64 j = j0; j < j1; ++j) {
            const double* __restrict lc = L(i, j);
            const double* __restrict lip = L(i + 1, j);
            const double* __restrict lim = L(i - 1, j);
            const double* __restrict ljp = L(i, j + 1);
            const double* __restrict ljm = L(i, j - 1);
            const double* __restrict c = u + i * si + j * sj;
            const double* __restrict w = coeff + i * cs.si + j * cs.sj;
            double* __restrict o = out + i * os.si + j * os.sj;
#pragma omp simd
            for (i64 k = 0; k < nk; ++k) {
              double fr = lip[k] - lc[k];
              fr = fr * (c[k + si] - c[k]) > 0.0 ? 0.0 : fr;
              double fl = lc[k] - lim[k];
              fl = fl * (c[k] - c[k - si]) > 0.0 ? 0.0 : fl;
              double gr = ljp[k] - lc[k];
              gr = gr * (c[k + sj] - c[k]) > 0.0 ? 0.0 : gr;
              double gl = lc[k] - ljm[k];
              gl = gl * (c[k] - c[k - sj]) > 0.0 ? 0.0 : gl;
              o[k] = c[k] - w[k] * (fr - fl + gr - gl);
            }
          }
      }
  }
}

void heat3d(const double* f, Strides3 fs, double* out, Strides3 os, double alpha, i64 ni, i64 nj, i64 nk) {
#pragma omp parallel for collapse(2) schedule(static)
  for (i64 i = 0; i < ni; ++i)
    for (i64 j = 0; j < nj; ++j) {
      const double* __restrict c = f + i * fs.si + j * fs.sj;
      const double* __restrict ip = c + fs.si;
      const double* __restrict im = c - fs.si;
      const double* __restrict jp = c + fs.sj;
      const double* __restrict jm = c - fs.sj;
      double* __restrict o = out + i * os.si + j * os.sj;
#pragma omp simd
      for (i64 k = 0; k < nk; ++k)
        o[k] = c[k] + alpha * (im[k] + ip[k] + jm[k] + jp[k] + c[k - 1] + c[k + 1] - 6.0 * c[k]);
    }
}

namespace {
// Columns solved together by one thread: 8 independent division chains fill the pipeline
// (and one AVX-512 register); their coefficients (8 x nk x 2 doubles) stay in L1.
constexpr i64 kColumns = 8;
}  // namespace

void tridiagonal_solve(const double* a, const double* b, const double* c, const double* d, double* x, i64 ni,
                       i64 nj, i64 nk) {
  const i64 nb = (nj + kColumns - 1) / kColumns;
#pragma omp parallel
  {
    // c' and d' of the block, [k][column], so the inner loop over columns is contiguous.
    std::vector<double> cbuf(static_cast<std::size_t>(nk * kColumns)), dbuf(cbuf.size());
    double* __restrict cm = cbuf.data();
    double* __restrict dm = dbuf.data();
#pragma omp for collapse(2) schedule(static)
    for (i64 i = 0; i < ni; ++i)
      for (i64 jb = 0; jb < nb; ++jb) {
        const i64 j0 = jb * kColumns, cols = std::min(kColumns, nj - j0);
        const i64 base = (i * nj + j0) * nk;
        // The next block's columns (contiguous in each array) into L2 while this one is solved:
        // the scans read a block level by level, 8 columns apart, which the hardware prefetchers
        // do not follow (weir's generated code does the same, docs/adr/0041, session 31).
        if (jb + 1 < nb) {
          const i64 next = base + cols * nk, bytes = std::min(kColumns, nj - j0 - cols) * nk * 8;
          for (const double* arr : {a, b, c, d, static_cast<const double*>(x)})
            for (i64 o = 0; o < bytes; o += 64)
              __builtin_prefetch(reinterpret_cast<const char*>(arr + next) + o, 0, 2);
        }
        double cprev[kColumns] = {}, dprev[kColumns] = {}, xprev[kColumns] = {};
        for (i64 k = 0; k < nk; ++k) {
#pragma omp simd
          for (i64 q = 0; q < cols; ++q) {
            const i64 at = base + q * nk + k;
            double den = b[at] - a[at] * cprev[q];
            cprev[q] = c[at] / den;
            dprev[q] = (d[at] - a[at] * dprev[q]) / den;
            cm[k * kColumns + q] = cprev[q];
            dm[k * kColumns + q] = dprev[q];
          }
        }
        for (i64 k = nk - 1; k >= 0; --k) {
#pragma omp simd
          for (i64 q = 0; q < cols; ++q) {
            xprev[q] = dm[k * kColumns + q] - cm[k * kColumns + q] * xprev[q];
            x[base + q * nk + k] = xprev[q];
          }
        }
      }
  }
}

}  // namespace weir::bench::hand
