// One CLI for every command (issue 16, a new user's report): unknown options with the closest
// known one, stray words, malformed values (exit 2, the option and what it accepts), repeatable
// --in-dir, every error line in weir's form, FILE.py::NAME help that names orchestration
// functions, a @scan_operator refused the same way by every command, JSON errors in plain
// English, and a scalar return value written as NumPy's 0-d array. Command-line mistakes,
// CLI11's own and a missing -I folder included, are exit code 2 in weir's form in every command,
// misspelt names with the closest known one.
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

using weir::test::run_numpy;
using weir::test::run_weir;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
std::string ex(const std::string& rel) { return q(fs::path(WEIR_SOURCE_DIR) / "examples" / rel); }
std::string cache_env(const fs::path& dir) { return "WEIR_CACHE_DIR=" + q(dir / "cache"); }
const std::string in_root = "cd " + q(WEIR_SOURCE_DIR) + " &&";

struct Case {
  std::string args, out;
};

void check_usage_errors(const std::vector<Case>& cases, const fs::path& dir) {
  for (const auto& c : cases) {
    INFO(c.args);
    auto r = run_weir(c.args, cache_env(dir));
    CHECK(r.code == 2);
    CHECK(r.out == c.out);
  }
}

const char* kOrchestration =
    "import gt4py.next as gtx\n"
    "from gt4py.next import Field, Dims, float64\n"
    "I = gtx.Dimension('I')\n"
    "@gtx.field_operator\n"
    "def twice(f: Field[Dims[I], float64]) -> Field[Dims[I], float64]:\n"
    "    return 2.0 * f\n"
    "def advect(f: Field[Dims[I], float64], g: Field[Dims[I], float64], n: int):\n"
    "    for _ in range(n):\n"
    "        twice(f, out=g)\n";

const char* kInt32Scalar =
    "import gt4py.next as gtx\n"
    "from gt4py.next import Field, Dims, float64, int32\n"
    "I = gtx.Dimension('I')\n"
    "@gtx.field_operator\n"
    "def shift_by(f: Field[Dims[I], float64], nx: int32) -> Field[Dims[I], float64]:\n"
    "    return f + 1.0\n"
    "@gtx.program\n"
    "def p32(f: Field[Dims[I], float64], nx: int32, out: Field[Dims[I], float64]):\n"
    "    shift_by(f, nx, out=out)\n";

}  // namespace

TEST_CASE("consistency: an unknown option names the closest known one in every command",
          "[cli][consistency]") {
  auto dir = weir::test::scratch_dir("cli-consistency-unknown");
  const std::string lap = ex("cartesian/laplacian.py::laplacian");
  const std::string sdfg = q(weir::test::dace_corpus_dir() / "laplace2d" / "laplace2d.simplified.sdfg");
  check_usage_errors(
      {
          {"run " + lap + " --random-inputs --threds 2",
           "weir: error: unknown option '--threds'; did you mean '--threads'?\n"},
          {"run " + lap + " --radnom-inputs",
           "weir: error: unknown option '--radnom-inputs'; did you mean "
           "'--random-inputs'?\n"},
          {"sdfg " + lap + " -o x.sdfg --indnt 2",
           "weir: error: unknown option '--indnt'; did you mean '--indent'?\n"},
          {"check " + ex("cartesian/laplacian.py") + " --max-erors 3",
           "weir: error: unknown option '--max-erors'; did you mean '--max-errors'?\n"},
          {"compile " + lap + " --job 2", "weir: error: unknown option '--job'; did you mean '--jobs'?\n"},
          {"optimize " + sdfg + " -o x.sdfg --pases simplify",
           "weir: error: unknown option '--pases'; did you mean '--passes'?\n"},
          {"view " + sdfg + " --prot 8000", "weir: error: unknown option '--prot'; did you mean '--port'?\n"},
          {"mesh --nx 4 --ny 4 -o m --nz 4", "weir: error: unknown option '--nz'; did you mean '--nx'?\n"},
          // An option of another command: nothing close, so where the options are listed.
          {"sdfg " + lap + " -o x.sdfg --backend cpu",
           "weir: error: unknown option '--backend' for 'weir sdfg'\n  hint: 'weir sdfg --help' lists the "
           "options\n"},
          {"convert " + sdfg + " -o x.sdfg -Q",
           "weir: error: unknown option '-Q' for 'weir convert'\n  hint: 'weir convert --help' lists the "
           "options\n"},
          // A word no positional takes: what the positional took, and the likely cause.
          {"run a.py::p f=in.npy",
           "weir: error: unexpected argument 'f=in.npy': 'weir run' takes one program ('a.py::p')\n"
           "  hint: is an option's name missing before it? 'weir run --help' lists the options\n"},
          {"sdfg a.py::p b.py::q -o x.sdfg",
           "weir: error: unexpected argument 'b.py::q': 'weir sdfg' takes one target ('a.py::p')\n"
           "  hint: is an option's name missing before it? 'weir sdfg --help' lists the options\n"},
      },
      dir);
  CHECK_FALSE(fs::exists("x.sdfg"));
}

