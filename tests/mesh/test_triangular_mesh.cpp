// The periodic triangular mesh: exact tables of a 3 x 3 mesh worked out by hand, and structural
// invariants on several sizes (Euler characteristic of the torus, every edge in two cells with
// opposite orientations, inverse tables consistent, rings ordered counter-clockwise).
#include <algorithm>
#include <catch2/catch.hpp>
#include <set>
#include <stdexcept>

#include "weir/mesh/triangular_mesh.h"

using namespace weir::mesh;

namespace {

std::vector<int> row(const Connectivity& c, std::int64_t r) {
  std::vector<int> out;
  for (std::int64_t k = 0; k < c.cols; ++k) out.push_back(c.at(r, k));
  return out;
}

}  // namespace

TEST_CASE("mesh: sizes and shapes of the tables", "[mesh]") {
  TriangularMesh m = make_triangular_mesh(4, 3);
  CHECK(m.num_vertices == 12);
  CHECK(m.num_edges == 36);
  CHECK(m.num_cells == 24);
  CHECK(m.num_vertices - m.num_edges + m.num_cells == 0);  // torus
  struct Shape {
    const char* name;
    std::int64_t rows, cols;
  };
  for (Shape s : {Shape{"C2E", 24, 3}, Shape{"E2C", 36, 2}, Shape{"E2V", 36, 2}, Shape{"V2E", 12, 6},
                  Shape{"C2V", 24, 3}, Shape{"V2C", 12, 6}, Shape{"E2C2V", 36, 4}, Shape{"C2E2CO", 24, 4},
                  Shape{"E2C2EO", 36, 5}}) {
    INFO(s.name);
    const Connectivity& c = m.table(s.name);
    CHECK(c.rows == s.rows);
    CHECK(c.cols == s.cols);
    CHECK(c.data.size() == static_cast<std::size_t>(s.rows * s.cols));
  }
  CHECK(m.tables().size() == 9);
  CHECK_THROWS_AS(m.table("V2V"), std::invalid_argument);
}

TEST_CASE("mesh: too small meshes are rejected", "[mesh]") {
  CHECK_THROWS_WITH(make_triangular_mesh(2, 5), Catch::Contains("nx, ny >= 3, got 2 x 5"));
  CHECK_THROWS_AS(make_triangular_mesh(3, 0), std::invalid_argument);
  CHECK_NOTHROW(make_triangular_mesh(3, 3));
}

TEST_CASE("mesh: a mesh too large for int32 tables names its counts", "[mesh]") {
  // 100000 x 100000: 10^10 vertices, 3 x 10^10 edges, 2 x 10^10 cells (user31 G18: the message
  // said only "too large").
  CHECK_THROWS_WITH(make_triangular_mesh(100000, 100000),
                    "a 100000 x 100000 mesh has 10000000000 vertices, 30000000000 edges and 20000000000 "
                    "cells: too many for int32 tables (at most 2147483647 entities; edges are 3 nx ny)");
  // The largest square mesh that fits: 3 x 26754^2 = 2147329548 edges <= 2^31 - 1 < 3 x 26755^2.
  CHECK_THROWS_AS(make_triangular_mesh(26755, 26755), std::invalid_argument);
}

TEST_CASE("mesh: the 3 x 3 mesh, worked out by hand", "[mesh]") {
  // Vertices v(i, j) = 3 j + i; vertex 4 = v(1, 1) owns edges 12 (to v(2,1) = 5), 13 (to
  // v(1,2) = 7), 14 (to v(2,2) = 8); quad (1, 1) has cells 8 (lower: 4, 5, 8) and 9 (upper:
  // 4, 8, 7).
  TriangularMesh m = make_triangular_mesh(3, 3);
  CHECK(row(m.e2v, 12) == std::vector<int>{4, 5});
  CHECK(row(m.e2v, 13) == std::vector<int>{4, 7});
  CHECK(row(m.e2v, 14) == std::vector<int>{4, 8});
  CHECK(row(m.e2v, 6) == std::vector<int>{2, 0});  // v(2,0) -> v(0,0) across the periodic boundary
  CHECK(row(m.e2v, 8) == std::vector<int>{2, 3});  // v(2,0) -> v(0,1)
  CHECK(row(m.c2v, 8) == std::vector<int>{4, 5, 8});
  CHECK(row(m.c2v, 9) == std::vector<int>{4, 8, 7});
  // lower cell 8: edges 4->5 (12), 5->8 (v(2,1)'s edge to v(2,2): 3*5+1 = 16), 8->4 (14)
  CHECK(row(m.c2e, 8) == std::vector<int>{12, 16, 14});
  // upper cell 9: 4->8 (14), 8->7 (v(1,2)'s edge to v(2,2): 3*7+0 = 21), 7->4 (13)
  CHECK(row(m.c2e, 9) == std::vector<int>{14, 21, 13});
  // edge 14 (4 -> 8) runs counter-clockwise in the upper cell 9, clockwise in the lower cell 8
  CHECK(row(m.e2c, 14) == std::vector<int>{9, 8});
  // edge 12 (4 -> 5): left is lower cell 8, right is the upper cell of quad (1, 0): 2*1+1 = 3
  CHECK(row(m.e2c, 12) == std::vector<int>{8, 3});
  // around vertex 4: E 12, NE 14, N 13, W (v(0,1)=3 -> 4) 9, SW (v(0,0) -> 4) 2, S (v(1,0) -> 4) 4
  CHECK(row(m.v2e, 4) == std::vector<int>{12, 14, 13, 9, 2, 4});
  // cells between them: lower(1,1)=8, upper(1,1)=9, lower(0,1)=6, upper(0,0)=1, lower(0,0)=0, upper(1,0)=3
  CHECK(row(m.v2c, 4) == std::vector<int>{8, 9, 6, 1, 0, 3});
  // diamond of edge 14: its vertices 4, 8, then 7 (opposite in cell 9) and 5 (opposite in cell 8)
  CHECK(row(m.e2c2v, 14) == std::vector<int>{4, 8, 7, 5});
  // cell 8 across edges 12, 16, 14: cell 3 (upper of quad (1,0)), cell 11 (edge 16 = v(2,1) ->
  // v(2,2) is the west edge of the upper cell of quad (2,1): 2*5+1), cell 9; 8 itself first
  CHECK(row(m.c2e2co, 8) == std::vector<int>{8, 3, 11, 9});
  // edge 14: itself first, then the other edges of cell 9 (21, 13) and of cell 8 (12, 16)
  CHECK(row(m.e2c2eo, 14) == std::vector<int>{14, 21, 13, 12, 16});
}

