// Backends and dispatch: kinds decide (names never do), members are the customization points,
// and every unsupported combination says what to do instead. Loader and compiler errors.
#include <dlfcn.h>

#include <catch2/catch.hpp>
#include <csignal>
#include <fstream>
#include <type_traits>

#include "runtime_test_util.h"
#include "weir/codegen/program_abi.h"
#include "weir/runtime/compile_interrupt.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/loader.h"
#include "weir/sdfg/serialize.h"

namespace fs = std::filesystem;
using namespace weir::runtime;

static_assert(std::is_abstract_v<Backend>, "Backend is abstract");
static_assert(!std::is_constructible_v<Backend, std::string, Allocator>,
              "Backend cannot be constructed directly");
static_assert(!std::is_copy_constructible_v<CompiledBackend>);

namespace {

struct OddBackend : Backend {
  OddBackend() : Backend("odd", Allocator{}) {}
};

// Compiles a hand-written library with the system compiler.
fs::path build_library(const fs::path& dir, const std::string& name, const std::string& code) {
  auto src = dir / (name + ".cpp");
  std::ofstream(src) << code;
  CompilerSettings s;
  s.flags = {"-std=c++17", "-O0"};
  s.openmp = false;
  auto lib = dir / ("lib" + name + ".so");
  compile_shared_library(s, src, lib, name);
  return lib;
}

// A minimal program_abi.h library: one symbol argument N; weir_run fails when N < 0.
std::string abi_library(const std::string& version) {
  return R"(#include <cstdint>
extern "C" {
const char* weir_abi_version(void) { return ")" +
         version + R"("; }
const char* weir_program_name(void) { return "tiny"; }
const char* weir_arglist(void) { return "[{\"name\": \"N\", \"kind\": \"symbol\", \"dtype\": \"int64\"}]"; }
static int handle;
static const char* err = "";
void* weir_init(void* const*) { return &handle; }
int weir_run(void*, void* const* args) {
  if (*static_cast<int64_t*>(args[0]) < 0) { err = "N must not be negative"; return 3; }
  return 0;
}
int weir_finalize(void*) { return 0; }
const char* weir_last_error(void) { return err; }
}
)";
}

// A program_abi.h library with a loop of N iterations that asks the caller's poll at the start
// of each (as generated loops do) and raises SIGINT itself during iteration `signal_at` (the
// user's Ctrl-C, with no timing involved); it exports how many iterations ran.
std::string looping_library(int signal_at) {
  return R"(#include <csignal>
#include <cstdint>
extern "C" {
const char* weir_abi_version(void) { return "weir-abi-1"; }
const char* weir_program_name(void) { return "looping"; }
const char* weir_arglist(void) { return "[{\"name\": \"N\", \"kind\": \"symbol\", \"dtype\": \"int64\"}]"; }
static int handle;
static const char* err = "";
static int (*poll)() = nullptr;
int iterations = 0;
int weir_set_interrupt_poll(int (*p)()) { poll = p; return 1; }
void* weir_init(void* const*) { return &handle; }
int weir_run(void*, void* const* args) {
  iterations = 0;
  for (int64_t i = 0; i < *static_cast<int64_t*>(args[0]); ++i) {
    if (poll && poll()) { err = "weir_run: interrupted (signal 2) between two iterations of a loop"; return 1; }
    if (i == )" +
         std::to_string(signal_at) +
         R"() std::raise(SIGINT);
    ++iterations;
  }
  return 0;
}
int weir_finalize(void*) { return 0; }
const char* weir_last_error(void) { return err; }
}
)";
}

volatile std::sig_atomic_t g_sigints = 0;  // SIGINTs the process's own handler got
extern "C" void count_sigint(int) { g_sigints = g_sigints + 1; }

}  // namespace