TEST_CASE("consistency: a malformed value is a usage error naming the option and what it accepts",
          "[cli][consistency]") {
  auto dir = weir::test::scratch_dir("cli-consistency-values");
  std::ofstream(dir / "o.py") << kOrchestration;
  std::ofstream(dir / "s.py") << kInt32Scalar;
  const std::string lap = ex("cartesian/laplacian.py::laplacian") + " --random-inputs";
  const std::string sizes = " --set J=4 --set K=2";
  const std::string sdfg = q(weir::test::dace_corpus_dir() / "laplace2d" / "laplace2d.simplified.sdfg");
  check_usage_errors(
      {
          {"run " + lap + " --threads -3", "weir: error: --threads -3: expected an integer from 0 to 1024\n"},
          {"run " + lap + " --threads two",
           "weir: error: --threads two: expected an integer from 0 to 1024\n"},
          {"run " + lap + " --threads 99999999999999999999",
           "weir: error: --threads 99999999999999999999: expected an integer from 0 to 1024\n"},
          // Above the documented limit (kMaxOpenMPThreads): refused, not run on 100000 threads.
          {"run " + lap + " --threads 100000",
           "weir: error: --threads 100000: expected an integer from 0 to 1024\n"},
          {"run " + lap + " --threads 1025",
           "weir: error: --threads 1025: expected an integer from 0 to 1024\n"},
          {"run " + lap + " --seed -1", "weir: error: --seed -1: expected a non-negative integer\n"},
          {"run " + lap + " --repeat 0", "weir: error: --repeat 0: expected an integer of at least 1\n"},
          // Above the bound the message states it (user31 G18: "of at least 1" for 99999999999).
          {"run " + lap + " --repeat 99999999999",
           "weir: error: --repeat 99999999999: expected an integer from 1 to 2147483647\n"},
          {"run " + lap + " --repeat 99999999999999999999",
           "weir: error: --repeat 99999999999999999999: expected an integer from 1 to 2147483647\n"},
          {"compile " + lap + " -j x", "weir: error: --jobs x: expected a non-negative integer\n"},
          {"check a.py --max-errors many",
           "weir: error: --max-errors many: expected a non-negative integer\n"},
          {"sdfg a.py::p -o x.sdfg --indent 9",
           "weir: error: --indent 9: expected an integer from -1 to 8\n"},
          {"convert " + sdfg + " -o x.sdfg --indent x",
           "weir: error: --indent x: expected an integer from -1 to 8\n"},
          {"view " + sdfg + " --port 70000",
           "weir: error: --port 70000: expected an integer from 0 to 65535\n"},
          {"mesh --nx four --ny 4 -o m", "weir: error: --nx four: expected an integer\n"},
          // --set: not a number; not an integer where the program takes only integers.
          {"run " + lap + " --set I=abc" + sizes,
           "weir: error: --set I=abc: expected a number (an integer, a decimal or true/false)\n"},
          {"run " + lap + " --set I=16.5" + sizes,
           "weir: error: --set I=16.5: expected an integer ('I' is a dimension of program 'laplacian')\n"},
          {"run " + q(dir / "o.py") + "::advect --random-inputs --set I=4 --set n=2.5",
           "weir: error: --set n=2.5: expected an integer ('n' is an int64 argument of program 'advect')\n"},
          {"run " + q(dir / "s.py") + "::p32 --random-inputs --set I=4 --set nx=2.5",
           "weir: error: --set nx=2.5: expected an integer ('nx' is an int32 argument of program 'p32')\n"},
          {"run " + q(dir / "s.py") + "::p32 --random-inputs --set I=4 --set nx=4294967301 --backend cpu",
           "weir: error: --set nx=4294967301: expected an integer from -2147483648 to 2147483647 ('nx' is an "
           "int32 argument of program 'p32')\n"},
          // One value given twice where the option takes one.
          {"optimize " + sdfg + " -o x.sdfg --script a.json --script b.json",
           "weir: error: --script is given twice (a.json, b.json); it takes one value\n"},
          {"run " + lap + " --out a --out b",
           "weir: error: --out is given twice (a, b); it takes one value\n"},
      },
      dir);
  // The same with an integer runs.
  auto r =
      run_weir("run " + q(dir / "o.py") + "::advect --random-inputs --set I=4 --set n=2", cache_env(dir));
  INFO(r.out);
  CHECK(r.code == 0);
  r = run_weir("run " + q(dir / "s.py") + "::p32 --random-inputs --set I=4 --set nx=-2147483648",
               cache_env(dir));
  INFO(r.out);
  CHECK(r.code == 0);
}

