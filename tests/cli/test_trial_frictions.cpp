// Frictions a new user met in the first hour (issue 16, /work/trial-frictions.md), each with the
// exact message or behaviour now: --set-json names another program has are ignored; an int32
// scalar out of range is refused on every backend; a misspelt gt4py decorator is an error; the
// backends agree on connectivity-table mistakes; `weir check` says why a caller has errors;
// files that are not what the command reads say what they are.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

using weir::test::run_numpy;
using weir::test::run_weir;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

const char* kBackends[] = {"embedded", "cpu"};

// A Cartesian program with integer scalars (the trial's lap_concat, shortened to one dimension).
const char* kBoundary =
    "import gt4py.next as gtx\n"
    "from gt4py.next import Field, Dims, float64, int32, concat_where\n"
    "I = gtx.Dimension('I')\n"
    "@gtx.field_operator\n"
    "def bc(f: Field[Dims[I], float64], nx: int32) -> Field[Dims[I], float64]:\n"
    "    return concat_where((I == 0) | (I == nx - 1), f, 2.0 * f)\n"
    "@gtx.program\n"
    "def boundary(f: Field[Dims[I], float64], nx: int32, out: Field[Dims[I], float64]):\n"
    "    bc(f, nx, out=out)\n";

// Edges to vertices: a direct difference (E2V[0], E2V[1]) and a sum over all of a row.
const char* kEdges =
    "import gt4py.next as gtx\n"
    "from gt4py.next import Field, Dims, float64, neighbor_sum\n"
    "Vertex = gtx.Dimension('Vertex')\n"
    "Edge = gtx.Dimension('Edge')\n"
    "E2VDim = gtx.Dimension('E2V', kind=gtx.DimensionKind.LOCAL)\n"
    "E2V = gtx.FieldOffset('E2V', source=Vertex, target=(Edge, E2VDim))\n"
    "@gtx.field_operator\n"
    "def diff(v: Field[Dims[Vertex], float64]) -> Field[Dims[Edge], float64]:\n"
    "    return v(E2V[1]) - v(E2V[0])\n"
    "@gtx.field_operator\n"
    "def total(v: Field[Dims[Vertex], float64]) -> Field[Dims[Edge], float64]:\n"
    "    return neighbor_sum(v(E2V), axis=E2VDim)\n"
    "@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)\n"
    "def edges(v: Field[Dims[Vertex], float64], de: Field[Dims[Edge], float64], "
    "se: Field[Dims[Edge], float64]):\n"
    "    diff(v, out=de)\n"
    "    total(v, out=se)\n";

}  // namespace

TEST_CASE("trial: a --set-json name the program lacks is a warning, and the run goes on",
          "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-set-json");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "b.py") << kBoundary;
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.arange(5.0))\nnp.save('out.npy', np.zeros(5))\n") == 0);
  // One symbols file shared by several programs: nz is another program's.
  std::ofstream(dir / "sym.json") << R"({"nx": 5, "nz": 3})";
  for (const char* backend : kBackends) {
    INFO(backend);
    auto r = run_weir("run " + q(dir / "b.py") + "::boundary --in-dir " + q(dir) + " --set-json " +
                      q(dir / "sym.json") + " --backend " + backend);
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK_THAT(
        r.out,
        Catch::StartsWith(
            "weir: warning: --set-json: program 'boundary' has no parameter, symbol "
            "or dimension 'nz'; did you mean 'nx'? (parameters: f, nx, out; dimensions: I); ignored\n"));
    // 0 and 4 kept, 1..3 doubled: 2 + 4 + 6 = 12 over five points.
    CHECK_THAT(r.out, Catch::Contains("  out: float64 (5,)  min 0  max 6  mean 3.2"));
    CHECK(r.out.find("error") == std::string::npos);
  }
}

