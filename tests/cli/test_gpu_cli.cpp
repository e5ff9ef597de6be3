// The GPU path of the command line: `weir optimize --auto gpu` writes a valid GPU SDFG (GPU_Device
// kernels, device storage, block sizes); `--backend gpu` exists in `weir run` and `weir compile`
// and, until the CUDA code generator lands, fails with exit code 1 and a clear message ("no CUDA
// device" where there is none); --gpu-arch is checked (exit code 2 for a malformed one).
#include <catch2/catch.hpp>
#include <filesystem>

#include "cli_run.h"
#include "corpus.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"

namespace fs = std::filesystem;
using weir::test::run_weir;

namespace {

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
fs::path corpus_sdfg(const std::string& k, const std::string& stage) {
  return weir::test::dace_corpus_dir() / k / (k + "." + stage + ".sdfg");
}
// No CUDA driver, whatever the machine has: the answer is deterministic.
const std::string kNoDriver = "WEIR_CUDA_DRIVER=/nonexistent/libcuda.so.1";

}  // namespace

TEST_CASE("weir optimize --auto gpu writes a valid SDFG with kernels on the device", "[cli][gpu]") {
  fs::path dir = weir::test::scratch_dir("cli-gpu-optimize");
  auto r =
      run_weir("optimize " + q(corpus_sdfg("hdiff", "simplified")) + " --auto gpu -o " + q(dir / "h.sdfg"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("wrote"));
  auto sdfg = weir::load_sdfg((dir / "h.sdfg").string());
  CHECK(weir::validate(*sdfg).empty());
  int kernels = 0;
  for (weir::SDFGState* st : sdfg->all_states())
    for (weir::Node* n : st->nodes())
      if (auto* me = n->as<weir::MapEntry>(); me && me->map->schedule == weir::ScheduleType::GPU_Device) {
        ++kernels;
        CHECK(me->map->gpu_block_size == std::vector<std::string>{"32", "8", "1"});
      }
  CHECK(kernels == 1);
  CHECK(sdfg->data("in_field").storage == weir::StorageType::GPU_Global);
  // It runs on the cpu backend (kernels as host loops) and gives DaCe's result.
  fs::path out = dir / "out";
  auto run = run_weir("run --backend cpu " + q(dir / "h.sdfg") + " --in-dir " +
                          q(weir::test::dace_corpus_dir() / "hdiff" / "inputs") + " --set-json " +
                          q(weir::test::dace_corpus_dir() / "hdiff" / "symbols.json") + " --out " + q(out),
                      "WEIR_CACHE_DIR=" + q(dir / "cache"));
  INFO(run.out);
  CHECK(run.code == 0);
  CHECK_THAT(run.out, Catch::Contains("optimized for a GPU"));
  // The pipeline with the GPU passes' options as text.
  r = run_weir(
      "optimize " + q(corpus_sdfg("hdiff", "simplified")) +
      " --passes 'simplify,gpu-transform{host_arguments=true},gpu-schedules{block_size=16,16,1}' -o " +
      q(dir / "p.sdfg"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  auto p = weir::load_sdfg((dir / "p.sdfg").string());
  CHECK(p->data("in_field").storage == weir::StorageType::CPU_Heap);
  CHECK(p->data("gpu_in_field").storage == weir::StorageType::GPU_Global);
}

TEST_CASE("weir run --backend gpu without a CUDA device: exit 1, 'no CUDA device', nothing written",
          "[cli][gpu]") {
  fs::path dir = weir::test::scratch_dir("cli-gpu-run");
  auto in = weir::test::dace_corpus_dir() / "hdiff" / "inputs";
  auto r = run_weir("run --backend gpu " + q(corpus_sdfg("hdiff", "auto_optimized_gpu")) + " --in-dir " +
                        q(in) + " --out " + q(dir / "out"),
                    kNoDriver + " WEIR_CACHE_DIR=" + q(dir / "cache"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::StartsWith(
                 "weir: error: no CUDA device: the CUDA driver library (libcuda.so.1) is not installed"));
  CHECK(!fs::exists(dir / "out"));
  // A field-view program too.
  r = run_weir("run --backend gpu " + q(fs::path(WEIR_SOURCE_DIR) / "examples/cartesian/laplacian.py") +
                   "::laplacian --random-inputs --set I=8 --set J=8 --set K=2",
               kNoDriver);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("no CUDA device"));
}

TEST_CASE("weir compile --backend gpu: nvcc builds the program for --gpu-arch, which is checked",
          "[cli][gpu][nvcc]") {
  fs::path dir = weir::test::scratch_dir("cli-gpu-compile");
  std::string cache = "WEIR_CACHE_DIR=" + q(dir / "cache");
  auto r = run_weir("compile --backend gpu --gpu-arch sm_80 " +
                        q(corpus_sdfg("hdiff", "auto_optimized_gpu")) + " --emit-cpp " + q(dir / "src"),
                    cache);
  if (r.out.find("nvcc not found") == std::string::npos) {
    CHECK(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("ok ") && Catch::Contains("compiled"));
    // --emit-cpp writes the CUDA source nvcc compiled (NAME.cu), not the CPU generator's C++.
    INFO(r.out);
    REQUIRE(fs::is_regular_file(dir / "src" / "hdiff.auto_optimized_gpu.cu"));
    std::string cu = weir::test::read_text(dir / "src" / "hdiff.auto_optimized_gpu.cu");
    CHECK_THAT(cu, Catch::Contains("CUDA code generator") && Catch::Contains("__global__ void") &&
                       Catch::Contains("WEIR_LAUNCH("));
    CHECK(!fs::exists(dir / "src" / "hdiff.auto_optimized_gpu.cpp"));
    // The cache entry's manifest names the architecture.
    bool sm80 = false;
    for (const auto& e : fs::recursive_directory_iterator(dir / "cache"))
      if (e.path().filename() == "manifest.json")
        sm80 = sm80 || weir::test::read_text(e.path()).find("sm_80") != std::string::npos;
    CHECK(sm80);
  }
  r = run_weir("compile --backend gpu --gpu-arch banana " + q(corpus_sdfg("hdiff", "simplified")), cache);
  CHECK(r.code == 2);
  CHECK_THAT(r.out, Catch::Contains("--gpu-arch 'banana': expected a CUDA architecture such as sm_90"));
  r = run_weir("compile --backend cpu --gpu-arch sm_90 " + q(corpus_sdfg("hdiff", "simplified")), cache);
  CHECK(r.code == 2);
  CHECK_THAT(r.out, Catch::Contains("--gpu-arch applies to --backend gpu only"));
  r = run_weir("run --backend embedded --gpu-arch sm_90 " + q(corpus_sdfg("hdiff", "simplified")), cache);
  CHECK(r.code == 2);
  CHECK_THAT(r.out, Catch::Contains("--gpu-arch applies to --backend gpu only"));
}
