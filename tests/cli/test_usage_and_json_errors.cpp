// Issue 16, second round of first-hour frictions: a misspelt FILE.py::NAME is a usage mistake
// (exit 2) with one message in every command; malformed JSON gets one located message
// wherever it is read; each stage of `weir run` is reported once; the --domain a directly run
// @field_operator needs is suggested as a command that works; `weir check` judges
// orchestration functions as `weir run` does; compose says how to bind an SDFG symbol; the cpu
// backend reports a scan operator's out-of-range read in source terms.
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

using weir::test::run_weir;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
fs::path ex_path(const std::string& rel) { return fs::path(WEIR_SOURCE_DIR) / "examples" / rel; }
std::string cache_env(const fs::path& dir) { return "WEIR_CACHE_DIR=" + q(dir / "cache"); }

}  // namespace

TEST_CASE("usage: a misspelt FILE.py::NAME exits 2 with the closest name in every command", "[cli][usage]") {
  auto dir = weir::test::scratch_dir("cli-misspelt-name");
  const std::string file = ex_path("cartesian/hdiff.py").string();
  const std::string said = file +
                           ": no @program, @field_operator, @scan_operator or orchestration function named "
                           "'hdif'; did you mean 'hdiff'? (defined: laplacian, flux_i, flux_j, hdiff, "
                           "hdiff_program)";
  for (const std::string& command : {"run " + q(file) + "::hdif", "run " + q(file) + "::hdif --backend cpu",
                                     "sdfg " + q(file) + "::hdif -o " + q(dir / "x.sdfg"),
                                     "view " + q(file) + "::hdif --html " + q(dir / "x.html"),
                                     "view " + q(ex_path("cartesian/hdiff.py")) + "::hdiff --compare " +
                                         q(file) + "::hdif --html " + q(dir / "y.html")}) {
    INFO(command);
    auto r = run_weir(command, cache_env(dir));
    CHECK(r.out == "weir: error: " + said + "\n");
    CHECK(r.code == 2);
  }
  // compile reports each program on its own line and goes on with the others.
  auto r = run_weir("compile " + q(file) + "::hdif", cache_env(dir));
  CHECK(r.out == "[1/1] FAILED " + file + "::hdif\n  " + said + "\n1 of 1 program failed\n");
  CHECK(r.code == 2);
  // An orchestration function (a plain function calling @programs) is suggested too.
  const std::string heat = ex_path("orchestration/heat.py").string();
  r = run_weir("sdfg " + q(heat) + "::heet -o " + q(dir / "h.sdfg"), cache_env(dir));
  CHECK(r.out == "weir: error: " + heat +
                     ": no @program, @field_operator, @scan_operator or orchestration function named 'heet'; "
                     "did you mean 'heat'? (defined: heat_update, heat_step)\n");
  CHECK(r.code == 2);
  CHECK_FALSE(fs::exists(dir / "h.sdfg"));
  // A file that defines nothing of the kind says so.
  std::ofstream(dir / "empty.py") << "x = 1\n";
  r = run_weir("run " + q(dir / "empty.py") + "::main", cache_env(dir));
  CHECK(r.out == "weir: error: " + (dir / "empty.py").string() +
                     ": no @program, @field_operator, @scan_operator or orchestration function named 'main' "
                     "(the file defines none)\n");
  CHECK(r.code == 2);
}

namespace {

const char* kSmooth =
    "import gt4py.next as gtx\n"
    "from gt4py.next import Field, float64\n"
    "I = gtx.Dimension('I')\n"
    "J = gtx.Dimension('J')\n"
    "@gtx.field_operator\n"
    "def smooth(f: Field[[I, J], float64], w: float64) -> Field[[I, J], float64]:\n"
    "    return f + w * (f(I + 1) + f(I - 1) - 2.0 * f)\n";

}  // namespace

TEST_CASE("run: each stage of a compiled field-view program is reported once", "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-stages-once");
  std::ofstream(dir / "op.py") << kSmooth;
  REQUIRE(weir::test::run_numpy(dir, "np.save('f.npy', np.arange(30.0).reshape(6, 5))\n", "make.py") == 0);
  // A shifted operator over its whole domain reads outside, but the stages before the call
  // are printed first, each once.
  auto r =
      run_weir("run " + q(dir / "op.py") + "::smooth --backend cpu --set w=0.5 --in f=" + q(dir / "f.npy"),
               cache_env(dir));
  INFO(r.out);
  std::size_t first = r.out.find("lowered to an SDFG");
  REQUIRE(first != std::string::npos);
  CHECK(r.out.find("lowered to an SDFG", first + 1) == std::string::npos);
  CHECK_THAT(r.out,
             Catch::StartsWith("program 'smooth' (" + (dir / "op.py").string() +
                               "::smooth) on backend 'cpu'\noutputs allocated as zeros: __out float64 "
                               "(6, 5)\nlowered to an SDFG and optimized by auto-optimize-cpu ('weir sdfg' "
                               "and 'weir optimize' write and tune it yourself)\ncompiled in "));
}

