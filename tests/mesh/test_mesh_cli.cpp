// `weir mesh`: writes every table as int32 .npy with the mesh's shapes and entries, replaces
// existing tables, and rejects too small meshes with a usage error, writing nothing.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "corpus.h"
#include "npy_test.h"
#include "weir/mesh/triangular_mesh.h"

using namespace weir;

TEST_CASE("mesh: weir mesh writes the tables as int32 .npy files", "[mesh][cli]") {
  auto dir = test::scratch_dir("mesh-cli");
  auto r = test::run_weir("mesh --nx 4 --ny 3 -o '" + (dir / "m").string() + "'");
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("12 vertices, 36 edges, 24 cells"));
  mesh::TriangularMesh m = mesh::make_triangular_mesh(4, 3);
  for (const mesh::Connectivity* c : m.tables()) {
    INFO(c->name);
    test::NpyArray a = test::read_npy(dir / "m" / (c->name + ".npy"));
    CHECK(a.descr == "<i4");
    CHECK(a.shape ==
          std::vector<std::size_t>{static_cast<std::size_t>(c->rows), static_cast<std::size_t>(c->cols)});
    REQUIRE(a.size() == c->data.size());
    bool same = true;
    for (std::size_t i = 0; i < a.size(); ++i) same = same && a.at(i) == c->data[i];
    CHECK(same);
  }
  // A second run replaces the tables; no temporary files stay behind.
  auto again = test::run_weir("mesh --nx 3 --ny 3 -o '" + (dir / "m").string() + "'");
  REQUIRE(again.code == 0);
  CHECK(test::read_npy(dir / "m" / "E2V.npy").shape == std::vector<std::size_t>{27, 2});
  int files = 0;
  for (const auto& e : std::filesystem::directory_iterator(dir / "m"))
    files += e.path().extension() == ".npy" ? 1 : 100;
  CHECK(files == 9);
}

TEST_CASE("mesh: weir mesh rejects a mesh below 3 x 3", "[mesh][cli]") {
  auto dir = test::scratch_dir("mesh-cli-small");
  auto r = test::run_weir("mesh --nx 2 --ny 5 -o '" + (dir / "m").string() + "'");
  CHECK(r.code == 2);
  CHECK_THAT(r.out, Catch::Contains("nx, ny >= 3, got 2 x 5"));
  CHECK(!std::filesystem::exists(dir / "m"));
}

TEST_CASE("mesh: weir mesh --nx 0 is too small, not missing", "[mesh][cli]") {
  // user31 G18: `--nx 0` said "--nx and --ny are required"; it was given.
  auto dir = test::scratch_dir("mesh-cli-zero");
  auto r = test::run_weir("mesh --nx 0 --ny 4 -o '" + (dir / "m").string() + "'");
  CHECK(r.code == 2);
  CHECK_THAT(r.out, Catch::Contains("nx, ny >= 3, got 0 x 4"));
  CHECK_THAT(r.out, !Catch::Contains("required"));
  // Left out, it is required.
  r = test::run_weir("mesh --ny 4 -o '" + (dir / "m").string() + "'");
  CHECK(r.code == 2);
  CHECK_THAT(r.out, Catch::Contains("--nx and --ny are required"));
  CHECK(!std::filesystem::exists(dir / "m"));
}

// A model is a package tree: the program to partition for imports from another root, found
// with -I as by weir run (user32 H13: `weir mesh` had no -I).
TEST_CASE("mesh: weir mesh --parts finds the modules of --program on the -I search path", "[mesh][cli]") {
  auto dir = test::scratch_dir("mesh-cli-include");
  std::filesystem::create_directories(dir / "lib");
  std::filesystem::create_directories(dir / "app");
  std::filesystem::copy_file(
      std::filesystem::path(WEIR_SOURCE_DIR) / "examples/unstructured/cell_laplacian.py",
      dir / "lib" / "cell_lib.py", std::filesystem::copy_options::overwrite_existing);
  std::ofstream(dir / "app" / "driver.py")
      << "from cell_lib import *\n"
         "def step(psi: CellK, weights: Field[Dims[Cell, C2E2CODim], float64], lap: CellK):\n"
         "    cell_laplacian(psi, weights, lap, offset_provider={})\n";
  const std::string args = "mesh --parts 2 --program '" + (dir / "app" / "driver.py").string() +
                           "::step' --nx 4 --ny 4 -o '" + (dir / "parts").string() + "'";
  auto missing = test::run_weir(args);
  INFO(missing.out);
  CHECK(missing.code != 0);
  auto r = test::run_weir(args + " -I '" + (dir / "lib").string() + "'");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("Cell entities of 'step' into 2 parts with METIS"));
}
