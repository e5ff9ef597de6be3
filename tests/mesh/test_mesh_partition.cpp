// partition_mesh's halos for an orchestration (weir/mesh/partition.h; docs/adr/0060, section
// "2026-12-06, session 30"), on a ring of 6 cells and 6 edges partitioned by hand (no METIS):
// edge e joins cells e and e + 1, cells 0-2 are part 0's and 3-5 part 1's. With the calls'
// chains (a flux call writing edges through E2C, a divergence call writing cells through C2E)
// the halo holds only what each call reads; with every table from every entity (the rule before)
// part 0 also holds edges 3 and 4, which no call reads. Expected local rows, lists and local
// tables worked out by hand in the comments.
#include <catch2/catch.hpp>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "weir/mesh/partition.h"

using namespace weir::mesh;

namespace {

std::vector<PartitionTable> ring_tables() {
  PartitionTable e2c{"E2C", "Edge", "Cell", 6, 2, {}}, c2e{"C2E", "Cell", "Edge", 6, 2, {}};
  for (int k = 0; k < 6; ++k) {
    e2c.data.insert(e2c.data.end(), {k, (k + 1) % 6});  // the two cells of edge k
    c2e.data.insert(c2e.data.end(), {(k + 5) % 6, k});  // the edges of cell k: k - 1 and k
  }
  return {e2c, c2e};
}

const std::vector<int> kOwner{0, 0, 0, 1, 1, 1};  // cells 0-2: part 0, cells 3-5: part 1

std::vector<CallChains> ring_calls() { return {{{"Edge"}, {"E2C"}}, {{"Cell"}, {"C2E"}}}; }

}  // namespace

TEST_CASE("mesh: an orchestration's halo holds only the rows its calls' tables reach", "[mesh][partition]") {
  const MeshPartition m = partition_mesh(ring_tables(), "Cell", kOwner, 2, true, ring_calls());
  REQUIRE(m.parts.size() == 2);
  const Part& p0 = m.parts[0];
  const Part& p1 = m.parts[1];
  // Edge owners: the lowest part owning one of its cells: edges 0, 1, 2, 5 part 0, 3 and 4 part 1.
  // Part 0: the flux call reads through E2C from edges 0 1 2 5 the cells 0..3 and 5 (halo 3, 5);
  // the divergence call reads through C2E from cells 0 1 2 the edges 5 0 1 2 (all owned).
  CHECK(p0.entities.at("Cell").owned == 3);
  CHECK(p0.entities.at("Cell").global == std::vector<std::int32_t>{0, 1, 2, 3, 5});
  CHECK(p0.entities.at("Edge").owned == 4);
  CHECK(p0.entities.at("Edge").global == std::vector<std::int32_t>{0, 1, 2, 5});
  // Part 1: E2C from edges 3 4 reaches cells 3 4 5 (owned); C2E from cells 3 4 5 reaches edges
  // 2 3 4 5 (halo 2, 5).
  CHECK(p1.entities.at("Cell").global == std::vector<std::int32_t>{3, 4, 5});
  CHECK(p1.entities.at("Edge").owned == 2);
  CHECK(p1.entities.at("Edge").global == std::vector<std::int32_t>{3, 4, 2, 5});
  // Lists: part 0 receives cells 3, 5 (local 3, 4) that part 1 sends from its local 0, 2; part 1
  // receives edges 2, 5 (local 2, 3) that part 0 sends from its local 2, 3.
  REQUIRE(p0.entities.at("Cell").peers.size() == 1);
  CHECK(p0.entities.at("Cell").peers[0].recv == std::vector<std::int32_t>{3, 4});
  CHECK(p1.entities.at("Cell").peers[0].send == std::vector<std::int32_t>{0, 2});
  CHECK(p1.entities.at("Edge").peers[0].recv == std::vector<std::int32_t>{2, 3});
  CHECK(p0.entities.at("Edge").peers[0].send == std::vector<std::int32_t>{2, 3});
  // Local tables: part 0's E2C rows of edges 0 1 2 5 in local cells; its C2E rows of cells
  // 0 1 2 3 5 in local edges, an edge not on the part (3, 4: only in halo rows) 0.
  CHECK(p0.tables.at("E2C").data == std::vector<std::int32_t>{0, 1, 1, 2, 2, 3, 4, 0});
  CHECK(p0.tables.at("C2E").data == std::vector<std::int32_t>{3, 0, 0, 1, 1, 2, 2, 0, 0, 3});
  REQUIRE(m.calls.size() == 2);
  CHECK(m.calls[0].tables == std::set<std::string>{"E2C"});
}

TEST_CASE("mesh: without the calls every table from every entity gives a wider halo", "[mesh][partition]") {
  const MeshPartition m = partition_mesh(ring_tables(), "Cell", kOwner, 2, true);
  // Cells 3, 5 through E2C as above, then their edges 2 3 4 5 through C2E: edges 3, 4 are halo.
  CHECK(m.parts[0].entities.at("Cell").global == std::vector<std::int32_t>{0, 1, 2, 3, 5});
  CHECK(m.parts[0].entities.at("Edge").global == std::vector<std::int32_t>{0, 1, 2, 5, 3, 4});
  CHECK(m.calls.empty());
}

TEST_CASE("mesh: a call naming a table or entity the tables lack is refused", "[mesh][partition]") {
  CHECK_THROWS_WITH(partition_mesh(ring_tables(), "Cell", kOwner, 2, true, {{{"Cell"}, {"V2E"}}}),
                    Catch::Contains("a call reads connectivity table 'V2E', which is not among the tables"));
  CHECK_THROWS_WITH(partition_mesh(ring_tables(), "Cell", kOwner, 2, true, {{{"Vertex"}, {"C2E"}}}),
                    Catch::Contains("a call writes a field on Vertex, which no connectivity table names"));
}