TEST_CASE("consistency: --passes is repeatable, the pipelines run in the order given", "[cli][consistency]") {
  auto dir = weir::test::scratch_dir("cli-consistency-passes");
  const std::string sdfg = q(weir::test::dace_corpus_dir() / "laplace2d" / "laplace2d.simplified.sdfg");
  auto one = run_weir("optimize " + sdfg + " -o " + q(dir / "one.sdfg") + " --passes simplify,map-fusion");
  INFO(one.out);
  REQUIRE(one.code == 0);
  auto two =
      run_weir("optimize " + sdfg + " -o " + q(dir / "two.sdfg") + " --passes simplify --passes map-fusion");
  INFO(two.out);
  REQUIRE(two.code == 0);
  // The same passes, so the same SDFG (and the same report, but for the file name).
  std::string a = one.out, b = two.out;
  a.replace(a.find("one.sdfg"), 8, "X");
  b.replace(b.find("two.sdfg"), 8, "X");
  CHECK(a == b);
  CHECK(run_numpy(dir,
                  "import json\n"
                  "sys.exit(0 if json.load(open('one.sdfg')) == json.load(open('two.sdfg')) else 1)\n") == 0);
}

TEST_CASE("consistency: --in-dir is repeatable and --in wins over it", "[cli][consistency]") {
  auto dir = weir::test::scratch_dir("cli-consistency-in-dir");
  const std::string nabla = ex("unstructured/nabla.py::nabla_program");
  REQUIRE(run_weir("mesh --nx 4 --ny 3 -o " + q(dir / "mesh")).code == 0);
  // The fields --random-inputs makes, saved: one folder of fields, one of tables.
  auto r =
      run_weir("run " + nabla + " --in-dir " + q(dir / "mesh") + " --random-inputs --set K=2 --save-inputs " +
                   q(dir / "fields") + " --out " + q(dir / "random"),
               cache_env(dir));
  INFO(r.out);
  REQUIRE(r.code == 0);
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    r = run_weir("run " + nabla + " --in-dir " + q(dir / "fields") + " --in-dir " + q(dir / "mesh") +
                     " --backend " + backend + " --out " + q(dir / backend),
                 cache_env(dir));
    INFO(r.out);
    REQUIRE(r.code == 0);
    // The same inputs as the random run, so the same outputs.
    CHECK(run_numpy(
              dir,
              "ok = all(np.allclose(np.load('random/' + n), np.load('" + std::string(backend) +
                  "/' + n), rtol=1e-12) for n in ('out_x.npy', 'out_y.npy'))\nsys.exit(0 if ok else 1)\n") ==
          0);
  }
  // A name in two folders: both files named; --in NAME=FILE.npy says which to use.
  fs::copy_file(dir / "mesh" / "E2V.npy", dir / "fields" / "E2V.npy");
  const std::string both = " --in-dir " + q(dir / "mesh") + " --in-dir " + q(dir / "fields");
  r = run_weir("run " + nabla + both);
  CHECK(r.code == 2);
  CHECK(r.out == "weir: error: --in-dir: 'E2V' is in two folders (" + (dir / "mesh" / "E2V.npy").string() +
                     " and " + (dir / "fields" / "E2V.npy").string() +
                     "); give the one to use with --in E2V=FILE.npy\n");
  r = run_weir(
      "run " + nabla + both + " --in E2V=" + q(dir / "mesh" / "E2V.npy") + " --out " + q(dir / "chosen"),
      cache_env(dir));
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(run_numpy(dir,
                  "sys.exit(0 if np.array_equal(np.load('random/out_x.npy'), np.load('chosen/out_x.npy')) "
                  "else 1)\n") == 0);
  // --help says so.
  r = run_weir("run --help");
  CHECK_THAT(r.out, Catch::Contains("(repeatable: fields in one folder, connectivity tables in another; a "
                                    "NAME.npy in two of them is an error; --in NAME=FILE.npy wins)"));
}

