// The persistent program cache: hits skip the compiler, changed flags miss, concurrent builds
// of one program (threads and processes) produce one entry, corrupt entries are rebuilt, and
// failed builds keep their source.
#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <catch2/catch.hpp>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <thread>

#include "runtime_test_util.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/loader.h"
#include "weir/runtime/program_cache.h"

namespace fs = std::filesystem;
using namespace weir::runtime;

namespace {

// Quick builds: the cache does not care about optimization.
CompilerSettings quick() {
  CompilerSettings s;
  s.flags = {"-std=c++17", "-O0"};
  return s;
}

struct Counting {
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
  CompilerInvocation invoke() const {
    auto c = calls;
    return [c](const std::vector<std::string>& argv) {
      ++*c;
      return run_process(argv);
    };
  }
};

std::unique_ptr<CompiledBackend> counting_backend(const Counting& counter, CompilerSettings s = quick()) {
  return std::make_unique<CompiledBackend>("cpu-counting", Allocator{},
                                           make_cpu_compiler(s, std::nullopt, counter.invoke()));
}

void run_hdiff(const Backend& backend) {
  auto args = weir::test::corpus_arguments("hdiff");
  run(backend, weir::test::corpus_program("hdiff", "simplified"), args);
  CHECK(weir::test::check_expected("hdiff", args) == 1);
}

std::string sha256sum(const fs::path& p) {
  std::string cmd = "sha256sum '" + p.string() + "'";
  FILE* f = popen(cmd.c_str(), "r");
  REQUIRE(f);
  char buf[65] = {};
  REQUIRE(std::fread(buf, 1, 64, f) == 64);
  pclose(f);
  return std::string(buf, 64);
}

void edit_manifest(const fs::path& dir, const std::function<void(nlohmann::json&)>& edit) {
  auto m = nlohmann::json::parse(weir::test::read_text(dir / "manifest.json"));
  edit(m);
  std::ofstream(dir / "manifest.json") << m.dump();
}

}  // namespace

TEST_CASE("cache: a second compile is a hit and does not run the compiler", "[runtime][cache]") {
  auto root = weir::test::fresh_cache("hit");
  Counting counter;
  auto backend = counting_backend(counter);
  auto program = weir::test::corpus_program("hdiff", "simplified");
  auto a1 = compile(*backend, program);
  CHECK(*counter.calls == 1);
  CHECK_FALSE(a1.cache_hit);
  CHECK(a1.fingerprint.size() == 64);
  CHECK(a1.library.string().rfind(root.string(), 0) == 0);  // under WEIR_CACHE_DIR
  auto a2 = compile(*backend, program);
  CHECK(*counter.calls == 1);
  CHECK(a2.cache_hit);
  CHECK(a2.fingerprint == a1.fingerprint);
  CHECK(a2.library == a1.library);
  // The same program loaded again from a file is the same key.
  compile(*backend, weir::test::corpus_program("hdiff", "simplified"));
  CHECK(*counter.calls == 1);
  run_hdiff(*backend);
  CHECK(*counter.calls == 1);
  auto st = ProgramCache(root).stats();
  CHECK(st.entries == 1);
  CHECK(st.bytes > 1000);
  // The generated source sits beside the library, for reading.
  CHECK_THAT(weir::test::read_text(a1.source), Catch::Contains("weir_run"));
}

