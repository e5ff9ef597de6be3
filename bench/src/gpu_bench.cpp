#include "gpu_bench.h"

#include <dlfcn.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>

#include "measure.h"
#include "weir/codegen/program_abi.h"
#include "weir/runtime/cuda_device.h"
#include "weir/runtime/gpu_backend.h"
#include "weir/runtime/nvcc.h"
#include "weir/sdfg/sdfg.h"
#include "weir/transforms/auto_optimize.h"
#include "weir_steps.h"

namespace weir::bench {

namespace {

using nlohmann::json;
using runtime::Arguments;
namespace fs = std::filesystem;

const std::vector<std::string> kGpuKernels = {"hdiff",           "laplacian", "heat3d",
                                              "vertical_solver", "nabla",     "cell_laplacian"};

// Hand-written CUDA compiled by the same nvcc as the programs: the STREAM-like probe (grid-stride
// copy and triad over 2 * #SMs * 4 blocks of 256 threads) and the device memory calls the
// benchmark needs (weir's runtime has no link-time dependency on CUDA; this library carries it).
const char* kProbeSource = R"CU(#include <cstdio>
#include <cuda_runtime.h>
__global__ void weir_probe_copy(const double* __restrict__ a, double* __restrict__ b, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    b[i] = a[i];
}
__global__ void weir_probe_triad(double* __restrict__ a, const double* __restrict__ b, const double* __restrict__ c,
                                 double s, long long n) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    a[i] = b[i] + s * c[i];
}
extern "C" int weir_gpu_malloc(void** p, size_t bytes) { return cudaMalloc(p, bytes > 0 ? bytes : 1); }
extern "C" int weir_gpu_free(void* p) { return cudaFree(p); }
extern "C" int weir_gpu_copy(void* dst, const void* src, size_t bytes) {
  return cudaMemcpy(dst, src, bytes, cudaMemcpyDefault);
}
extern "C" const char* weir_gpu_error(int e) { return cudaGetErrorString(static_cast<cudaError_t>(e)); }
extern "C" int weir_gpu_name(char* out, int n) {
  cudaDeviceProp p;
  int e = cudaGetDeviceProperties(&p, 0);
  if (e == 0) snprintf(out, n, "%s (%d SMs)", p.name, p.multiProcessorCount);
  return e;
}
// which: 0 copy b = a, 1 triad a = b + 3 c.
extern "C" int weir_gpu_probe(int which, double* a, double* b, double* c, long long n) {
  int dev = 0, sms = 1;
  cudaGetDevice(&dev);
  cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
  dim3 grid(sms * 8), block(256);
  if (which == 0)
    weir_probe_copy<<<grid, block>>>(a, b, n);
  else
    weir_probe_triad<<<grid, block>>>(a, b, c, 3.0, n);
  int e = cudaGetLastError();
  return e != 0 ? e : cudaDeviceSynchronize();
}
)CU";

template <class F>
F symbol(void* dl, const char* name, const std::string& where) {
  void* p = dlsym(dl, name);
  if (!p) throw std::runtime_error(where + " exports no '" + name + "'");
  return reinterpret_cast<F>(p);
}

/// The probe library: device memory and the probe kernels.
struct Cuda {
  std::shared_ptr<void> dl;
  int (*malloc_fn)(void**, std::size_t) = nullptr;
  int (*free_fn)(void*) = nullptr;
  int (*copy_fn)(void*, const void*, std::size_t) = nullptr;
  const char* (*error_fn)(int) = nullptr;
  int (*name_fn)(char*, int) = nullptr;
  int (*probe_fn)(int, double*, double*, double*, long long) = nullptr;

  void check(int e, const std::string& what) const {
    if (e != 0)
      throw std::runtime_error(what + ": CUDA error " + std::to_string(e) + " (" + error_fn(e) + ")");
  }
  void* alloc(std::size_t bytes) const {
    void* p = nullptr;
    check(malloc_fn(&p, bytes), "cudaMalloc of " + std::to_string(bytes) + " bytes");
    return p;
  }
};

