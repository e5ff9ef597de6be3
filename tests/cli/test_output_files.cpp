// Files the commands write: -o, --html and --out never overwrite an input of the command (by any
// name or spelling; `weir run` refuses before compiling), other existing files are replaced and
// /dev/stdout is written through; an SDFG written under another extension warns.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "cli_run.h"
#include "cli_test_util.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

using weir::test::run_numpy;
using weir::test::run_weir;
using weir::test::cli::kBackends;
using weir::test::cli::kBoundary;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

}  // namespace

TEST_CASE("weir: -o of an SDFG with another extension warns", "[cli][output]") {
  auto dir = weir::test::scratch_dir("cli-out-extension");
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

TEST_CASE("weir: -o, --html and --out never overwrite an input of the command", "[cli][output]") {
  auto dir = weir::test::scratch_dir("cli-out-input");
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

TEST_CASE("weir: no output replaces a file the command read, by any name", "[cli][output]") {
  // user30's F8: outputs replaced the .py an SDFG was lowered from. Names ending in .py are
  // refused early (the test below); this is the backstop for every other name of a file the
  // command read: a hard link, a symbolic link, a --set-json file, the sources a report shows.
  auto dir = weir::test::scratch_dir("cli-out-source");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "b.py") << kBoundary;
  const std::string py = (dir / "b.py").string(), sdfg = (dir / "b.sdfg").string();
  REQUIRE(run_weir("sdfg " + q(py) + "::boundary -o " + q(sdfg)).code == 0);
  REQUIRE(
      run_weir("run " + q(py) +
               "::boundary --random-inputs --set I=6 --set nx=6 --backend cpu --profile=" + q(dir / "p.json"))
          .code == 0);
  fs::create_hard_link(dir / "b.py", dir / "src_alias");
  fs::create_symlink(dir / "b.py", dir / "src_link");
  std::ofstream(dir / "values.json") << R"({"I": 6, "nx": 6})";
  const std::string alias = (dir / "src_alias").string(), link = (dir / "src_link").string();
  const std::string values = (dir / "values.json").string();
  const std::string before = weir::test::read_text(dir / "b.py");
  auto refused = [&](const std::string& args, const std::string& written, const std::string& input) {
    INFO(args);
    auto r = run_weir(args);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::EndsWith("weir: error: cannot write '" + written + "': it is the input file " +
                                      input + " this command read; choose another output file\n"));
    CHECK(weir::test::read_text(dir / "b.py") == before);
  };
  const std::string run = "run " + q(sdfg) + " --random-inputs --backend cpu ";
  refused(run + "--set I=6 --set nx=6 --profile=" + q(alias), alias, py);
  refused(run + "--set-json " + q(values) + " --profile=" + q(values), values, values);
  refused("view " + q(sdfg) + " --html " + q(link), link, py);
  refused("view --report " + q(dir / "p.json") + " --html " + q(alias), alias, fs::canonical(py).string());
  refused("optimize " + q(sdfg) + " --auto cpu -o " + q(alias), alias, py);
  refused("convert " + q(sdfg) + " -o " + q(link), link, py);
  CHECK(weir::test::read_text(values) == R"({"I": 6, "nx": 6})");
  CHECK(fs::is_symlink(dir / "src_link"));
  // A file the command did not read is replaced as before.
  std::ofstream(dir / "other") << "x = 1\n";
  auto r = run_weir("convert " + q(sdfg) + " -o " + q(dir / "other"));
  CHECK(r.code == 0);
  CHECK_THAT(weir::test::read_text(dir / "other"), Catch::StartsWith("{"));
}

TEST_CASE("weir run --out onto its inputs is refused before compiling", "[cli][output]") {
  auto dir = weir::test::scratch_dir("cli-run-out-input");
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

TEST_CASE("weir: no output is written over Python source or an input .npy, read or not", "[cli][output]") {
  // `weir run p.py::f --profile=p.py` replaced the program with the report's JSON, and
  // `weir view x.sdfg --html p.py` / `weir convert x.sdfg -o p.py` the source the SDFG was lowered
  // from (which these commands do not read): each exited 0.
  auto dir = weir::test::scratch_dir("cli-no-output-over-source");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "b.py") << kBoundary;
  fs::create_directories(dir / "in");
  REQUIRE(run_numpy(dir / "in", "np.save('f.npy', np.arange(5.0))\nnp.save('out.npy', np.zeros(5))\n") == 0);
  REQUIRE(run_weir("sdfg " + q(dir / "b.py") + "::boundary -o " + q(dir / "b.sdfg")).code == 0);
  const std::string before_py = weir::test::read_text(dir / "b.py");
  const std::string before_npy = weir::test::read_text(dir / "in" / "f.npy");
  const std::string py = (dir / "b.py").string(), other = (dir / "other.py").string();
  const std::string run = "run " + q(py) + "::boundary --in-dir " + q(dir / "in") + " --set nx=5 --backend ";
  auto refused = [&](const std::string& args, const std::string& message) {
    INFO(args);
    auto r = run_weir(args);
    CHECK(r.code == 2);
    CHECK(r.out == "weir: error: " + message + "\n");
  };
  // (--profile times compiled code: the embedded backend refuses it first.)
  refused(run + "cpu --profile=" + q(py),
          "--profile=" + py + ": a .py file holds Python source; write the profile report to another file");
  refused(
      run + "cpu --profile=" + q(other),
      "--profile=" + other + ": a .py file holds Python source; write the profile report to another file");
  const std::string f = (dir / "in" / "f.npy").string();
  refused(run + "cpu --profile=" + q(f),
          "--profile=" + f + ": would overwrite the input file " + f + "; choose another output file");
  const std::string sdfg = q(dir / "b.sdfg");
  refused("view " + sdfg + " --html " + q(py),
          "--html " + py + ": a .py file holds Python source; write the page to another file");
  refused("convert " + sdfg + " -o " + q(py),
          "-o " + py + ": a .py file holds Python source; write the SDFG to another file");
  refused("optimize " + sdfg + " --auto cpu -o " + q(other),
          "-o " + other + ": a .py file holds Python source; write the SDFG to another file");
  CHECK(weir::test::read_text(dir / "b.py") == before_py);
  CHECK(weir::test::read_text(dir / "in" / "f.npy") == before_npy);
  CHECK(!fs::exists(dir / "other.py"));
  // A report file of another name is written as before.
  auto r = run_weir(run + "cpu --profile=" + q(dir / "prof.json"));
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(fs::exists(dir / "prof.json"));
}
