// Hand-written C++/OpenMP versions of the benchmarked stencils, written as a performance
// engineer would write them for these data layouts: loops fused, the unit-stride dimension
// innermost (vectorized), outer loops parallel with OpenMP, and no temporaries beyond what the
// algorithm needs (small per-thread tiles that stay in cache). They are the yardstick weir's
// generated code is compared with, and they double as the reference the benchmark checks
// every variant's output against.
//
// Layouts: Cartesian fields are C-order (I, J, K) arrays of float64 with K unit-stride, as
// weir's lowering and the corpus SDFGs lay them out. Pointers point at element (0, 0, 0) of the
// domain a kernel computes; `*_si` / `*_sj` are the strides of I and J in elements, so halos
// are reached with negative offsets. 2-D arrays are C-order (N, N). Unstructured fields are
// C-order (location, K); connectivity tables are C-order int32 (location, max_neighbours) with
// -1 for a missing neighbour.
//
// Compiled with the flags weir uses for generated programs (-O3 -march=native -fopenmp, ISO
// C++ so no FMA contraction), as a separate library of the bench build.
#pragma once

#include <cstdint>

namespace weir::bench::hand {

/// Strides of a 3-D C-order array with unit-stride K.
struct Strides3 {
  std::int64_t si = 0, sj = 0;
};

/// out = -4 f + f(i+1) + f(i-1) + f(j+1) + f(j-1) over ni x nj x nk (field-view `lap`).
void laplacian(const double* f, Strides3 fs, double* out, Strides3 os, std::int64_t ni, std::int64_t nj,
               std::int64_t nk);

/// out = lap(lap(f)) over ni x nj x nk, as the fused 13-point stencil
/// 20 f - 8 (axial neighbours) + 2 (diagonal neighbours) + (axial neighbours at distance 2).
void laplap(const double* f, Strides3 fs, double* out, Strides3 os, std::int64_t ni, std::int64_t nj,
            std::int64_t nk);

/// COSMO horizontal diffusion (examples/cartesian/hdiff.py, npbench hdiff): Laplacian, limited
/// fluxes in I and J, out = u - coeff * (flx - flx(i-1) + fly - fly(j-1)). `u` needs a halo of
/// 2 in I and J. The Laplacian is computed once per point into a per-thread tile buffer.
void hdiff(const double* u, Strides3 us, const double* coeff, Strides3 cs, double* out, Strides3 os,
           std::int64_t ni, std::int64_t nj, std::int64_t nk);

/// One explicit 3-D heat (7-point Jacobi) step on the interior:
/// out = f + alpha * (f(i-1) + f(i+1) + f(j-1) + f(j+1) + f(k-1) + f(k+1) - 6 f), over
/// ni x nj x nk points whose neighbours all exist (f has a halo of 1 in every dimension).
void heat3d(const double* f, Strides3 fs, double* out, Strides3 os, double alpha, std::int64_t ni,
            std::int64_t nj, std::int64_t nk);

/// Thomas algorithm per column (examples/cartesian/vertical_solver.py): forward sweep
/// c'_k = c_k / (b_k - a_k c'_{k-1}), d'_k = (d_k - a_k d'_{k-1}) / (b_k - a_k c'_{k-1}),
/// backward x_k = d'_k - c'_k x_{k+1}. All arrays dense (ni, nj, nk); each thread solves
/// blocks of neighbouring columns together so the division chains of different columns overlap.
void tridiagonal_solve(const double* a, const double* b, const double* c, const double* d, double* x,
                       std::int64_t ni, std::int64_t nj, std::int64_t nk);

/// laplace2d (corpus): `tsteps` times B[1:-1,1:-1] = 0.25 (4 neighbours of A), then the same from
/// B into A. A and B are (n, n).
void laplace2d(double* A, double* B, std::int64_t n, std::int64_t tsteps);

/// jacobi_2d (npbench/polybench): for t in 1..tsteps-1: B = 0.2 (5-point of A), A = 0.2 (5-point
/// of B) on the interior. A and B are (n, n).
void jacobi2d(double* A, double* B, std::int64_t n, std::int64_t tsteps);

/// How the unstructured kernels store an output column: `Plain` writes it in place (each cache
/// line is read from memory before it is written, write-allocate); `Streaming` computes it into a
/// buffer of the thread and copies that with non-temporal stores, which write whole lines without
/// reading them (as weir's generated code does for rows written once, docs/adr/0041). The
/// values are the same.
enum class Stores { Plain, Streaming };

/// Nabla of a vertex field (examples/unstructured/nabla.py), fused over vertices: for every
/// vertex, its edges' averages 0.5 (pp(v0) + pp(v1)) weighted by S_MXX/S_MYY and the sign, summed,
/// divided by vol. pp, out_x, out_y: (nv, nk); S_MXX, S_MYY: (ne); sign: (nv, v2e_max);
/// vol: (nv); e2v: (ne, 2); v2e: (nv, v2e_max).
void nabla(const double* pp, const double* S_MXX, const double* S_MYY, const double* sign, const double* vol,
           const std::int32_t* e2v, const std::int32_t* v2e, std::int64_t v2e_max, double* out_x,
           double* out_y, std::int64_t nv, std::int64_t nk, Stores stores = Stores::Streaming);

/// Weighted neighbour sum over C2E2CO (a cell and its edge neighbours):
/// out(c, k) = sum_n w(c, n) f(c2e2co(c, n), k), skipping -1 entries. f, out: (nc, nk);
/// w, c2e2co: (nc, nmax).
void cell_neighbour_sum(const double* f, const double* w, const std::int32_t* c2e2co, std::int64_t nmax,
                        double* out, std::int64_t nc, std::int64_t nk, Stores stores = Stores::Streaming);

/// STREAM copy a = b and triad a = b + s c over n elements, OpenMP static schedule.
void stream_copy(double* a, const double* b, std::int64_t n);
void stream_triad(double* a, const double* b, const double* c, double s, std::int64_t n);
/// Parallel first-touch fill with the same static schedule as the probes.
void stream_fill(double* a, double value, std::int64_t n);

}  // namespace weir::bench::hand
