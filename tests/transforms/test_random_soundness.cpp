// Randomized soundness: seeded sequences of random applicable transformations from the
// registry, applied to the DaCe corpus kernels and to frontend-lowered examples, must keep every
// intermediate SDFG valid and the program's outputs unchanged (cpu backend, small sizes). The
// sequence of each run is printed on failure so that it can be replayed.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstdlib>
#include <random>

#include "corpus.h"
#include "support/builders.h"
#include "support/cpu_run.h"
#include "support/random_chain.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/type_checker.h"
#include "weir/transforms/registry.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;

namespace {

std::unique_ptr<SDFG> lower_example(const std::string& rel, const std::string& name) {
  frontend::ModuleLoader loader(frontend::LoaderOptions{{}, false});
  const auto& m = loader.load_file(std::string(WEIR_SOURCE_DIR) + "/examples/" + rel);
  frontend::TypeChecker tc;
  for (const auto& d : m.definitions)
    if (d->name == name) return frontend::lower_to_sdfg(tc.check(*d));
  FAIL("no definition " << name << " in " << rel);
  return nullptr;
}

void check_same(const CpuOutputs& want, const CpuOutputs& got) {
  REQUIRE(want.size() == got.size());
  for (const auto& [name, w] : want) {
    INFO("array " << name);
    const auto& g = got.at(name);
    REQUIRE(g.size() == w.size());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < w.size(); ++i)
      if (!(std::abs(g[i] - w[i]) <= 1e-12 * std::max(1.0, std::abs(w[i])))) ++bad;
    CHECK(bad == 0);
  }
}

/// `steps` random transformations (support/random_chain.h), seeded; the log of what was applied.
std::string random_steps(SDFG& sdfg, unsigned seed, int steps) {
  std::mt19937 rng(seed);
  return random_chain(sdfg, rng, steps);
}

/// The given seeds; WEIR_SOUNDNESS_SEEDS=n (for bug hunting, not CI) runs seeds base..base+n-1,
/// and WEIR_SOUNDNESS_STEPS=m applies m transformations per run.
std::vector<unsigned> seeds_or_env(std::vector<unsigned> seeds) {
  if (const char* n = std::getenv("WEIR_SOUNDNESS_SEEDS")) {
    unsigned base = seeds.front() * 1000;
    seeds.clear();
    for (unsigned k = 0; k < static_cast<unsigned>(std::atoi(n)); ++k) seeds.push_back(base + k);
  }
  return seeds;
}

void soundness(const SDFG& original, const std::map<std::string, long long>& sizes,
               const std::vector<unsigned>& seeds, int steps) {
  require_valid(original);
  auto want = run_on_cpu(original, sizes, 11);
  if (const char* n = std::getenv("WEIR_SOUNDNESS_STEPS")) steps = std::atoi(n);
  for (unsigned seed : seeds_or_env(seeds)) {
    auto sdfg = original.clone_sdfg();
    INFO("seed " << seed);
    std::string log = random_steps(*sdfg, seed, steps);
    INFO("seed " << seed << ", applied:\n" << log);
    check_same(want, run_on_cpu(*sdfg, sizes, 11));
  }
}

/// A corpus kernel's SDFG; WEIR_SOUNDNESS_STAGE picks another stage than "simplified"
/// ("frontend", "auto_optimized_cpu") for bug hunting.
std::unique_ptr<SDFG> corpus(const std::string& kernel, std::string stage = {}) {
  if (stage.empty()) {
    const char* env = std::getenv("WEIR_SOUNDNESS_STAGE");
    stage = env ? env : "simplified";
  }
  return load_sdfg((dace_corpus_dir() / kernel / (kernel + "." + stage + ".sdfg")).string());
}

/// Every free symbol of the SDFG set to `n`, and scalar arguments such as TSTEPS to `t`.
std::map<std::string, long long> sizes_of(const SDFG& sdfg, long long n, long long t) {
  std::map<std::string, long long> out;
  for (const auto& s : sdfg.free_symbols()) out[s] = n;
  for (const auto& [name, d] : sdfg.arrays)
    if (!d.transient && d.kind == DataKind::Scalar) out[name] = t;
  return out;
}

}  // namespace

TEST_CASE("random transformations keep corpus kernels valid and their outputs unchanged",
          "[transforms][random][corpus]") {
  for (const char* kernel : {"laplace2d", "jacobi_2d", "hdiff"}) {
    INFO(kernel);
    auto sdfg = corpus(kernel);
    soundness(*sdfg, sizes_of(*sdfg, 7, 3), {1, 2}, 8);
  }
}

TEST_CASE("random transformations keep lowered field-view programs valid and their outputs unchanged",
          "[transforms][random][frontend]") {
  auto lap = lower_example("cartesian/laplacian.py", "laplacian");
  soundness(*lap, sizes_of(*lap, 7, 3), {3}, 5);
  auto hdiff = lower_example("cartesian/hdiff.py", "hdiff_program");
  soundness(*hdiff, sizes_of(*hdiff, 8, 3), {4}, 5);
}

TEST_CASE(
    "random transformations on DaCe's frontend and auto-optimized stages (views and register transients)",
    "[transforms][random][corpus]") {
  // Seeds that found bugs: MapToForLoop/LoopToMap passed a View into a nested SDFG as a View
  // without a views edge (laplace2d frontend), and a Register transient as a non-transient
  // argument (hdiff auto_optimized_cpu). Nested SDFG arguments are plain arrays now.
  auto lap = corpus("laplace2d", "frontend");
  soundness(*lap, sizes_of(*lap, 7, 3), {1000}, 12);
  auto hdiff = corpus("hdiff", "auto_optimized_cpu");
  soundness(*hdiff, sizes_of(*hdiff, 7, 3), {1000}, 12);
}
