// The hand-written kernels (bench/hand/) against plain loop nests written the obvious way
// (whole temporaries, no tiling, no blocking), and the periodic mesh's tables against the
// properties every triangulation of a torus has. Sizes are odd so that partial tiles and
// column blocks are exercised.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <vector>

#include "../hand/hand_kernels.h"
#include "../src/periodic_mesh.h"

using namespace weir::bench;
using i64 = std::int64_t;
using Vec = std::vector<double>;

namespace {

Vec random_vec(std::size_t n, unsigned seed, double lo = 0.0, double hi = 1.0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  Vec v(n);
  for (double& x : v) x = d(rng);
  return v;
}

double max_rel_diff(const Vec& a, const Vec& b) {
  double diff = 0, scale = 0;
  for (std::size_t i = 0; i < a.size(); ++i) {
    diff = std::max(diff, std::abs(a[i] - b[i]));
    scale = std::max(scale, std::abs(b[i]));
  }
  return diff / scale;
}

// Cartesian test grid: interior ni x nj x nk, halo h in I and J.
constexpr i64 NI = 19, NJ = 21, NK = 5;

struct Grid {
  i64 h, I, J, K;
  explicit Grid(i64 h_, i64 kh = 0) : h(h_), I(NI + 2 * h_), J(NJ + 2 * h_), K(NK + 2 * kh) {}
  i64 at(i64 i, i64 j, i64 k) const { return ((i + h) * J + (j + h)) * K + k; }
  hand::Strides3 strides() const { return {J * K, K}; }
};

Vec naive_lap(const Vec& f, const Grid& g, i64 lo_i, i64 hi_i, i64 lo_j, i64 hi_j) {
  Vec out(f.size(), 0.0);
  for (i64 i = lo_i; i < hi_i; ++i)
    for (i64 j = lo_j; j < hi_j; ++j)
      for (i64 k = 0; k < NK; ++k)
        out[g.at(i, j, k)] = -4.0 * f[g.at(i, j, k)] + f[g.at(i + 1, j, k)] + f[g.at(i - 1, j, k)] +
                             f[g.at(i, j + 1, k)] + f[g.at(i, j - 1, k)];
  return out;
}

}  // namespace

TEST_CASE("hand: laplacian and the fused 13-point laplap match plain loops", "[bench][hand]") {
  Grid g(2);
  Vec f = random_vec(g.I * g.J * g.K, 1);
  Vec lap1 = naive_lap(f, g, -1, NI + 1, -1, NJ + 1);
  Vec want = naive_lap(lap1, g, 0, NI, 0, NJ);
  Vec got(f.size(), 0.0), got_lap(f.size(), 0.0);
  const i64 o = g.at(0, 0, 0);
  hand::laplap(f.data() + o, g.strides(), got.data() + o, g.strides(), NI, NJ, NK);
  hand::laplacian(f.data() + o, g.strides(), got_lap.data() + o, g.strides(), NI, NJ, NK);
  Vec want_lap = naive_lap(f, g, 0, NI, 0, NJ);
  CHECK(max_rel_diff(got, want) < 1e-14);
  CHECK(got_lap == want_lap);
}

TEST_CASE("hand: tiled hdiff matches npbench's formulation with whole temporaries", "[bench][hand]") {
  Grid g(2);
  Vec u = random_vec(g.I * g.J * g.K, 2), coeff = random_vec(g.I * g.J * g.K, 3);
  // lap on [-1, NI] x [-1, NJ]; flx on [-1, NI) x [0, NJ); fly on [0, NI) x [-1, NJ).
  auto L = naive_lap(u, g, -1, NI + 1, -1, NJ + 1);
  for (double& x : L) x = -x;  // hdiff's Laplacian is 4u - neighbours
  Vec flx(u.size()), fly(u.size()), want(u.size(), 0.0);
  for (i64 i = -1; i < NI; ++i)
    for (i64 j = -1; j < NJ; ++j)
      for (i64 k = 0; k < NK; ++k) {
        double r = L[g.at(i + 1, j, k)] - L[g.at(i, j, k)];
        flx[g.at(i, j, k)] = r * (u[g.at(i + 1, j, k)] - u[g.at(i, j, k)]) > 0 ? 0.0 : r;
        double s = L[g.at(i, j + 1, k)] - L[g.at(i, j, k)];
        fly[g.at(i, j, k)] = s * (u[g.at(i, j + 1, k)] - u[g.at(i, j, k)]) > 0 ? 0.0 : s;
      }
  for (i64 i = 0; i < NI; ++i)
    for (i64 j = 0; j < NJ; ++j)
      for (i64 k = 0; k < NK; ++k) {
        i64 c = g.at(i, j, k);
        want[c] = u[c] - coeff[c] * (flx[c] - flx[g.at(i - 1, j, k)] + fly[c] - fly[g.at(i, j - 1, k)]);
      }
  Vec got(u.size(), 0.0);
  const i64 o = g.at(0, 0, 0);
  hand::hdiff(u.data() + o, g.strides(), coeff.data() + o, g.strides(), got.data() + o, g.strides(), NI, NJ,
              NK);
  CHECK(max_rel_diff(got, want) < 1e-14);
}

