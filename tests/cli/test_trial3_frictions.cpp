// Frictions a new user met on 2026-12-03 (issue 16's third trial), with exact messages: a scan
// whose shifted read leaves its field inside a nested SDFG (LoopMapInterchange's column) is
// named in the program's terms; a domain= larger than the output is the output's fault on the
// cpu backend as on the embedded one; a program's scalar argument missing on the cpu backend is
// a missing argument with the option that gives it, not a "symbol"; an evenly dividing tiling
// runs; complex outputs are summarised; --set DIM=N must agree with the fields given; an
// orchestration function's sizes and a -1 table entry are said without the lowering's names.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

using weir::test::run_weir;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

/// A backward scan over f(K - 1) on domain={I: (1, 3), K: (k0, k1)}; f, g, out are (4, 8).
struct Scans {
  fs::path dir, py;
  // `name`: the test's own scratch folder (ctest runs the test cases in parallel).
  explicit Scans(const std::string& name) {
    dir = weir::test::scratch_dir("cli-trial3-" + name);
    ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
    py = dir / "scans2.py";
    std::ofstream(py) << "import gt4py.next as gtx\nfrom gt4py.next import Field, Dims, float64, int32\n\n"
                         "I = gtx.Dimension('I')\n"
                         "K = gtx.Dimension('K', kind=gtx.DimensionKind.VERTICAL)\n"
                         "F2 = Field[Dims[I, K], float64]\n\n"
                         "@gtx.scan_operator(axis=K, forward=False, init=1.0)\n"
                         "def bprod(acc: float64, v: float64, w: float64) -> float64:\n"
                         "    return acc * v + w\n\n"
                         "@gtx.field_operator\n"
                         "def bprod_op(f: F2, g: F2) -> F2:\n"
                         "    return bprod(f(K - 1), g)\n\n"
                         "@gtx.program\n"
                         "def bprod_prog(f: F2, g: F2, out: F2, k0: int32, k1: int32):\n"
                         "    bprod_op(f, g, out=out, domain={I: (1, 3), K: (k0, k1)})\n";
    REQUIRE(weir::test::run_numpy(dir,
                                  "np.save('f.npy', np.ones((4, 8)))\nnp.save('g.npy', np.ones((4, 8)))\n"
                                  "np.save('out.npy', np.zeros((4, 8)))\n") == 0);
  }
  weir::test::CliRun run(const std::string& backend, const std::string& sets) const {
    return run_weir("run " + q(py) + "::bprod_prog --backend " + backend + " --in f=" + q(dir / "f.npy") +
                    " --in g=" + q(dir / "g.npy") + " --in out=" + q(dir / "out.npy") + " " + sets);
  }
};

}  // namespace

TEST_CASE(
    "trial 3: a shifted scan read before its field inside a nested SDFG is named in the program's "
    "terms",
    "[cli][first-hour][scan]") {
  Scans s("shifted");
  // K from 0: f(K - 1) reads K = -1. The check that fails is inside the nested SDFG of the
  // column (its outer memlet starts at 0): it names the read (line 14, column 18), the field's
  // dimension by name and its domain, then where in the SDFG.
  auto r = s.run("cpu", "--set k0=0 --set k1=7");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::EndsWith("weir: error: program 'bprod_prog' stopped with an error: " + s.py.string() +
                             ":14:18: 'f' is read over K: [-1, 0), outside its domain K: [0, 8)\n"
                             "  in the SDFG: state 'scan0_bprod_init_columns': nested SDFG "
                             "'scan0_bprod_init_column', state 'scan0_bprod/scan0_bprod_level', tasklet "
                             "'scan0_bprod': reads f[-1 .. -1] in dimension 0 of f with shape 8 (shifted "
                             "reads need a larger input or a smaller output domain)\n"));
  r = s.run("embedded", "--set k0=0 --set k1=7");
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::EndsWith("weir: error: " + s.py.string() +
                             ":14:12: scan operator 'bprod' reads its argument 'v' at K = 0, outside its "
                             "domain K: [1, 9) (the scan runs over the output domain K: [0, 7); shifted "
                             "reads need a larger input or a smaller output domain)\n"));
  // Inside: K from 1 runs. Backward from K = 6 with init 1: acc = acc * 1 + 1 gives 2 at K = 6,
  // 3 at K = 5, ..., 7 at K = 1 (out[1:3, 1:7] = 7, 6, ..., 2); the rest stays 0.
  r = s.run("cpu", "--set k0=1 --set k1=7 --out " + q(s.dir / "res"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(weir::test::run_numpy(
            s.dir,
            "o = np.load('res/out.npy')\nw = np.zeros((4, 8))\nw[1:3, 1:7] = np.arange(7.0, 1.0, -1.0)\n"
            "sys.exit(0 if (o == w).all() else 1)\n") == 0);
}

TEST_CASE("trial 3: a domain larger than the output is the output's fault on the cpu backend",
          "[cli][first-hour][scan]") {
  Scans s("domain");
  // domain K: (2, 9) with out of 8 levels. (The column's outer memlets start at 0, so the
  // range written is said from 0.)
  auto r = s.run("cpu", "--set k0=2 --set k1=9");
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::EndsWith("weir: error: program 'bprod_prog' stopped with an error: " + s.py.string() +
                             ":18:5: 'out' is written over K: [0, 9), outside its domain K: [0, 8)\n"
                             "  in the SDFG: state 'scan0_bprod_init_columns', map "
                             "'scan0_bprod_init_columns_map': writes out[0 .. 8] in dimension 1 of out "
                             "with shape 8 (the domain written is larger than the output; pass a larger "
                             "output or a smaller domain)\n"));
  r = s.run("embedded", "--set k0=2 --set k1=9");
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::EndsWith("weir: error: " + s.py.string() +
                             ":18:5: domain= gives K: [2, 9), outside the output field 'out' (K: [0, 8))\n"));
}

