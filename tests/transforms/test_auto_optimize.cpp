// auto_optimize for the CPU: the pipeline is a printable list of registered passes; on DaCe's
// hdiff (simplified) and on the frontend's hdiff it leaves no transient array that grows with
// the domain and the compiled program still matches DaCe's expected outputs (rtol 1e-12).
#include <catch2/catch.hpp>

#include <cstring>

#include "../runtime/runtime_test_util.h"
#include "corpus.h"
#include "support/builders.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/type_checker.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/transforms/auto_optimize.h"
#include "weir/transforms/cpu_schedules.h"
#include "weir/transforms/registry.h"

using namespace weir;
using namespace weir::transforms;

namespace {

/// Transient arrays whose size depends on a symbol (grows with the domain).
std::vector<std::string> domain_sized_transients(const SDFG& sdfg) {
  std::vector<std::string> out;
  for (const auto& [name, d] : sdfg.arrays)
    if (d.transient && !d.total_size.free_symbols().empty()) out.push_back(name);
  return out;
}

std::size_t count_maps(const SDFG& sdfg) {
  std::size_t n = 0;
  for (SDFGState* st : sdfg.all_states())
    for (Node* x : st->nodes()) n += x->as<MapEntry>() != nullptr;
  return n;
}

runtime::CompilableProgram program_of(const SDFG& sdfg) {
  runtime::CompilableProgram p;
  p.sdfg = sdfg.clone_sdfg();
  p.origin = sdfg.name;
  return p;
}

}  // namespace

TEST_CASE("auto_optimize: the CPU pipeline is a list of registered passes", "[transforms][auto-optimize]") {
  auto names = auto_optimize_pass_names(DeviceType::CPU);
  REQUIRE(names.front() == "inline-sdfgs");
  CHECK(names[1] == "simplify");
  CHECK(std::find(names.begin(), names.end(), "greedy-map-fusion") != names.end());
  CHECK(names.back() == "cpu-schedules");
  for (const auto& n : names) CHECK(make_pass(n) != nullptr);
  auto p = make_pass("auto-optimize-cpu");
  REQUIRE(p);
  auto* pipe = dynamic_cast<Pipeline*>(p.get());
  REQUIRE(pipe);
  CHECK(pipe->passes().size() == names.size());
  std::string text = pipe->str_passes();
  CHECK(text.find("greedy-map-fusion") != std::string::npos);
  // The printed list parses back into the same passes.
  CHECK(parse_pipeline(text)->str_passes() == text);
  // The GPU has its own pipeline now (test_gpu_transform.cpp).
  CHECK(auto_optimize_pass_names(DeviceType::GPU).back() == "gpu-schedules");
}

TEST_CASE("auto_optimize: DaCe's simplified hdiff keeps no domain-sized transient and matches",
          "[transforms][auto-optimize]") {
  auto sdfg = load_sdfg((test::dace_corpus_dir() / "hdiff" / "hdiff.simplified.sdfg").string());
  REQUIRE(domain_sized_transients(*sdfg).size() == 19);
  REQUIRE(count_maps(*sdfg) == 20);
  auto before = sdfg->clone_sdfg();
  auto_optimize(*sdfg, DeviceType::CPU);
  test::require_valid(*sdfg);
  CHECK(domain_sized_transients(*sdfg).empty());
  // One parallel map over I, J with a vectorized K loop inside.
  std::vector<MapEntry*> maps;
  for (Node* x : sdfg->all_states()[0]->nodes())
    if (auto* e = x->as<MapEntry>()) maps.push_back(e);
  REQUIRE(maps.size() == 2);
  CHECK(maps[0]->map->schedule == ScheduleType::CPU_Multicore);
  CHECK(maps[0]->map->params.size() == 2);
  CHECK(maps[1]->map->schedule == ScheduleType::Sequential);
  CHECK(maps[1]->map->extra.find(kVectorizeAttribute) != nullptr);

  weir::test::fresh_cache("auto-optimize-hdiff");
  auto backend = runtime::make_cpu_backend();
  for (const SDFG* s : {before.get(), sdfg.get()}) {
    auto args = weir::test::corpus_arguments("hdiff");
    runtime::run(*backend, program_of(*s), args);
    CHECK(weir::test::check_expected("hdiff", args) == 1);
  }
}

