// A periodic triangular mesh (a torus) and its connectivity tables, for the unstructured
// benchmarks.
//
// The tables come from weir::mesh::make_triangular_mesh (weir/mesh/triangular_mesh.h): nx x ny
// vertices on a periodic grid, every quad cut along a diagonal into two triangles. There are
// 3 edges and 2 cells per vertex, every vertex has 6 edges, every cell 3 edges and 3 neighbour
// cells, so no table holds -1.
#pragma once

#include <cstdint>
#include <vector>

namespace weir::bench {

struct PeriodicMesh {
  std::int64_t nx = 0, ny = 0;
  std::int64_t n_vertices = 0, n_edges = 0, n_cells = 0;
  /// C-order tables, int32: E2V (n_edges, 2), V2E (n_vertices, 6), C2E (n_cells, 3),
  /// E2C (n_edges, 2), C2E2C (n_cells, 3), C2E2CO (n_cells, 4: the cell itself, then C2E2C, as
  /// ICON orders it).
  std::vector<std::int32_t> e2v, v2e, c2e, e2c, c2e2c, c2e2co;
  /// Where the tables come from ("weir::mesh").
  const char* source = "";
};

/// The mesh with nx x ny vertices (nx, ny >= 3). Throws std::invalid_argument otherwise.
PeriodicMesh make_periodic_mesh(std::int64_t nx, std::int64_t ny);

}  // namespace weir::bench
