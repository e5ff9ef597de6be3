// What a new user meets in the first hour, with exact messages (issue 16): a missing argument
// says which option gives it (--set NAME=VALUE, --in NAME=FILE.npy, `weir mesh` for tables,
// what `__out` is); a domain not covered names the shapes given; a missing module is one
// headline with the directory to add; run summaries print no "-0"; every command's --help has
// examples and no CLI11 type notation; README's unstructured example runs end to end and
// matches NumPy.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

using weir::test::run_weir;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
fs::path ex_path(const std::string& rel) { return fs::path(WEIR_SOURCE_DIR) / "examples" / rel; }
std::string ex(const std::string& rel) { return q(ex_path(rel)); }

void python(const fs::path& dir, const std::string& name, const std::string& code) {
  std::ofstream(dir / name) << "import numpy as np\nimport sys\nd = " << q(dir) << "\n" << code;
  REQUIRE(std::system(("/usr/bin/python3 " + q(dir / name)).c_str()) == 0);
}

}  // namespace

TEST_CASE("first hour: the run summary prints -0.0 as 0, and the output file keeps its bits",
          "[cli][first-hour]") {
  auto dir = weir::test::scratch_dir("cli-first-hour-negzero");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "negate.py") << "import gt4py.next as gtx\nfrom gt4py.next import Field, float64\n"
                                      "I = gtx.Dimension('I')\n@gtx.field_operator\n"
                                      "def neg(f: Field[[I], float64]) -> Field[[I], float64]:\n"
                                      "    return -f\n@gtx.program\n"
                                      "def negate(f: Field[[I], float64], out: Field[[I], float64]):\n"
                                      "    neg(f, out=out)\n";
  python(dir, "make.py", "np.save(d + '/f.npy', np.zeros(3))\nnp.save(d + '/out.npy', np.ones(3))\n");
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    auto r = run_weir("run " + q(dir / "negate.py") + "::negate --in f=" + q(dir / "f.npy") + " --in out=" +
                      q(dir / "out.npy") + " --backend " + backend + " --out " + q(dir / backend));
    INFO(r.out);
    CHECK(r.code == 0);
    // -0.0 three times: SHA-256 of its bytes as NumPy computes it (7fd0131fa29e1bbc).
    CHECK_THAT(r.out,
               Catch::Contains("\n  out: float64 (3,)  min 0  max 0  mean 0  checksum 7fd0131fa29e1bbc\n"));
    python(dir, std::string("check_") + backend + ".py",
           "o = np.load(d + '/" + std::string(backend) +
               "/out.npy')\n"
               "sys.exit(0 if (o == 0).all() and np.signbit(o).all() else 1)\n");
  }
}

