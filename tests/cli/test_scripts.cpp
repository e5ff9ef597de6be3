// README's two set-up commands, scripts/example.sh (the main job) and scripts/test.sh (the
// tests), build into different folders, so that running one never reconfigures or relinks the
// other's `weir` (a user ran build/bin/weir while the tests relinked it: "Permission denied").
// Each script runs from a copy of scripts/ whose install-deps.sh and build.sh are stubs: the
// stub build.sh prints the folder it was given and stops the script there.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

/// Runs `bash ROOT/scripts/SCRIPT` with BUILD_DIR unset (or set to `build_dir`); its output.
weir::test::CliRun run_script(const fs::path& root, const std::string& script,
                              const std::string& build_dir = {}) {
  std::string env = build_dir.empty() ? "env -u BUILD_DIR" : "env BUILD_DIR='" + build_dir + "'";
  return weir::test::run_weir("'" + (root / "scripts" / script).string() + "'", env + " SANITIZE=0", "bash");
}

}  // namespace

TEST_CASE("scripts: the test command builds into build-test/, the main job into build/", "[cli][scripts]") {
  fs::path root = weir::test::scratch_dir("cli-scripts");
  fs::create_directories(root / "scripts");
  for (const char* s : {"example.sh", "test.sh"})
    fs::copy_file(fs::path(WEIR_SOURCE_DIR) / "scripts" / s, root / "scripts" / s);
  std::ofstream(root / "scripts" / "install-deps.sh") << "true\n";
  std::ofstream(root / "scripts" / "build.sh") << "echo \"build.sh: BUILD_DIR=$BUILD_DIR\"\nexit 3\n";
  const std::string r = fs::canonical(root).string();

  auto main_job = run_script(root, "example.sh");
  CHECK(main_job.code == 3);
  CHECK(main_job.out == "== building weir into " + r +
                            "/build (first time: minutes, see README; then cached)\n" +
                            "build.sh: BUILD_DIR=" + r + "/build\n");
  auto tests = run_script(root, "test.sh");
  CHECK(tests.code == 3);
  CHECK(tests.out == "build.sh: BUILD_DIR=" + r + "/build-test\n");
  // BUILD_DIR still chooses the folder.
  auto chosen = run_script(root, "test.sh", "/tmp/elsewhere");
  CHECK(chosen.out == "build.sh: BUILD_DIR=/tmp/elsewhere\n");
}

// scripts/tidy.sh keeps the sources it found nothing in (scripts/tidy_keys.py): a source is
// checked again once a file it reads or its compile command changed, and a source with a finding
// every time. A stub clang-tidy logs each source it checks; the build is a real CMake + Ninja
// build of one library source, whose dependency log names the header.
TEST_CASE("scripts: tidy.sh checks a source again only once what it reads changed, and a finding every time",
          "[cli][scripts]") {
  const fs::path root = fs::canonical(weir::test::scratch_dir("cli-scripts-tidy"));
  fs::create_directories(root / "scripts");
  fs::create_directories(root / "sdfg");
  for (const char* s : {"tidy.sh", "tidy_keys.py"})
    fs::copy_file(fs::path(WEIR_SOURCE_DIR) / "scripts" / s, root / "scripts" / s);
  const std::string q = "'" + root.string() + "'";
  std::ofstream(root / "tidy")
      << "#!/bin/sh\n[ \"$1\" = --version ] && { echo 'stub version 14.0.6'; exit 0; }\n"
      << "for a; do f=$a; done\necho \"$f\" >> " << q << "/checked\n"
      << "if grep -q FINDING \"$f\"; then echo \"$f:2:1: warning: found [bugprone-stub]\"; exit 1; fi\n";
  fs::permissions(root / "tidy", fs::perms::owner_all, fs::perm_options::add);
  std::ofstream(root / "CMakeLists.txt")
      << "cmake_minimum_required(VERSION 3.25)\nproject(t LANGUAGES CXX)\n"
      << "set(CMAKE_EXPORT_COMPILE_COMMANDS ON)\nadd_library(t STATIC sdfg/a.cpp)\n";
  const std::string clean = "#include \"a.h\"\nint a() { return 1; }\n";
  std::ofstream(root / "sdfg" / "a.h") << "int a();\n";
  std::ofstream(root / "sdfg" / "a.cpp") << clean;
  auto build = [&](const std::string& flags = "") {
    REQUIRE(std::system(("cmake -S " + q + " -B " + q + "/build -G Ninja -DCMAKE_CXX_FLAGS='" + flags +
                         "' >/dev/null && cmake --build " + q + "/build >/dev/null")
                            .c_str()) == 0);
  };
  auto tidy = [&](bool cached = true) {
    return weir::test::run_weir("'" + (root / "scripts" / "tidy.sh").string() + "'",
                                "env BUILD_DIR=" + q + "/build CLANG_TIDY=" + q +
                                    "/tidy WEIR_TIDY_CACHE=" + (cached ? q + "/cache" : std::string()),
                                "bash");
  };
  auto checks = [&] {  // how many times the stub ran on a source
    std::ifstream in(root / "checked");
    std::string line;
    int n = 0;
    while (std::getline(in, line)) n += line == (root / "sdfg" / "a.cpp").string();
    return n;
  };
  build();
  auto first = tidy();
  INFO(first.out);
  CHECK(first.code == 0);
  CHECK(checks() == 1);
  CHECK(first.out.find("tidy.sh: 0 of 1 sources unchanged since a run without findings") !=
        std::string::npos);
  auto again = tidy();
  CHECK(again.code == 0);
  CHECK(checks() == 1);
  CHECK(again.out.find("tidy.sh: 1 of 1 sources unchanged since a run without findings") !=
        std::string::npos);
  // A comment in the header (a NOLINT would be one) is content: checked again, then kept again.
  std::ofstream(root / "sdfg" / "a.h", std::ios::app) << "// NOLINT(bugprone-stub)\n";
  CHECK(tidy().code == 0);
  CHECK(checks() == 2);  // the object is older than the header: no key until the build is redone
  CHECK(tidy().code == 0);
  CHECK(checks() == 3);
  build();
  CHECK(tidy().code == 0);
  CHECK(checks() == 4);
  CHECK(tidy().code == 0);
  CHECK(checks() == 4);
  // Another compile command: checked again.
  build("-DWEIR_OTHER=1");
  CHECK(tidy().code == 0);
  CHECK(checks() == 5);
  // A finding fails and is never kept.
  std::ofstream(root / "sdfg" / "a.cpp") << clean << "// FINDING\n";
  build("-DWEIR_OTHER=1");
  for (int expected : {6, 7}) {
    auto found = tidy();
    CHECK(found.code == 1);
    CHECK(found.out.find("a.cpp:2:1: warning: found [bugprone-stub]") != std::string::npos);
    CHECK(checks() == expected);
  }
  // Back to the clean text and flags: the result kept for them.
  std::ofstream(root / "sdfg" / "a.cpp") << clean;
  build("-DWEIR_OTHER=1");
  CHECK(tidy().code == 0);
  CHECK(checks() == 7);
  // WEIR_TIDY_CACHE= (empty): every source is checked.
  auto off = tidy(false);
  CHECK(off.code == 0);
  CHECK(checks() == 8);
  CHECK(off.out.find("unchanged since") == std::string::npos);
}
