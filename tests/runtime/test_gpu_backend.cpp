// The GPU backend's compiler half: finding nvcc (CUDACXX, PATH, /usr/local/cuda/bin), compiling
// a CUDA translation unit into a shared library for the chosen architecture (tested for real
// where nvcc exists, skipped with a message elsewhere), what feeds the cache key, the device
// probe (dlopen of the CUDA driver) and the backend, which compiles generated CUDA with nvcc and
// refuses to load it without a device.
#include <dlfcn.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>

#include "corpus.h"
#include "runtime_test_util.h"
#include "weir/runtime/cuda_device.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/gpu_backend.h"
#include "weir/runtime/nvcc.h"
#include "weir/sdfg/serialize.h"

using namespace weir::runtime;
namespace fs = std::filesystem;

namespace {

/// Sets an environment variable for one scope (restored afterwards).
class ScopedEnv {
 public:
  ScopedEnv(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old, had_ = true;
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~ScopedEnv() {
    if (had_)
      ::setenv(name_.c_str(), old_.c_str(), 1);
    else
      ::unsetenv(name_.c_str());
  }

 private:
  std::string name_, old_;
  bool had_ = false;
};

/// nvcc as the backend would find it, or empty (with the reason printed) when there is none.
std::string nvcc_or_skip() {
  try {
    return find_nvcc().string();
  } catch (const RuntimeError& e) {
    WARN("skipped: " << e.what());
    return {};
  }
}

const char* kKernel =
    "#include <cstdio>\n"
    "__global__ void scale(double* x, double a, int n) {\n"
    "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
    "  if (i < n) x[i] *= a;\n"
    "}\n"
    "extern \"C\" int weir_test_launch(double* x, int n) { scale<<<(n + 63) / 64, 64>>>(x, 2.0, n); return "
    "0; }\n"
    "extern \"C\" int weir_test_host_add(int a, int b) { return a + b; }\n";

bool file_contains(const fs::path& p, const std::string& needle) {
  std::ifstream in(p, std::ios::binary);
  std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return bytes.find(needle) != std::string::npos;
}

}  // namespace

TEST_CASE("nvcc: CUDACXX wins and must name an executable, the toolkit's default place is the fallback",
          "[runtime][gpu]") {
  {
    ScopedEnv env("CUDACXX", "/nonexistent/bin/nvcc");
    CHECK_THROWS_WITH(find_nvcc(), "CUDACXX is '/nonexistent/bin/nvcc', which is not an executable");
  }
  if (!fs::exists("/usr/local/cuda/bin/nvcc")) {
    WARN("skipped the fallback check: no /usr/local/cuda/bin/nvcc on this machine");
    return;
  }
  ScopedEnv cxx("CUDACXX", nullptr);
  ScopedEnv path("PATH", "/usr/bin:/bin");
  CHECK(find_nvcc() == fs::path("/usr/local/cuda/bin/nvcc"));
}

TEST_CASE("nvcc: architectures are checked before anything runs", "[runtime][gpu]") {
  for (const char* ok : {"sm_90", "sm_90a", "sm_80", "compute_90"}) CHECK_NOTHROW(check_gpu_arch(ok));
  for (const char* bad : {"90", "sm_", "sm_9x", "compute_90a", "banana", ""})
    CHECK_THROWS_AS(check_gpu_arch(bad), BackendError);
  CHECK_THROWS_WITH(check_gpu_arch("banana"),
                    Catch::StartsWith("--gpu-arch 'banana': expected a CUDA architecture"));
  NvccSettings s;
  s.nvcc = "/opt/nvcc";
  CHECK(s.gpu_arch == "sm_90");
  auto cmd = s.command("k.cu", "k.so");
  CHECK(cmd == std::vector<std::string>{"/opt/nvcc", "-std=c++17", "-O3", "--expt-relaxed-constexpr",
                                        "--fmad=false", "-arch=sm_90", "-Xcompiler", "-fPIC", "-shared", "-o",
                                        "k.so", "-x", "cu", "k.cu"});
  CHECK_THROWS_AS(make_gpu_backend(GpuBackendConfig{NvccSettings{"", "sm_x", {}}, {}}), BackendError);
}

TEST_CASE("nvcc: compiles a CUDA translation unit into a loadable shared library", "[runtime][gpu][nvcc]") {
  std::string nvcc = nvcc_or_skip();
  if (nvcc.empty()) return;
  fs::path dir = weir::test::scratch_dir("gpu-nvcc");
  std::ofstream(dir / "k.cu") << kKernel;
  NvccSettings s;
  s.nvcc = nvcc;
  std::vector<std::string> seen;
  compile_cuda_library(s, dir / "k.cu", dir / "k.so", "k", [&](const std::vector<std::string>& argv) {
    seen = argv;
    return run_process(argv);
  });
  CHECK(std::find(seen.begin(), seen.end(), "-arch=sm_90") != seen.end());
  REQUIRE(fs::is_regular_file(dir / "k.so"));
  // The device code is for sm_90.
  CHECK(file_contains(dir / "k.so", "sm_90"));
  void* lib = dlopen((dir / "k.so").c_str(), RTLD_NOW | RTLD_LOCAL);
  INFO((lib ? "" : dlerror()));
  REQUIRE(lib);
  auto add = reinterpret_cast<int (*)(int, int)>(dlsym(lib, "weir_test_host_add"));
  REQUIRE(add);
  CHECK(add(2, 3) == 5);
  CHECK(dlsym(lib, "weir_test_launch") != nullptr);
  dlclose(lib);

  // A compile error names the source and shows nvcc's error.
  std::ofstream(dir / "bad.cu") << "__global__ void k(double* x) { x[0] = undefined_name; }\n";
  try {
    compile_cuda_library(s, dir / "bad.cu", dir / "bad.so", "bad");
    FAIL("nvcc accepted a broken translation unit");
  } catch (const CompileError& e) {
    CHECK(e.exit_code() != 0);
    CHECK_THAT(e.compiler_output(), Catch::Contains("undefined_name"));
    CHECK(e.source_path() == (dir / "bad.cu").string());
  }
}

TEST_CASE("nvcc: its version, the architecture and the flags feed the program cache key",
          "[runtime][gpu][nvcc]") {
  std::string nvcc = nvcc_or_skip();
  if (nvcc.empty()) return;
  NvccSettings s90;
  s90.nvcc = nvcc;
  NvccSettings s80 = s90;
  s80.gpu_arch = "sm_80";
  std::string id = nvcc_identity(s90);
  CHECK_THAT(id, Catch::Contains("Cuda compilation tools"));
  CHECK_THAT(id, Catch::Contains("arch sm_90"));
  CHECK(id != nvcc_identity(s80));
  std::string k = gpu_program_fingerprint("__global__ void f() {}", s90);
  CHECK(k.size() == 64);
  CHECK(k == gpu_program_fingerprint("__global__ void f() {}", s90));
  CHECK(k != gpu_program_fingerprint("__global__ void f() {}", s80));
  CHECK(k != gpu_program_fingerprint("__global__ void g() {}", s90));
  NvccSettings fast = s90;
  fast.flags.pop_back();  // without --fmad=false
  CHECK(k != gpu_program_fingerprint("__global__ void f() {}", fast));
}

TEST_CASE("cuda device probe: no driver library means no CUDA device, said clearly", "[runtime][gpu]") {
  {
    ScopedEnv env("WEIR_CUDA_DRIVER", "/nonexistent/libcuda.so.1");
    CudaDevices d = probe_cuda_devices();
    CHECK(d.count == 0);
    CHECK(!d.available());
    CHECK_THAT(d.reason, Catch::StartsWith("the CUDA driver library (libcuda.so.1) is not installed: ") &&
                             Catch::Contains("/nonexistent/libcuda.so.1"));
    CHECK_THROWS_WITH(require_cuda_device(), Catch::StartsWith("no CUDA device: the CUDA driver library"));
  }
  // This machine: whatever it has, the answer is consistent.
  CudaDevices here = probe_cuda_devices();
  CHECK(here.available() == here.reason.empty());
  if (!here.available()) WARN("this machine has no CUDA device: " << here.reason);
}

TEST_CASE("gpu backend: nvcc builds DaCe's GPU stage into the cache and without a device refuses to load it",
          "[runtime][gpu][nvcc]") {
  auto b = make_backend("gpu");
  CHECK(b->name() == "gpu");
  REQUIRE(dynamic_cast<const CompiledBackend*>(b.get()));
  CHECK(b->allocator().device() == weir::DeviceType::CPU);
  CHECK_THROWS_WITH(make_backend("tpu"),
                    "unknown backend 'tpu'; did you mean 'cpu'? (known: cpu, embedded, gpu)");
  if (nvcc_or_skip().empty()) return;
  fs::path dir = weir::test::shared_cache_dir("gpu-backend-hdiff");
  GpuBackendConfig config;
  config.cache_dir = dir;
  auto gpu = make_gpu_backend(config);
  auto program = weir::test::corpus_program("hdiff", "auto_optimized_gpu");
  CompilationArtifact a = compile(*gpu, program);
  REQUIRE(fs::is_regular_file(a.library));
  CHECK(file_contains(a.library, "sm_90"));
  CHECK(file_contains(a.source, "__global__ void"));
  CHECK(compile(*gpu, program).cache_hit);
  ScopedEnv env("WEIR_CUDA_DRIVER", "/nonexistent/libcuda.so.1");
  CHECK_THROWS_WITH(prepare(*gpu, program), Catch::StartsWith("no CUDA device: "));
}

TEST_CASE("gpu backend: an SDFG without GPU placement is placed on a copy and never in place",
          "[runtime][gpu]") {
  auto program = weir::test::corpus_program("laplace2d", "simplified");
  std::string before = weir::sdfg_to_json_text(*program.sdfg);
  std::shared_ptr<const weir::SDFG> placed;
  weir::codegen::GeneratedCode code = generate_gpu_program(program, &placed);
  CHECK(weir::sdfg_to_json_text(*program.sdfg) == before);
  REQUIRE(placed);
  CHECK(placed.get() != program.sdfg.get());
  CHECK_THAT(code.source, Catch::Contains("__global__ void") && Catch::Contains("WEIR_LAUNCH("));
  // Arguments stay in host memory (the backend's Fields); the program copies them in and out.
  for (const auto& [name, d] : program.sdfg->arrays)
    if (!d.transient && !d.is_scalar()) {
      CHECK(placed->data(name).storage == weir::StorageType::CPU_Heap);
      CHECK(placed->data("gpu_" + name).storage == weir::StorageType::GPU_Global);
    }
  // A placed SDFG is used as it is.
  auto gpu_stage = weir::test::corpus_program("laplace2d", "auto_optimized_gpu");
  generate_gpu_program(gpu_stage, &placed);
  CHECK(placed.get() == gpu_stage.sdfg.get());
}

TEST_CASE("gpu backend: a Reduce in host code reading device memory is refused, in a kernel expanded",
          "[runtime][gpu]") {
  // A placed SDFG (device arrays) whose Reduce is outside every GPU map: its expansion would
  // be host loops over device pointers, and the validator refuses it before the expansion runs.
  // Inside a GPU_Device map it is expanded (library-expansion) into the kernel.
  auto make = [](bool in_kernel) {
    auto s = std::make_shared<weir::SDFG>("reduce_on_device");
    s->add_symbol("N");
    for (const auto* name : {"A", "B"}) {
      auto& d = s->add_array(name, weir::ScalarType::Float64, {weir::sym::Expr::symbol("N")});
      d.storage = weir::StorageType::GPU_Global;
    }
    weir::SDFGState& st = s->add_state("main", true);
    auto lib = std::make_unique<weir::LibraryNode>("sum", "Reduce");
    lib->wcr = "lambda a, b: a + b";
    lib->identity = "0";
    weir::Node& r = st.add_node(std::move(lib));
    auto& a = st.add_access("A");
    auto& b = st.add_access("B");
    auto all = weir::Subset::parse("0:N");
    if (!in_kernel) {
      st.add_edge(a.id(), "", r.id(), "_in", weir::Memlet::simple("A", all));
      st.add_edge(r.id(), "_out", b.id(), "", weir::Memlet::simple("B", weir::Subset::parse("0")));
    } else {
      weir::MapEntry& k =
          st.add_map("kernel", {"__k"}, weir::Subset::parse("0:1"), weir::ScheduleType::GPU_Device);
      st.add_memlet_path({a.id(), k.id(), r.id()}, weir::Memlet::simple("A", all), "", "_in");
      st.add_memlet_path({r.id(), k.exit, b.id()}, weir::Memlet::simple("B", weir::Subset::parse("0")),
                         "_out", "");
    }
    r.in_connectors["_in"] = std::nullopt;
    r.out_connectors["_out"] = std::nullopt;
    return CompilableProgram{s, {}, "reduce_on_device"};
  };
  CHECK_THROWS_WITH(
      generate_gpu_program(make(false)),
      Catch::Contains("node 0 ('sum')") &&
          Catch::Contains("library node 'sum' (node 0) runs on the host but reads 'A', which is in GPU "
                          "memory (GPU_Global)"));
  auto code = generate_gpu_program(make(true));
  CHECK_THAT(code.source, Catch::Contains("__global__ void") && Catch::Contains("weir_nested_sum("));
}
