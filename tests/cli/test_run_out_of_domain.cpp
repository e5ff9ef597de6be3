// `weir run` of programs that read or write outside a field's domain, with exact messages on
// both backends, in the program's terms: an output larger than an input is named with both
// shapes; a scan's shifted read (also inside the nested SDFG of its column) names the .py read
// and the cause; a domain= larger than the output is the output's fault; a -1 read through a
// connectivity table names the table entry; an undefined result of a Cartesian program does not
// blame connectivity tables; the hint for a stencil run directly slices only the dimensions it
// shifts in.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "cli_test_util.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

using weir::test::run_numpy;
using weir::test::run_weir;
using weir::test::cli::python;
using weir::test::cli::Scans;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
fs::path ex_path(const std::string& rel) { return fs::path(WEIR_SOURCE_DIR) / "examples" / rel; }

}  // namespace

TEST_CASE("first hour: an output larger than an input is named with both shapes", "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-run-output-shapes");
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

TEST_CASE("first hour: a scan reading past its input names the read and the cause on the cpu backend",
          "[cli][run][scan]") {
  // The cpu backend's bounds check of a scan after auto-optimize is on the outer memlet of the
  // nested SDFG LoopMapInterchange makes of the column loop: that memlet names no line and reads
  // from 0, so the line and the hint come from the memlets inside (a[__K + 1] at scan.py:14:18).
  auto dir = weir::test::scratch_dir("cli-run-scan-bounds");
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

TEST_CASE(
    "weir run: a shifted scan read before its field inside a nested SDFG is named in the program's terms",
    "[cli][run][scan]") {
  Scans s("shifted");
  // K from 0: f(K - 1) reads K = -1. The check that fails is inside the nested SDFG of the
  // column (its outer memlet starts at 0): it names the read (line 14, column 18), the field's
  // dimension by name and its domain, then where in the SDFG (after ScanColumnBlocking, ADR
  // 0044: the map over a block of columns in the level's state, whose f has the block's
  // columns first).
  auto r = s.run("cpu", "--set k0=0 --set k1=7");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::EndsWith("weir: error: program 'bprod_prog' stopped with an error: " + s.py.string() +
                             ":14:18: 'f' is read over K: [-1, 0), outside its domain K: [0, 8)\n"
                             "  in the SDFG: state 'scan0_bprod_init_columns': nested SDFG "
                             "'scan0_bprod_init_column', state 'scan0_bprod/scan0_bprod_level', map "
                             "'colblock_scan0_bprod_level': reads f[-1 .. -1] in dimension 1 of f with shape "
                             "8 (shifted reads need a larger input or a smaller output domain)\n"));
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

TEST_CASE("weir run: a domain larger than the output is the output's fault on the cpu backend",
          "[cli][run][scan]") {
  Scans s("domain");
  // domain K: (2, 9) with out of 8 levels, and K: (-2, 3), which starts before it: both backends
  // say it in the program's terms, with the domain= as given. (The cpu backend said "written over
  // K: [0, 9)" for the first, from the column's outer memlets, and "writes out[-1 .. -1] in
  // dimension 1" for the second.)
  for (const auto& [bounds, domain] : {std::pair<std::string, std::string>{"--set k0=2 --set k1=9", "[2, 9)"},
                                       {"--set k0=-2 --set k1=3", "[-2, 3)"}})
    for (const char* backend : {"cpu", "embedded"}) {
      INFO(backend << " " << bounds);
      auto r = s.run(backend, bounds);
      CHECK(r.code == 1);
      CHECK_THAT(r.out, Catch::EndsWith("weir: error: " + s.py.string() + ":18:5: domain= gives K: " +
                                        domain + ", outside the output field 'out' (K: [0, 8))\n"));
    }
}

TEST_CASE("weir run: a -1 read through a connectivity table names the read and the table entry",
          "[cli][run][unstructured]") {
  // cpu said "the index is E2V[__Edge, 1]" (the lowering's map parameter); through an operator
  // called from another it named the argument of that call (`v` of `edge_diff(v)`) and no
  // table entry. The embedded backend named only the program call.
  auto dir = weir::test::scratch_dir("cli-run-missing-neighbour");
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
                             ": a read of 'v': index -1 along Vertex is outside [0, 20) "
                             "at (Edge=7, K=0); the index is E2V[Edge, 1] (" +
                             at + ") " + missing + "\n  in the SDFG: "));
  // Through vsum: the read on line 14, and the entry E2V[V2E[2, 2], 1] = E2V[7, 1].
  CHECK_THAT(run("vprog", "cpu"),
             Catch::Contains("weir: error: program 'vprog' stopped with an error: " + at +
                             ": a read of 'v': index -1 along Vertex is outside [0, 20) "
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

TEST_CASE("weir run: an undefined result of a Cartesian program does not blame connectivity tables",
          "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-run-undefined");
  // concat_where over two dimensions: nx larger than the input makes I=4 an interior point, whose
  // f(I + 1) is outside f.
  std::ofstream(dir / "c.py")
      << "import gt4py.next as gtx\n"
         "from gt4py.next import Field, Dims, float64, int32, concat_where\n"
         "I = gtx.Dimension('I')\n"
         "J = gtx.Dimension('J')\n"
         "F = Field[Dims[I, J], float64]\n"
         "@gtx.field_operator\n"
         "def bc(f: F, nx: int32, ny: int32) -> F:\n"
         "    return concat_where((I == 0) | (I == nx - 1) | (J == 0) | (J == ny - 1), f,\n"
         "                        f(I + 1) + f(I - 1) + f(J + 1) + f(J - 1))\n"
         "@gtx.program\n"
         "def edge(f: F, nx: int32, ny: int32, out: F):\n"
         "    bc(f, nx, ny, out=out)\n";
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.ones((5, 4)))\nnp.save('out.npy', np.zeros((5, 4)))\n") == 0);
  auto r = run_weir("run " + q(dir / "c.py") + "::edge --in-dir " + q(dir) + " --set nx=7 --set ny=4");
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::EndsWith("weir: error: " + (dir / "c.py").string() +
                             ":12:5: the result of 'bc' is undefined at (I=4, J=1) of the output 'out' (a "
                             "read outside an input field: a shifted read there reaches past the input's "
                             "end)\n"));
  // Right sizes: the 6 interior points sum four neighbours of 1, the 14 others copy 1.
  r = run_weir("run " + q(dir / "c.py") + "::edge --in-dir " + q(dir) + " --set nx=5 --set ny=4");
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("  out: float64 (5, 4)  min 1  max 4  mean 1.9"));
}

TEST_CASE("weir run: the hint for a stencil run directly slices only the dimensions it shifts in",
          "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-run-hint-slice");
  std::ofstream(dir / "g.py") << "import gt4py.next as gtx\n"
                                 "from gt4py.next import Field, Dims, float64\n"
                                 "I = gtx.Dimension('I')\n"
                                 "J = gtx.Dimension('J')\n"
                                 "K = gtx.Dimension('K')\n"
                                 "F = Field[Dims[I, J, K], float64]\n"
                                 "@gtx.field_operator\n"
                                 "def grad_x(f: F) -> F:\n"
                                 "    return 0.5 * (f(I + 1) - f(I - 1))\n";
  // (The embedded backend names the domain computed, a compiled one's bounds check the
  // dimensions read outside: the same slice.)
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    auto r = run_weir("run " + q(dir / "g.py") +
                      "::grad_x --random-inputs --set I=10 --set J=10 --set K=3 --backend " + backend);
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::EndsWith("e.g. grad_x(f, out=out[1:-1, :, :])\n"));
  }
}
