// `weir optimize`: scripts, pass lists, --auto, --replay on corpus kernels. It says what it
// applied (passes, transformations by name and count), a script step whose labels match nothing
// lists the labels there are, `weir transforms match` names only maps that exist, and a tiling
// that divides evenly runs to NumPy's result. (Located errors, exit codes, nothing written on
// failure, and --passes with its replay: tests/lit/optimize/.)
#include <catch2/catch.hpp>

#include <cstdlib>
#include <fstream>
#include <regex>

#include "cli_run.h"
#include "cli_test_util.h"
#include "corpus.h"
#include "weir/sdfg/serialize.h"

#include "weir/sdfg/validate.h"

namespace {
// Where weir keeps its transformation history in memory (weir::transforms::kWeirHistoryAttribute;
// the cli tests link the sdfg layer only; in files `_meta_weir_transformation_hist`,
// private_attributes.h).
const char* const kWeirHistoryInMemory = "weir_transformation_hist";
}  // namespace

namespace {

using weir::test::run_weir;
namespace fs = std::filesystem;

std::string corpus_file(const std::string& kernel) {
  return (weir::test::dace_corpus_dir() / kernel / (kernel + ".simplified.sdfg")).string();
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
std::string ex(const std::string& rel) { return q(fs::path(WEIR_SOURCE_DIR) / "examples" / rel); }
using weir::test::cli::kBoundary;

/// The first applicable match id `weir transforms match FILE NAME` prints.
std::string first_match(const std::string& file, const std::string& name) {
  auto r = run_weir("transforms match '" + file + "' " + name + " --applicable");
  REQUIRE(r.code == 0);
  std::smatch m;
  REQUIRE(std::regex_search(r.out, m, std::regex(name + "@([0-9]+\\.[0-9-]+\\.[0-9,]+)")));
  return m[1];
}

}  // namespace

TEST_CASE("weir optimize: match -> script -> optimize -> replay reproduces the SDFG", "[cli][optimize]") {
  for (const char* kernel : {"hdiff", "laplace2d", "jacobi_2d"}) {
    INFO(kernel);
    auto dir = weir::test::scratch_dir(std::string("optimize-cli-") + kernel);
    std::string in = corpus_file(kernel);
    std::string id = first_match(in, "MapTiling");
    write(dir / "tune.json",
          "[{\"transformation\": \"MapTiling\", \"options\": {\"tile_sizes\": [8, 4]}, \"where\": \"" + id +
              "\"},\n {\"pass\": \"simplify\"},\n {\"transformation\": \"MapToForLoop\", \"where\": "
              "\"all\"}]\n");
    auto r =
        run_weir("optimize '" + in + "' -o " + q(dir / "out.sdfg") + " --script " + q(dir / "tune.json"));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("wrote"));
    auto r2 = run_weir("optimize " + q(dir / "out.sdfg") + " --replay -o " + q(dir / "replayed.sdfg"));
    INFO(r2.out);
    REQUIRE(r2.code == 0);
    auto a = weir::load_sdfg((dir / "out.sdfg").string());
    auto b = weir::load_sdfg((dir / "replayed.sdfg").string());
    CHECK(weir::validate(*a).empty());
    CHECK(weir::sdfg_difference(*a, *b).empty());
    CHECK(a->extra.find("transformation_hist"));
    CHECK(a->extra.find(kWeirHistoryInMemory));
  }
}

