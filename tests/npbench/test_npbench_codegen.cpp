// The generated C++ of npbench's SDFGs split into translation units (CodegenOptions::unit_bytes,
// which the command line does not set). What the code does per point and per call where it
// decides the speed (issue 18, docs/benchmarks.md "npbench kernels": checks compiled away or done
// once, no allocation per row, blocked matrix products) is checked through `weir compile
// --emit-cpp` by tests/lit/codegen/npbench-*.test.
#include <catch2/catch.hpp>

#include <string>

#include "corpus.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/sdfg/serialize.h"

using namespace weir;

TEST_CASE("npbench codegen: inlined nested states split into units are ordinary hidden functions",
          "[npbench][codegen][units]") {
  // A unit of its own cannot be inlined into its caller in another unit: generation stopped
  // with "does not start with 'static void ...'" (fvdiff's programs 0..28 of seed 1 together).
  auto sdfg =
      load_sdfg((test::npbench_corpus_dir() / "deriche" / "deriche.auto_optimized_cpu.sdfg").string());
  codegen::CodegenOptions o;
  o.unit_bytes = 1;
  auto split = codegen::generate_cpu(*sdfg, o);
  REQUIRE(split.units.size() > 2);
  std::string all;
  for (const auto& u : split.units) all += u;
  CHECK(all.find("[[gnu::visibility(\"hidden\")]] void weir_nested_nested_BinOp_29_state_0_block(") !=
        std::string::npos);
  CHECK(all.find("always_inline)) void weir_nested") == std::string::npos);
}