TEST_CASE("loader: Ctrl-C during a run stops the program's loop between two iterations",
          "[runtime][loader][interrupt]") {
  // user32 H19 (docs/adr/0038, session 34): the runtime hands the library its poll and watches
  // SIGINT while it runs; the run stops with CompileInterrupted (Python: KeyboardInterrupt) and
  // the signal then reaches the handler the process had (here a counter; Python's, the CLI's
  // default), once.
  auto dir = weir::test::scratch_dir("loader_interrupt");
  auto lib = build_library(dir, "looping", looping_library(2));
  struct sigaction counting {
  }, old{};
  counting.sa_handler = count_sigint;
  sigemptyset(&counting.sa_mask);
  REQUIRE(::sigaction(SIGINT, &counting, &old) == 0);
  g_sigints = 0;
  {
    auto p = load_compiled_program(lib);
    void* loaded = dlopen(lib.c_str(), RTLD_NOW | RTLD_NOLOAD);
    REQUIRE(loaded != nullptr);
    const int* iterations = static_cast<const int*>(dlsym(loaded, "iterations"));
    dlclose(loaded);
    REQUIRE(iterations != nullptr);
    Arguments args;
    args.values["N"] = std::int64_t{1000000};
    CHECK_THROWS_AS(p->run(args), CompileInterrupted);
    CHECK(g_sigints == 1);    // after the run stopped
    CHECK(*iterations == 3);  // 0, 1 and 2 ran whole (2 raised the signal); 3 never began
    try {
      p->run(args);
      FAIL("not interrupted");
    } catch (const CompileInterrupted& e) {
      CHECK(e.signal_number() == SIGINT);
      CHECK(std::string(e.what()) ==
            "program 'looping' interrupted (signal 2) between two iterations of a loop");
    }
    CHECK(g_sigints == 2);
    // A run the signal does not reach ends normally.
    args.values["N"] = std::int64_t{2};
    p->run(args);
  }
  ::sigaction(SIGINT, &old, nullptr);
  CHECK(g_sigints == 2);
}

TEST_CASE("backend: names are labels and the kind decides", "[runtime][backend]") {
  weir::test::fresh_cache("kinds");
  CHECK(make_backend("cpu")->name() == "cpu");
  CHECK(make_backend("embedded")->name() == "embedded");
  CompiledBackendConfig cfg;
  cfg.name_postfix = "_debug";
  CHECK(make_cpu_backend(cfg)->name() == "cpu_debug");
  CHECK(make_cpu_backend()->allocator().alignment() == 64);
  CHECK(make_cpu_backend()->allocator().device() == weir::DeviceType::CPU);
  CHECK_THROWS_WITH(make_backend("tpu"),
                    "unknown backend 'tpu'; did you mean 'cpu'? (known: cpu, embedded, gpu)");
  CHECK(make_backend("gpu")->name() == "gpu");

  auto program = weir::test::corpus_program("hdiff", "simplified");
  auto embedded = make_backend("embedded");
  CHECK_THROWS_AS(prepare(*embedded, program), BackendError);
  CHECK_THROWS_WITH(
      prepare(*embedded, program),
      Catch::Contains("the embedded backend runs field-view programs; an SDFG file needs a compiled "
                      "backend such as 'cpu'"));
  CHECK_THROWS_WITH(check_backend(*embedded, program), Catch::Contains("hdiff.simplified.sdfg"));
  CHECK_THROWS_WITH(compile(*embedded, program), Catch::Contains("compiles nothing"));

  OddBackend odd;
  CHECK_THROWS_WITH(prepare(odd, program),
                    Catch::StartsWith("backend 'odd' is a") && Catch::Contains("OddBackend") &&
                        Catch::Contains("CompiledBackend") && Catch::Contains("EmbeddedBackend"));

  // A compiled backend labelled "embedded" is still a compiled backend.
  int compiles = 0;
  CompiledBackend disguised("embedded", Allocator{}, [&](const CompilableProgram&) -> CompilationArtifact {
    ++compiles;
    throw CompileError("hdiff", "c++ x.cpp", 1, "x.cpp:1:1: error: simulated", "x.cpp");
  });
  CHECK_THROWS_AS(prepare(disguised, program), CompileError);
  CHECK(compiles == 1);
}

TEST_CASE("backend: custom compiler and loader members are used", "[runtime][backend]") {
  weir::test::fresh_cache("members");
  auto cpu = make_cpu_backend();
  int compiles = 0, loads = 0;
  CompiledBackend custom("custom", Allocator{}, [&, inner = cpu->compiler](const CompilableProgram& p) {
    ++compiles;
    return inner(p);
  });
  custom.loader = [&, inner = CompiledBackend::default_loader()](const CompilationArtifact& a) {
    ++loads;
    return inner(a);
  };
  auto args = weir::test::corpus_arguments("hdiff");
  run(custom, weir::test::corpus_program("hdiff", "simplified"), args);
  CHECK(compiles == 1);
  CHECK(loads == 1);
  CHECK(weir::test::check_expected("hdiff", args) == 1);
}

