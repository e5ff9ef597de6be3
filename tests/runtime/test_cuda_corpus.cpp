// The CUDA generator on ../shared/corpus/dace: every SDFG that loads compiles with nvcc (all in
// one run), and the corpus kernels in all four stages, run through the host-emulation harness
// (the generated CUDA compiled as host C++, kernels block by block and thread by thread), match
// DaCe's expected outputs with rtol 1e-12 as the cpu backend does (test_corpus_run.cpp); so do
// the kernels after weir's auto_optimize for the GPU, whose arguments live in device memory
// (weir_run_host copies them). Also: kernels with dynamic range inputs.
#include <dlfcn.h>

#include <catch2/catch.hpp>

#include "cuda_emulation.h"
#include "nvcc_batch.h"
#include "runtime_test_util.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/gpu_backend.h"
#include "weir/sdfg/nodes.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"
#include "weir/transforms/auto_optimize.h"

using namespace weir::runtime;
namespace fs = std::filesystem;

namespace {

void run_emulated(const std::string& kernel, const std::string& stage) {
  auto program = weir::test::corpus_program(kernel, stage);
  auto args = weir::test::corpus_arguments(kernel);
  run(*weir::test::make_cuda_emulation_backend(), program, args);
  CHECK(weir::test::check_expected(kernel, args) >= 1);
}

// The stage after weir's own auto_optimize for the GPU, whose array arguments are GPU_Global
// (DaCe's use_gpu_storage; DaCe's own GPU stages keep CPU_Heap arguments and copy inside).
CompilableProgram device_argument_program(const std::string& kernel) {
  auto program = weir::test::corpus_program(kernel, "simplified");
  std::shared_ptr<weir::SDFG> g = program.sdfg->clone_sdfg();
  weir::transforms::auto_optimize(*g, weir::DeviceType::GPU);
  int device_arrays = 0;
  for (const auto& name : g->arglist())
    if (auto it = g->arrays.find(name); it != g->arrays.end() && !it->second.is_scalar()) {
      CHECK(it->second.storage == weir::StorageType::GPU_Global);
      ++device_arrays;
    }
  CHECK(device_arrays >= 2);
  program.sdfg = g;
  return program;
}

}  // namespace

#define EMULATED_CASE(kernel, stage)                                                                     \
  TEST_CASE("cuda emulation: corpus " kernel " " stage " matches expected/", "[runtime][corpus][gpu]") { \
    run_emulated(kernel, stage);                                                                         \
  }

EMULATED_CASE("laplace2d", "frontend")
EMULATED_CASE("laplace2d", "simplified")
EMULATED_CASE("laplace2d", "auto_optimized_cpu")
EMULATED_CASE("laplace2d", "auto_optimized_gpu")
EMULATED_CASE("jacobi_2d", "frontend")
EMULATED_CASE("jacobi_2d", "simplified")
EMULATED_CASE("jacobi_2d", "auto_optimized_cpu")
EMULATED_CASE("jacobi_2d", "auto_optimized_gpu")
EMULATED_CASE("hdiff", "frontend")
EMULATED_CASE("hdiff", "simplified")
EMULATED_CASE("hdiff", "auto_optimized_cpu")
EMULATED_CASE("hdiff", "auto_optimized_gpu")

// Arguments in device memory: the runtime calls weir_run_host, which copies the host arrays to
// device buffers (cudaMalloc: recorded by the emulation as device memory) and the written ones
// back; the values are DaCe's.
TEST_CASE("cuda emulation: GPU_Global arguments are copied to the device and back, values match expected/",
          "[runtime][corpus][gpu]") {
  for (const char* kernel : {"laplace2d", "jacobi_2d", "hdiff"}) {
    INFO(kernel);
    auto program = device_argument_program(kernel);
    auto args = weir::test::corpus_arguments(kernel);
    run(*weir::test::make_cuda_emulation_backend(), program, args);
    CHECK(weir::test::check_expected(kernel, args) >= 1);
  }
}