TEST_CASE("first hour: optimize says passes, transforms match names only maps that exist",
          "[cli][optimize]") {
  auto dir = weir::test::scratch_dir("cli-optimize-says-passes");
  const std::string sdfg = q(dir / "lap.sdfg");
  REQUIRE(run_weir("sdfg " + ex("cartesian/laplacian.py::laplacian") + " -o " + sdfg).code == 0);
  auto r = run_weir("optimize " + sdfg + " --auto cpu -o " + q(dir / "fast.sdfg"));
  CHECK(r.code == 0);
  CHECK(r.out == "applied 1 pass (cpu-schedules); wrote " + (dir / "fast.sdfg").string() + "\n");
  r = run_weir("optimize " + sdfg + " --passes simplify -o " + q(dir / "same.sdfg"));
  CHECK(r.code == 0);
  CHECK(r.out == "applied nothing (no pass or transformation changed the SDFG); wrote " +
                     (dir / "same.sdfg").string() + "\n");
  // A map of tasklets has no nested map: the refusal names what it contains instead.
  r = run_weir("transforms match " + sdfg + " MapCollapse");
  CHECK(r.code == 0);
  CHECK(
      r.out ==
      "MapCollapse@0.0.0  [0 (MapEntry 'lap_map[__I=1:__out_I_size - 1, __J=1:__out_J_size - 1, "
      "__K=0:__out_K_size]')]  refused: map 'lap_map' has no map nested directly inside (it contains node 2 "
      "('lap'))\n0 applicable, 1 refused\n");
  r = run_weir("transforms match " + q(dir / "fast.sdfg") + " MapCollapse");
  CHECK(r.code == 0);
  // The parallel map around the sequential map cpu-schedules split off stays two maps (G23).
  CHECK(r.out ==
        "MapCollapse@0.0.0,5  [0 (MapEntry 'lap_map[__I=1:__out_I_size - 1, __J=1:__out_J_size - 1]'), 5 "
        "(MapEntry 'lap_map_inner[__K=0:__out_K_size]')]  refused: the maps have different schedules "
        "(CPU_Multicore around Sequential): one map would lose one of them\n"
        "MapCollapse@0.0.5  [5 (MapEntry 'lap_map_inner[__K=0:__out_K_size]')]  refused: map 'lap_map_inner' "
        "has no map nested directly inside (it contains node 2 ('lap'))\n0 applicable, 2 refused\n");
}

TEST_CASE("first hour: weir optimize names the transformations and passes it applied", "[cli][optimize]") {
  auto dir = weir::test::scratch_dir("cli-optimize-names-applied");
  const std::string hdiff = q(weir::test::dace_corpus_dir() / "hdiff" / "hdiff.simplified.sdfg");
  const std::string out = (dir / "fused.sdfg").string();
  auto r = run_weir("optimize " + hdiff + " --passes map-fusion,cpu-schedules -o " + q(out));
  INFO(r.out);
  REQUIRE(r.code == 0);
  // The history written into the SDFG says what was applied: count it independently.
  auto j = nlohmann::json::parse(weir::test::read_text(out));
  const auto& hist = j["attributes"]["_meta_weir_transformation_hist"];
  std::size_t fusions = 0, schedules = 0;
  for (const auto& e : hist) {
    fusions += e.value("transformation", "") == "MapFusion";
    schedules += e.value("type", "") == "Pass" && e.value("pass", "") == "cpu-schedules";
  }
  REQUIRE(fusions + schedules == hist.size());
  CHECK(schedules == 1);
  CHECK(r.out == "applied " + std::to_string(fusions) + " transformations (MapFusion x" +
                     std::to_string(fusions) + ") and 1 pass (cpu-schedules); wrote " + out + "\n");
  // Transformations in the order first applied, each named once. (On maps cpu-schedules has not
  // scheduled yet: a parallel map around the sequential one it split off stays two maps, G23.)
  const std::string fused = (dir / "fused_only.sdfg").string();
  REQUIRE(run_weir("optimize " + hdiff + " --passes map-fusion -o " + q(fused)).code == 0);
  r = run_weir("optimize " + q(fused) +
               " --passes 'map-expansion,map-collapse,map-tiling{tile_sizes=2}' -o " + q(dir / "tiled.sdfg"));
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("applied ") && Catch::Contains(" transformations (MapExpansion x") &&
                        Catch::Contains(", MapCollapse x") && Catch::Contains(", MapTiling"));
  r = run_weir("optimize " + q(out) + " --passes map-collapse -o " + q(dir / "collapsed.sdfg"));
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith("applied nothing"));
}