/// Device memory freed with the object.
struct DeviceBuffer {
  const Cuda* cuda;
  void* ptr;
  DeviceBuffer(const Cuda& c, std::size_t bytes) : cuda(&c), ptr(c.alloc(bytes)) {}
  DeviceBuffer(DeviceBuffer&& o) noexcept : cuda(o.cuda), ptr(o.ptr) { o.ptr = nullptr; }
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(DeviceBuffer&&) = delete;
  ~DeviceBuffer() {
    if (ptr) cuda->free_fn(ptr);
  }
};

runtime::NvccSettings nvcc_settings() {
  runtime::NvccSettings s;
  if (const char* arch = std::getenv("WEIR_GPU_ARCH")) s.gpu_arch = arch;
  return s;
}

Cuda load_probe_library() {
  fs::path dir = fs::temp_directory_path() / ("weir-bench-gpu-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  fs::path src = dir / "probe.cu", lib = dir / "probe.so";
  std::ofstream(src) << kProbeSource;
  runtime::compile_cuda_library(nvcc_settings(), src, lib, "weir-bench gpu probe");
  void* h = dlopen(lib.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) throw std::runtime_error(std::string("cannot load the probe library: ") + dlerror());
  Cuda c;
  c.dl = std::shared_ptr<void>(h, [](void* p) { dlclose(p); });
  std::string where = lib.string();
  c.malloc_fn = symbol<decltype(c.malloc_fn)>(h, "weir_gpu_malloc", where);
  c.free_fn = symbol<decltype(c.free_fn)>(h, "weir_gpu_free", where);
  c.copy_fn = symbol<decltype(c.copy_fn)>(h, "weir_gpu_copy", where);
  c.error_fn = symbol<decltype(c.error_fn)>(h, "weir_gpu_error", where);
  c.name_fn = symbol<decltype(c.name_fn)>(h, "weir_gpu_name", where);
  c.probe_fn = symbol<decltype(c.probe_fn)>(h, "weir_gpu_probe", where);
  return c;
}

/// Copy and triad bandwidth (bytes moved / median time, GB/s) over `n` doubles per array.
json run_probe(const Cuda& cu, const Sizes& s) {
  std::size_t bytes = static_cast<std::size_t>(s.stream_n) * sizeof(double);
  DeviceBuffer a(cu, bytes), b(cu, bytes), c(cu, bytes);
  std::vector<double> init(static_cast<std::size_t>(s.stream_n), 1.0);
  for (void* p : {a.ptr, b.ptr, c.ptr}) cu.check(cu.copy_fn(p, init.data(), bytes), "probe input");
  json out;
  double best = 0;
  for (int which : {0, 1}) {
    auto* pa = static_cast<double*>(a.ptr);
    auto* pb = static_cast<double*>(b.ptr);
    auto* pc = static_cast<double*>(c.ptr);
    std::vector<double> times;
    for (int r = 0; r < s.warmup + s.repeats; ++r) {
      double t = now_seconds();
      cu.check(cu.probe_fn(which, pa, pb, pc, s.stream_n), "probe kernel");
      if (r >= s.warmup) times.push_back(now_seconds() - t);
    }
    Stats st = stats_of(times);
    double moved = (which == 0 ? 2.0 : 3.0) * static_cast<double>(bytes);
    double gbs = moved / st.median / 1e9;
    best = std::max(best, gbs);
    out[which == 0 ? "copy_GBps" : "triad_GBps"] = gbs;
  }
  out["best_GBps"] = best;
  out["doubles_per_array"] = s.stream_n;
  return out;
}

/// "examples/cartesian/hdiff.py::hdiff_program + auto-optimize-cpu" -> file and program.
std::pair<std::string, std::string> source_of(const Variant& v) {
  std::size_t sep = v.detail.find("::"), plus = v.detail.find(" + ");
  if (sep == std::string::npos) throw std::runtime_error("variant '" + v.name + "' has no field-view source");
  return {v.detail.substr(0, sep),
          v.detail.substr(sep + 2, plus == std::string::npos ? std::string::npos : plus - sep - 2)};
}

/// One GPU row: compile, check against the hand-written kernel, time on device-resident data.
json run_row(const Cuda& cu, const KernelCase& kc, const Paths& paths, const Sizes& s, double probe_gbs,
             bool& failed) {
  json row{{"kernel", kc.name}, {"size", kc.size}, {"min_bytes", kc.min_bytes}};
  const Variant* v = nullptr;
  for (const auto& x : kc.variants)
    if (x.name == "weir") v = &x;
  if (!v || !v->skip.empty()) {
    row["status"] = "skipped";
    row["reason"] = v ? v->skip : "no field-view variant";
    return row;
  }
  try {
    auto [rel, program] = source_of(*v);
    row["source"] = rel + "::" + program;
    const Layout& layout = kc.layouts.at(v->layout);
    double t0 = now_seconds();
    FieldViewModule m = load_field_view(paths.root + "/" + rel);
    std::shared_ptr<SDFG> sdfg = lower(m, program);
    transforms::auto_optimize(*sdfg, DeviceType::GPU);  // arguments in GPU_Global memory
    runtime::CompilableProgram p;
    p.sdfg = sdfg;
    p.origin = rel + "::" + program;
    runtime::GpuBackendConfig config;
    config.nvcc = nvcc_settings();
    runtime::CompilationArtifact art = runtime::make_gpu_backend(config)->compiler(p);
    row["compile_s"] = now_seconds() - t0;

    void* h = dlopen(fs::absolute(art.library).c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) throw std::runtime_error(std::string("cannot load ") + art.library.string() + ": " + dlerror());
    std::shared_ptr<void> dl(h, [](void* q) { dlclose(q); });
    std::string where = art.library.string();
    auto init = symbol<codegen::InitFn>(h, codegen::kSymInit, where);
    auto run = symbol<codegen::RunFn>(h, codegen::kSymRun, where);
    auto finalize = symbol<codegen::FinalizeFn>(h, codegen::kSymFinalize, where);
    auto last_error = symbol<codegen::LastErrorFn>(h, codegen::kSymLastError, where);

    Arguments args = layout.make();
    for (const auto& name : layout.optional)
      if (!art.signature.find(name)) {
        args.arrays.erase(name);
        args.values.erase(name);
      }
    runtime::BoundArguments bound = runtime::bind_arguments(art.signature, args);
    std::vector<void*> ptrs(bound.pointers(), bound.pointers() + bound.size());
    std::vector<DeviceBuffer> device;
    std::map<std::string, std::size_t> device_index;
    for (std::size_t i = 0; i < art.signature.params.size(); ++i) {
      const runtime::Parameter& prm = art.signature.params[i];
      if (prm.kind != runtime::Parameter::Kind::Array || !sdfg->arrays.count(prm.name) ||
          sdfg->arrays.at(prm.name).storage != StorageType::GPU_Global)
        continue;
      runtime::Field& f = args.arrays.at(prm.name);
      device.emplace_back(cu, f.nbytes());
      cu.check(cu.copy_fn(device.back().ptr, f.data(), f.nbytes()),
               "copying '" + prm.name + "' to the device");
      ptrs[i] = device.back().ptr;
      device_index[prm.name] = device.size() - 1;
    }
    void* handle = init(ptrs.data());
    if (!handle) throw std::runtime_error(std::string("weir_init failed: ") + last_error());
    std::unique_ptr<void, decltype(finalize)> owner(handle, finalize);
    auto call = [&] {
      if (run(handle, ptrs.data()) != 0)
        throw std::runtime_error(std::string("weir_run failed: ") + last_error());
    };

    // Outputs of one call against the hand-written kernel on the same inputs.
    call();
    for (const auto& name : layout.outputs) {
      runtime::Field& f = args.arrays.at(name);
      cu.check(cu.copy_fn(f.data(), device.at(device_index.at(name)).ptr, f.nbytes()),
               "copying '" + name + "' back");
    }
    Arguments ref = layout.make();
    layout.reference(ref);
    double err = max_rel_error(args, ref, layout.outputs);
    row["max_rel_error"] = err;

    std::vector<double> times;
    for (int r = 0; r < s.warmup + s.repeats; ++r) {
      double t = now_seconds();
      call();  // weir_run waits for its stream at the end of every device state
      if (r >= s.warmup) times.push_back(now_seconds() - t);
    }
    Stats st = stats_of(times);
    double gbs = kc.min_bytes / st.median / 1e9;
    row["median_s"] = st.median;
    row["min_s"] = st.min;
    row["max_s"] = st.max;
    row["effective_GBps"] = gbs;
    row["fraction_of_probe"] = probe_gbs > 0 ? gbs / probe_gbs : 0.0;
    if (!(err <= kOutputTolerance)) {
      row["status"] = "mismatch";
      failed = true;
    } else {
      row["status"] = "ok";
    }
  } catch (const std::exception& e) {
    row["status"] = "failed";
    row["reason"] = e.what();
    failed = true;
  }
  return row;
}

}  // namespace

