// Bounds-check elision by proof (docs/adr/0051): indices that are connectivity table entries the
// code never uses when -1 (neighbour reductions) carry no check in the loops; the compiled
// program checks the table once at entry instead. These tests call the compiled program without
// the runtime's own check of the tables (runtime::without_connectivity_checks), as a C++ caller
// of the library could: an entry out of range is refused before anything is written, named with
// the table, the entry and its value; -1 entries are skipped by reductions; direct reads of a
// table keep their check (a -1 there is the program's error at that point).
#include <filesystem>

#include "embedded_test_util.h"
#include "three_ways.h"
#include "weir/codegen/cpu_codegen.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kSource = R"(
VF = Field[[V], float64]
EF = Field[[E], float64]

@gtx.field_operator
def summed(v: VF) -> EF:
    return neighbor_sum(v(E2V), axis=E2VDim)

@gtx.program
def reduce(v: VF, out: EF):
    summed(v, out=out)

@gtx.field_operator
def second(v: VF) -> EF:
    return v(E2V[1])

@gtx.program
def direct(v: VF, out: EF):
    second(v, out=out)
)";

/// Edges 0..3 of a 4-vertex mesh, entry [row, col] = e[2 * row + col].
Arguments arguments(std::vector<double> e) {
  Arguments args;
  const std::vector<double> v{1.5, 20, 300, -4000};
  args.arrays.emplace("v", make({4}, [&](std::int64_t i) { return v[static_cast<std::size_t>(i)]; }));
  args.arrays.emplace("out", full({4}, -7.0));
  args.arrays.emplace(
      "E2V", make(
                 {4, 2}, [&](std::int64_t i) { return e[static_cast<std::size_t>(i)]; }, ScalarType::Int32));
  return args;
}

/// The program compiled for the cpu backend after auto_optimize (as `weir run` compiles it),
/// without the runtime's check of its tables: what the library alone does.
std::shared_ptr<Program> compiled_alone(const std::string& name) {
  static const std::string cache = test::shared_cache_dir("table-entry-checks").string();
  ::setenv("WEIR_CACHE_DIR", cache.c_str(), 1);
  static auto cpu = make_backend("cpu");
  return without_connectivity_checks(prepare(*cpu, runtime::lower(load(kSource, name))));
}

/// The generated C++ after the prelude (which defines the check functions).
std::string program_part(const std::string& name) {
  std::string text = codegen::generate_cpu(*runtime::lower(load(kSource, name)).sdfg).source;
  std::size_t at = text.find("// --- SDFG");
  REQUIRE(at != std::string::npos);
  return text.substr(at);
}

}  // namespace

TEST_CASE("table entry checks: a neighbour sum indexes with no check, its table is checked at entry",
          "[runtime][unstructured][bounds]") {
  const std::string code = program_part("reduce");
  CHECK(code.find("weir_index(") == std::string::npos);
  CHECK(code.find("weir_check_table(\"E2V\", E2V,") != std::string::npos);
  CHECK(code.find("proven by the entry check of table 'E2V'") != std::string::npos);
  // A direct read through the table may meet a -1 (a missing neighbour): it keeps its check.
  CHECK(program_part("direct").find("weir_index(") != std::string::npos);
}

TEST_CASE("table entry checks: the compiled program alone skips -1 entries in a reduction",
          "[runtime][unstructured][bounds]") {
  // (int32, as the lowering declares tables; the runtime narrows int64 tables before the call)
  Arguments a = arguments({0, 1, 1, 2, 3, -1, -1, 3});
  compiled_alone("reduce")->run(a);
  // By hand: v0 + v1, v1 + v2, v3 alone, v3 alone.
  CHECK(values(a.arrays.at("out")) == std::vector<double>{21.5, 320.0, -4000.0, -4000.0});
}

TEST_CASE("table entry checks: an entry outside the field is refused before anything runs",
          "[runtime][unstructured][bounds]") {
  for (double bad : {4.0, -2.0, 1e6}) {
    INFO(bad);
    Arguments a = arguments({0, 1, 1, 2, 3, bad, 2, 3});
    std::string error;
    try {
      compiled_alone("reduce")->run(a);
    } catch (const weir::Error& e) {
      error = e.what();
    }
    const std::string value = std::to_string(static_cast<long long>(bad));
    CHECK_THAT(error,
               Catch::Contains("connectivity table 'E2V': entry [2, 1] = " + value +
                               " is outside [0, 4), the extent of 'v' in dimension 0, which it indexes"));
    CHECK_THAT(error, Catch::Contains("-1, a missing neighbour"));
    CHECK(values(a.arrays.at("out")) == std::vector<double>(4, -7.0));  // nothing written
  }
  // Through the runtime, its own check of the tables says the same first.
  for (const auto& r : test::run_three_ways(load(kSource, "reduce"), arguments({0, 1, 1, 2, 3, 9, 2, 3}))) {
    INFO(r.path);
    if (r.path == "embedded") continue;
    CHECK_THAT(r.error, Catch::Contains("'E2V': entry [2, 1] = 9 is outside"));
  }
}

TEST_CASE("table entry checks: a direct read of a -1 entry is still refused where it is read",
          "[runtime][unstructured][bounds]") {
  Arguments a = arguments({0, 1, 1, 2, 3, -1, 2, 3});
  std::string error;
  try {
    compiled_alone("direct")->run(a);
  } catch (const weir::Error& e) {
    error = e.what();
  }
  CHECK_THAT(error, Catch::Contains("of 'v': index -1 along V is outside [0, 4)"));
  CHECK_THAT(error, Catch::Contains("missing neighbour"));
}