TEST_CASE("auto_optimize: the frontend's hdiff keeps no domain-sized transient and matches DaCe",
          "[transforms][auto-optimize]") {
  using namespace weir::frontend;
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m =
      loader.load_file((std::filesystem::path(WEIR_SOURCE_DIR) / "examples/cartesian/hdiff.py").string());
  TypeChecker tc;
  std::unique_ptr<SDFG> sdfg;
  for (const auto& d : m.definitions)
    if (d->name == "hdiff_program") sdfg = lower_to_sdfg(tc.check(*d));
  REQUIRE(sdfg);
  auto_optimize(*sdfg, DeviceType::CPU);
  test::require_valid(*sdfg);
  CHECK(domain_sized_transients(*sdfg).empty());

  // DaCe's inputs: u = in_field (I+4, J+4, K); coeff and out cover the same domain, with
  // DaCe's I x J x K coeff in the interior [2:-2, 2:-2].
  auto dace = weir::test::corpus_arguments("hdiff");
  const runtime::Field& in = dace.arrays.at("in_field");
  const runtime::Field& coeff = dace.arrays.at("coeff");
  auto sh = in.shape();
  std::int64_t I = sh[0] - 4, J = sh[1] - 4, K = sh[2];
  runtime::Arguments args;
  args.arrays.emplace("u", runtime::Allocator::cpu().allocate(ScalarType::Float64, sh));
  args.arrays.emplace("coeff", runtime::Allocator::cpu().allocate(ScalarType::Float64, sh));
  args.arrays.emplace("out", runtime::Allocator::cpu().allocate(ScalarType::Float64, sh));
  std::memcpy(args.arrays.at("u").data(), in.data(), sizeof(double) * static_cast<std::size_t>(in.size()));
  auto* c = static_cast<double*>(args.arrays.at("coeff").data());
  for (std::int64_t i = 0; i < I; ++i)
    for (std::int64_t j = 0; j < J; ++j)
      for (std::int64_t k = 0; k < K; ++k)
        c[((i + 2) * (J + 4) + j + 2) * K + k] = coeff.value_as_double((i * J + j) * K + k);
  weir::test::fresh_cache("auto-optimize-hdiff-frontend");
  auto backend = runtime::make_cpu_backend();
  runtime::run(*backend, program_of(*sdfg), args);
  auto want = runtime::read_npy(weir::test::dace_corpus_dir() / "hdiff" / "expected" / "out_field.npy");
  const auto* o = static_cast<const double*>(args.arrays.at("out").data());
  std::int64_t bad = 0;
  for (std::int64_t i = 0; i < I; ++i)
    for (std::int64_t j = 0; j < J; ++j)
      for (std::int64_t k = 0; k < K; ++k) {
        double e = want.value_as_double((i * J + j) * K + k), a = o[((i + 2) * (J + 4) + j + 2) * K + k];
        bad += std::abs(a - e) > 1e-12 * std::abs(e);
      }
  CHECK(bad == 0);
}

TEST_CASE("auto_optimize: every corpus kernel still matches DaCe's outputs after it",
          "[transforms][auto-optimize]") {
  auto backend = runtime::make_cpu_backend();
  for (const char* kernel : {"laplace2d", "jacobi_2d", "hdiff"})
    for (const char* stage : {"frontend", "simplified"}) {
      INFO(kernel << " " << stage);
      auto sdfg = load_sdfg(
          (test::dace_corpus_dir() / kernel / (std::string(kernel) + "." + stage + ".sdfg")).string());
      auto_optimize(*sdfg, DeviceType::CPU);
      test::require_valid(*sdfg);
      // Simplified stages are one state per time step: every intermediate array is gone.
      if (std::string(stage) == "simplified") CHECK(domain_sized_transients(*sdfg).empty());
      weir::test::fresh_cache(std::string("auto-optimize-") + kernel + "-" + stage);
      auto args = weir::test::corpus_arguments(kernel);
      runtime::run(*backend, program_of(*sdfg), args);
      CHECK(weir::test::check_expected(kernel, args) >= 1);
    }
}

TEST_CASE("auto_optimize: every valid corpus SDFG stays valid", "[transforms][auto-optimize][corpus]") {
  std::size_t optimized = 0;
  for (const auto& path : test::dace_corpus_files()) {
    INFO(path.string());
    auto sdfg = load_sdfg(path.string());
    if (!validate(*sdfg).empty()) continue;  // only files weir considers valid
    auto_optimize(*sdfg, DeviceType::CPU);
    test::require_valid(*sdfg);
    auto reloaded = sdfg_from_json_text(sdfg_to_json_text(*sdfg));
    CHECK(sdfg_difference(*reloaded, *sdfg).empty());
    ++optimized;
  }
  CHECK(optimized >= 10);
}