TEST_CASE("cache: changed flags, OpenMP or codegen options miss", "[runtime][cache]") {
  auto root = weir::test::fresh_cache("miss");
  Counting counter;
  auto program = weir::test::corpus_program("hdiff", "simplified");
  auto a = compile(*counting_backend(counter), program);
  CompilerSettings o1 = quick();
  o1.flags = {"-std=c++17", "-O1"};
  auto b = compile(*counting_backend(counter, o1), program);
  CHECK(*counter.calls == 2);
  CHECK(a.fingerprint != b.fingerprint);
  CompilerSettings no_omp = quick();
  no_omp.openmp = false;
  auto c = compile(*counting_backend(counter, no_omp), program);
  CHECK(*counter.calls == 3);
  auto variant = program;
  variant.options.emit_comments = false;
  auto d = compile(*counting_backend(counter), variant);
  CHECK(*counter.calls == 4);
  CHECK(std::set<std::string>{a.fingerprint, b.fingerprint, c.fingerprint, d.fingerprint}.size() == 4);
  CHECK(ProgramCache(root).stats().entries == 4);
  // Each still hits afterwards.
  compile(*counting_backend(counter, o1), program);
  CHECK(*counter.calls == 4);
}

TEST_CASE("cache: two processes compiling the same program at once make one entry", "[runtime][cache]") {
  auto root = weir::test::fresh_cache("two-processes");
  int go[2];
  REQUIRE(pipe(go) == 0);
  std::vector<pid_t> kids;
  for (int k = 0; k < 2; ++k) {
    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) {
      close(go[1]);
      char c;
      if (read(go[0], &c, 1) != 1) _exit(90);  // wait for the start signal
      try {
        Counting counter;
        auto a = compile(*counting_backend(counter), weir::test::corpus_program("hdiff", "simplified"));
        auto p = load_compiled_program(a.library, a.signature);
        _exit(10 + *counter.calls);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "child failed: %s\n", e.what());
        _exit(91);
      }
    }
    kids.push_back(pid);
  }
  close(go[0]);
  REQUIRE(write(go[1], "gg", 2) == 2);
  close(go[1]);
  int compiled = 0;
  for (pid_t pid : kids) {
    int status = 0;
    REQUIRE(waitpid(pid, &status, 0) == pid);
    REQUIRE(WIFEXITED(status));
    int code = WEXITSTATUS(status);
    INFO("child exit code " << code << " (10 + compiler runs; 9x: failure)");
    REQUIRE((code == 10 || code == 11));
    compiled += code - 10;
  }
  CHECK(compiled == 1);
  CHECK(ProgramCache(root).stats().entries == 1);
  CHECK(fs::is_empty(root / "v1" / "tmp"));
}

TEST_CASE("cache: threads compiling the same program at once run the compiler once", "[runtime][cache]") {
  auto root = weir::test::fresh_cache("threads");
  Counting counter;
  auto backend = counting_backend(counter);
  auto program = weir::test::corpus_program("laplace2d", "simplified");
  std::vector<std::string> keys(4);
  std::vector<std::thread> ts;
  for (int i = 0; i < 4; ++i) ts.emplace_back([&, i] { keys[i] = compile(*backend, program).fingerprint; });
  for (auto& t : ts) t.join();
  CHECK(*counter.calls == 1);
  CHECK(std::set<std::string>(keys.begin(), keys.end()).size() == 1);
  CHECK(ProgramCache(root).stats().entries == 1);
}

TEST_CASE("cache: corrupt entries are detected and rebuilt", "[runtime][cache]") {
  auto root = weir::test::fresh_cache("corrupt");
  Counting counter;
  auto backend = counting_backend(counter);
  auto program = weir::test::corpus_program("hdiff", "simplified");
  auto a = compile(*backend, program);
  REQUIRE(*counter.calls == 1);
  fs::path dir = a.library.parent_path();

  SECTION("truncated library") {
    fs::resize_file(a.library, fs::file_size(a.library) / 2);
    run_hdiff(*backend);
    CHECK(*counter.calls == 2);
  }
  SECTION("library overwritten with other bytes of the same size") {
    auto size = fs::file_size(a.library);
    std::ofstream(a.library, std::ios::binary) << std::string(size, 'x');
    run_hdiff(*backend);
    CHECK(*counter.calls == 2);
  }
  SECTION("manifest of another ABI version") {
    edit_manifest(dir, [](nlohmann::json& m) { m["abi"] = "weir-abi-0"; });
    run_hdiff(*backend);
    CHECK(*counter.calls == 2);
  }
  SECTION("manifest missing or garbage") {
    std::ofstream(dir / "manifest.json") << "{not json";
    run_hdiff(*backend);
    CHECK(*counter.calls == 2);
    fs::remove(dir / "manifest.json");
    run_hdiff(*backend);
    CHECK(*counter.calls == 3);
  }
  CHECK(ProgramCache(root).stats().entries == 1);
  CHECK(compile(*backend, program).cache_hit);
}