// weir_run itself takes device pointers: host arrays given there are refused with the argument's
// name before any kernel runs (on a GPU the kernels would fault with an address only).
TEST_CASE("cuda emulation: weir_run refuses a host pointer for a GPU_Global argument, naming it",
          "[runtime][corpus][gpu]") {
  auto program = device_argument_program("laplace2d");
  CompilationArtifact a = compile(*weir::test::make_cuda_emulation_backend(), program);
  void* dl = dlopen(fs::absolute(a.library).c_str(), RTLD_NOW | RTLD_LOCAL);
  REQUIRE(dl != nullptr);
  auto init = reinterpret_cast<weir::codegen::InitFn>(dlsym(dl, weir::codegen::kSymInit));
  auto run_fn = reinterpret_cast<weir::codegen::RunFn>(dlsym(dl, weir::codegen::kSymRun));
  auto finalize = reinterpret_cast<weir::codegen::FinalizeFn>(dlsym(dl, weir::codegen::kSymFinalize));
  auto last_error = reinterpret_cast<weir::codegen::LastErrorFn>(dlsym(dl, weir::codegen::kSymLastError));
  REQUIRE((init && run_fn && finalize && last_error));
  CHECK(dlsym(dl, weir::codegen::kSymRunHost) != nullptr);
  // laplace2d(A, B, TSTEPS) with N symbolic: host buffers of the right size.
  std::vector<std::string> arglist = program.sdfg->arglist();
  std::vector<double> a_host(64 * 64, 1.0), b_host(64 * 64, 0.0);
  std::int64_t n = 64, tsteps = 2;
  std::vector<void*> ptrs;
  for (const auto& name : arglist) {
    if (name == "A")
      ptrs.push_back(a_host.data());
    else if (name == "B")
      ptrs.push_back(b_host.data());
    else if (name == "TSTEPS")
      ptrs.push_back(&tsteps);
    else
      ptrs.push_back(&n);
  }
  void* h = init(ptrs.data());
  REQUIRE(h != nullptr);
  CHECK(run_fn(h, ptrs.data()) != 0);
  std::string text = last_error();
  CHECK_THAT(text, Catch::Contains(
                       "argument 'A' is GPU_Global (device memory) but the pointer given is host memory"));
  CHECK(b_host[65] == 0.0);  // nothing ran
  CHECK(finalize(h) == 0);
  dlclose(dl);
}

TEST_CASE("cuda: every DaCe corpus SDFG's CUDA program compiles with nvcc", "[runtime][corpus][gpu][nvcc]") {
  try {
    find_nvcc();
  } catch (const RuntimeError& e) {
    WARN("skipped: " << e.what());
    return;
  }
  std::vector<std::pair<std::string, std::string>> programs;
  for (const fs::path& f : weir::test::dace_corpus_files()) {
    INFO(f.string());
    weir::codegen::GeneratedCode code;
    try {
      code = generate_gpu_program(load_program_source(f.string()));
    } catch (const weir::Error&) {
      // doc-samples/reference.sdfg does not validate (a Reference container, ADR 0020); nothing
      // else may fail.
      CHECK(f.filename() == "reference.sdfg");
      continue;
    }
    // scalarsym.sdfg computes host scalars only: host code, no kernel.
    if (f.filename() != "scalarsym.sdfg") CHECK_THAT(code.source, Catch::Contains("__global__ void"));
    programs.emplace_back(f.filename().string(), code.source);
  }
  CHECK(programs.size() >= 16);
  fs::path dir = weir::test::scratch_dir("corpus-nvcc");
  CHECK_NOTHROW(weir::test::nvcc_compile_together(programs, dir));
  CHECK(fs::is_regular_file(dir / "all.so"));
}