TEST_CASE("trial: an int32 scalar out of range is refused on every backend, not wrapped",
          "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-int32");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "b.py") << kBoundary;
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.arange(5.0))\nnp.save('out.npy', np.zeros(5))\n") == 0);
  for (const char* backend : kBackends) {
    INFO(backend);
    // 2**32 + 5 wrapped to 5 on the embedded backend (and ran); 3e9 to a negative number.
    for (const std::string& nx : std::vector<std::string>{"4294967301", "3000000000", "-2147483649"}) {
      auto r = run_weir("run " + q(dir / "b.py") + "::boundary --in-dir " + q(dir) + " --set nx=" + nx +
                        " --backend " + backend);
      CHECK(r.code == 2);
      CHECK(r.out == "weir: error: --set nx=" + nx +
                         ": expected an integer from -2147483648 to 2147483647 ('nx' is an int32 argument of "
                         "program 'boundary')\n");
    }
    auto r = run_weir("run " + q(dir / "b.py") + "::boundary --in-dir " + q(dir) +
                      " --set nx=2.5 --backend " + backend);
    CHECK(r.code == 2);
    CHECK(
        r.out ==
        "weir: error: --set nx=2.5: expected an integer ('nx' is an int32 argument of program 'boundary')\n");
  }
}

TEST_CASE("trial: a misspelt gt4py decorator is an error at the decorator, with the name meant",
          "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-decorator");
  std::ofstream(dir / "s1.py") << "import gt4py.next as gtx\n"
                                  "from gt4py.next import Field, Dims, float64\n"
                                  "I = gtx.Dimension('I')\n"
                                  "@gtx.field_operatr\n"
                                  "def f1(x: Field[Dims[I], float64]) -> Field[Dims[I], float64]:\n"
                                  "    return x\n"
                                  "@gtx.field_operator\n"
                                  "def f2(x: Field[Dims[I], float64]) -> Field[Dims[I], float64]:\n"
                                  "    return x\n"
                                  "@gtx.progam\n"
                                  "def p(x: Field[Dims[I], float64], out: Field[Dims[I], float64]):\n"
                                  "    f2(x, out=out)\n";
  const std::string s1 = (dir / "s1.py").string();
  auto r = run_weir("check " + q(dir / "s1.py"));
  CHECK(r.code == 1);
  CHECK(r.out ==
        "field_operator f2(x: Field[[I], float64]) -> Field[[I], float64]\n" + s1 +
            ":4:2: error: unknown decorator 'gtx.field_operatr': gt4py.next has no 'field_operatr' (did "
            "you mean 'gtx.field_operator'?)\n@gtx.field_operatr\n ^\n" +
            s1 +
            ":10:2: error: unknown decorator 'gtx.progam': gt4py.next has no 'progam' (did you mean "
            "'gtx.program'?)\n@gtx.progam\n ^\n" +
            s1 + ": 3 definitions checked, 2 with errors\n");
  // Run, it says the same (once "error:": after "weir: error:" the located error drops its own).
  r = run_weir("run " + q(dir / "s1.py") + "::f1 --random-inputs --set I=4");
  CHECK(r.code == 1);
  CHECK(r.out ==
        "weir: error: " + s1 +
            ":4:2: unknown decorator 'gtx.field_operatr': gt4py.next has no 'field_operatr' (did you "
            "mean 'gtx.field_operator'?)\n@gtx.field_operatr\n ^\n");
}

TEST_CASE("trial: weir check says which callee's errors stop a caller", "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-check-callee");
  std::ofstream(dir / "e3.py") << "import gt4py.next as gtx\n"
                                  "from gt4py.next import Field, Dims, float64\n"
                                  "I = gtx.Dimension('I')\n"
                                  "J = gtx.Dimension('J')\n"
                                  "K = gtx.Dimension('K')\n"
                                  "IJ = Field[Dims[I, J], float64]\n"
                                  "@gtx.field_operator\n"
                                  "def up(f: IJ) -> IJ:\n"
                                  "    return f(K + 1)\n"
                                  "@gtx.program\n"
                                  "def prog(f: IJ, out: IJ):\n"
                                  "    up(f, out=out)\n";
  const std::string e3 = (dir / "e3.py").string();
  auto r = run_weir("check " + q(dir / "e3.py"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::StartsWith(e3 + ":9:14: error: cannot shift"));
  CHECK_THAT(r.out,
             Catch::EndsWith(e3 + ":11:1: error: 'prog' is not checked: it calls 'up', which has errors (" +
                             e3 + ":9:14)\ndef prog(f: IJ, out: IJ):\n^\n" + e3 +
                             ": 2 definitions checked, 2 with errors\n"));
}