TEST_CASE("hand: heat3d step matches a plain loop nest", "[bench][hand]") {
  Grid g(1, 1);
  Vec f = random_vec(g.I * g.J * g.K, 4), got(f.size(), 0.0), want(f.size(), 0.0);
  auto at = [&](i64 i, i64 j, i64 k) { return g.at(i, j, k + 1); };
  for (i64 i = 0; i < NI; ++i)
    for (i64 j = 0; j < NJ; ++j)
      for (i64 k = 0; k < NK; ++k)
        want[at(i, j, k)] =
            f[at(i, j, k)] +
            0.1 * (f[at(i - 1, j, k)] + f[at(i + 1, j, k)] + f[at(i, j - 1, k)] + f[at(i, j + 1, k)] +
                   f[at(i, j, k - 1)] + f[at(i, j, k + 1)] - 6.0 * f[at(i, j, k)]);
  hand::heat3d(f.data() + at(0, 0, 0), g.strides(), got.data() + at(0, 0, 0), g.strides(), 0.1, NI, NJ, NK);
  CHECK(max_rel_diff(got, want) < 1e-15);
}

TEST_CASE("hand: blocked tridiagonal solve satisfies every column's equations", "[bench][hand]") {
  const i64 nk = 17, n = NI * NJ * nk;
  Vec a = random_vec(n, 5), b = random_vec(n, 6, 3.0, 4.0), c = random_vec(n, 7), d = random_vec(n, 8), x(n);
  hand::tridiagonal_solve(a.data(), b.data(), c.data(), d.data(), x.data(), NI, NJ, nk);
  double worst = 0;
  for (i64 col = 0; col < NI * NJ; ++col)
    for (i64 k = 0; k < nk; ++k) {
      i64 p = col * nk + k;
      double lhs = b[p] * x[p] + (k > 0 ? a[p] * x[p - 1] : 0.0) + (k < nk - 1 ? c[p] * x[p + 1] : 0.0);
      worst = std::max(worst, std::abs(lhs - d[p]));
    }
  CHECK(worst < 1e-13);
}

TEST_CASE("hand: laplace2d and jacobi_2d match numpy-style sweeps with copies", "[bench][hand]") {
  const i64 n = 23;
  auto sweep = [&](const Vec& src, Vec& dst, bool five) {
    Vec out = dst;
    for (i64 i = 1; i < n - 1; ++i)
      for (i64 j = 1; j < n - 1; ++j) {
        double s = src[(i - 1) * n + j] + src[(i + 1) * n + j] + src[i * n + j - 1] + src[i * n + j + 1];
        out[i * n + j] = five ? 0.2 * (s + src[i * n + j]) : 0.25 * s;
      }
    dst = out;
  };
  for (bool five : {false, true}) {
    Vec A = random_vec(n * n, 9), B = random_vec(n * n, 10), A2 = A, B2 = B;
    const i64 steps = five ? 4 - 1 : 4;
    for (i64 t = 0; t < steps; ++t) sweep(A, B, five), sweep(B, A, five);
    if (five)
      hand::jacobi2d(A2.data(), B2.data(), n, 4);
    else
      hand::laplace2d(A2.data(), B2.data(), n, 4);
    CHECK(max_rel_diff(A2, A) < 1e-14);
    CHECK(max_rel_diff(B2, B) < 1e-14);
  }
}