TEST_CASE("first hour: README's unstructured example runs end to end and matches NumPy",
          "[cli][first-hour]") {
  auto dir = weir::test::scratch_dir("cli-first-hour-unstructured");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  // README's commands, from the repository root: the mesh's tables, then nabla on both backends
  // with the same seeded inputs (sizes along Vertex and Edge from the tables' rows).
  const std::string in_root = "cd " + q(WEIR_SOURCE_DIR) + " &&";
  const std::string mesh = q(dir / "mesh");
  auto r = run_weir("mesh --nx 8 --ny 6 -o " + mesh, in_root);
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out ==
        "wrote 9 tables of a 8 x 6 mesh (48 vertices, 144 edges, 96 cells) to " + dir.string() + "/mesh\n");
  const std::string run =
      "run examples/unstructured/nabla.py::nabla_program --in-dir " + mesh + " --random-inputs --set K=4";
  auto embedded = run_weir(run, in_root);
  // (--out with a trailing slash, as README writes it.)
  auto cpu = run_weir(run + " --backend cpu --out '" + (dir / "results").string() + "/'", in_root);
  INFO(embedded.out << cpu.out);
  REQUIRE(embedded.code == 0);
  REQUIRE(cpu.code == 0);
  auto summary = [](const std::string& out) {
    auto at = out.find("\n  out_x: ");
    return out.substr(at, out.find("\n  (checksum", at) - at);
  };
  CHECK_THAT(embedded.out, Catch::Contains("\n  out_x: float64 (48, 4)  min "));
  CHECK(summary(cpu.out) == summary(embedded.out));
  CHECK_THAT(cpu.out, Catch::EndsWith("wrote 2 files to " + (dir / "results").string() + "/\n"));
  CHECK(fs::exists(dir / "results" / "out_x.npy"));
  CHECK(fs::exists(dir / "results" / "out_y.npy"));

  // The same program on inputs NumPy knows: every array from one folder (--in-dir), the results
  // against NumPy's gathers and sums over the same tables.
  python(dir, "inputs.py",
         "e2v = np.load(d + '/mesh/E2V.npy'); v2e = np.load(d + '/mesh/V2E.npy')\n"
         "nv, ne, k = v2e.shape[0], e2v.shape[0], 3\n"
         "rng = np.random.default_rng(7)\n"
         "np.save(d + '/mesh/pp.npy', rng.random((nv, k)))\n"
         "np.save(d + '/mesh/S_MXX.npy', rng.random(ne))\n"
         "np.save(d + '/mesh/S_MYY.npy', rng.random(ne))\n"
         "np.save(d + '/mesh/sign.npy', np.where(rng.random((nv, 6)) < 0.5, -1.0, 1.0))\n"
         "np.save(d + '/mesh/vol.npy', 1.0 + rng.random(nv))\n"
         "np.save(d + '/mesh/out_x.npy', np.zeros((nv, k)))\n"
         "np.save(d + '/mesh/out_y.npy', np.zeros((nv, k)))\n");
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    r = run_weir("run " + ex("unstructured/nabla.py::nabla_program") + " --in-dir " + mesh + " --backend " +
                 backend + " --out " + q(dir / backend));
    INFO(r.out);
    REQUIRE(r.code == 0);
    python(dir, std::string("check_") + backend + ".py",
           "m = d + '/mesh/'\n"
           "e2v = np.load(m + 'E2V.npy'); v2e = np.load(m + 'V2E.npy')\n"
           "assert (e2v >= 0).all() and (v2e >= 0).all()\n"
           "pp, sxx, syy = np.load(m + 'pp.npy'), np.load(m + 'S_MXX.npy'), np.load(m + 'S_MYY.npy')\n"
           "sign, vol = np.load(m + 'sign.npy'), np.load(m + 'vol.npy')\n"
           "zavg = 0.5 * (pp[e2v[:, 0]] + pp[e2v[:, 1]])\n"
           "want_x = ((sxx[:, None] * zavg)[v2e] * sign[:, :, None]).sum(axis=1) / vol[:, None]\n"
           "want_y = ((syy[:, None] * zavg)[v2e] * sign[:, :, None]).sum(axis=1) / vol[:, None]\n"
           "o = d + '/" +
               std::string(backend) +
               "/'\n"
               "ok = np.allclose(np.load(o + 'out_x.npy'), want_x, rtol=1e-13, atol=0) and "
               "np.allclose(np.load(o + 'out_y.npy'), want_y, rtol=1e-13, atol=0)\n"
               "sys.exit(0 if ok else 1)\n");
  }
}

TEST_CASE("first hour: every command's --help has examples and says in words what it takes",
          "[cli][first-hour]") {
  for (const char* cmd :
       {"validate", "info", "convert", "run", "compile", "cache", "cache info", "cache clear", "transforms",
        "transforms list", "transforms match", "check", "sdfg", "mesh", "optimize", "view", "compose"}) {
    INFO(cmd);
    auto r = run_weir(std::string(cmd) + " --help");
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("\nExamples:\n  weir " + std::string(cmd)));
    // CLI11's type notation (UINT, TEXT, INT in [..], FLOAT, ENUM, REQUIRED words aside).
    for (const char* notation : {"UINT", "TEXT", " INT", "FLOAT", "ENUM", ":{", "INT:"}) {
      INFO(notation);
      CHECK_THAT(r.out, !Catch::Contains(notation));
    }
  }
  // `weir compile` says that it takes field-view programs too.
  auto r = run_weir("compile --help");
  CHECK_THAT(r.out,
             Catch::StartsWith("Compile programs (SDFG files, FILE.py::NAME, FILE.py) into the program "
                               "cache, in parallel\n"));
}