TEST_CASE("trial: both backends say the same of a connectivity table's dtype, width and rows",
          "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-tables");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "edges.py") << kEdges;
  // 6 edges over 5 vertices; a third column (gt4py takes the neighbours per row from the table).
  REQUIRE(run_numpy(
              dir,
              "e2v = np.array([[0, 1, 2], [1, 2, 3], [2, 3, 4], [3, 4, 0], [4, 0, 1], [0, 2, 4]], np.int32)\n"
              "v = np.array([1.0, 10.0, 100.0, 1000.0, 10000.0])\n"
              "for d, t in (('two', e2v[:, :2]), ('three', e2v), ('short', e2v[:4, :2]),\n"
              "             ('float', e2v[:, :2].astype(np.float64))):\n"
              "    os.makedirs(d)\n"
              "    np.save(d + '/E2V.npy', np.ascontiguousarray(t))\n"
              "    np.save(d + '/v.npy', v)\n"
              "    np.save(d + '/de.npy', np.zeros(6))\n"
              "    np.save(d + '/se.npy', np.zeros(6))\n"
              "    if d in ('two', 'three'):\n"
              "        np.save(d + '/de_ref.npy', v[t[:, 1]] - v[t[:, 0]])\n"
              "        np.save(d + '/se_ref.npy', v[t].sum(axis=1))\n") == 0);
  auto run = [&](const std::string& in, const std::string& backend, const std::string& extra = "") {
    return run_weir("run " + q(dir / "edges.py") + "::edges --in-dir " + q(dir / in) + " --backend " +
                    backend + extra);
  };
  for (const char* backend : kBackends) {
    INFO(backend);
    auto r = run("float", backend);
    CHECK(r.code == 1);
    CHECK(r.out ==
          "weir: error: connectivity table 'E2V': expected an int32 or int64 array of shape (n_Edge, "
          "max_neighbours), got float64 (6, 2)\n");
    // Two and three columns run, and agree with NumPy (the sum takes every column given).
    for (const std::string& in : std::vector<std::string>{"two", "three"}) {
      INFO(in);
      r = run(in, backend, " --out " + q(dir / (in + "-" + backend)));
      INFO(r.out);
      CHECK(r.code == 0);
      CHECK(run_numpy(dir,
                      "for n in ('de', 'se'):\n"
                      "    a = np.load('" +
                          in + "-" + backend +
                          "/' + n + '.npy')\n"
                          "    b = np.load('" +
                          in +
                          "/' + n + '_ref.npy')\n"
                          "    assert (a == b).all(), (n, a, b)\n") == 0);
    }
    // 4 rows for 6 edges: the cause is named after the backend's own message.
    r = run("short", backend);
    CHECK(r.code == 1);
    CHECK_THAT(r.out,
               Catch::EndsWith("\n  connectivity table 'E2V' has 4 rows, but 'de' has 6 along Edge (a row "
                               "for every Edge)\n"));
  }
}

