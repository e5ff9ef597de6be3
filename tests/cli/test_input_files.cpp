// Files a command reads that do not exist or are not what it reads: exit code 1 in every command,
// one message form for .py, .npy and SDFG files, and a .npy or a JSON list where an SDFG is read
// says what it is.
#include <sys/stat.h>

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
using weir::test::cli::kBoundary;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

}  // namespace

TEST_CASE("first hour: a file that does not exist is exit code 1 in every command", "[cli][errors]") {
  auto dir = weir::test::scratch_dir("cli-missing-file-every-command");
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

TEST_CASE("weir: a .npy or a JSON list where an SDFG is read says what it is", "[cli][errors]") {
  auto dir = weir::test::scratch_dir("cli-not-sdfg");
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

TEST_CASE("weir: a file that does not exist is said in one form for .py, .npy and SDFG files",
          "[cli][errors]") {
  auto dir = weir::test::scratch_dir("cli-missing-input");
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

TEST_CASE("weir: a FIFO or a device where a file is read is refused at once, never read", "[cli][errors]") {
  auto dir = weir::test::scratch_dir("cli-special-input");
  std::ofstream(dir / "b.py") << kBoundary;
  fs::remove(dir / "f.npy");
  fs::remove(dir / "in" / "f.npy");
  fs::remove(dir / "p.sdfg");
  fs::create_directories(dir / "in");
  // No writer ever opens them: reading blocked forever (`timeout` turns a hang into exit 124).
  REQUIRE(::mkfifo((dir / "f.npy").c_str(), 0600) == 0);
  REQUIRE(::mkfifo((dir / "in" / "f.npy").c_str(), 0600) == 0);
  REQUIRE(::mkfifo((dir / "p.sdfg").c_str(), 0600) == 0);
  const std::string fifo = ": cannot open: a FIFO (named pipe), not a regular file\n";
  const std::string bin = std::string("timeout 60 ") + WEIR_BIN;
  auto r = run_weir("run " + q(dir / "b.py") + "::boundary --in f=" + q(dir / "f.npy"), {}, bin);
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + (dir / "f.npy").string() + fifo);
  r = run_weir("run " + q(dir / "b.py") + "::boundary --in-dir " + q(dir / "in"), {}, bin);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains((dir / "in" / "f.npy").string() + fifo));
  r = run_weir("validate " + q(dir / "p.sdfg"), {}, bin);
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + (dir / "p.sdfg").string() + fifo);
  // /dev/zero never ends: it was read until memory ran out (4 GB) before failing.
  r = run_weir("run " + q(dir / "b.py") + "::boundary --in f=/dev/zero", {}, bin);
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: /dev/zero: cannot open: a character device, not a regular file\n");
}

TEST_CASE("weir: a source file or imported module over the size limit, or a FIFO, is refused before reading",
          "[cli][errors][security]") {
  auto dir = weir::test::scratch_dir("cli-source-limits");
  std::ofstream(dir / "b.py") << kBoundary;
  const auto size = fs::file_size(dir / "b.py");
  std::ofstream(dir / "main.py") << "from b import boundary\n";
  const std::string bin = std::string("timeout 60 ") + WEIR_BIN;
  // The default limit (2 MiB) reads it; a limit one byte short refuses it, read or imported.
  auto r = run_weir("check " + q(dir / "b.py"), {}, bin);
  CHECK(r.code == 0);
  const std::string limit = "WEIR_MAX_SOURCE_BYTES=" + std::to_string(size - 1);
  const std::string over = ": size " + std::to_string(size) + " bytes exceeds the limit of " +
                           std::to_string(size - 1) +
                           " bytes for a source file (set WEIR_MAX_SOURCE_BYTES to raise it)";
  r = run_weir("check " + q(dir / "b.py"), limit, bin);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains((dir / "b.py").string() + over));
  r = run_weir("run " + q(dir / "main.py") + "::boundary", limit, bin);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains((dir / "b.py").string() + over));
  // A FIFO given as the source: refused without blocking, named as every input file names it.
  fs::remove(dir / "f.py");
  REQUIRE(::mkfifo((dir / "f.py").c_str(), 0600) == 0);
  r = run_weir("check " + q(dir / "f.py"), {}, bin);
  CHECK(r.code == 1);
  CHECK(r.out == "weir: error: " + (dir / "f.py").string() +
                     ": cannot open: a FIFO (named pipe), not a regular file\n");
}