// DIR/lap.py: a 5-point Laplacian over I x J x K written into out[1:-1, 1:-1, :] (lap_prog).
static void write_lap_program(const fs::path& dir) {
  std::ofstream(dir / "lap.py") << "import gt4py.next as gtx\nfrom gt4py.next import Field, Dims, float64\n\n"
                                   "I = gtx.Dimension('I')\nJ = gtx.Dimension('J')\n"
                                   "K = gtx.Dimension('K', kind=gtx.DimensionKind.VERTICAL)\n"
                                   "F = Field[Dims[I, J, K], float64]\n\n"
                                   "@gtx.field_operator\n"
                                   "def lap(f: F) -> F:\n"
                                   "    return -4.0 * f + f(I + 1) + f(I - 1) + f(J + 1) + f(J - 1)\n\n"
                                   "@gtx.program\n"
                                   "def lap_prog(f: F, out: F):\n"
                                   "    lap(f, out=out[1:-1, 1:-1, :])\n";
}

TEST_CASE("weir optimize: a tiling that divides evenly runs and matches NumPy", "[cli][optimize][tiling]") {
  // map-tiling{tile_sizes=4,1,1,divides_evenly=true} over I: [1, 9) (8 points): tiles at 1 and 5.
  // The tile map's outer memlets ended at the range's end plus a tile (f[0 .. 12] of 10), and
  // the run was refused as "the input is smaller than the domain".
  auto dir = weir::test::scratch_dir("cli-optimize-tiling");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  write_lap_program(dir);
  REQUIRE(weir::test::run_numpy(dir,
                                "f = np.random.default_rng(3).random((10, 9, 4))\nnp.save('f.npy', f)\n"
                                "np.save('out.npy', np.zeros((10, 9, 4)))\n") == 0);
  REQUIRE(run_weir("sdfg " + q(dir / "lap.py") + "::lap_prog -o " + q(dir / "lap.sdfg")).code == 0);
  for (const char* sizes : {"4,1,1", "4,7,4"}) {
    INFO(sizes);
    auto r = run_weir("optimize " + q(dir / "lap.sdfg") + " -o " + q(dir / "tiled.sdfg") +
                      " --passes 'map-tiling{tile_sizes=" + sizes + ",divides_evenly=true}'");
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("applied 1 transformation (MapTiling)"));
    r = run_weir("run " + q(dir / "tiled.sdfg") + " --in f=" + q(dir / "f.npy") +
                 " --in out=" + q(dir / "out.npy") + " --out " + q(dir / "res"));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(weir::test::run_numpy(
              dir,
              "f = np.load('f.npy')\nw = np.zeros((10, 9, 4))\n"
              "w[1:-1, 1:-1] = -4.0 * f[1:-1, 1:-1] + f[2:, 1:-1] + f[:-2, 1:-1] + f[1:-1, 2:] + "
              "f[1:-1, :-2]\n"
              "sys.exit(0 if np.allclose(np.load('res/out.npy'), w, rtol=0, atol=1e-14) else 1)\n") == 0);
  }
}