TEST_CASE("trial: a .npy or a JSON list where an SDFG is read says what it is", "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-not-sdfg");
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.zeros(3))\n") == 0);
  std::ofstream(dir / "tune.json") << R"([{"pass": "simplify"}])";
  const std::string npy = (dir / "f.npy").string(), json = (dir / "tune.json").string();
  for (const std::string& cmd : {"run " + q(npy), "run " + q(npy) + " --backend cpu",
                                 "view " + q(npy) + " --html " + q(dir / "v.html"), "info " + q(npy)}) {
    INFO(cmd);
    auto r = run_weir(cmd);
    CHECK(r.code == 1);
    CHECK(r.out ==
          "weir: error: " + npy +
              ": /: a NumPy array (.npy, \\x93NUMPY magic), not an SDFG (.sdfg, .sdfgz); `weir run` takes "
              "arrays with --in NAME=FILE.npy or --in-dir DIR\n");
  }
  auto r = run_weir("run " + q(json));
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + json +
                     ": /: not an SDFG: expected a JSON object with \"type\": \"SDFG\", found an array (a "
                     "transformation script is given to weir optimize --script)\n");
  // A binary file that is no .npy: the byte the parser stopped at is written out, not printed raw.
  std::ofstream(dir / "bin.sdfg", std::ios::binary) << "\x93xyz";
  r = run_weir("info " + q(dir / "bin.sdfg"));
  CHECK(r.code == 1);
  CHECK(r.out ==
        "weir: error: " + (dir / "bin.sdfg").string() + ":1:1: invalid JSON: invalid literal '<0x93>'\n");
}

TEST_CASE("trial: a file that does not exist is said in one form for .py, .npy and SDFG files",
          "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-missing");
  std::ofstream(dir / "b.py") << kBoundary;
  const std::string none = "No such file or directory\n";
  auto r = run_weir("run " + q(dir / "nothere.py") + "::boundary");
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + (dir / "nothere.py").string() + ": cannot open: " + none);
  r = run_weir("run " + q(dir / "b.py") + "::boundary --in f=" + q(dir / "nothere.npy"));
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + (dir / "nothere.npy").string() + ": cannot open: " + none);
  r = run_weir("run " + q(dir / "nothere.sdfg"));
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + (dir / "nothere.sdfg").string() + ": cannot open: " + none);
  r = run_weir("check " + q(dir));
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + dir.string() + ": is a directory, not a .py file\n");
}

TEST_CASE("trial: an SDFG file runs on the cpu backend without --backend", "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-default-backend");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "b.py") << kBoundary;
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.arange(5.0))\nnp.save('out.npy', np.zeros(5))\n") == 0);
  auto r = run_weir("sdfg " + q(dir / "b.py") + "::boundary -o " + q(dir / "b.sdfg"));
  REQUIRE(r.code == 0);
  r = run_weir("run " + q(dir / "b.sdfg") + " --in-dir " + q(dir) + " --set nx=5");
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK_THAT(r.out,
             Catch::StartsWith("program 'boundary' (" + (dir / "b.sdfg").string() + ") on backend 'cpu'\n"));
  CHECK_THAT(r.out, Catch::Contains("  out: float64 (5,)  min 0  max 6  mean 3.2"));
  // A field-view program compiled says what was done to it before compiling.
  r = run_weir("run " + q(dir / "b.py") + "::boundary --in-dir " + q(dir) + " --set nx=5 --backend cpu");
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::StartsWith(
                        "program 'boundary' (" + (dir / "b.py").string() +
                        "::boundary) on backend 'cpu'\nlowered to an SDFG and optimized by auto-optimize-cpu "
                        "('weir sdfg' and 'weir optimize' write and tune it yourself)\n"));
}

