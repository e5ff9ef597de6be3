// Interrupting a compile (docs/adr/0038, "Interrupted compiles"): SIGINT sent to weir's PID alone
// during a cold compile stops the compiler weir started and leaves no temporaries in the cache;
// those a kill -9 left are reported by `weir cache info` and removed by the next compile.
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "cli_run.h"
#include "corpus.h"

extern char** environ;

namespace fs = std::filesystem;

namespace {

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

// A `c++` that records its PID and its sleep's, sleeps 30 s, then compiles: a compile that
// takes long enough to be interrupted in (--version, asked for the compiler's identity, at once).
void write_slow_compiler(const fs::path& bin) {
  fs::create_directories(bin);
  std::ofstream(bin / "c++") << "#!/bin/sh\n"
                                "case \" $* \" in *\" --version \"*) exec /usr/bin/c++ \"$@\";; esac\n"
                                "sleep 30 &\n"
                                "echo $! >> \"$WEIR_TEST_PIDS\"\n"
                                "echo $$ >> \"$WEIR_TEST_PIDS\"\n"
                                "wait $!\n"
                                "exec /usr/bin/c++ \"$@\"\n";
  fs::permissions(bin / "c++", fs::perms::owner_all);
}

std::vector<long> pids_in(const fs::path& file) {
  std::ifstream in(file);
  std::vector<long> pids;
  for (long p; in >> p;) pids.push_back(p);
  return pids;
}

// Whether `pid` runs (a zombie, waiting for its reaper, does not).
bool running(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string stat;
  if (!std::getline(in, stat)) return false;
  const std::size_t close = stat.rfind(')');
  return close != std::string::npos && close + 2 < stat.size() && stat[close + 2] != 'Z';
}

std::vector<std::string> names_in(const fs::path& dir) {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& e : fs::directory_iterator(dir, ec)) names.push_back(e.path().filename().string());
  return names;
}

}  // namespace

TEST_CASE("weir run: SIGINT to weir's PID during a cold compile stops the compiler and leaves no temporaries",
          "[cli][cache]") {
  auto dir = weir::test::scratch_dir("cli-compile-interrupt-sigint");
  write_slow_compiler(dir / "bin");
  const fs::path cache = dir / "cache", pids = dir / "pids", log = dir / "weir.log";
  const fs::path program = fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" / "laplacian.py";
  // exec: the shell becomes weir, whose PID alone gets the signal (not its process group).
  // WEIR_PCH_DIR= (scripts/test.sh sets it): the precompiled header in this cache, checked below.
  const std::string command =
      "exec env PATH=" + q(dir / "bin") + ":\"$PATH\" WEIR_PCH_DIR= WEIR_CACHE_DIR=" + q(cache) +
      " WEIR_TEST_PIDS=" + q(pids) + " " + WEIR_BIN + " run " + q(program) +
      "::laplacian --backend cpu --random-inputs --set I=8 --set J=8 --set K=2 > " + q(log) + " 2>&1";
  std::vector<char*> argv{const_cast<char*>("/bin/sh"), const_cast<char*>("-c"),
                          const_cast<char*>(command.c_str()), nullptr};
  pid_t weir = 0;
  REQUIRE(posix_spawn(&weir, "/bin/sh", nullptr, nullptr, argv.data(), environ) == 0);
  // Until the compiler runs (lowering and the compiler's identity first).
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (pids_in(pids).size() < 2 && std::chrono::steady_clock::now() < until)
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  const std::vector<long> compiler = pids_in(pids);
  REQUIRE(compiler.size() >= 2);
  REQUIRE(::kill(weir, SIGINT) == 0);
  int status = 0;
  REQUIRE(waitpid(weir, &status, 0) == weir);
  std::ifstream in(log);
  std::stringstream out;
  out << in.rdbuf();
  INFO(out.str());
  // It dies of the signal, as without a compile running (the shell's -2, 130).
  CHECK(WIFSIGNALED(status));
  if (WIFSIGNALED(status)) CHECK(WTERMSIG(status) == SIGINT);
  // The wrapper and its sleep are gone (killed, not orphaned).
  for (long pid : compiler) {
    INFO("compiler process " << pid);
    const auto gone_by = std::chrono::steady_clock::now() + std::chrono::seconds(10);
    while (running(pid) && std::chrono::steady_clock::now() < gone_by)
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    CHECK_FALSE(running(pid));
  }
  // No temporaries: no build directory, no precompiled header's .tmp directory, no failed build.
  for (const std::string& name : names_in(cache / "v1" / "pch"))
    CHECK(name.find(".tmp.") == std::string::npos);
  CHECK(names_in(cache / "v1" / "tmp").empty());
  CHECK_FALSE(fs::exists(cache / "v1" / "failed"));
}

TEST_CASE("weir cache info: temporaries of a killed build are stale, and the next compile removes them",
          "[cli][cache]") {
  auto dir = weir::test::scratch_dir("cli-compile-interrupt-stale");
  const fs::path cache = dir / "cache";
  // A PID that is gone: a finished child's.
  pid_t dead = 0;
  std::vector<char*> argv{const_cast<char*>("/bin/true"), nullptr};
  REQUIRE(posix_spawn(&dead, "/bin/true", nullptr, nullptr, argv.data(), environ) == 0);
  int status = 0;
  REQUIRE(waitpid(dead, &status, 0) == dead);
  const std::string d = std::to_string(dead), live = std::to_string(::getpid());
  const fs::path pch = cache / "v1" / "pch", tmp = cache / "v1" / "tmp";
  // What kill -9 leaves (prelude_pch.cpp, program_cache.cpp), and the same of a live process.
  for (const fs::path& p : {pch / ("0a1b2c3d.tmp." + d + ".77"), tmp / ("0a1b2c3d4e5f6071." + d + ".0"),
                            pch / ("0a1b2c3d.tmp." + live + ".77")}) {
    fs::create_directories(p);
    std::ofstream(p / "weir_prelude.h.gch") << std::string(1000, 'x');
  }
  // The cache's directories are the user's alone (cache_trust.h), as weir makes them.
  fs::permissions(cache, fs::perms::owner_all, fs::perm_options::replace);
  for (const auto& e : fs::recursive_directory_iterator(cache))
    if (e.is_directory()) fs::permissions(e.path(), fs::perms::owner_all, fs::perm_options::replace);
  const std::string env = "WEIR_PCH_DIR= WEIR_CACHE_DIR=" + q(cache);  // the header in this cache
  auto r = weir::test::run_weir("cache info", env);
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("entries: 0\n") != std::string::npos);
  CHECK(r.out.find("stale temporaries: 2 (2.0 KiB, counted in size") != std::string::npos);
  const fs::path program = fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" / "laplacian.py";
  r = weir::test::run_weir(
      "run " + q(program) + "::laplacian --backend cpu --random-inputs --set I=8 --set J=8 --set K=2", env);
  REQUIRE(r.code == 0);
  CHECK_FALSE(fs::exists(pch / ("0a1b2c3d.tmp." + d + ".77")));
  CHECK_FALSE(fs::exists(tmp / ("0a1b2c3d4e5f6071." + d + ".0")));
  CHECK(fs::exists(pch / ("0a1b2c3d.tmp." + live + ".77")));  // its process runs: maybe building
  r = weir::test::run_weir("cache info", env);
  CHECK(r.out.find("entries: 1\n") != std::string::npos);
  CHECK(r.out.find("stale temporaries") == std::string::npos);
}
