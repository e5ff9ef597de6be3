#include "periodic_mesh.h"

#include <stdexcept>

#ifdef WEIR_BENCH_HAVE_MESH
#include "weir/mesh/triangular_mesh.h"
#endif

namespace weir::bench {

#ifdef WEIR_BENCH_HAVE_MESH

PeriodicMesh make_periodic_mesh(std::int64_t nx, std::int64_t ny) {
  mesh::TriangularMesh t = mesh::make_triangular_mesh(static_cast<int>(nx), static_cast<int>(ny));
  PeriodicMesh m;
  m.source = "weir::mesh";
  m.nx = nx;
  m.ny = ny;
  m.n_vertices = t.num_vertices;
  m.n_edges = t.num_edges;
  m.n_cells = t.num_cells;
  m.e2v = t.e2v.data;
  m.v2e = t.v2e.data;
  m.c2e = t.c2e.data;
  m.e2c = t.e2c.data;
  m.c2e2co = t.c2e2co.data;
  m.c2e2c.resize(3 * m.n_cells);
  for (std::int64_t c = 0; c < m.n_cells; ++c)
    for (int s = 0; s < 3; ++s) m.c2e2c[3 * c + s] = m.c2e2co[4 * c + s];
  return m;
}

#else

// Stand-in until weir's mesh layer is merged (then this branch is dead and can be removed).
PeriodicMesh make_periodic_mesh(std::int64_t nx, std::int64_t ny) {
  if (nx < 3 || ny < 3) throw std::invalid_argument("periodic mesh needs at least 3 x 3 vertices");
  PeriodicMesh m;
  m.source = "bench stand-in";
  m.nx = nx;
  m.ny = ny;
  m.n_vertices = nx * ny;
  m.n_edges = 3 * nx * ny;
  m.n_cells = 2 * nx * ny;
  auto V = [&](std::int64_t i, std::int64_t j) {
    return static_cast<std::int32_t>(((i % nx + nx) % nx) * ny + (j % ny + ny) % ny);
  };
  // Edge t of vertex (i, j): 0 = (i,j)-(i+1,j), 1 = (i,j)-(i,j+1), 2 = (i+1,j)-(i,j+1).
  auto E = [&](std::int64_t i, std::int64_t j, int t) { return 3 * V(i, j) + t; };
  // Cell t of quad (i, j): 0 = lower (i,j),(i+1,j),(i,j+1); 1 = upper (i+1,j),(i+1,j+1),(i,j+1).
  auto C = [&](std::int64_t i, std::int64_t j, int t) { return 2 * V(i, j) + t; };
  m.e2v.resize(2 * m.n_edges);
  m.v2e.resize(6 * m.n_vertices);
  m.c2e.resize(3 * m.n_cells);
  m.e2c.resize(2 * m.n_edges);
  for (std::int64_t i = 0; i < nx; ++i)
    for (std::int64_t j = 0; j < ny; ++j) {
      const std::int32_t e0 = E(i, j, 0), e1 = E(i, j, 1), e2 = E(i, j, 2);
      m.e2v[2 * e0] = V(i, j), m.e2v[2 * e0 + 1] = V(i + 1, j);
      m.e2v[2 * e1] = V(i, j), m.e2v[2 * e1 + 1] = V(i, j + 1);
      m.e2v[2 * e2] = V(i + 1, j), m.e2v[2 * e2 + 1] = V(i, j + 1);
      std::int32_t* ve = &m.v2e[6 * V(i, j)];
      ve[0] = e0, ve[1] = e1, ve[2] = E(i - 1, j, 0), ve[3] = E(i, j - 1, 1), ve[4] = E(i - 1, j, 2),
      ve[5] = E(i, j - 1, 2);
      const std::int32_t lo = C(i, j, 0), up = C(i, j, 1);
      std::int32_t* cl = &m.c2e[3 * lo];
      cl[0] = e0, cl[1] = e2, cl[2] = e1;
      std::int32_t* cu = &m.c2e[3 * up];
      cu[0] = E(i + 1, j, 1), cu[1] = E(i, j + 1, 0), cu[2] = e2;
    }
  // E2C from C2E: each edge is on exactly two cells.
  std::vector<int> seen(m.n_edges, 0);
  for (std::int64_t c = 0; c < m.n_cells; ++c)
    for (int s = 0; s < 3; ++s) {
      std::int32_t e = m.c2e[3 * c + s];
      if (seen[e] >= 2) throw std::logic_error("periodic mesh: edge on more than two cells");
      m.e2c[2 * e + seen[e]++] = static_cast<std::int32_t>(c);
    }
  m.c2e2c.resize(3 * m.n_cells);
  m.c2e2co.resize(4 * m.n_cells);
  for (std::int64_t c = 0; c < m.n_cells; ++c) {
    m.c2e2co[4 * c + 3] = static_cast<std::int32_t>(c);
    for (int s = 0; s < 3; ++s) {
      std::int32_t e = m.c2e[3 * c + s];
      std::int32_t other = m.e2c[2 * e] == c ? m.e2c[2 * e + 1] : m.e2c[2 * e];
      m.c2e2c[3 * c + s] = other;
      m.c2e2co[4 * c + s] = other;
    }
  }
  return m;
}

#endif

}  // namespace weir::bench