Sizes gpu_sizes(const Sizes& base) {
  if (base.preset == "tiny") return base;
  Sizes s = base;
  s.ni = 512, s.nj = 512, s.nk = 80;
  s.mesh_nx = 256, s.mesh_ny = 256, s.mesh_nk = 80;
  s.stream_n = std::int64_t(1) << 26;
  return s;
}

json run_gpu_benchmarks(const Sizes& base, const Paths& paths, const std::vector<std::string>& only,
                        bool& failed) {
  Sizes s = gpu_sizes(base);
  std::vector<std::string> names;
  for (const auto& k : kGpuKernels)
    if (only.empty() || std::find(only.begin(), only.end(), k) != only.end()) names.push_back(k);
  json out{{"kernels", json::array()}};
  std::printf("\nGPU rows (auto_optimize(GPU), gpu backend, data on the device):\n");
  runtime::CudaDevices devices = runtime::probe_cuda_devices();
  if (!devices.available()) {
    out["device"] = nullptr;
    out["reason"] = devices.reason;
    for (const auto& k : names) {
      std::printf("  %-16s not run: no GPU (%s)\n", k.c_str(), devices.reason.c_str());
      out["kernels"].push_back({{"kernel", k}, {"status", "not run: no GPU"}});
    }
    return out;
  }
  Cuda cu;
  try {
    cu = load_probe_library();
  } catch (const std::exception& e) {
    std::printf("  failed: %s\n", e.what());
    out["error"] = e.what();
    failed = true;
    return out;
  }
  char name[256] = {};
  cu.check(cu.name_fn(name, sizeof name), "cudaGetDeviceProperties");
  out["device"] = name;
  json probe = run_probe(cu, s);
  out["probe"] = probe;
  double probe_gbs = probe["best_GBps"].get<double>();
  std::printf("  device %s; probe copy %.0f GB/s, triad %.0f GB/s\n", name, probe["copy_GBps"].get<double>(),
              probe["triad_GBps"].get<double>());
  std::printf("  %-16s %-22s %12s %10s %8s %10s  %s\n", "kernel", "size", "median ms", "GB/s", "% probe",
              "rel.error", "status");
  std::vector<KernelCase> cases = cartesian_cases(s, paths);
  for (auto& kc : unstructured_cases(s, paths)) cases.push_back(std::move(kc));
  for (const auto& k : names)
    for (const auto& kc : cases) {
      if (kc.name != k) continue;
      json row = run_row(cu, kc, paths, s, probe_gbs, failed);
      std::string status = row["status"].get<std::string>();
      if (row.contains("median_s"))
        std::printf("  %-16s %-22s %12.4f %10.0f %7.0f%% %10.1e  %s\n", k.c_str(), kc.size.c_str(),
                    row["median_s"].get<double>() * 1e3, row["effective_GBps"].get<double>(),
                    100.0 * row["fraction_of_probe"].get<double>(), row["max_rel_error"].get<double>(),
                    status.c_str());
      else
        std::printf("  %-16s %-22s %s: %s\n", k.c_str(), kc.size.c_str(), status.c_str(),
                    row.value("reason", std::string()).substr(0, 300).c_str());
      std::fflush(stdout);
      out["kernels"].push_back(row);
    }
  return out;
}

}  // namespace weir::bench
