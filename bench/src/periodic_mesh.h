// A periodic triangular mesh (a torus) and its connectivity tables, for the unstructured
// benchmarks.
//
// TO BE REPLACED by weir's mesh layer (weir/mesh/triangular_mesh.h) once it is merged; this
// generator exists only so that the hand-written unstructured kernels can run before then.
//
// nx x ny vertices on a periodic grid; every quad (i, j)-(i+1, j+1) is cut along its
// (i+1, j)-(i, j+1) diagonal into two triangles. 3 edges and 2 cells per vertex; every vertex
// has 6 edges, every cell 3 edges and 3 neighbour cells, so no table holds -1.
#pragma once

#include <cstdint>
#include <vector>

namespace weir::bench {

struct PeriodicMesh {
  std::int64_t nx = 0, ny = 0;
  std::int64_t n_vertices = 0, n_edges = 0, n_cells = 0;
  /// C-order tables, int32: E2V (n_edges, 2), V2E (n_vertices, 6), C2E (n_cells, 3),
  /// E2C (n_edges, 2), C2E2C (n_cells, 3), C2E2CO (n_cells, 4: the cell itself, then C2E2C).
  std::vector<std::int32_t> e2v, v2e, c2e, e2c, c2e2c, c2e2co;
};

/// The mesh with nx x ny vertices (nx, ny >= 2). Throws std::invalid_argument otherwise.
PeriodicMesh make_periodic_mesh(std::int64_t nx, std::int64_t ny);

}  // namespace weir::bench