TEST_CASE("backend: a compiler error names the generated source and the first errors", "[runtime][backend]") {
  auto dir = weir::test::scratch_dir("backend-compile-error");
  auto src = dir / "broken.cpp";
  std::ofstream(src) << "// state 'main', node 3 (Tasklet 't')\nint f() { return undefined_name; }\n";
  CompilerSettings s;
  s.flags = {"-std=c++17", "-O0"};
  try {
    compile_shared_library(s, src, dir / "libbroken.so", "broken");
    FAIL("no CompileError");
  } catch (const CompileError& e) {
    std::string m = e.what();
    CHECK_THAT(m, Catch::StartsWith("compiling program 'broken' failed: c++ exited with code 1"));
    CHECK_THAT(m, Catch::Contains("generated source: " + src.string()));
    CHECK_THAT(m, Catch::Contains("undefined_name") && Catch::Contains("was not declared"));
    CHECK(e.exit_code() == 1);
    CHECK_THAT(e.command(),
               Catch::Contains("-shared") && Catch::Contains("-fPIC") && Catch::Contains("-fopenmp"));
  }
  CHECK_FALSE(fs::exists(dir / "libbroken.so"));

  s.compiler = "no-such-compiler-c++";
  CHECK_THROWS_WITH(compile_shared_library(s, src, dir / "x.so", "broken"),
                    Catch::Contains("cannot run 'no-such-compiler-c++'"));
  weir::test::fresh_cache("no-compiler");
  CompiledBackendConfig cfg;
  cfg.compiler = "no-such-compiler-c++";
  CHECK_THROWS_WITH(compile(*make_cpu_backend(cfg), weir::test::corpus_program("hdiff", "simplified")),
                    Catch::Contains("C++ compiler 'no-such-compiler-c++' not found in PATH"));
}

TEST_CASE("loader: ABI checks, arglist checks and runtime errors", "[runtime][loader]") {
  auto dir = weir::test::scratch_dir("loader");
  auto good = build_library(dir, "tiny", abi_library(weir::codegen::kAbiVersion));
  auto p = load_compiled_program(good);
  CHECK(p->name() == "tiny");
  REQUIRE(p->signature().params.size() == 1);
  CHECK(p->signature().params[0].kind == Parameter::Kind::Symbol);
  Arguments args;
  args.values["N"] = std::int64_t{4};
  p->run(args);
  args.values["N"] = std::int64_t{-1};
  CHECK_THROWS_AS(p->run(args), ProgramError);
  CHECK_THROWS_WITH(p->run(args), "program 'tiny' stopped with an error: N must not be negative");
  Arguments none;
  CHECK_THROWS_WITH(p->run(none), Catch::StartsWith("missing value of symbol 'N'"));

  // The SDFG's signature must match the library's argument list.
  Signature other{"tiny", {}};
  Parameter m;
  m.name = "M";
  m.kind = Parameter::Kind::Symbol;
  other.params.push_back(m);
  CHECK_THROWS_WITH(load_compiled_program(good, other),
                    Catch::Contains("it takes (N) but the SDFG 'tiny' takes (M)"));

  auto old = build_library(dir, "old", abi_library("weir-abi-0"));
  CHECK_THROWS_WITH(load_compiled_program(old), Catch::Contains(old.string()) &&
                                                    Catch::Contains("its ABI version is 'weir-abi-0'") &&
                                                    Catch::Contains("needs 'weir-abi-1'"));
  auto plain = build_library(dir, "plain", "extern \"C\" int f() { return 1; }\n");
  CHECK_THROWS_WITH(load_compiled_program(plain), Catch::Contains("exports no 'weir_abi_version'"));
  std::ofstream(dir / "junk.so") << "junk";
  CHECK_THROWS_AS(load_compiled_program(dir / "junk.so"), LoadError);
  CHECK_THROWS_WITH(load_compiled_program(dir / "missing.so"), Catch::Contains("missing.so: no such file"));
}

TEST_CASE("signature: weir_arglist() JSON that is malformed is reported as every JSON is",
          "[runtime][loader]") {
  // "FILE:LINE:COLUMN: invalid JSON: ...", the origin naming the program's weir_arglist().
  CHECK_THROWS_AS(Signature::from_arglist_json("p", "[{\"name\" \"a\"}]"), LoadError);
  CHECK_THROWS_WITH(
      Signature::from_arglist_json("p", "[{\"name\" \"a\"}]"),
      "weir_arglist() of 'p':1:12: invalid JSON: unexpected string literal in an object separator; "
      "expected ':'");
  // Valid JSON of the wrong shape: plain words, no library exception name.
  CHECK_THROWS_WITH(Signature::from_arglist_json("p", "[{\"kind\": \"array\"}]"),
                    "weir_arglist() of 'p': not a list of arguments (key 'name' not found)");
}