TEST_CASE("trial 3: a missing scalar argument is said the same way on every backend", "[cli][first-hour]") {
  Scans s("scalar");
  // k1 is a domain bound: a symbol in the lowered SDFG, an argument in the program.
  for (const char* backend : {"cpu", "embedded"}) {
    INFO(backend);
    auto r = s.run(backend, "--set k0=2");
    CHECK(r.code == 1);
    CHECK(r.out ==
          "weir: error: missing argument 'k1' (int32 scalar)\n  hint: give it with --set k1=VALUE\n");
    // A decimal for it: the program's words on both backends (cpu said "a symbol").
    r = s.run(backend, "--set k0=2 --set k1=3.7");
    CHECK(r.code == 2);
    CHECK(r.out ==
          "weir: error: --set k1=3.7: expected an integer ('k1' is an int32 argument of program "
          "'bprod_prog')\n");
  }
}

TEST_CASE("trial 3: a tiling that divides evenly runs and matches NumPy", "[cli][first-hour][tiling]") {
  // map-tiling{tile_sizes=4,1,1,divides_evenly=true} over I: [1, 9) (8 points): tiles at 1 and 5.
  // The tile map's outer memlets ended at the range's end plus a tile (f[0 .. 12] of 10), and
  // the run was refused as "the input is smaller than the domain".
  auto dir = weir::test::scratch_dir("cli-trial3-tiling");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
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

TEST_CASE("trial 3: complex outputs are summarised and written", "[cli][first-hour][npbench]") {
  // npbench's mandelbrot1 returns a complex128 array: the run summary stopped with
  // "value_as_double: unsupported dtype complex128" and --out wrote nothing.
  auto dir = weir::test::scratch_dir("cli-trial3-complex");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  const fs::path k = weir::test::npbench_corpus_dir() / "mandelbrot1";
  auto r = run_weir("run " + q(k / "mandelbrot1.frontend.sdfg") + " --set-json " + q(k / "symbols.json") +
                    " --set-json " + q(k / "scalars.json") + " --out " + q(dir / "res"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\n  __return_0: complex128 (125, 125)  real part: min ") &&
                        Catch::Contains("  imaginary part: min ") && Catch::Contains("wrote 2 files to "));
  CHECK(weir::test::run_numpy(
            dir, "e = " + q(k / "expected") +
                     "\nok = all(np.allclose(np.load('res/' + n), np.load(e + '/' + n)) for n in "
                     "('__return_0.npy', '__return_1.npy'))\nsys.exit(0 if ok else 1)\n") == 0);
}

TEST_CASE("trial 3: --set DIM=N that disagrees with a field given is refused", "[cli][first-hour]") {
  // It sized the allocated output (10, 9, 9) next to f of 4 levels, after a warning that it was
  // not used, and the run failed on a domain f does not cover.
  auto dir = weir::test::scratch_dir("cli-trial3-set-dim");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  REQUIRE(weir::test::run_numpy(dir, "np.save('f.npy', np.ones((6, 4, 4)))\n") == 0);
  const std::string lap = q(fs::path(WEIR_SOURCE_DIR) / "examples/cartesian/laplacian.py") + "::laplacian";
  for (const char* backend : {"embedded", "cpu"}) {
    auto r = run_weir("run " + lap + " --backend " + std::string(backend) + " --in f=" + q(dir / "f.npy") +
                      " --set K=9");
    INFO(r.out);
    CHECK(r.code == 2);
    CHECK(r.out ==
          "weir: error: --set K=9: 'f' is 4 long along K; --set K=N sizes the fields weir makes "
          "(--random-inputs, "
          "outputs it allocates) and must agree with the fields given\n");
  }
}

TEST_CASE("trial 3: an orchestration function's fields of two sizes are named on the cpu backend",
          "[cli][first-hour][orchestration]") {
  // The cpu backend said "__u_I_size = 20 from argument 'u'": the lowering's size symbol.
  auto dir = weir::test::scratch_dir("cli-trial3-orchestration");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "orch.py")
      << "import gt4py.next as gtx\nfrom gt4py.next import Field, Dims, float64, int32\n\n"
         "I = gtx.Dimension('I')\nF1 = Field[Dims[I], float64]\n\n"
         "@gtx.field_operator\n"
         "def step(u: F1, nu: float64) -> F1:\n"
         "    return u + nu * (u(I + 1) - 2.0 * u + u(I - 1))\n\n"
         "@gtx.program\n"
         "def step_prog(u: F1, nu: float64, out: F1):\n"
         "    step(u, nu, out=out[1:-1])\n\n"
         "def run(u: F1, v: F1, nu: float64, steps: int32):\n"
         "    for n in range(steps):\n"
         "        step_prog(u, nu, v)\n"
         "        u, v = v, u\n";
  REQUIRE(weir::test::run_numpy(dir, "np.save('u.npy', np.ones(20))\nnp.save('v.npy', np.ones(17))\n") == 0);
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    auto r =
        run_weir("run " + q(dir / "orch.py") + "::run --backend " + backend + " --in u=" + q(dir / "u.npy") +
                 " --in v=" + q(dir / "v.npy") + " --set nu=0.2 --set steps=2");
    CHECK(r.code == 1);
    CHECK_THAT(r.out,
               Catch::EndsWith("weir: error: argument 'v' is 17 long along I but 'u' is 20: the fields of an "
                               "orchestrated function have one size per dimension\n"));
  }
}