TEST_CASE("first hour: a missing argument says which option gives it", "[cli][first-hour]") {
  auto dir = weir::test::scratch_dir("cli-first-hour-missing");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  // A scalar: --set NAME=VALUE, on both backends.
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    auto r =
        run_weir("run " + ex("unstructured/edge_stencil.py::edge_smooth") +
                 " --random-inputs --set Vertex=5 --set Edge=7 --set K=2 --set E2C2V=4 --backend " + backend);
    CHECK(r.code == 1);
    CHECK(r.out ==
          "weir: error: missing argument 'strength' (float64 scalar)\n  hint: give it with --set "
          "strength=VALUE\n");
  }
  // A @field_operator run directly: weir allocates its result `__out` like its input (only
  // inputs must be given), and a stencil with shifts says how to run it on a smaller domain.
  python(dir, "make.py", "np.save(d + '/f.npy', np.zeros((6, 4, 2)))\n");
  const std::string lap_py = ex_path("cartesian/laplacian.py").string();
  // The embedded backend's message names the computed domain in every dimension (K too), so its
  // hint slices all three; the cpu backend's names the dimensions read outside (I and J), so its
  // hint slices those two, which leaves K whole the same way.
  const std::string hint_head =
      "  hint: 'lap' is a @field_operator run directly, so its result must cover the whole output array "
      "'__out' (shaped like its inputs); to compute it on part of the domain, run a @program that calls it "
      "with a sliced out=, e.g. lap(f, out=";
  // The same call on both backends: the cpu backend's bounds check names every dimension read
  // outside.
  const std::string out_hint = hint_head + "out[1:-1, 1:-1, :])\n";
  const std::string cpu_out_hint = out_hint;
  auto r = run_weir("run " + ex("cartesian/laplacian.py::lap") + " --in f=" + q(dir / "f.npy"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::EndsWith("weir: error: " + lap_py +
                             ":14:1: the result of 'lap' is computed over (I: [1, 5), J: [1, 3), K: [0, "
                             "2)), which does not cover the output domain of '__out' (I: [0, 6), J: [0, "
                             "4), K: [0, 2)) (shifted reads need a larger input or a smaller output "
                             "domain)\n" +
                             out_hint));
  CHECK_THAT(r.out, Catch::Contains("\noutputs allocated as zeros: __out float64 (6, 4, 2)\n"));
  r = run_weir("run " + ex("cartesian/laplacian.py::lap") + " --in f=" + q(dir / "f.npy") + " --backend cpu");
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::EndsWith("weir: error: program 'lap' stopped with an error: " + lap_py +
                             ":15:23: 'f' is read over I: [-1, 7) and J: [-1, 5), outside its domain "
                             "I: [0, 6) and J: [0, 4)\n"
                             "  in the SDFG: state 'call_0_lap', map 'lap_map': reads f[-1 .. 6] in "
                             "dimension 0 of f with shape 6 and f[-1 .. 4] in dimension 1 of f with "
                             "shape 4 (shifted reads need a larger input or a smaller output domain)\n" +
                             cpu_out_hint));
  // Connectivity tables: --in NAME=FILE.npy; `weir mesh` for the tables it writes, and what a
  // table holds for one it does not write.
  std::ofstream(dir / "ring.py")
      << "import gt4py.next as gtx\nfrom gt4py.next import Field, float64, neighbor_sum\n"
         "V = gtx.Dimension('V')\nE = gtx.Dimension('E')\n"
         "E2VDim = gtx.Dimension('E2VDim', kind=gtx.DimensionKind.LOCAL)\n"
         "NDim = gtx.Dimension('NDim', kind=gtx.DimensionKind.LOCAL)\n"
         "E2V = gtx.FieldOffset('E2V', source=V, target=(E, E2VDim))\n"
         "N2N = gtx.FieldOffset('N2N', source=V, target=(V, NDim))\n\n"
         "@gtx.field_operator\ndef both(v: Field[[V], float64]) -> tuple[Field[[E], float64], Field[[V], "
         "float64]]:\n"
         "    return v(E2V[0]), neighbor_sum(v(N2N), axis=NDim)\n\n"
         "@gtx.program\ndef ring(v: Field[[V], float64], e: Field[[E], float64], w: Field[[V], float64]):\n"
         "    both(v, out=(e, w))\n";
  python(dir, "ring_in.py",
         "np.save(d + '/v.npy', np.ones(4))\nnp.save(d + '/e.npy', np.zeros(3))\n"
         "np.save(d + '/w.npy', np.zeros(4))\n");
  r = run_weir("run " + q(dir / "ring.py") + "::ring --in v=" + q(dir / "v.npy") +
               " --in e=" + q(dir / "e.npy") + " --in w=" + q(dir / "w.npy"));
  CHECK(r.code == 1);
  CHECK(r.out ==
        "weir: error: missing connectivity table 'E2V' (an int32 or int64 array of shape (n_E, "
        "max_neighbours))\n"
        "  hint: give them with --in E2V=FILE.npy --in N2N=FILE.npy\n"
        "  'N2N' has a row per V with the V index of each neighbour (int32 or int64; -1 = no neighbour)\n"
        "  'weir mesh --nx 8 --ny 6 -o mesh/' writes E2V.npy and the other connectivity tables of a periodic "
        "triangular mesh\n");
}