TEST_CASE("consistency: every command's error lines start with weir: error:", "[cli][consistency]") {
  auto dir = weir::test::scratch_dir("cli-consistency-prefix");
  const std::string none = (dir / "nonexist.py").string();
  auto r = run_weir("check " + q(none));
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + none + ": cannot open: No such file or directory\n");
  r = run_weir("check " + q(dir));
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + dir.string() + ": is a directory, not a .py file\n");
  // A module not found: the headline in weir's form, in every command.
  r = run_weir("sdfg examples/multimodule/mymodel/program.py::smooth -o " + q(dir / "x.sdfg"), in_root);
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::StartsWith("weir: error: module 'mymodel' not found\n"
                               "  examples/multimodule/mymodel/program.py:19:8: error: cannot subscript "));
  r = run_weir("check examples/multimodule/mymodel/program.py", in_root);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::StartsWith("weir: error: module 'mymodel' not found (3 errors come from it; the "
                                      "first:)\n  examples/multimodule/mymodel/program.py:12:8: error: "));
  // Located errors of `weir check` stay as a compiler lists them (FILE:LINE:COL: error: ...).
  std::ofstream(dir / "bad.py") << "import gt4py.next as gtx\n@gtx.field_operatr\ndef f(x):\n    return x\n";
  r = run_weir("check " + q(dir / "bad.py"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::StartsWith((dir / "bad.py").string() + ":2:2: error: unknown decorator"));
}

TEST_CASE(
    "consistency: FILE.py::NAME help names orchestration functions and scan operators are refused alike",
    "[cli][consistency]") {
  const std::string target =
      "FILE.py::NAME: a @program, @field_operator or orchestration function (a plain Python function that "
      "calls programs) of the file";
  for (const char* cmd : {"sdfg", "run"}) {
    INFO(cmd);
    auto r = run_weir(std::string(cmd) + " --help");
    CHECK_THAT(r.out, Catch::Contains(target));
  }
  for (const char* cmd : {"compile", "view"}) {
    INFO(cmd);
    auto r = run_weir(std::string(cmd) + " --help");
    CHECK_THAT(r.out, Catch::Contains("FILE.py::NAME (a @program, @field_operator or orchestration"));
  }
  // A @scan_operator named directly: the same message in sdfg, view, run and compile, with the
  // caller to give that command instead.
  auto dir = weir::test::scratch_dir("cli-consistency-scan");
  const std::string py = "examples/cartesian/vertical_solver.py";
  const std::string head =
      py +
      ":26:1: 'thomas_backward' is a @scan_operator: its arguments are the values at one "
      "level of a column (c_mod: float64, d_mod: float64), so run directly it has no fields "
      "to scan along K; ";
  const std::string tail =
      ")\ndef thomas_backward(x_above: float64, c_mod: float64, d_mod: float64) -> float64:\n^\n";
  const std::string callers =
      "a @field_operator or @program that calls it with fields over K (in this file: "
      "tridiagonal_solve; e.g. weir ";
  auto r = run_weir("sdfg " + py + "::thomas_backward -o " + q(dir / "x.sdfg"), in_root);
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + head + "lower " + callers + "sdfg " + py +
                     "::tridiagonal_solve -o tridiagonal_solve.sdfg" + tail);
  r = run_weir("run " + py + "::thomas_backward", in_root);
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + head + "run " + callers + "run " + py + "::tridiagonal_solve" + tail);
  r = run_weir("view " + py + "::thomas_backward --html " + q(dir / "x.html"), in_root);
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + head + "view " + callers + "view " + py + "::tridiagonal_solve" + tail);
  r = run_weir("compile " + py + "::thomas_backward", in_root + " " + cache_env(dir));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("\n  " + py + ":26:1: error: 'thomas_backward' is a @scan_operator") &&
                        Catch::Contains("; compile " + callers + "compile " + py + "::tridiagonal_solve)\n"));
  // The suggested command works.
  r = run_weir("sdfg " + py + "::tridiagonal_solve -o " + q(dir / "tridiagonal_solve.sdfg"), in_root);
  CHECK(r.code == 0);
  CHECK_FALSE(fs::exists(dir / "x.sdfg"));
}