TEST_CASE("run: the @program call suggested for a shifted @field_operator works pasted", "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-domain-suggestion");
  std::ofstream(dir / "op.py") << kSmooth;
  REQUIRE(weir::test::run_numpy(dir, "np.save('f.npy', np.arange(30.0).reshape(6, 5) ** 2)\n", "make.py") ==
          0);
  const std::string hint =
      "\n  hint: 'smooth' is a @field_operator run directly, so its result must cover the whole output array "
      "'__out' (shaped like its inputs); to compute it on part of the domain, run a @program that calls it "
      "with a sliced out=, e.g. ";
  const std::string call = "smooth(f, w, out=out[1:-1, :])";
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    auto r = run_weir("run " + q(dir / "op.py") + "::smooth --set w=0.5 --in f=" + q(dir / "f.npy") +
                          " --backend " + backend,
                      cache_env(dir));
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::EndsWith(hint + call + "\n"));
  }
  // Shifts along two dimensions (every dimension read outside is cut, on both backends).
  REQUIRE(weir::test::run_numpy(dir, "np.save('g.npy', np.ones((7, 6, 2)))\n", "make_g.py") == 0);
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    auto r = run_weir("run " + q(ex_path("cartesian/laplacian.py")) + "::lap --in f=" + q(dir / "g.npy") +
                          " --backend " + backend,
                      cache_env(dir));
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::EndsWith("e.g. lap(f, out=out[1:-1, 1:-1, :])\n"));
  }
  // --domain answers with the same call, on the domain given.
  auto r = run_weir(
      "run " + q(dir / "op.py") + "::smooth --set w=0.5 --in f=" + q(dir / "f.npy") + " --domain I=1:5",
      cache_env(dir));
  CHECK(
      r.out ==
      "weir: error: --domain: weir runs a @field_operator called directly over its whole output; to compute "
      "'smooth' on I: [1, 5), run a @program that calls it with a sliced out=: smooth(f, w, out=out[1:5, "
      ":])\n");
  CHECK(r.code == 2);
  // The suggested call, pasted into a @program, runs and computes the interior.
  std::ofstream(dir / "prog.py") << kSmooth
                                 << "@gtx.program\n"
                                    "def smooth_program(f: Field[[I, J], float64], w: float64, "
                                    "out: Field[[I, J], float64]):\n    "
                                 << call << "\n";
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    r = run_weir("run " + q(dir / "prog.py") + "::smooth_program --set w=0.5 --in f=" + q(dir / "f.npy") +
                     " --backend " + backend + " --out " + q(dir / backend),
                 cache_env(dir));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(weir::test::run_numpy(dir, "f = np.load('f.npy'); o = np.load('" + std::string(backend) +
                                         "/out.npy')\nwant = np.zeros_like(f)\n"
                                         "want[1:-1] = f[1:-1] + 0.5 * (f[2:] + f[:-2] - 2.0 * f[1:-1])\n"
                                         "sys.exit(0 if np.array_equal(o, want) else 1)\n") == 0);
  }
}

TEST_CASE("json: malformed JSON is reported in one located form wherever it is read", "[cli][errors]") {
  auto dir = weir::test::scratch_dir("cli-malformed-json");
  auto write = [&](const std::string& name, const std::string& text) {
    std::ofstream(dir / name) << text;
    return (dir / name).string();
  };
  // `"b" 2`: the value 2 (line 2, column 7) where ':' must be.
  const std::string text = "{\"a\": 1,\n  \"b\" 2}";
  const std::string what =
      ":2:7: invalid JSON: unexpected number literal in an object separator; expected ':'\n";
  const std::string sdfg = write("bad.sdfg", text), set = write("set.json", text),
                    script = write("script.json", text), spec = write("spec.json", text);
  const fs::path hdiff = weir::test::dace_corpus_dir() / "hdiff" / "hdiff.simplified.sdfg";
  struct Case {
    std::string command, file;
  };
  for (const Case& c : std::vector<Case>{
           {"validate " + q(sdfg), sdfg},
           {"info " + q(sdfg), sdfg},
           {"run " + q(sdfg), sdfg},
           {"optimize " + q(sdfg) + " --auto cpu -o " + q(dir / "o.sdfg"), sdfg},
           {"run " + q(hdiff) + " --set-json " + q(set), set},
           {"optimize " + q(hdiff) + " --script " + q(script) + " -o " + q(dir / "o.sdfg"), script},
           {"compose " + q(spec) + " -o " + q(dir / "o.sdfg"), spec}}) {
    INFO(c.command);
    auto r = run_weir(c.command, cache_env(dir));
    CHECK(r.out == "weir: error: " + c.file + what);
    CHECK(r.code == 1);
  }
  CHECK_FALSE(fs::exists(dir / "o.sdfg"));
  // The parser's other words, plain too: an unfinished key, an empty file.
  auto r = run_weir("run " + q(hdiff) + " --set-json " + q(write("key.json", "{a")), cache_env(dir));
  CHECK(r.out == "weir: error: " + (dir / "key.json").string() +
                     ":1:2: invalid JSON: invalid literal '{a' in an object key; expected string literal\n");
  CHECK(r.code == 1);
  r = run_weir("validate " + q(write("empty.sdfg", "\n")));
  CHECK(r.out == "weir: error: " + (dir / "empty.sdfg").string() + ":1:1: invalid JSON: the text is empty\n");
  CHECK(r.code == 1);
  CHECK_THAT(r.out, !Catch::Contains("json.exception") && !Catch::Contains("parse_error"));
}