TEST_CASE("trial: -o of an SDFG with another extension warns", "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-out-name");
  std::ofstream(dir / "b.py") << kBoundary;
  auto r = run_weir("sdfg " + q(dir / "b.py") + "::boundary -o " + q(dir / "b.sdfg"));
  REQUIRE(r.code == 0);
  const std::string x = (dir / "x.npy").string();
  r = run_weir("optimize " + q(dir / "b.sdfg") + " --auto cpu -o " + q(x));
  CHECK(r.code == 0);
  CHECK_THAT(r.out,
             Catch::StartsWith("weir: warning: -o " + x +
                               ": the file gets an SDFG (JSON); SDFG files are named .sdfg (or .sdfgz, "
                               "gzip-compressed)\n"));
  for (const std::string& ok : std::vector<std::string>{"y.sdfg", "y.sdfgz", "y.json"}) {
    r = run_weir("convert " + q(dir / "b.sdfg") + " -o " + q(dir / ok));
    CHECK(r.code == 0);
    CHECK(r.out.find("warning") == std::string::npos);
  }
  r = run_weir("optimize --help");
  CHECK_THAT(r.out, Catch::Contains("for a device: cpu or gpu"));
}

TEST_CASE("trial: NumPy functions and gt4py builtins not imported point to gt4py.next's",
          "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-builtins");
  const std::string head =
      "import numpy as np\nimport gt4py.next as gtx\nfrom gt4py.next import Field, Dims, float64\n"
      "I = gtx.Dimension('I')\n@gtx.field_operator\n"
      "def g(f: Field[Dims[I], float64]) -> Field[Dims[I], float64]:\n";
  auto check = [&](const std::string& body) {
    std::ofstream(dir / "m.py") << head << "    return " << body << "\n";
    auto r = run_weir("check " + q(dir / "m.py"));
    CHECK(r.code == 1);
    return r.out;
  };
  const std::string m = (dir / "m.py").string();
  CHECK_THAT(
      check("np.sqrt(f)"),
      Catch::StartsWith(m + ":7:12: error: 'numpy.sqrt' is a NumPy function, which field operators cannot "
                            "call: use gt4py.next's 'sqrt' (from gt4py.next import sqrt)\n"));
  CHECK_THAT(
      check("where(f > 0.0, f, 0.0)"),
      Catch::StartsWith(m + ":7:12: error: unknown name 'where' (a gt4py.next builtin: from gt4py.next "
                            "import where)\n"));
  CHECK_THAT(check("max(f, 0.0)"),
             Catch::StartsWith(m + ":7:12: error: unknown name 'max' (element-wise on fields: gt4py.next's "
                                   "maximum, from gt4py.next import maximum)\n"));
  CHECK_THAT(
      check("4 * f"),
      Catch::StartsWith(m + ":7:14: error: cannot multiply int32 and Field[[I], float64]"
                            "; write the literal 4 as 4.0 (integers are not converted to floating point)\n"));
}

TEST_CASE("trial: weir check lists the orchestration functions of a file", "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-check-orchestration");
  std::ofstream(dir / "o.py")
      << "import gt4py.next as gtx\n"
         "from gt4py.next import Field, Dims, float64\n"
         "I = gtx.Dimension('I')\n"
         "@gtx.field_operator\n"
         "def twice(f: Field[Dims[I], float64]) -> Field[Dims[I], float64]:\n"
         "    return 2.0 * f\n"
         "def helper(x):\n"
         "    print(x)\n"
         "def advect(f: Field[Dims[I], float64], g: Field[Dims[I], float64], n: int):\n"
         "    for _ in range(n):\n"
         "        twice(f, out=g)\n";
  auto r = run_weir("check " + q(dir / "o.py"));
  CHECK(r.code == 0);
  CHECK(r.out ==
        "field_operator twice(f: Field[[I], float64]) -> Field[[I], float64]\n"
        "orchestration advect(f: Field[[I], float64], g: Field[[I], float64], n: int64)\n" +
            (dir / "o.py").string() + ": 1 definition checked\n");
}

TEST_CASE("trial: an undefined result of a Cartesian program does not blame connectivity tables",
          "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-undefined");
  // The trial's lap_concat: nx larger than the input makes I=4 an interior point, whose
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

