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
