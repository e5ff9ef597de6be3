// Running the built `weir` binary from CLI tests (WEIR_BIN is defined for the cli suite).
#pragma once

#include <sys/wait.h>

#include <array>
#include <catch2/catch.hpp>
#include <cstdio>
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

}  // namespace weir::test