TEST_CASE("cache: an unloadable library whose manifest matches is evicted when loading fails",
          "[runtime][cache]") {
  // Its own cache directory: a library path this process never loaded (dlopen would return the
  // mapping of a library loaded before from the same path).
  auto root = weir::test::fresh_cache("unloadable");
  Counting counter;
  auto backend = counting_backend(counter);
  auto a = compile(*backend, weir::test::corpus_program("hdiff", "simplified"));
  REQUIRE(*counter.calls == 1);
  fs::path dir = a.library.parent_path();
  std::ofstream(a.library, std::ios::binary) << "not an ELF file at all";
  edit_manifest(dir, [&](nlohmann::json& m) {
    m["library_size"] = fs::file_size(a.library);
    m["library_sha256"] = sha256sum(a.library);
  });
  REQUIRE(ProgramCache(root).lookup(a.fingerprint));  // passes the manifest check
  CHECK_THROWS_AS(load_compiled_program(a.library), LoadError);
  run_hdiff(*backend);  // load fails -> evict -> compile again -> load
  CHECK(*counter.calls == 2);
  CHECK(ProgramCache(root).stats().entries == 1);
}

TEST_CASE("cache: a failed build keeps its source and installs nothing", "[runtime][cache]") {
  auto root = weir::test::fresh_cache("failed");
  // A compiler member whose invocation breaks the generated source before compiling it.
  CompilerInvocation breaking = [](const std::vector<std::string>& argv) {
    std::ofstream(argv.back(), std::ios::app) << "\nthis_is_not_cpp(;\n";
    return run_process(argv);
  };
  CompiledBackend backend("cpu-broken", Allocator{}, make_cpu_compiler(quick(), std::nullopt, breaking));
  auto program = weir::test::corpus_program("laplace2d", "simplified");
  try {
    compile(backend, program);
    FAIL("no CompileError");
  } catch (const CompileError& e) {
    std::string m = e.what();
    INFO(m);
    CHECK_THAT(m,
               Catch::StartsWith("compiling program 'laplace2d_simplified' failed: c++ exited with code 1"));
    CHECK_THAT(m, Catch::Contains("error:") && Catch::Contains("this_is_not_cpp"));
    CHECK_THAT(m, Catch::Contains("its comments name the SDFG state, node and memlet"));
    CHECK_THAT(e.source_path(), Catch::StartsWith((root / "v1" / "failed").string()));
    CHECK_THAT(m, Catch::Contains("generated source: " + e.source_path()));
    CHECK(fs::is_regular_file(e.source_path()));
    CHECK(fs::is_regular_file(fs::path(e.source_path()).parent_path() / "compiler.log"));
    // The compiler's messages point at the kept file, not the removed temporary.
    CHECK_THAT(m, Catch::Contains(e.source_path() + ":"));
  }
  CHECK(ProgramCache(root).stats().entries == 0);
  CHECK(fs::is_empty(root / "v1" / "tmp"));
}

