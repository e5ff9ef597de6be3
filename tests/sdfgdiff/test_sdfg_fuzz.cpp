// SDFG-level differential testing (docs/testing.md): seeded batches of random SDFGs run on the
// cpu backend and on the reference interpreter, before and after random transformation chains,
// must agree exactly. WEIR_SDFGFUZZ_COUNT (batches, default 4), WEIR_SDFGFUZZ_SEED (first
// batch seed, default 1), WEIR_SDFGFUZZ_PARTS (parts per batch, default 8) and
// WEIR_SDFGFUZZ_STEPS (transformations per chain, default 10) widen it; WEIR_SDFGFUZZ_KINDS
// (comma-separated part kinds, random_sdfg.h) chooses what is generated;
// findings are written to WEIR_SDFGFUZZ_OUT (default <build>/test-scratch/sdfgdiff-findings);
// WEIR_SDFGFUZZ_OPT (e.g. -O1) replaces the generated code's -O3.
#include <catch2/catch.hpp>

#include <chrono>
#include <cstdlib>
#include <iostream>
#include <string>

#include "diff_driver.h"

using namespace weir::test::sdfgdiff;

namespace {

long env_or(const char* name, long fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::atol(v) : fallback;
}

}  // namespace

TEST_CASE(
    "random SDFGs agree on the cpu backend and the reference interpreter, before and after random "
    "transformations",
    "[sdfgdiff][random]") {
  long count = env_or("WEIR_SDFGFUZZ_COUNT", 4);
  auto first = static_cast<unsigned>(env_or("WEIR_SDFGFUZZ_SEED", 1));
  RunOptions opts;
  opts.parts = static_cast<int>(env_or("WEIR_SDFGFUZZ_PARTS", 8));
  opts.steps = static_cast<int>(env_or("WEIR_SDFGFUZZ_STEPS", 10));
  if (const char* o = std::getenv("WEIR_SDFGFUZZ_OUT")) opts.out_dir = o;
  if (const char* o = std::getenv("WEIR_SDFGFUZZ_OPT")) opts.opt = o;  // e.g. -O1 (wide runs)
  if (const char* kinds = std::getenv("WEIR_SDFGFUZZ_KINDS")) {        // e.g. "view-copy,fan-out"
    std::string list = std::string(",") + kinds + ",";
    for (int k = 0; k < kNumPartKinds; ++k)
      if (list.find("," + std::string(to_string(static_cast<PartKind>(k))) + ",") != std::string::npos)
        opts.gen.kinds.push_back(static_cast<PartKind>(k));
    REQUIRE(!opts.gen.kinds.empty());
  }
  auto t0 = std::chrono::steady_clock::now();
  std::size_t found = 0;
  for (long k = 0; k < count; ++k) {
    unsigned seed = first + static_cast<unsigned>(k);
    auto found_here = check_batch(seed, opts);
    if (std::getenv("WEIR_SDFGFUZZ_COUNT"))  // wide runs: one progress line per batch
      std::cout << "sdfgdiff batch " << seed << ": " << found_here.size() << " findings, "
                << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s"
                << std::endl;
    for (const auto& f : found_here) {
      ++found;
      std::cout << "sdfgdiff finding: seed " << f.seed << ", " << f.stage << ", " << f.part << "\n  file "
                << f.file << "\n"
                << f.detail << std::endl;
      FAIL_CHECK("seed " << f.seed << ": " << f.stage << " disagreed on " << f.part << " (" << f.file << ")");
    }
  }
  CHECK(found == 0);
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::cout << "sdfgdiff: " << count << " batches of " << opts.parts << " parts (seeds " << first << ".."
            << first + count - 1 << "), " << found << " findings, " << s << " s" << std::endl;
}
