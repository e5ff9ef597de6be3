// Running the built `weir` binary from CLI tests (WEIR_BIN: weir_test_paths.h).
#pragma once

#include <sys/wait.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>
#include <string>

namespace weir::test {

struct CliRun {
  int code;         // exit status, -1 if killed by a signal
  std::string out;  // stdout and stderr together
};

/// Runs `weir ARGS` through the shell (ARGS is shell text: quote paths), after the shell
/// assignments `env` ("WEIR_CACHE_DIR='/tmp/c'") if given; `bin` replaces the weir binary.
inline CliRun run_weir(const std::string& args, const std::string& env = {},
                       const std::string& bin = WEIR_BIN) {
  FILE* p = popen((env + (env.empty() ? "" : " ") + bin + " " + args + " 2>&1").c_str(), "r");
  REQUIRE(p != nullptr);
  std::string out;
  std::array<char, 4096> buf;
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  int status = pclose(p);
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, out};
}

/// Runs `script` (after `import numpy as np`, `import os`, `import sys` and a chdir to `dir`)
/// as dir/FILE with Debian's python3; its exit code. FAILs clearly when NumPy is missing.
inline int run_numpy(const std::filesystem::path& dir, const std::string& script,
                     const std::string& file = "check.py") {
  if (std::system("/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1") != 0)
    FAIL("this test needs /usr/bin/python3 with NumPy (python3-numpy; scripts/install-deps.sh installs it)");
  const std::string at = "'" + dir.string() + "'";
  std::ofstream(dir / file) << "import numpy as np\nimport os\nimport sys\nos.chdir(" << at << ")\n"
                            << script << "\n";
  int rc = std::system(("/usr/bin/python3 '" + (dir / file).string() + "'").c_str());
  return WIFEXITED(rc) ? WEXITSTATUS(rc) : -1;
}

/// Applies `fn` to the first JSON object with "type": `type` (depth first); REQUIREs one.
inline void first_of_type(nlohmann::json& j, const std::string& type,
                          const std::function<void(nlohmann::json&)>& fn) {
  bool done = false;
  std::function<void(nlohmann::json&)> visit = [&](nlohmann::json& n) {
    if (done) return;
    if (n.is_object() && n.value("type", "") == type) {
      fn(n);
      done = true;
      return;
    }
    if (n.is_object() || n.is_array())
      for (auto& c : n) visit(c);
  };
  visit(j);
  REQUIRE(done);
}

}  // namespace weir::test