TEST_CASE("cache: location from the environment, stats and clear", "[runtime][cache]") {
  auto root = weir::test::fresh_cache("env");
  CHECK(ProgramCache::default_root() == root);
  ::unsetenv("WEIR_CACHE_DIR");
  ::setenv("XDG_CACHE_HOME", "/tmp/xdg-test", 1);
  CHECK(ProgramCache::default_root() == fs::path("/tmp/xdg-test/weir"));
  ::unsetenv("XDG_CACHE_HOME");
  CHECK(ProgramCache::default_root() == fs::path(std::getenv("HOME")) / ".cache" / "weir");
  ::setenv("WEIR_CACHE_DIR", root.c_str(), 1);

  ProgramCache cache(root);
  CHECK(cache.stats().entries == 0);
  std::string key(64, 'a');
  bool built = false;
  auto e = cache.get_or_build(
      key, [](const ProgramCache::Build& b) { std::ofstream(b.library) << "library bytes"; }, "{}", &built);
  CHECK(built);
  CHECK(fs::is_regular_file(e.library));
  CHECK(cache.lookup(key));
  cache.get_or_build(
      key, [](const ProgramCache::Build&) { FAIL("rebuilt a valid entry"); }, "{}", &built);
  CHECK_FALSE(built);
  CHECK(cache.stats().entries == 1);
  cache.evict(key);
  CHECK_FALSE(cache.lookup(key));
  cache.get_or_build(key, [](const ProgramCache::Build& b) { std::ofstream(b.library) << "x"; });
  cache.get_or_build(std::string(64, 'b'),
                     [](const ProgramCache::Build& b) { std::ofstream(b.library) << "y"; });
  CHECK(cache.stats().entries == 2);
  CHECK(cache.clear() == 2);
  CHECK(cache.stats().entries == 0);
  CHECK_THROWS_AS(cache.lookup("../../etc"), CacheError);
}

TEST_CASE("cache: build directories of killed builds are reclaimed, builds in progress are not",
          "[runtime][cache]") {
  auto root = weir::test::fresh_cache("stale");
  ProgramCache cache(root);
  fs::path tmp = root / "v1" / "tmp", locks = root / "v1" / "locks";
  fs::create_directories(tmp);
  fs::create_directories(locks);
  std::string mine(64, 'a'), other(64, 'b'), busy(64, 'c'), recent(64, 'd');
  auto leftover = [&](const std::string& key, std::chrono::hours age, long pid = 99999) {
    fs::path d = tmp / (key + "." + std::to_string(pid) + ".0");
    fs::create_directories(d);
    std::ofstream(d / "program.cpp") << "left by kill -9";
    fs::last_write_time(d, fs::file_time_type::clock::now() - age);
    return d;
  };
  fs::path own = leftover(mine, std::chrono::hours(0));      // same key: its lock is ours
  fs::path old = leftover(other, std::chrono::hours(2));     // old, lock free
  fs::path running = leftover(busy, std::chrono::hours(2));  // old, but its build holds the lock
  // Another key's, too recent to judge by its age, of a process that runs (this one).
  fs::path young = leftover(recent, std::chrono::hours(0), static_cast<long>(::getpid()));
  // Another key's, recent, of a process that is gone (PID 99999, beyond the default pid_max
  // of 32768 or unused): stale whatever its age.
  std::string dead_key(64, 'e');
  REQUIRE(::kill(99999, 0) != 0);
  fs::path dead = leftover(dead_key, std::chrono::hours(0));
  fs::path removal = tmp / (other + ".stale.99999.1");  // a removal that was interrupted
  fs::create_directories(removal);
  fs::last_write_time(removal, fs::file_time_type::clock::now() - std::chrono::hours(2));
  int fd = ::open((locks / (busy + ".lock")).c_str(), O_RDWR | O_CREAT, 0644);
  REQUIRE(fd >= 0);
  REQUIRE(::flock(fd, LOCK_EX) == 0);
  cache.get_or_build(mine, [](const ProgramCache::Build& b) { std::ofstream(b.library) << "x"; });
  ::close(fd);
  CHECK_FALSE(fs::exists(own));
  CHECK_FALSE(fs::exists(old));
  CHECK_FALSE(fs::exists(removal));
  CHECK(fs::exists(running));
  CHECK(fs::exists(young));
  CHECK_FALSE(fs::exists(dead));
}
