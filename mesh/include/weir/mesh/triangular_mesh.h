// A periodic (doubly periodic, i.e. a torus) triangular mesh and its connectivity tables, as
// the offset providers of unstructured field-view programs expect them (gt4py's / ICON's
// names: E2V = for every edge its vertices, and so on).
//
// Construction: nx x ny vertices v(i, j) = j * nx + i on a periodic grid; every quad
// (i, j)..(i+1, j+1) is split along its diagonal v(i, j)-v(i+1, j+1) into a lower cell
// 2 * (j * nx + i) with vertices (v(i,j), v(i+1,j), v(i+1,j+1)) and an upper cell
// 2 * (j * nx + i) + 1 with vertices (v(i,j), v(i+1,j+1), v(i,j+1)), both counter-clockwise.
// Every vertex owns three edges, 3 * (j * nx + i) + {0: to v(i+1,j), 1: to v(i,j+1),
// 2: to v(i+1,j+1)}. So there are nx*ny vertices, 3*nx*ny edges and 2*nx*ny cells (V - E + C = 0,
// the Euler characteristic of a torus), and no table has missing (-1) entries.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weir::mesh {

/// One connectivity table: `rows` x `cols` int32 entries, row-major (numpy C order).
struct Connectivity {
  std::string name;
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  std::vector<std::int32_t> data;
  std::int32_t at(std::int64_t row, std::int64_t col) const {
    return data[static_cast<std::size_t>(row * cols + col)];
  }
};

/// The tables of a triangular mesh. Orders within a row:
///  - C2V (nc, 3): the cell's vertices counter-clockwise (lower cell starts at v(i,j)).
///  - C2E (nc, 3): entry k is the edge from C2V[k] to C2V[(k+1) % 3].
///  - E2V (ne, 2): the edge's start and end vertex (the direction of the edge).
///  - E2C (ne, 2): the cell left of the directed edge (which runs it counter-clockwise), then
///    the cell right of it.
///  - V2E (nv, 6), V2C (nv, 6): counter-clockwise around the vertex, starting with the edge
///    to v(i+1, j) and the cell between that edge and the next (the edges go to the east,
///    north-east, north, west, south-west and south neighbours).
///  - E2C2V (ne, 4): E2V[0], E2V[1], then the vertex of E2C[0] and of E2C[1] opposite the edge.
///  - C2E2CO (nc, 4): the cell itself, then the three cells across C2E[0], C2E[1], C2E[2]
///    (origin first, as in ICON and icon4py, where the origin's weight is the first entry).
///  - E2C2EO (ne, 5): the edge itself, then the other two edges of E2C[0] (in C2E order) and
///    of E2C[1].
struct TriangularMesh {
  int nx = 0, ny = 0;
  std::int64_t num_vertices = 0, num_edges = 0, num_cells = 0;
  Connectivity c2e, e2c, e2v, v2e, c2v, v2c, e2c2v, c2e2co, e2c2eo;

  /// All tables, in the order above (C2E first).
  std::vector<const Connectivity*> tables() const;
  /// The table named `name` ("C2E", ...); throws std::invalid_argument for an unknown name.
  const Connectivity& table(const std::string& name) const;
};

/// The smallest nx and ny: below 3, two edges join the same two vertices and cells meet
/// themselves across the periodic boundary.
inline constexpr int kMinMeshSize = 3;

/// Builds the periodic triangular mesh of nx x ny vertices. Throws std::invalid_argument if nx
/// or ny is below kMinMeshSize or the mesh has more than 2^31 - 1 edges.
TriangularMesh make_triangular_mesh(int nx, int ny);

}  // namespace weir::mesh