TEST_CASE("mesh: structural invariants", "[mesh]") {
  for (auto [nx, ny] : {std::pair{3, 3}, std::pair{4, 3}, std::pair{5, 7}}) {
    INFO(nx << " x " << ny);
    TriangularMesh m = make_triangular_mesh(nx, ny);
    for (const Connectivity* c : m.tables())
      for (std::int32_t x : c->data) {
        INFO(c->name);
        REQUIRE(x >= 0);
      }
    // Every edge is in exactly two cells, once in each direction; E2C lists them.
    std::vector<int> count(static_cast<std::size_t>(m.num_edges), 0);
    for (std::int64_t c = 0; c < m.num_cells; ++c)
      for (int k = 0; k < 3; ++k) {
        int e = m.c2e.at(c, k);
        ++count[static_cast<std::size_t>(e)];
        int from = m.c2v.at(c, k), to = m.c2v.at(c, (k + 1) % 3);
        bool forward = m.e2v.at(e, 0) == from && m.e2v.at(e, 1) == to;
        bool backward = m.e2v.at(e, 0) == to && m.e2v.at(e, 1) == from;
        REQUIRE((forward || backward));
        CHECK(m.e2c.at(e, forward ? 0 : 1) == c);
      }
    for (int n : count) CHECK(n == 2);
    // V2E / V2C are the inverses of E2V / C2V: each vertex in 6 edges and 6 cells.
    for (std::int64_t v = 0; v < m.num_vertices; ++v) {
      std::set<int> edges, cells;
      for (int k = 0; k < 6; ++k) {
        int e = m.v2e.at(v, k), c = m.v2c.at(v, k);
        CHECK((m.e2v.at(e, 0) == v || m.e2v.at(e, 1) == v));
        auto cv = row(m.c2v, c);
        CHECK(std::count(cv.begin(), cv.end(), static_cast<int>(v)) == 1);
        edges.insert(e);
        cells.insert(c);
        // counter-clockwise ring: cell k lies between edges k and k+1
        auto ce = row(m.c2e, c);
        CHECK(std::count(ce.begin(), ce.end(), e) == 1);
        CHECK(std::count(ce.begin(), ce.end(), m.v2e.at(v, (k + 1) % 6)) == 1);
      }
      CHECK(edges.size() == 6);
      CHECK(cells.size() == 6);
    }
    std::int64_t incidences = 0;
    for (std::int64_t e = 0; e < m.num_edges; ++e) {
      // E2C2V: edge vertices, then the third vertex of each adjacent cell.
      for (int s = 0; s < 2; ++s) {
        auto cv = row(m.c2v, m.e2c.at(e, s));
        int far = m.e2c2v.at(e, 2 + s);
        CHECK(std::count(cv.begin(), cv.end(), far) == 1);
        CHECK(far != m.e2v.at(e, 0));
        CHECK(far != m.e2v.at(e, 1));
      }
      CHECK(m.e2c2eo.at(e, 0) == e);
      std::set<int> ring(m.e2c2eo.data.begin() + e * 5, m.e2c2eo.data.begin() + e * 5 + 5);
      CHECK(ring.size() == 5);
      incidences += 2;
    }
    CHECK(incidences == 6 * m.num_vertices);  // sum of vertex degrees = 2 E
    for (std::int64_t c = 0; c < m.num_cells; ++c) {
      CHECK(m.c2e2co.at(c, 0) == c);
      for (int k = 0; k < 3; ++k) {
        int n = m.c2e2co.at(c, 1 + k), e = m.c2e.at(c, k);
        CHECK(n != c);
        CHECK((m.e2c.at(e, 0) == n || m.e2c.at(e, 1) == n));
      }
    }
  }
}