TEST_CASE("trial: weir view of an orchestration function shows its SDFG", "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-view-orchestration");
  const std::string heat = std::string(WEIR_SOURCE_DIR) + "/examples/orchestration/heat.py::heat";
  auto r = run_weir("view " + q(heat) + " --html " + q(dir / "heat.html"));
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(fs::file_size(dir / "heat.html") > 10000);
  r = run_weir("view " + q(heat) + " --compare " + q(heat) + " --html " + q(dir / "same.html"));
  CHECK(r.code == 0);
}

TEST_CASE("trial: a script step whose labels match nothing lists the labels there are",
          "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-script-labels");
  std::ofstream(dir / "b.py") << kBoundary;
  REQUIRE(run_weir("sdfg " + q(dir / "b.py") + "::boundary -o " + q(dir / "b.sdfg")).code == 0);
  std::ofstream(dir / "t.json") << R"([{"transformation": "MapTiling", "where": {"labels": ["nosuchmap"]}}])";
  auto r = run_weir("optimize " + q(dir / "b.sdfg") + " --script " + q(dir / "t.json") + " -o " +
                    q(dir / "o.sdfg"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::Contains("no applicable match has the labels 'nosuchmap'; applicable matches: ['"));
}

TEST_CASE("trial: --random-inputs names every extent it lacks at once", "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-random-sizes");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "edges.py") << kEdges;
  const std::string mesh =
      " (--set DIM=N sizes every field along DIM); or take a mesh's tables and sizes from files: weir mesh "
      "--nx "
      "8 --ny 6 -o mesh, then --in-dir mesh\n";
  // The embedded backend takes the neighbours per row from the table; a compiled program has 2.
  auto r = run_weir("run " + q(dir / "edges.py") + "::edges --random-inputs");
  CHECK(r.code == 1);
  CHECK(r.out ==
        "weir: error: --random-inputs: the arrays not given ('v', 'de', 'se', 'E2V') need the extents of "
        "Vertex, "
        "Edge, E2V; give them with --set Vertex=N --set Edge=N --set E2V=N" +
            mesh);
  r = run_weir("run " + q(dir / "edges.py") + "::edges --random-inputs --backend cpu");
  CHECK(r.code == 1);
  CHECK(r.out ==
        "weir: error: --random-inputs: the arrays not given ('v', 'de', 'se', 'E2V') need the extents of "
        "Vertex, "
        "Edge; give them with --set Vertex=N --set Edge=N" +
            mesh);
  // Given, it runs.
  r = run_weir("run " + q(dir / "edges.py") +
               "::edges --random-inputs --set Vertex=5 --set Edge=6 --set E2V=2");
  CHECK(r.code == 0);
}

TEST_CASE("trial: the hint for a stencil run directly slices only the dimensions it shifts in",
          "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-hint-slice");
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