TEST_CASE("backend: field-view program references are not SDFG files", "[runtime][backend]") {
  CHECK(is_field_view_reference("stencils.py::laplace"));
  CHECK(is_field_view_reference("stencils.py"));
  CHECK_FALSE(is_field_view_reference("hdiff.sdfg"));
  CHECK_THROWS_AS(load_program_source("stencils.py::laplace"), BackendError);
  CHECK_THROWS_WITH(load_program_source("stencils.py::laplace"),
                    Catch::Contains("stencils.py::laplace") && Catch::Contains("not an SDFG file"));
  CHECK_THROWS_AS(load_program_source("missing.sdfg"), weir::SdfgLoadError);
  CHECK_THROWS_WITH(load_field_view_reference("examples/cartesian/laplacian.py"),
                    Catch::Contains("name the program to run as FILE.py::NAME"));
  CHECK_THROWS_WITH(
      load_field_view_reference("examples/cartesian/laplacian.py::nope"),
      Catch::Contains(
          "no @program, @field_operator, @scan_operator or orchestration function named 'nope'") &&
          Catch::Contains("(defined: lap, lap_lap, laplacian, bi_laplacian)"));
  CHECK(load_field_view_reference("examples/cartesian/laplacian.py::laplacian").name() == "laplacian");
}

TEST_CASE("allocator: aligned zeroed fields, devices and bad shapes", "[runtime][allocator]") {
  Field f = Allocator::cpu().allocate(weir::ScalarType::Float32, {3, 5});
  CHECK(reinterpret_cast<std::uintptr_t>(f.data()) % 64 == 0);
  CHECK(f.strides() == std::vector<std::int64_t>{5, 1});
  CHECK(f.nbytes() == 60);
  CHECK(f.describe() == "float32 (3, 5)");
  for (std::int64_t i = 0; i < f.size(); ++i) CHECK(f.value_as_double(i) == 0.0);
  Field g = f.clone();
  CHECK(g.data() != f.data());
  CHECK(g.checksum() == f.checksum());
  CHECK(Allocator(weir::DeviceType::CPU, 128).allocate(weir::ScalarType::Int8, {1}).alignment() == 128);
  CHECK_THROWS_AS(Allocator(weir::DeviceType::GPU), BackendError);
  CHECK_THROWS_AS(Allocator(weir::DeviceType::CPU, 48), BackendError);
  CHECK_THROWS_AS(Allocator::cpu().allocate(weir::ScalarType::Float64, {2, -1}), ArgumentError);
  CHECK_THROWS_AS(Allocator::cpu().allocate(weir::ScalarType::Float64, {1LL << 40, 1LL << 40}),
                  ArgumentError);
  CHECK(shape_str({}) == "()");
  CHECK(shape_str({4}) == "(4,)");
}

TEST_CASE("loader: unloading an OpenMP program keeps the OpenMP runtime loaded", "[runtime][loader]") {
  // libgomp's worker threads outlive the program; unmapping libgomp with it crashed weir at exit.
  weir::test::fresh_cache("openmp-pin");
  auto backend = make_cpu_backend();
  {
    auto program = prepare(*backend, weir::test::corpus_program("laplace2d", "auto_optimized_cpu"));
    auto args = weir::test::corpus_arguments("laplace2d");
    program->run(args);
    CHECK(weir::test::check_expected("laplace2d", args) == 2);
  }
  void* gomp = dlopen("libgomp.so.1", RTLD_NOW | RTLD_NOLOAD);
  CHECK(gomp != nullptr);
  if (gomp) dlclose(gomp);
}

TEST_CASE("backend: a full disk's message is shown, not counted among the hidden lines",
          "[runtime][backend]") {
  // What GCC and ld print when the disk fills while linking: the cause has no "error" in it.
  std::string out =
      "/usr/bin/ld: final link failed: No space left on device\n"
      "collect2: error: ld returned 1 exit status\n";
  CompileError e("prog", "c++ -shared x.cpp", 1, out, "x.cpp");
  std::string what = e.what();
  CHECK_THAT(what, Catch::Contains("\n  /usr/bin/ld: final link failed: No space left on device\n  collect2: "
                                   "error: ld returned 1 exit status"));
  CHECK_THAT(what, !Catch::Contains("more lines"));
}
