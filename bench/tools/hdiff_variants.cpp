// The experiment behind ADR 0010: hdiff at 256x256x80 written by hand two ways, recomputing the
// Laplacian and fluxes per point (what fusion by recomputation generates) vs tiles of (i, j) with
// halo buffers (the producer computed once per tile point into tile-sized, thread-local arrays).
// Run with OMP_NUM_THREADS=2; prints medians of 21 runs and the largest difference of results.
#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>
static const long I = 256, J = 256, K = 80;
#define U(i, j, k) u[((i) * (J + 4) + (j)) * K + (k)]
static inline double lapf(const double* __restrict__ u, long i, long j, long k) {
  return 4.0 * U(i, j, k) - (U(i - 1, j, k) + U(i + 1, j, k) + U(i, j - 1, k) + U(i, j + 1, k));
}
void recompute(const double* __restrict__ u, const double* __restrict__ c, double* __restrict__ out) {
#pragma omp parallel for collapse(2)
  for (long i = 0; i < I; ++i)
    for (long j = 0; j < J; ++j)
#pragma omp simd
      for (long k = 0; k < K; ++k) {
        long ii = i + 2, jj = j + 2;
        double l = lapf(u, ii, jj, k), lip = lapf(u, ii + 1, jj, k), lim = lapf(u, ii - 1, jj, k);
        double ljp = lapf(u, ii, jj + 1, k), ljm = lapf(u, ii, jj - 1, k);
        double fx = lip - l;
        fx = fx * (U(ii + 1, jj, k) - U(ii, jj, k)) > 0 ? 0.0 : fx;
        double fxm = l - lim;
        fxm = fxm * (U(ii, jj, k) - U(ii - 1, jj, k)) > 0 ? 0.0 : fxm;
        double fy = ljp - l;
        fy = fy * (U(ii, jj + 1, k) - U(ii, jj, k)) > 0 ? 0.0 : fy;
        double fym = l - ljm;
        fym = fym * (U(ii, jj, k) - U(ii, jj - 1, k)) > 0 ? 0.0 : fym;
        out[(i * J + j) * K + k] = U(ii, jj, k) - c[(i * J + j) * K + k] * (fx - fxm + fy - fym);
      }
}
template <long TI, long TJ>
void tiled(const double* __restrict__ u, const double* __restrict__ c, double* __restrict__ out) {
#pragma omp parallel
  {
    std::vector<double> lap((TI + 2) * (TJ + 2) * K), flx((TI + 1) * TJ * K), fly(TI * (TJ + 1) * K);
#pragma omp for collapse(2)
    for (long ti = 0; ti < I; ti += TI)
      for (long tj = 0; tj < J; tj += TJ) {
        double* __restrict__ L = lap.data();
        double* __restrict__ FX = flx.data();
        double* __restrict__ FY = fly.data();
        for (long a = 0; a < TI + 2; ++a)
          for (long b = 0; b < TJ + 2; ++b)
#pragma omp simd
            for (long k = 0; k < K; ++k) L[(a * (TJ + 2) + b) * K + k] = lapf(u, ti + a + 1, tj + b + 1, k);
        for (long a = 0; a < TI + 1; ++a)
          for (long b = 0; b < TJ; ++b)
#pragma omp simd
            for (long k = 0; k < K; ++k) {
              long ii = ti + a + 1, jj = tj + b + 2;
              double f = L[((a + 1) * (TJ + 2) + b + 1) * K + k] - L[(a * (TJ + 2) + b + 1) * K + k];
              FX[(a * TJ + b) * K + k] = f * (U(ii + 1, jj, k) - U(ii, jj, k)) > 0 ? 0.0 : f;
            }
        for (long a = 0; a < TI; ++a)
          for (long b = 0; b < TJ + 1; ++b)
#pragma omp simd
            for (long k = 0; k < K; ++k) {
              long ii = ti + a + 2, jj = tj + b + 1;
              double f = L[((a + 1) * (TJ + 2) + b + 1) * K + k] - L[((a + 1) * (TJ + 2) + b) * K + k];
              FY[(a * (TJ + 1) + b) * K + k] = f * (U(ii, jj + 1, k) - U(ii, jj, k)) > 0 ? 0.0 : f;
            }
        for (long a = 0; a < TI; ++a)
          for (long b = 0; b < TJ; ++b)
#pragma omp simd
            for (long k = 0; k < K; ++k) {
              long i = ti + a, j = tj + b;
              double d = FX[((a + 1) * TJ + b) * K + k] - FX[(a * TJ + b) * K + k] +
                         FY[(a * (TJ + 1) + b + 1) * K + k] - FY[(a * (TJ + 1) + b) * K + k];
              out[(i * J + j) * K + k] = U(i + 2, j + 2, k) - c[(i * J + j) * K + k] * d;
            }
      }
  }
}
int main() {
  std::vector<double> u((I + 4) * (J + 4) * K), c(I * J * K), o1(I * J * K), o2(I * J * K), o3(I * J * K);
  for (size_t k = 0; k < u.size(); ++k) u[k] = ((k * 2654435761u) % 1000) / 1000.0;
  for (size_t k = 0; k < c.size(); ++k) c[k] = ((k * 2654435761u + 7) % 1000) / 1000.0;
  auto T = [](auto f) {
    auto a = std::chrono::steady_clock::now();
    f();
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - a).count() * 1e3;
  };
  std::vector<double> a, b, d;
  for (int r = 0; r < 21; ++r) {
    a.push_back(T([&] { recompute(u.data(), c.data(), o1.data()); }));
    b.push_back(T([&] { tiled<8, 32>(u.data(), c.data(), o2.data()); }));
    d.push_back(T([&] { tiled<16, 16>(u.data(), c.data(), o3.data()); }));
  }
  double md = 0;
  for (size_t k = 0; k < o1.size(); ++k)
    md = std::max(md, std::max(std::abs(o1[k] - o2[k]), std::abs(o1[k] - o3[k])));
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  std::sort(d.begin(), d.end());
  std::printf("recompute %.2f ms, tiled 8x32 %.2f ms, tiled 16x16 %.2f ms (medians), maxdiff %g\n", a[10],
              b[10], d[10], md);
}