TEST_CASE("trial: -o, --html and --out never overwrite an input of the command", "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-out-input");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "b.py") << kBoundary;
  std::ofstream(dir / "lib.py") << "import gt4py.next as gtx\n"
                                   "from gt4py.next import Field, Dims, float64\n"
                                   "I = gtx.Dimension('I')\n"
                                   "@gtx.field_operator\n"
                                   "def twice(f: Field[Dims[I], float64]) -> Field[Dims[I], float64]:\n"
                                   "    return 2.0 * f\n";
  std::ofstream(dir / "main.py") << "import gt4py.next as gtx\n"
                                    "from gt4py.next import Field, Dims, float64\n"
                                    "from lib import I, twice\n"
                                    "@gtx.program\n"
                                    "def p(f: Field[Dims[I], float64], out: Field[Dims[I], float64]):\n"
                                    "    twice(f, out=out)\n";
  REQUIRE(run_weir("sdfg " + q(dir / "b.py") + "::boundary -o " + q(dir / "b.sdfg")).code == 0);
  std::ofstream(dir / "tune.json") << R"([{"pass": "simplify"}])";
  std::ofstream(dir / "spec.json")
      << R"({"arrays": {"f": {"dtype": "float64", "shape": ["N"]}, "out": {"dtype": "float64", "shape": ["N"]}},
             "scalars": {"nx": "int32"}, "stages": {"b": "b.sdfg"},
             "sequence": [{"call": "b", "bind": {"f": "f", "nx": "nx", "out": "out"}}]})";
  fs::create_hard_link(dir / "b.py", dir / "alias.py");  // the same file by another name
  const std::string before_py = weir::test::read_text(dir / "b.py");
  const std::string before_sdfg = weir::test::read_text(dir / "b.sdfg");
  auto refused = [&](const std::string& args, const std::string& given, const fs::path& input) {
    INFO(args);
    auto r = run_weir(args);
    CHECK(r.code == 2);
    CHECK(r.out == "weir: error: " + given + ": would overwrite the input file " + input.string() +
                       "; choose another output file\n");
  };
  const std::string py = (dir / "b.py").string(), sdfg = (dir / "b.sdfg").string();
  refused("sdfg " + q(py) + "::boundary -o " + q(py), "-o " + py, py);
  const std::string alias = (dir / "alias.py").string();
  refused("sdfg " + q(py) + "::boundary -o " + q(alias), "-o " + alias, py);
  const std::string lib = (dir / "lib.py").string();
  refused("sdfg " + q(dir / "main.py") + "::p -o " + q(lib), "-o " + lib, lib);
  refused("optimize " + q(sdfg) + " --auto cpu -o " + q(sdfg), "-o " + sdfg, sdfg);
  const std::string script = (dir / "tune.json").string();
  refused("optimize " + q(sdfg) + " --script " + q(script) + " -o " + q(script), "-o " + script, script);
  refused("convert " + q(sdfg) + " -o " + q(sdfg), "-o " + sdfg, sdfg);
  const std::string spec = (dir / "spec.json").string();
  refused("compose " + q(spec) + " -o " + q(spec), "-o " + spec, spec);
  refused("compose " + q(spec) + " -o " + q(sdfg), "-o " + sdfg, dir / "b.sdfg");
  refused("view " + q(py) + "::boundary --html " + q(py), "--html " + py, py);
  refused("view " + q(sdfg) + " --compare " + q(py) + "::boundary --html " + q(alias), "--html " + alias, py);
  CHECK(weir::test::read_text(dir / "b.py") == before_py);
  CHECK(weir::test::read_text(dir / "b.sdfg") == before_sdfg);
  CHECK(weir::test::read_text(dir / "tune.json") == R"([{"pass": "simplify"}])");
  // Other existing files are replaced as before, and /dev/stdout is written through.
  auto r = run_weir("compose " + q(spec) + " -o " + q(dir / "c.sdfg"));
  INFO(r.out);
  CHECK(r.code == 0);
  r = run_weir("convert " + q(dir / "c.sdfg") + " -o " + q(dir / "b2.sdfg"));
  CHECK(r.code == 0);
  r = run_weir("convert " + q(dir / "c.sdfg") + " -o " + q(dir / "b2.sdfg"));
  CHECK(r.code == 0);
  r = run_weir("sdfg " + q(py) + "::boundary -o /dev/stdout");
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\n{\"attributes\":") && Catch::EndsWith("}wrote /dev/stdout\n"));
}

TEST_CASE("trial: weir run --out onto its inputs is refused before compiling", "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-run-out-input");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "b.py") << kBoundary;
  fs::create_directories(dir / "in");
  REQUIRE(run_numpy(dir / "in", "np.save('f.npy', np.arange(5.0))\nnp.save('out.npy', np.zeros(5))\n") == 0);
  const std::string before = weir::test::read_text(dir / "in" / "out.npy");
  const std::string in = (dir / "in").string();
  for (const char* backend : kBackends) {
    INFO(backend);
    // Only the error: nothing loaded, compiled or run first.
    auto r = run_weir("run " + q(dir / "b.py") + "::boundary --in-dir " + q(in) + " --set nx=5 --out " +
                      q(in) + " --backend " + backend);
    CHECK(r.code == 2);
    CHECK(r.out == "weir: error: --out " + in + ": would overwrite the input file " + in +
                       "/out.npy; choose another output directory\n");
    // Another spelling of the folder, and one file given with --in.
    r = run_weir("run " + q(dir / "b.py") + "::boundary --in f=" + q(dir / "in" / "f.npy") +
                 " --in out=" + q(dir / "in" / "out.npy") + " --set nx=5 --out " + q(dir / "in" / "." / "") +
                 " --backend " + backend);
    CHECK(r.code == 2);
    CHECK(r.out == "weir: error: --out " + in + ": would overwrite the input file " + in +
                       "/out.npy; choose another output directory\n");
  }
  CHECK(weir::test::read_text(dir / "in" / "out.npy") == before);
}