TEST_CASE("trial 3: a -1 read through a connectivity table names the read and the table entry",
          "[cli][first-hour][unstructured]") {
  // cpu said "the index is E2V[__Edge, 1]" (the lowering's map parameter); through an operator
  // called from another it named the argument of that call (`v` of `edge_diff(v)`) and no
  // table entry. The embedded backend named only the program call.
  auto dir = weir::test::scratch_dir("cli-trial3-missing-neighbour");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  REQUIRE(run_weir("mesh --nx 5 --ny 4 -o " + q(dir / "mesh")).code == 0);
  // V2E[2, 2] = 7 in this mesh; edge 7 loses its second vertex.
  REQUIRE(weir::test::run_numpy(dir,
                                "t = np.load('mesh/E2V.npy')\nassert np.load('mesh/V2E.npy')[2, 2] == 7\n"
                                "t[7, 1] = -1\nnp.save('mesh/E2V.npy', t)\n"
                                "np.save('v.npy', np.ones((20, 3)))\n") == 0);
  std::ofstream(dir / "unst.py")
      << "import gt4py.next as gtx\nfrom gt4py.next import Dims, Field, float64, neighbor_sum\n\n"
         "Vertex = gtx.Dimension('Vertex')\nEdge = gtx.Dimension('Edge')\n"
         "K = gtx.Dimension('K', kind=gtx.DimensionKind.VERTICAL)\n"
         "E2VDim = gtx.Dimension('E2V', kind=gtx.DimensionKind.LOCAL)\n"
         "V2EDim = gtx.Dimension('V2E', kind=gtx.DimensionKind.LOCAL)\n"
         "E2V = gtx.FieldOffset('E2V', source=Vertex, target=(Edge, E2VDim))\n"
         "V2E = gtx.FieldOffset('V2E', source=Edge, target=(Vertex, V2EDim))\n\n"
         "@gtx.field_operator\n"
         "def edge_diff(v: Field[Dims[Vertex, K], float64]) -> Field[Dims[Edge, K], float64]:\n"
         "    return v(E2V[1]) - v(E2V[0])\n\n"
         "@gtx.field_operator\n"
         "def vsum(w: Field[Dims[Vertex, K], float64]) -> Field[Dims[Vertex, K], float64]:\n"
         "    return neighbor_sum(edge_diff(w)(V2E), axis=V2EDim)\n\n"
         "@gtx.program\n"
         "def ediff(v: Field[Dims[Vertex, K], float64], e: Field[Dims[Edge, K], float64]):\n"
         "    edge_diff(v, out=e)\n\n"
         "@gtx.program\n"
         "def vprog(v: Field[Dims[Vertex, K], float64], o: Field[Dims[Vertex, K], float64]):\n"
         "    vsum(v, out=o)\n";
  const std::string py = (dir / "unst.py").string(), at = py + ":14:12";
  auto run = [&](const std::string& prog, const std::string& backend) {
    auto r = run_weir("run " + q(dir / "unst.py") + "::" + prog + " --backend " + backend +
                      " --in v=" + q(dir / "v.npy") + " --in-dir " + q(dir / "mesh"));
    INFO(r.out);
    CHECK(r.code == 1);
    return r.out;
  };
  const std::string missing =
      "(a -1 in a connectivity table marks a missing neighbour, which has no value to read)";
  CHECK_THAT(run("ediff", "cpu"),
             Catch::Contains("weir: error: program 'ediff' stopped with an error: " + at +
                             ": a read of 'v': index -1 in dimension 0 is outside [0, 20) "
                             "at (Edge=7, K=0); the index is E2V[Edge, 1] (" +
                             at + ") " + missing + "\n  in the SDFG: "));
  // Through vsum: the read on line 14, and the entry E2V[V2E[2, 2], 1] = E2V[7, 1].
  CHECK_THAT(run("vprog", "cpu"),
             Catch::Contains("weir: error: program 'vprog' stopped with an error: " + at +
                             ": a read of 'v': index -1 in dimension 0 is outside [0, 20) "
                             "at (Vertex=2, K=0); the index is E2V[V2E[Vertex, 2], 1] " +
                             missing + "\n  in the SDFG: "));
  const std::string through =
      ": a read of 'v' through E2V[7, 1], which is -1 (a missing neighbour, which has no value to read), "
      "leaves the result of ";
  CHECK_THAT(run("ediff", "embedded"), Catch::EndsWith("weir: error: " + at + through +
                                                       "'edge_diff' undefined at (Edge=7, K=0) of the "
                                                       "output 'e' (the call at " +
                                                       py + ":22:5)\n"));
  CHECK_THAT(run("vprog", "embedded"), Catch::EndsWith("weir: error: " + at + through +
                                                       "'vsum' undefined at (Vertex=2, K=0) of the output "
                                                       "'o' (the call at " +
                                                       py + ":26:5)\n"));
}