TEST_CASE("first hour: an output larger than an input is named with both shapes", "[cli][first-hour]") {
  auto dir = weir::test::scratch_dir("cli-first-hour-shapes");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  // laplacian writes lap(f) into out[1:-1, 1:-1]: out is smaller along I and J (fine) but has 6
  // levels where f has 5.
  python(dir, "make.py",
         "np.save(d + '/phi.npy', np.ones((12, 10, 5)))\n"
         "np.save(d + '/lap_out.npy', np.zeros((4, 3, 6)))\n");
  const std::string lap = ex_path("cartesian/laplacian.py").string();
  const std::string args =
      "run '" + lap + "::laplacian' --in f=" + q(dir / "phi.npy") + " --in out=" + q(dir / "lap_out.npy");
  const std::string shapes =
      "  'out' is (4, 3, 6) but 'f' is (12, 10, 5) over (I, J, K): the output is larger along K\n";
  auto r = run_weir(args);
  CHECK(r.code == 1);
  CHECK_THAT(
      r.out,
      Catch::EndsWith("weir: error: " + lap +
                      ":25:5: the result of 'lap' is computed over (I: [1, 11), J: [1, 9), K: [0, 5)), which "
                      "does not cover the output domain of 'out' (I: [1, 3), J: [1, 2), K: [0, 6)) (an input "
                      "is smaller than the output domain; pass larger inputs or a smaller output domain)\n" +
                      shapes));
  // The cpu backend's bounds check: the .py line, the field, the dimension, and the hint of the
  // cause (K is read over the domain, not shifted).
  r = run_weir(args + " --backend cpu");
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::EndsWith(
                 "weir: error: program 'laplacian' stopped with an error: " + lap +
                 ":25:5: 'f' is read over K: [0, 6), outside its domain K: [0, 5)\n"
                 "  in the SDFG: state 'call_0_lap', map 'lap_map': reads f[0 .. 5] in dimension 2 of f "
                 "with shape 5 (the input is smaller than the domain it is read over; pass a larger input "
                 "or a smaller domain)\n" +
                 shapes));
}