TEST_CASE("periodic mesh: tables of a triangulated torus", "[bench][mesh]") {
  PeriodicMesh m = make_periodic_mesh(5, 7);
  CHECK(m.n_vertices - m.n_edges + m.n_cells == 0);  // Euler characteristic of a torus
  // Every edge is in the V2E row of both its vertices, and each V2E row has 6 distinct edges.
  for (i64 e = 0; e < m.n_edges; ++e)
    for (int s = 0; s < 2; ++s) {
      i64 v = m.e2v[2 * e + s];
      CHECK(std::count(&m.v2e[6 * v], &m.v2e[6 * v] + 6, e) == 1);
    }
  for (i64 v = 0; v < m.n_vertices; ++v) CHECK(std::set<int>(&m.v2e[6 * v], &m.v2e[6 * v] + 6).size() == 6);
  // C2E2C is symmetric and C2E2CO starts with the cell itself.
  for (i64 c = 0; c < m.n_cells; ++c) {
    CHECK(m.c2e2co[4 * c] == c);
    for (int s = 0; s < 3; ++s) {
      i64 o = m.c2e2c[3 * c + s];
      CHECK(o != c);
      CHECK(std::count(&m.c2e2c[3 * o], &m.c2e2c[3 * o] + 3, c) == 1);
    }
  }
  // A cell's three edges share exactly three vertices (it is a triangle).
  for (i64 c = 0; c < m.n_cells; ++c) {
    std::set<int> vs;
    for (int s = 0; s < 3; ++s) vs.insert({m.e2v[2 * m.c2e[3 * c + s]], m.e2v[2 * m.c2e[3 * c + s] + 1]});
    CHECK(vs.size() == 3);
  }
  CHECK_THROWS_AS(make_periodic_mesh(2, 4), std::invalid_argument);
}

TEST_CASE("hand: nabla and the C2E2CO sum match edge-then-vertex loops", "[bench][hand]") {
  PeriodicMesh m = make_periodic_mesh(6, 5);
  const i64 nv = m.n_vertices, ne = m.n_edges, nc = m.n_cells, nk = 7;
  Vec pp = random_vec(nv * nk, 11), sx = random_vec(ne, 12), sy = random_vec(ne, 13),
      vol = random_vec(nv, 14, 1, 2);
  Vec sign(nv * 6);
  for (i64 v = 0; v < nv; ++v)
    for (int n = 0; n < 6; ++n) sign[v * 6 + n] = m.e2v[2 * m.v2e[v * 6 + n]] == v ? 1.0 : -1.0;
  // Edge pass, then vertex pass (gt4py's unfused order).
  Vec zx(ne * nk), zy(ne * nk), wx(nv * nk, 0.0), wy(nv * nk, 0.0);
  for (i64 e = 0; e < ne; ++e)
    for (i64 k = 0; k < nk; ++k) {
      double z = 0.5 * (pp[m.e2v[2 * e] * nk + k] + pp[m.e2v[2 * e + 1] * nk + k]);
      zx[e * nk + k] = sx[e] * z, zy[e * nk + k] = sy[e] * z;
    }
  for (i64 v = 0; v < nv; ++v)
    for (int n = 0; n < 6; ++n)
      for (i64 k = 0; k < nk; ++k) {
        i64 e = m.v2e[v * 6 + n];
        wx[v * nk + k] += zx[e * nk + k] * sign[v * 6 + n];
        wy[v * nk + k] += zy[e * nk + k] * sign[v * 6 + n];
      }
  for (i64 v = 0; v < nv; ++v)
    for (i64 k = 0; k < nk; ++k) wx[v * nk + k] /= vol[v], wy[v * nk + k] /= vol[v];
  Vec f = random_vec(nc * nk, 15), w = random_vec(nc * 4, 16), want(nc * nk, 0.0);
  for (i64 c = 0; c < nc; ++c)
    for (int n = 0; n < 4; ++n)
      for (i64 k = 0; k < nk; ++k) want[c * nk + k] += w[c * 4 + n] * f[m.c2e2co[c * 4 + n] * nk + k];
  // Both ways of storing the columns (in place; buffered with non-temporal stores), with
  // columns of 7 levels (unaligned, shorter than a vector) as above.
  for (hand::Stores stores : {hand::Stores::Plain, hand::Stores::Streaming}) {
    INFO("streaming stores: " << (stores == hand::Stores::Streaming));
    Vec gx(nv * nk, -1.0), gy(nv * nk, -1.0);
    hand::nabla(pp.data(), sx.data(), sy.data(), sign.data(), vol.data(), m.e2v.data(), m.v2e.data(), 6,
                gx.data(), gy.data(), nv, nk, stores);
    CHECK(max_rel_diff(gx, wx) < 1e-14);
    CHECK(max_rel_diff(gy, wy) < 1e-14);
    Vec got(nc * nk, -1.0);
    hand::cell_neighbour_sum(f.data(), w.data(), m.c2e2co.data(), 4, got.data(), nc, nk, stores);
    CHECK(max_rel_diff(got, want) < 1e-14);
  }
}