TEST_CASE("trial 3: a literal of another width says how to write it", "[cli][first-hour]") {
  // A float literal is float64 and an integer literal int32: with a float32 or int64 field the
  // operation does not type-check, and the error says the literal's fix.
  auto dir = weir::test::scratch_dir("cli-trial3-literal-width");
  auto check = [&](const std::string& type, const std::string& body) {
    std::ofstream(dir / "w.py")
        << "import gt4py.next as gtx\nfrom gt4py.next import Field, Dims, float32, int64\n"
           "I = gtx.Dimension('I')\n@gtx.field_operator\n"
           "def g(f: Field[Dims[I], "
        << type << "]) -> Field[Dims[I], " << type << "]:\n    return " << body << "\n";
    auto r = run_weir("check " + q(dir / "w.py"));
    CHECK(r.code == 1);
    return r.out;
  };
  const std::string w = (dir / "w.py").string();
  CHECK_THAT(
      check("float32", "f + 0.1"),
      Catch::StartsWith(w + ":6:14: error: cannot add Field[[I], float32] and float64; write the literal "
                            "0.1 as float32(0.1) (the literal is float64, and no width is converted "
                            "implicitly)\n"));
  CHECK_THAT(
      check("int64", "f ** 3"),
      Catch::StartsWith(w + ":6:14: error: cannot raise to a power Field[[I], int64] and int32; write the "
                            "literal 3 as int64(3) (the literal is int32, and no width is converted "
                            "implicitly)\n"));
  // The same width type-checks.
  std::ofstream(dir / "ok.py") << "import gt4py.next as gtx\nfrom gt4py.next import Field, Dims, float32\n"
                                  "I = gtx.Dimension('I')\n@gtx.field_operator\n"
                                  "def g(f: Field[Dims[I], float32]) -> Field[Dims[I], float32]:\n"
                                  "    return f + float32(0.1)\n";
  CHECK(run_weir("check " + q(dir / "ok.py")).code == 0);
}