TEST_CASE("first hour: a module not found is one headline with the directory to add", "[cli][first-hour]") {
  auto dir = weir::test::scratch_dir("cli-first-hour-include");
  // From the repository root (as README's commands run), the folder is shown as typed.
  const std::string in_root = "cd " + q(WEIR_SOURCE_DIR) + " &&";
  auto r = run_weir("sdfg examples/multimodule/mymodel/program.py::smooth -o " + q(dir / "x.sdfg"), in_root);
  CHECK(r.code == 1);
  CHECK(r.out ==
        "weir: error: module 'mymodel' not found\n"
        "  examples/multimodule/mymodel/program.py:19:8: error: cannot subscript "
        "'mymodel.common.dimension.EdgeKField' (from a module not on the search path: no module 'mymodel' in "
        "examples/multimodule/mymodel) at module level\n"
        "    e: EdgeKField[vpfloat],\n"
        "       ^\n"
        "  hint: add -I examples/multimodule (it holds 'mymodel'), or list examples/multimodule in "
        "WEIR_PATH\n");
  CHECK_FALSE(fs::exists(dir / "x.sdfg"));
  // With the hint followed, it lowers.
  r = run_weir(
      "sdfg -I examples/multimodule examples/multimodule/mymodel/program.py::smooth -o " + q(dir / "x.sdfg"),
      in_root);
  CHECK(r.code == 0);
  // `weir check` says it once for the three definitions that use its names.
  r = run_weir("check examples/multimodule/mymodel/program.py", in_root);
  CHECK(r.code == 1);
  CHECK_THAT(
      r.out,
      Catch::StartsWith("weir: error: module 'mymodel' not found (3 errors come from it; the first:)\n  "
                        "examples/multimodule/mymodel/program.py:12:8: error: ") &&
          Catch::EndsWith("  hint: add -I examples/multimodule (it holds 'mymodel'), or list "
                          "examples/multimodule in WEIR_PATH\n"
                          "examples/multimodule/mymodel/program.py: 3 definitions checked, 3 with "
                          "errors\n"));
  CHECK(r.out.find("not found", r.out.find("not found") + 1) == std::string::npos);
}

TEST_CASE("first hour: optimize says passes, transforms match names only maps that exist",
          "[cli][first-hour]") {
  auto dir = weir::test::scratch_dir("cli-first-hour-optimize");
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
  CHECK(r.out ==
        "MapCollapse@0.0.0,5  [0 (MapEntry 'lap_map[__I=1:__out_I_size - 1, __J=1:__out_J_size - 1]'), 5 "
        "(MapEntry 'lap_map_inner[__K=0:__out_K_size]')]  applies\n"
        "MapCollapse@0.0.5  [5 (MapEntry 'lap_map_inner[__K=0:__out_K_size]')]  refused: map 'lap_map_inner' "
        "has no map nested directly inside (it contains node 2 ('lap'))\n1 applicable, 1 refused\n");
}

TEST_CASE("first hour: a file that does not exist is exit code 1 in every command", "[cli][first-hour]") {
  auto dir = weir::test::scratch_dir("cli-first-hour-missing-file");
  const std::string none = q(dir / "none.sdfg"), out = q(dir / "out.sdfg");
  const std::string cannot =
      "weir: error: " + (dir / "none.sdfg").string() + ": cannot open: No such file or directory\n";
  for (const std::string& cmd :
       {"info " + none, "validate " + none, "run " + none + " --backend cpu",
        "view " + none + " --html " + out, "optimize " + none + " --auto cpu -o " + out,
        "convert " + none + " -o " + out, "transforms match " + none}) {
    INFO(cmd);
    auto r = run_weir(cmd);
    CHECK(r.code == 1);
    CHECK(r.out == cannot);
  }
  const std::string py = (dir / "none.py").string();
  for (const std::string& cmd : {"sdfg '" + py + "::p' -o " + out, "run '" + py + "::p'"}) {
    INFO(cmd);
    auto r = run_weir(cmd);
    CHECK(r.code == 1);
    CHECK(r.out == "weir: error: " + py + ": cannot open: No such file or directory\n");
  }
  for (const std::string& cmd :
       {"check '" + py + "'", "compile '" + py + "::p'", "compose " + q(dir / "none.json") + " -o " + out}) {
    INFO(cmd);
    CHECK(run_weir(cmd).code == 1);
  }
  CHECK_FALSE(fs::exists(dir / "out.sdfg"));
}