TEST_CASE("consistency: JSON errors say an array and an object", "[cli][consistency]") {
  auto dir = weir::test::scratch_dir("cli-consistency-json");
  std::ofstream(dir / "array.json") << "[1:2]\n";
  std::ofstream(dir / "object.json") << "{\"a\" 1}\n";
  const std::string lap = ex("cartesian/laplacian.py::laplacian") + " --random-inputs --set-json ";
  auto r = run_weir("run " + lap + q(dir / "array.json"));
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + (dir / "array.json").string() +
                     ":1:3: invalid JSON: unexpected ':' in an array; expected ']'\n");
  r = run_weir("run " + lap + q(dir / "object.json"));
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + (dir / "object.json").string() +
                     ":1:6: invalid JSON: unexpected number literal in an object separator; expected ':'\n");
}

TEST_CASE("consistency: a scalar return value is written as a 0-d .npy", "[cli][consistency]") {
  auto dir = weir::test::scratch_dir("cli-consistency-scalar-return");
  const fs::path crc = weir::test::npbench_corpus_dir() / "crc16";
  auto r = run_weir("run " + q(crc / "crc16.simplified.sdfg") + " --in-dir " + q(crc / "inputs") +
                        " --set-json " + q(crc / "symbols.json") + " --out " + q(dir / "out"),
                    cache_env(dir));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("\n  __return: int64 ()  min "));
  // NumPy's expected value, shape () as NumPy's crc16 returns it.
  CHECK(run_numpy(dir, "got = np.load('out/__return.npy'); want = np.load(" +
                           q(crc / "expected" / "__return.npy") +
                           ")\nsys.exit(0 if got.shape == () == want.shape and got == want else 1)\n") == 0);
}