TEST_CASE("hand: nabla and the C2E2CO sum skip missing neighbours", "[bench][hand]") {
  // Every third vertex loses its second edge, every fifth cell its third neighbour: those take
  // the edge-by-edge path, the others the one-pass path; both against plain loops that skip -1.
  PeriodicMesh m = make_periodic_mesh(6, 5);
  const i64 nv = m.n_vertices, ne = m.n_edges, nc = m.n_cells, nk = 9;
  std::vector<std::int32_t> v2e = m.v2e, c2e2co = m.c2e2co;
  for (i64 v = 0; v < nv; v += 3) v2e[v * 6 + 1] = -1;
  for (i64 c = 0; c < nc; c += 5) c2e2co[c * 4 + 2] = -1;
  Vec pp = random_vec(nv * nk, 31), sx = random_vec(ne, 32), sy = random_vec(ne, 33),
      vol = random_vec(nv, 34, 1, 2), sign = random_vec(nv * 6, 35);
  Vec wx(nv * nk, 0.0), wy(nv * nk, 0.0);
  for (i64 v = 0; v < nv; ++v)
    for (int n = 0; n < 6; ++n) {
      const i64 e = v2e[v * 6 + n];
      if (e < 0) continue;
      for (i64 k = 0; k < nk; ++k) {
        const double z = 0.5 * (pp[m.e2v[2 * e] * nk + k] + pp[m.e2v[2 * e + 1] * nk + k]);
        wx[v * nk + k] += sx[e] * z * sign[v * 6 + n];
        wy[v * nk + k] += sy[e] * z * sign[v * 6 + n];
      }
    }
  for (i64 i = 0; i < nv * nk; ++i) wx[i] /= vol[i / nk], wy[i] /= vol[i / nk];
  Vec f = random_vec(nc * nk, 36), w = random_vec(nc * 4, 37), want(nc * nk, 0.0);
  for (i64 c = 0; c < nc; ++c)
    for (int n = 0; n < 4; ++n)
      if (c2e2co[c * 4 + n] >= 0)
        for (i64 k = 0; k < nk; ++k) want[c * nk + k] += w[c * 4 + n] * f[c2e2co[c * 4 + n] * nk + k];
  for (hand::Stores stores : {hand::Stores::Plain, hand::Stores::Streaming}) {
    INFO("streaming stores: " << (stores == hand::Stores::Streaming));
    Vec gx(nv * nk, -1.0), gy(nv * nk, -1.0), got(nc * nk, -1.0);
    hand::nabla(pp.data(), sx.data(), sy.data(), sign.data(), vol.data(), m.e2v.data(), v2e.data(), 6,
                gx.data(), gy.data(), nv, nk, stores);
    CHECK(max_rel_diff(gx, wx) < 1e-14);
    CHECK(max_rel_diff(gy, wy) < 1e-14);
    hand::cell_neighbour_sum(f.data(), w.data(), c2e2co.data(), 4, got.data(), nc, nk, stores);
    CHECK(max_rel_diff(got, want) < 1e-14);
  }
}

TEST_CASE("hand: streamed columns of several vectors equal the plain ones bit for bit", "[bench][hand]") {
  // 37 levels: an aligned and an unaligned head, whole vectors and a tail in each column.
  PeriodicMesh m = make_periodic_mesh(5, 4);
  const i64 nv = m.n_vertices, ne = m.n_edges, nc = m.n_cells, nk = 37;
  Vec pp = random_vec(nv * nk, 21), sx = random_vec(ne, 22), sy = random_vec(ne, 23),
      vol = random_vec(nv, 24, 1, 2), sign = random_vec(nv * 6, 25);
  Vec px(nv * nk), py(nv * nk), qx(nv * nk), qy(nv * nk);
  hand::nabla(pp.data(), sx.data(), sy.data(), sign.data(), vol.data(), m.e2v.data(), m.v2e.data(), 6,
              px.data(), py.data(), nv, nk, hand::Stores::Plain);
  hand::nabla(pp.data(), sx.data(), sy.data(), sign.data(), vol.data(), m.e2v.data(), m.v2e.data(), 6,
              qx.data(), qy.data(), nv, nk, hand::Stores::Streaming);
  CHECK(px == qx);
  CHECK(py == qy);
  Vec f = random_vec(nc * nk, 26), w = random_vec(nc * 4, 27), a(nc * nk), b(nc * nk);
  hand::cell_neighbour_sum(f.data(), w.data(), m.c2e2co.data(), 4, a.data(), nc, nk, hand::Stores::Plain);
  hand::cell_neighbour_sum(f.data(), w.data(), m.c2e2co.data(), 4, b.data(), nc, nk, hand::Stores::Streaming);
  CHECK(a == b);
}