TEST_CASE("weir optimize: a divides_evenly promise that does not hold is named when the program runs",
          "[cli][optimize][tiling]") {
  // user31 G10: tiles of 3 over I: [1, 9) (8 points) with divides_evenly=true. The range's size
  // depends on the output's size, so MapTiling records the promise and the run checks it: 8 = 2
  // tiles of 3 and 2 left over. The error names the promise and the script step, not "pass a
  // larger output" (the output is right-sized).
  auto dir = weir::test::scratch_dir("cli-optimize-tiling-promise");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  write_lap_program(dir);
  std::ofstream(dir / "s.json")
      << R"([{"transformation": "MapTiling", "options": {"tile_sizes": [3, 1, 1], "divides_evenly": true}}])";
  REQUIRE(weir::test::run_numpy(dir,
                                "f = np.random.default_rng(3).random((10, 9, 4))\nnp.save('f.npy', f)\n"
                                "np.save('out.npy', np.zeros((10, 9, 4)))\n") == 0);
  REQUIRE(run_weir("sdfg " + q(dir / "lap.py") + "::lap_prog -o " + q(dir / "lap.sdfg")).code == 0);
  auto r = run_weir("optimize " + q(dir / "lap.sdfg") + " -o " + q(dir / "tiled.sdfg") + " --script " +
                    q(dir / "s.json"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  r = run_weir("run " + q(dir / "tiled.sdfg") + " --in f=" + q(dir / "f.npy") +
               " --in out=" + q(dir / "out.npy") + " --out " + q(dir / "res"));
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("MapTiling's divides_evenly=true (") &&
                        Catch::Contains("s.json: step 1 (MapTiling)) promised that tile size 3 divides ") &&
                        Catch::Contains(", which has 8 points here (2 tiles of 3 and 2 left over); tile with "
                                        "divides_evenly=false or with a size that divides the range"));
  CHECK_THAT(r.out, !Catch::Contains("pass a larger output"));
}

TEST_CASE("weir optimize: a script step whose labels match nothing lists the labels there are",
          "[cli][optimize]") {
  auto dir = weir::test::scratch_dir("cli-optimize-script-labels");
  std::ofstream(dir / "b.py") << kBoundary;
  REQUIRE(run_weir("sdfg " + q(dir / "b.py") + "::boundary -o " + q(dir / "b.sdfg")).code == 0);
  std::ofstream(dir / "t.json") << R"([{"transformation": "MapTiling", "where": {"labels": ["nosuchmap"]}}])";
  auto r = run_weir("optimize " + q(dir / "b.sdfg") + " --script " + q(dir / "t.json") + " -o " +
                    q(dir / "o.sdfg"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::Contains("no applicable match has the labels 'nosuchmap'; applicable matches: ['"));
}

TEST_CASE("weir optimize --auto cpu of an auto-optimized SDFG changes nothing", "[cli][optimize]") {
  // user31's G23: the second run collapsed the parallel map with the sequential map cpu-schedules
  // had split off its innermost dimension, and cpu-schedules split it again (MapCollapse x2 and
  // cpu-schedules recorded per run, the SDFG the same). Run 2 must apply nothing and write
  // run 1's file unchanged, byte for byte, on every kind of example.
  auto dir = weir::test::scratch_dir("optimize-cli-auto-twice");
  const std::vector<std::string> refs = {"cartesian/hdiff.py::hdiff_program",
                                         "cartesian/laplacian.py::bi_laplacian",
                                         "cartesian/heat3d.py::heat3d",
                                         "cartesian/vertical_solver.py::vertical_solver",
                                         "unstructured/nabla.py::nabla_program",
                                         "unstructured/edge_stencil.py::edge_smooth",
                                         "unstructured/cell_laplacian.py::cell_bounds",
                                         "orchestration/heat.py::heat",
                                         "orchestration/adaptive_heat.py::adaptive_heat"};
  auto read = [](const fs::path& p) {
    std::ifstream in(p, std::ios::binary);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  for (std::size_t k = 0; k < refs.size(); ++k) {
    INFO(refs[k]);
    const fs::path s = dir / (std::to_string(k) + ".sdfg"), a1 = dir / (std::to_string(k) + ".a1.sdfg"),
                   a2 = dir / (std::to_string(k) + ".a2.sdfg");
    auto r = run_weir("sdfg " + ex(refs[k]) + " -o " + q(s));
    REQUIRE(r.code == 0);
    r = run_weir("optimize " + q(s) + " --auto cpu -o " + q(a1));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("applied nothing") == std::string::npos);  // run 1 does something
    r = run_weir("optimize " + q(a1) + " --auto cpu -o " + q(a2));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(r.out.find("applied nothing (no pass or transformation changed the SDFG)") != std::string::npos);
    CHECK(read(a2) == read(a1));
  }
}