TEST_CASE("first hour: command-line mistakes are exit code 2 in every command, in weir's form",
          "[cli][consistency]") {
  auto dir = weir::test::scratch_dir("cli-usage-exit-2");
  const std::string lap = ex("cartesian/laplacian.py::laplacian");
  REQUIRE(run_numpy(dir, "np.save('f.npy', np.ones((5, 5, 1)))\n", "make.py") == 0);
  REQUIRE(run_weir("sdfg " + lap + " -o " + q(dir / "lap.sdfg")).code == 0);
  const std::string sdfg = q(dir / "lap.sdfg"), f = (dir / "f.npy").string();
  struct Case {
    std::string args, out;
  };
  const std::string no_dir = (dir / "nodir").string();
  const std::string no_include = "weir: error: -I " + no_dir +
                                 ": no such directory (-I names a folder searched for the modules a program "
                                 "imports)\n";
  const std::vector<Case> cases = {
      // CLI11's own errors, in weir's form with the command whose --help to read.
      {"optimize " + sdfg + " --auto cpu",
       "weir: error: --output is required\n  hint: 'weir optimize --help' lists the options\n"},
      {"",
       "weir: error: 'weir' needs a command (validate, info, convert, run, compile, cache, transforms, "
       "check, sdfg, mesh, optimize, view, compose, tune)\n  hint: 'weir --help' lists the options\n"},
      {"cache",
       "weir: error: 'weir cache' needs a command (info, clear)\n"
       "  hint: 'weir cache --help' lists the options\n"},
      {"run " + lap + " --random-inputs --set I=5 --set J=5 --set K=1 --seed -1",
       "weir: error: --seed -1: expected a non-negative integer\n"},
      {"convert " + sdfg + " -o x.sdfg --bogus",
       "weir: error: unknown option '--bogus' for 'weir convert'\n"
       "  hint: 'weir convert --help' lists the options\n"},
      // Names the program, weir or the registry does not have: the closest one.
      {"run " + lap + " --in f=" + q(f) + " --in outt=" + q(f),
       "weir: error: --in outt=" + f +
           ": program 'laplacian' has no array argument 'outt'; did you mean 'out'? (arrays: f, out)\n"},
      {"run " + lap + " --in f=" + q(f) + " --in coeff=" + q(f),
       "weir: error: --in coeff=" + f +
           ": program 'laplacian' has no array argument 'coeff' (arrays: f, out)\n"},
      {"run " + lap + " --random-inputs --set II=4 --set J=4 --set K=1",
       "weir: error: --set II=4: program 'laplacian' has no parameter, symbol or dimension 'II'; did you "
       "mean "
       "'I'? (parameters: f, out; dimensions: I, J, K)\n"},
      {"run " + lap + " --in f=" + q(f) + " --backend cpp",
       "weir: error: --backend: unknown backend 'cpp'; did you mean 'cpu'? (known: cpu, embedded, gpu)\n"},
      {"optimize " + sdfg + " -o " + q(dir / "o.sdfg") + " --auto cpuu",
       "weir: error: unknown device 'cpuu' for --auto: no pipeline 'auto-optimize-cpuu' is registered; did "
       "you "
       "mean 'cpu'? (devices: cpu, gpu)\n"},
      {"transforms match " + sdfg + " MapFuson",
       "weir: error: unknown transformation 'MapFuson'; did you mean 'MapFusion'? (see `weir transforms "
       "list`)\n"},
      {"optimise " + sdfg,
       "weir: error: unknown command 'optimise'; did you mean 'optimize'? (commands: validate, info, "
       "convert, "
       "run, compile, cache, transforms, check, sdfg, mesh, optimize, view, compose, tune)\n"},
      {"run " + lap + " --in-dir " + q(no_dir), "weir: error: --in-dir " + no_dir + ": no such directory\n"},
      // A folder -I names must exist, in every command that takes -I.
      {"check " + ex("cartesian/laplacian.py") + " -I " + q(no_dir), no_include},
      {"sdfg " + lap + " -o " + q(dir / "x.sdfg") + " -I " + q(no_dir), no_include},
      {"run " + lap + " --in f=" + q(f) + " -I " + q(no_dir), no_include},
      {"compile " + lap + " -I " + q(no_dir), no_include},
      {"view " + lap + " --html " + q(dir / "x.html") + " -I " + q(no_dir), no_include},
  };
  for (const auto& c : cases) {
    INFO(c.args);
    auto r = run_weir(c.args, cache_env(dir));
    CHECK(r.code == 2);
    CHECK(r.out == c.out);
  }
  // Pass names in --passes and --print-after: the closest registered pass.
  for (const char* opt : {"--passes simplfy", "--auto cpu --print-after simplfy"}) {
    INFO(opt);
    auto r = run_weir("optimize " + sdfg + " -o " + q(dir / "o.sdfg") + " " + opt);
    CHECK(r.code == 2);
    CHECK_THAT(r.out, Catch::StartsWith("weir: error: ") && Catch::Contains("unknown pass 'simplfy'") &&
                          Catch::Contains("; did you mean 'simplify'? ("));
  }
  CHECK_FALSE(fs::exists(dir / "o.sdfg"));
  CHECK_FALSE(fs::exists(dir / "x.sdfg"));
  // The rule is written down in `weir --help`.
  auto r = run_weir("--help");
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("Exit codes (every command):\n  0  success\n  1  the work failed: "));
}