TEST_CASE("trial: a local field wider or narrower than its connectivity table is refused on every backend",
          "[cli][trial-frictions]") {
  auto dir = weir::test::scratch_dir("cli-trial-local-width");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "w.py")
      << "import gt4py.next as gtx\n"
         "from gt4py.next import Field, Dims, float64, neighbor_sum\n"
         "Vertex = gtx.Dimension('Vertex')\n"
         "Edge = gtx.Dimension('Edge')\n"
         "E2VDim = gtx.Dimension('E2VDim', kind=gtx.DimensionKind.LOCAL)\n"
         "E2V = gtx.FieldOffset('E2V', source=Vertex, target=(Edge, E2VDim))\n"
         "@gtx.field_operator\n"
         "def wsum(v: Field[Dims[Vertex], float64], w: Field[Dims[Edge, E2VDim], float64]) -> "
         "Field[Dims[Edge], float64]:\n"
         "    return neighbor_sum(v(E2V) * w, axis=E2VDim)\n"
         "@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)\n"
         "def weighted(v: Field[Dims[Vertex], float64], w: Field[Dims[Edge, E2VDim], float64], "
         "se: Field[Dims[Edge], float64]):\n"
         "    wsum(v, w, out=se)\n";
  REQUIRE(run_numpy(dir,
                    "e2v = np.array([[0, 1], [1, 2], [2, 3], [3, 4], [4, 0], [0, 2]], np.int32)\n"
                    "v = np.array([1.0, 10.0, 100.0, 1000.0, 10000.0])\n"
                    "for cols in (1, 2, 3):\n"
                    "    d = 'w%d' % cols\n"
                    "    os.makedirs(d)\n"
                    "    np.save(d + '/E2V.npy', e2v)\n"
                    "    np.save(d + '/v.npy', v)\n"
                    "    np.save(d + '/w.npy', np.arange(6.0 * cols).reshape(6, cols))\n"
                    "    np.save(d + '/se.npy', np.zeros(6))\n"
                    "np.save('se_ref.npy', (v[e2v] * np.arange(12.0).reshape(6, 2)).sum(axis=1))\n") == 0);
  for (const char* backend : kBackends) {
    INFO(backend);
    for (int cols : {3, 1}) {
      auto r = run_weir("run " + q(dir / "w.py") + "::weighted --in-dir " +
                        q(dir / ("w" + std::to_string(cols))) + " --backend " + backend);
      CHECK(r.code == 1);
      CHECK(r.out ==
            "weir: error: argument 'w': expected float64 array of shape (6, 2), got float64 (6, " +
                std::to_string(cols) +
                ")\n  'w' is over E2VDim, which has one entry per column of connectivity table 'E2V' "
                "(2)\n");
    }
    const std::string out = "out-" + std::string(backend);
    auto r = run_weir("run " + q(dir / "w.py") + "::weighted --in-dir " + q(dir / "w2") + " --backend " +
                      backend + " --out " + q(dir / out));
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(run_numpy(dir, "a = np.load('" + out +
                             "/se.npy')\nb = np.load('se_ref.npy')\nassert (a == b).all(), (a, b)\n") == 0);
  }
}
