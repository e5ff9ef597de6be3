#include "periodic_mesh.h"

#include <stdexcept>

#include "weir/mesh/triangular_mesh.h"

namespace weir::bench {

PeriodicMesh make_periodic_mesh(std::int64_t nx, std::int64_t ny) {
  if (nx < 3 || ny < 3) throw std::invalid_argument("periodic mesh needs at least 3 x 3 vertices");
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
  // C2E2C: C2E2CO without its first column (the origin).
  m.c2e2c.resize(3 * m.n_cells);
  for (std::int64_t c = 0; c < m.n_cells; ++c)
    for (int s = 0; s < 3; ++s) m.c2e2c[3 * c + s] = m.c2e2co[4 * c + 1 + s];
  return m;
}

}  // namespace weir::bench