TEST_CASE("trial 3: the one array of a wrong size is blamed, whatever its place", "[cli][first-hour]") {
  // DaCe's hdiff: in_field is (I + 4, J + 4, K), out_field and coeff (I, J, K). An in_field one
  // row short gave "argument 'out_field': expected (15, 16, 8)": I was taken from the first array.
  auto dir = weir::test::scratch_dir("cli-trial3-majority");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  const fs::path k = weir::test::dace_corpus_dir() / "hdiff";
  REQUIRE(weir::test::run_numpy(dir, "np.save('bad.npy', np.zeros((19, 20, 8)))\n") == 0);
  auto r = run_weir("run " + q(k / "hdiff.simplified.sdfg") + " --in-dir " + q(k / "inputs") +
                    " --in in_field=" + q(dir / "bad.npy"));
  CHECK(r.code == 1);
  CHECK(r.out ==
        "weir: error: argument 'in_field': expected float64 array of shape (20, 20, 8), got float64 "
        "(19, 20, 8) (I = 16 from argument 'out_field' (dimension 0 is I = 16))\n");
}

TEST_CASE("trial 3: an SDFG written by weir sdfg runs with its inputs alone", "[cli][first-hour]") {
  // Its outputs only written (out of laplacian) are allocated as zeros, as when the .py runs;
  // they had to be given as files.
  auto dir = weir::test::scratch_dir("cli-trial3-sdfg-outputs");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  const std::string lap = q(fs::path(WEIR_SOURCE_DIR) / "examples/cartesian/laplacian.py") + "::laplacian";
  REQUIRE(run_weir("sdfg " + lap + " -o " + q(dir / "lap.sdfg")).code == 0);
  REQUIRE(weir::test::run_numpy(dir, "np.save('f.npy', np.random.default_rng(5).random((6, 5, 3)))\n") == 0);
  auto r =
      run_weir("run " + q(dir / "lap.sdfg") + " --in f=" + q(dir / "f.npy") + " --out " + q(dir / "res"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\noutputs allocated as zeros: out float64 (6, 5, 3)\n"));
  CHECK(weir::test::run_numpy(
            dir,
            "f = np.load('f.npy')\nw = np.zeros((6, 5, 3))\n"
            "w[1:-1, 1:-1] = -4.0 * f[1:-1, 1:-1] + f[2:, 1:-1] + f[:-2, 1:-1] + f[1:-1, 2:] + "
            "f[1:-1, :-2]\n"
            "sys.exit(0 if np.allclose(np.load('res/out.npy'), w, rtol=0, atol=1e-14) else 1)\n") == 0);
}

TEST_CASE("trial 3: weir check notes a module it cannot find that no definition uses", "[cli][first-hour]") {
  // `from mylib import helper` with mylib missing passed silently while nothing used helper.
  auto dir = weir::test::scratch_dir("cli-trial3-unused-import");
  const std::string py = (dir / "imp.py").string();
  std::ofstream(py) << "import gt4py.next as gtx\nfrom gt4py.next import Field, Dims, float64\n"
                       "from mylib import helper\nimport numpy as np\nfrom mylib import other\n"
                       "I = gtx.Dimension('I')\n\n@gtx.field_operator\n"
                       "def f(a: Field[Dims[I], float64]) -> Field[Dims[I], float64]:\n    return a\n";
  auto r = run_weir("check " + q(dir / "imp.py"));
  CHECK(r.code == 0);
  // Once per module, at its first import; in the order of the module names.
  CHECK(r.out == "field_operator f(a: Field[[I], float64]) -> Field[[I], float64]\n" + py +
                     ":3:19: note: module 'mylib' is not on the search path (-I DIR adds a directory); no "
                     "definition here uses it, so nothing fails\n" +
                     py +
                     ":4:8: note: module 'numpy' is not on the search path (-I DIR adds a directory); no "
                     "definition here uses it, so nothing fails\n" +
                     py + ": 1 definition checked\n");
  // A module a definition uses is an error there, not a note.
  std::ofstream(py, std::ios::app) << "\n@gtx.field_operator\n"
                                      "def g(a: Field[Dims[I], float64]) -> Field[Dims[I], float64]:\n"
                                      "    return helper(a)\n";
  r = run_weir("check " + q(dir / "imp.py"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, !Catch::Contains("note: module 'mylib'"));
  CHECK_THAT(r.out, Catch::Contains("note: module 'numpy'"));
}