TEST_CASE("first hour: a scan reading past its input names the read and the cause on the cpu backend",
          "[cli][first-hour][scan]") {
  // The cpu backend's bounds check of a scan after auto-optimize is on the outer memlet of the
  // nested SDFG LoopMapInterchange makes of the column loop: that memlet names no line and reads
  // from 0, so the line and the hint come from the memlets inside (a[__K + 1] at scan.py:14:18).
  auto dir = weir::test::scratch_dir("cli-first-hour-scan-bounds");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "scan.py") << "import gt4py.next as gtx\nfrom gt4py.next import Field, float64\n\n"
                                    "I = gtx.Dimension('I')\n"
                                    "K = gtx.Dimension('K', kind=gtx.DimensionKind.VERTICAL)\n"
                                    "IK = Field[[I, K], float64]\n\n"
                                    "@gtx.scan_operator(axis=K, forward=True, init=0.0)\n"
                                    "def acc_x(c: float64, x: float64) -> float64:\n"
                                    "    return c + x\n\n"
                                    "@gtx.field_operator\n"
                                    "def shifted(a: IK) -> IK:\n"
                                    "    return acc_x(a(K + 1))\n\n"
                                    "@gtx.field_operator\n"
                                    "def plain(a: IK) -> IK:\n"
                                    "    return acc_x(a)\n\n"
                                    "@gtx.program\n"
                                    "def p(a: IK, o: IK):\n"
                                    "    shifted(a, out=o)\n\n"
                                    "@gtx.program\n"
                                    "def q(a: IK, o: IK):\n"
                                    "    plain(a, out=o)\n";
  python(dir, "make.py",
         "np.save(d + '/a3.npy', np.ones((3, 3)))\nnp.save(d + '/a2.npy', np.ones((3, 2)))\n"
         "np.save(d + '/o.npy', np.zeros((3, 3)))\n");
  const std::string py = (dir / "scan.py").string();
  const std::string shifted_hint = "(shifted reads need a larger input or a smaller output domain)";
  const std::string smaller_hint =
      "(the input is smaller than the domain it is read over; pass a larger input or a smaller domain)";
  auto args = [&](const std::string& a) { return " --in a=" + q(dir / a) + " --in o=" + q(dir / "o.npy"); };
  // As `weir run` compiles it: auto-optimized (the column loop in a nested SDFG).
  auto r = run_weir("run " + q(dir / "scan.py") + "::p --backend cpu" + args("a3.npy"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("weir: error: program 'p' stopped with an error: " + py +
                                    ":14:18: 'a' is read over K: [0, 4), outside its domain K: [0, 3)\n"
                                    "  in the SDFG: state 'scan0_acc_x_init_columns', map "
                                    "'scan0_acc_x_init_columns_map': reads a[0 .. 3] in dimension 1 of a "
                                    "with shape 3 " +
                                    shifted_hint + "\n"));
  // As lowered: the level loop's map reads a[__K + 1].
  REQUIRE(run_weir("sdfg " + q(dir / "scan.py") + "::p -o " + q(dir / "p.sdfg")).code == 0);
  r = run_weir("run " + q(dir / "p.sdfg") + args("a3.npy"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("weir: error: program 'p' stopped with an error: " + py +
                                    ":14:18: 'a' is read over K: [3, 4), outside its domain K: [0, 3)\n"
                                    "  in the SDFG: state 'scan0_acc_x/scan0_acc_x_level', map "
                                    "'scan0_acc_x_map': reads a[3 .. 3] in dimension 1 of a with shape 3 " +
                                    shifted_hint + "\n"));
  // Nothing shifted, the input too small: the other hint and the program call (which sets the
  // domain), also after auto-optimize.
  r = run_weir("run " + q(dir / "scan.py") + "::q --backend cpu" + args("a2.npy"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("weir: error: program 'q' stopped with an error: " + py +
                                    ":26:5: 'a' is read over K: [0, 3), outside its domain K: [0, 2)\n"
                                    "  in the SDFG: state 'scan0_acc_x_init_columns', map "
                                    "'scan0_acc_x_init_columns_map': reads a[0 .. 2] in dimension 1 of a "
                                    "with shape 2 " +
                                    smaller_hint + "\n"));
  // The embedded backend names the scan call, with the same cause.
  r = run_weir("run " + q(dir / "scan.py") + "::p --backend embedded" + args("a3.npy"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("weir: error: " + py +
                                    ":14:12: scan operator 'acc_x' reads its argument 'x' at K = 2, outside "
                                    "its domain K: [-1, 2) (the scan runs over the output domain K: [0, 3); "
                                    "shifted reads need a larger input or a smaller output domain)\n"));
}
