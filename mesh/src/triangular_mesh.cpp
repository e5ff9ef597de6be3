// The periodic triangular mesh: cells, edges and vertices by construction (see the header), the
// other tables derived from C2V, C2E and the edge directions.
#include "weir/mesh/triangular_mesh.h"

#include <stdexcept>

namespace weir::mesh {

namespace {

Connectivity table(std::string name, std::int64_t rows, std::int64_t cols) {
  Connectivity c;
  c.name = std::move(name);
  c.rows = rows;
  c.cols = cols;
  c.data.assign(static_cast<std::size_t>(rows * cols), -1);
  return c;
}

void set(Connectivity& c, std::int64_t row, std::int64_t col, std::int64_t value) {
  c.data[static_cast<std::size_t>(row * c.cols + col)] = static_cast<std::int32_t>(value);
}

}  // namespace

std::vector<const Connectivity*> TriangularMesh::tables() const {
  return {&c2e, &e2c, &e2v, &v2e, &c2v, &v2c, &e2c2v, &c2e2co, &e2c2eo};
}

const Connectivity& TriangularMesh::table(const std::string& name) const {
  for (const Connectivity* c : tables())
    if (c->name == name) return *c;
  throw std::invalid_argument("unknown connectivity '" + name +
                              "' (known: C2E, E2C, E2V, V2E, C2V, V2C, E2C2V, C2E2CO, E2C2EO)");
}

TriangularMesh make_triangular_mesh(int nx, int ny) {
  if (nx < kMinMeshSize || ny < kMinMeshSize)
    throw std::invalid_argument("a periodic triangular mesh needs nx, ny >= " + std::to_string(kMinMeshSize) +
                                ", got " + std::to_string(nx) + " x " + std::to_string(ny));
  const std::int64_t nv = static_cast<std::int64_t>(nx) * ny, ne = 3 * nv, nc = 2 * nv;
  if (ne > 2147483647)
    throw std::invalid_argument("a " + std::to_string(nx) + " x " + std::to_string(ny) + " mesh has " +
                                std::to_string(nv) + " vertices, " + std::to_string(ne) + " edges and " +
                                std::to_string(nc) + " cells: too many for int32 tables (at most " +
                                "2147483647 entities; edges are 3 nx ny)");
  TriangularMesh m;
  m.nx = nx;
  m.ny = ny;
  m.num_vertices = nv;
  m.num_edges = ne;
  m.num_cells = nc;
  auto v = [&](std::int64_t i, std::int64_t j) { return ((j % ny + ny) % ny) * nx + (i % nx + nx) % nx; };
  auto eh = [&](std::int64_t i, std::int64_t j) { return 3 * v(i, j) + 0; };  // to v(i+1, j)
  auto ev = [&](std::int64_t i, std::int64_t j) { return 3 * v(i, j) + 1; };  // to v(i, j+1)
  auto ed = [&](std::int64_t i, std::int64_t j) { return 3 * v(i, j) + 2; };  // to v(i+1, j+1)

  m.e2v = table("E2V", ne, 2);
  m.c2v = table("C2V", nc, 3);
  m.c2e = table("C2E", nc, 3);
  m.e2c = table("E2C", ne, 2);
  m.v2e = table("V2E", nv, 6);
  m.v2c = table("V2C", nv, 6);
  for (std::int64_t j = 0; j < ny; ++j)
    for (std::int64_t i = 0; i < nx; ++i) {
      std::int64_t q = v(i, j);
      set(m.e2v, eh(i, j), 0, q), set(m.e2v, eh(i, j), 1, v(i + 1, j));
      set(m.e2v, ev(i, j), 0, q), set(m.e2v, ev(i, j), 1, v(i, j + 1));
      set(m.e2v, ed(i, j), 0, q), set(m.e2v, ed(i, j), 1, v(i + 1, j + 1));
      std::int64_t lower = 2 * q, upper = 2 * q + 1;
      const std::int64_t lv[3] = {q, v(i + 1, j), v(i + 1, j + 1)};
      const std::int64_t uv[3] = {q, v(i + 1, j + 1), v(i, j + 1)};
      // Edge k runs from vertex k to k+1; `forward`: in the edge's own direction.
      const std::int64_t le[3] = {eh(i, j), ev(i + 1, j), ed(i, j)};
      const bool lf[3] = {true, true, false};
      const std::int64_t ue[3] = {ed(i, j), eh(i, j + 1), ev(i, j)};
      const bool uf[3] = {true, false, false};
      for (int k = 0; k < 3; ++k) {
        set(m.c2v, lower, k, lv[k]), set(m.c2v, upper, k, uv[k]);
        set(m.c2e, lower, k, le[k]), set(m.c2e, upper, k, ue[k]);
        set(m.e2c, le[k], lf[k] ? 0 : 1, lower);
        set(m.e2c, ue[k], uf[k] ? 0 : 1, upper);
      }
      const std::int64_t ve[6] = {eh(i, j), ed(i, j), ev(i, j), eh(i - 1, j), ed(i - 1, j - 1), ev(i, j - 1)};
      const std::int64_t vc[6] = {2 * v(i, j),         2 * v(i, j) + 1,
                                  2 * v(i - 1, j),     2 * v(i - 1, j - 1) + 1,
                                  2 * v(i - 1, j - 1), 2 * v(i, j - 1) + 1};
      for (int k = 0; k < 6; ++k) set(m.v2e, q, k, ve[k]), set(m.v2c, q, k, vc[k]);
    }

  // Derived tables.
  auto opposite = [&](std::int64_t cell, std::int64_t edge) {  // the vertex of `cell` not on `edge`
    for (int k = 0; k < 3; ++k)
      if (m.c2e.at(cell, k) == edge) return static_cast<std::int64_t>(m.c2v.at(cell, (k + 2) % 3));
    throw std::logic_error("mesh: edge not in cell");
  };
  auto across = [&](std::int64_t cell, std::int64_t edge) {  // the other cell of `edge`
    return m.e2c.at(edge, 0) == cell ? m.e2c.at(edge, 1) : m.e2c.at(edge, 0);
  };
  m.e2c2v = table("E2C2V", ne, 4);
  m.e2c2eo = table("E2C2EO", ne, 5);
  for (std::int64_t e = 0; e < ne; ++e) {
    set(m.e2c2v, e, 0, m.e2v.at(e, 0));
    set(m.e2c2v, e, 1, m.e2v.at(e, 1));
    set(m.e2c2eo, e, 0, e);  // the origin first, as ICON's E2C2EO
    int col = 1;
    for (int s = 0; s < 2; ++s) {
      std::int64_t c = m.e2c.at(e, s);
      set(m.e2c2v, e, 2 + s, opposite(c, e));
      for (int k = 0; k < 3; ++k)
        if (m.c2e.at(c, k) != e) set(m.e2c2eo, e, col++, m.c2e.at(c, k));
    }
  }
  m.c2e2co = table("C2E2CO", nc, 4);
  for (std::int64_t c = 0; c < nc; ++c) {
    set(m.c2e2co, c, 0, c);  // the origin first, as ICON's C2E2CO (geofac_n2s(:,1) is the cell's own)
    for (int k = 0; k < 3; ++k) set(m.c2e2co, c, 1 + k, across(c, m.c2e.at(c, k)));
  }
  return m;
}

}  // namespace weir::mesh