TEST_CASE("compose: a call that binds an SDFG symbol says how symbols are bound", "[cli][errors]") {
  auto dir = weir::test::scratch_dir("cli-compose-symbol");
  const fs::path hdiff = weir::test::dace_corpus_dir() / "hdiff" / "hdiff.simplified.sdfg";
  auto spec = [&](const std::string& name, const std::string& bind) {
    std::ofstream(dir / name)
        << "{\"arrays\": {\"a\": {\"dtype\": \"float64\", \"shape\": [\"N\", \"N\", 3]}, "
           "\"b\": {\"dtype\": \"float64\", \"shape\": [\"N\", \"N\", 3]}},\n"
           " \"scalars\": {\"n\": \"int64\"},\n"
           " \"stages\": {\"hdiff\": " +
               nlohmann::json(hdiff.string()).dump() +
               "},\n"
               " \"sequence\": [{\"call\": \"hdiff\", \"bind\": " +
               bind + "}]}\n";
    return run_weir("compose " + q(dir / name) + " -o " + q(dir / "o.sdfg"));
  };
  auto r = spec("sym.json", "{\"in_field\": \"a\", \"out_field\": \"b\", \"coeff\": \"a\", \"I\": \"n\"}");
  CHECK(r.out ==
        "weir: error: " + (dir / "sym.json").string() +
            ": /sequence/0/bind/I: 'I' is a symbol of stage 'hdiff', not a container; \"bind\" takes "
            "containers, a symbol is bound under \"symbols\": {\"call\": \"hdiff\", \"bind\": {...}, "
            "\"symbols\": {\"I\": EXPR}} (EXPR: an integer or a symbol expression of the composed "
            "SDFG; a symbol not given maps to the symbol of the same name)\n");
  CHECK(r.code == 1);
  // A transient of the stage, and a misspelt container.
  r = spec("tmp.json", "{\"lap_field\": \"a\"}");
  CHECK(r.out == "weir: error: " + (dir / "tmp.json").string() +
                     ": /sequence/0/bind/lap_field: 'lap_field' is a transient of stage 'hdiff' (the stage's "
                     "own), not an argument container\n");
  CHECK(r.code == 1);
  r = spec("typo.json", "{\"in_feld\": \"a\"}");
  CHECK(r.out == "weir: error: " + (dir / "typo.json").string() +
                     ": /sequence/0/bind/in_feld: stage 'hdiff' has no argument container 'in_feld'; did you "
                     "mean 'in_field'? (containers: coeff, in_field, out_field)\n");
  CHECK(r.code == 1);
  CHECK_FALSE(fs::exists(dir / "o.sdfg"));
}

TEST_CASE("check: an orchestration function that weir run refuses fails weir check too", "[cli][check]") {
  auto dir = weir::test::scratch_dir("cli-check-orchestration");
  std::ofstream(dir / "orch.py") << "import gt4py.next as gtx\n"
                                    "from gt4py.next import Field, float64, int32\n"
                                    "I = gtx.Dimension('I')\n"
                                    "IF = Field[[I], float64]\n"
                                    "@gtx.field_operator\n"
                                    "def double(u: IF) -> IF:\n"
                                    "    return 2.0 * u\n"
                                    "@gtx.program\n"
                                    "def step(u: IF, out: IF):\n"
                                    "    double(u, out=out)\n"
                                    "def steps(u: IF, v: IF, n: int32):\n"
                                    "    for _ in range(n):\n"
                                    "        step(u, v, offset_provider={})\n"
                                    "        print(n)\n"
                                    "def helper(x):\n"
                                    "    return x + 1\n";
  const std::string file = (dir / "orch.py").string();
  auto run =
      run_weir("run " + q(dir / "orch.py") + "::steps --random-inputs --set I=4 --set n=1", cache_env(dir));
  CHECK(run.code == 1);
  const std::string refused =
      "'print' is not supported in an orchestrated function\n"
      "        print(n)\n"
      "        ^\n";
  CHECK(run.out == "weir: error: " + file + ":14:9: " + refused);
  // check lists errors as a compiler does ("FILE:LINE:COL: error: ...").
  auto check = run_weir("check " + q(dir / "orch.py"));
  INFO(check.out);
  CHECK(check.code == 1);
  CHECK_THAT(check.out, Catch::Contains(file + ":14:9: error: " + refused));
  CHECK_THAT(check.out,
             Catch::Contains(file + ": 2 definitions and 1 orchestration function checked, 1 with errors\n"));
  // The helper calls no definition: a Python helper, neither listed nor an error.
  CHECK_THAT(check.out, !Catch::Contains("helper") && !Catch::Contains("returning a value"));
  CHECK_THAT(check.out, !Catch::Contains("orchestration steps"));
}