namespace {

// B[i] = 2 A[i] for i < n (a host scalar argument), through a dynamic range input `m` of the map.
CompilableProgram dynamic_range_program() {
  using E = weir::sym::Expr;
  auto s = std::make_shared<weir::SDFG>("dynamic_range");
  s->add_symbol("N");
  s->add_array("A", weir::ScalarType::Float64, {E::symbol("N")});
  s->add_array("B", weir::ScalarType::Float64, {E::symbol("N")});
  s->add_scalar("n", weir::ScalarType::Int64);
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& n = st.add_access("n");
  auto& m = st.add_map("first_n", {"i"}, weir::Subset::parse("0:m"));
  m.in_connectors["m"] = std::nullopt;
  st.add_edge(n.id(), "", m.id(), "m", weir::Memlet::simple("n", weir::Subset::parse("0")));
  auto& t = st.add_tasklet("twice", {"o = 2 * x", weir::Language::Python}, {"x"}, {"o"});
  auto in = st.add_memlet_path({a.id(), m.id(), t.id()}, weir::Memlet::simple("A", weir::Subset::parse("i")),
                               "", "x");
  auto out = st.add_memlet_path({t.id(), m.exit, b.id()}, weir::Memlet::simple("B", weir::Subset::parse("i")),
                                "o", "");
  // The outer memlets cover what the map may touch.
  st.edge(in.front()).memlet = weir::Memlet::simple("A", weir::Subset::parse("0:N"));
  st.edge(out.back()).memlet = weir::Memlet::simple("B", weir::Subset::parse("0:N"));
  st.edge(out.back()).memlet.dynamic = true;
  CompilableProgram program;
  program.sdfg = s;
  return program;
}

}  // namespace

// A kernel whose range reads a host scalar through a dynamic range input: the host reads it
// before computing the grid and passes it by value; the rest of B stays as it was. The cpu
// backend gives the same.
TEST_CASE("cuda emulation: a kernel with a dynamic range input from a host scalar", "[runtime][gpu]") {
  CompilableProgram program = dynamic_range_program();
  for (const char* backend : {"cuda-emulation", "cpu"}) {
    INFO(backend);
    Arguments args;
    Field A = Allocator::cpu().allocate(weir::ScalarType::Float64, {10});
    Field B = Allocator::cpu().allocate(weir::ScalarType::Float64, {10});
    for (int i = 0; i < 10; ++i) {
      static_cast<double*>(A.data())[i] = i + 1;
      static_cast<double*>(B.data())[i] = -1;
    }
    args.arrays.emplace("A", std::move(A));
    args.arrays.emplace("B", std::move(B));
    args.values["n"] = std::int64_t{6};
    if (std::string(backend) == "cpu")
      run(*make_cpu_backend(), program, args);
    else
      run(*weir::test::make_cuda_emulation_backend(), program, args);
    const double* r = static_cast<const double*>(args.arrays.at("B").data());
    std::vector<double> got(r, r + 10);
    CHECK(got == std::vector<double>{2, 4, 6, 8, 10, 12, -1, -1, -1, -1});
  }
}

// What this file's emulation tests add to the generator, compiled by nvcc in one run: device
// arguments (weir_run_host, pointer checks), a dynamic range input, and library nodes (MatMul,
// Reduce) in one-point kernels after --auto gpu.
TEST_CASE("cuda: device arguments, dynamic ranges and library nodes in kernels compile with nvcc",
          "[runtime][gpu][nvcc]") {
  try {
    find_nvcc();
  } catch (const RuntimeError& e) {
    WARN("skipped: " << e.what());
    return;
  }
  std::vector<std::pair<std::string, std::string>> programs;
  for (const char* kernel : {"laplace2d", "hdiff"}) {
    auto code = generate_gpu_program(device_argument_program(kernel));
    CHECK_THAT(code.source, Catch::Contains("weir_run_host") && Catch::Contains("weir_cuda_require_device("));
    programs.emplace_back(std::string(kernel) + "-device-arguments", code.source);
  }
  programs.emplace_back("dynamic_range", generate_gpu_program(dynamic_range_program()).source);
  fs::path npbench = weir::test::dace_corpus_dir().parent_path() / "npbench";
  for (const char* kernel : {"atax", "azimint_hist"}) {
    auto program =
        load_program_source((npbench / kernel / (std::string(kernel) + ".simplified.sdfg")).string());
    std::shared_ptr<weir::SDFG> g = program.sdfg->clone_sdfg();
    weir::transforms::auto_optimize(*g, weir::DeviceType::GPU);
    program.sdfg = g;
    programs.emplace_back(std::string(kernel) + "-auto-gpu", generate_gpu_program(program).source);
  }
  fs::path dir = weir::test::scratch_dir("device-arguments-nvcc");
  CHECK_NOTHROW(weir::test::nvcc_compile_together(programs, dir));
  CHECK(fs::is_regular_file(dir / "all.so"));
}
