// Bounds-check elision by proof (docs/adr/0051): indices that are connectivity table entries the
// code never uses when -1 (neighbour reductions) carry no check in the loops; the compiled
// program checks the table once at entry instead. These tests call the compiled program without
// the runtime's own check of the tables (runtime::without_connectivity_checks), as a C++ caller
// of the library could: an entry out of range is refused before anything is written, named with
// the table, the entry and its value; -1 entries are skipped by reductions; direct reads of a
// table keep their check (a -1 there is the program's error at that point).
#include <array>
#include <filesystem>
#include <string>
#include <vector>

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

namespace {

/// A mesh of `vertices` vertices and `edges` edges whose table (int32) is large enough for the
/// entry check's parallel pass (65,536 entries or more, prelude weir_support.h): edge e joins
/// vertices e % vertices and (7 e + 3) % vertices, except every 97th edge, whose second vertex
/// is missing (-1); `bad` sets entries (row, column, value) after that. v[i] = i + 0.5.
Arguments large_mesh(std::int64_t vertices, std::int64_t edges,
                     const std::vector<std::array<std::int64_t, 3>>& bad = {}) {
  std::vector<double> e2v(static_cast<std::size_t>(2 * edges));
  for (std::int64_t e = 0; e < edges; ++e) {
    e2v[static_cast<std::size_t>(2 * e)] = static_cast<double>(e % vertices);
    e2v[static_cast<std::size_t>(2 * e + 1)] =
        e % 97 == 0 ? -1.0 : static_cast<double>((7 * e + 3) % vertices);
  }
  for (const auto& [row, col, value] : bad)
    e2v[static_cast<std::size_t>(2 * row + col)] = static_cast<double>(value);
  Arguments args;
  args.arrays.emplace("v", make({vertices}, [](std::int64_t i) { return static_cast<double>(i) + 0.5; }));
  args.arrays.emplace("out", full({edges}, -7.0));
  args.arrays.emplace("E2V", make(
                                 {edges, 2}, [&](std::int64_t i) { return e2v[static_cast<std::size_t>(i)]; },
                                 ScalarType::Int32));
  return args;
}

}  // namespace

TEST_CASE("table entry checks: a large table is checked in parallel and its good entries are used",
          "[runtime][unstructured][bounds]") {
  const std::int64_t vertices = 1000, edges = 40000;  // 80,000 entries: the parallel pass
  Arguments a = large_mesh(vertices, edges);
  compiled_alone("reduce")->run(a);
  const std::vector<double> out = values(a.arrays.at("out"));
  REQUIRE(out.size() == static_cast<std::size_t>(edges));
  // By hand: (e % 1000 + 0.5) + ((7 e + 3) % 1000 + 0.5), the second term absent on every 97th edge.
  std::size_t wrong = 0;
  for (std::int64_t e = 0; e < edges; ++e) {
    double expected = static_cast<double>(e % vertices) + 0.5;
    if (e % 97 != 0) expected += static_cast<double>((7 * e + 3) % vertices) + 0.5;
    wrong += out[static_cast<std::size_t>(e)] != expected ? 1 : 0;
  }
  CHECK(wrong == 0);
  CHECK(out[1] == 1.5 + 10.5);
  CHECK(out[97] == 97.5);
}

TEST_CASE("table entry checks: the parallel pass names the first bad entry and nothing is written",
          "[runtime][unstructured][bounds]") {
  const std::int64_t vertices = 1000, edges = 40000;
  struct Case {
    std::vector<std::array<std::int64_t, 3>> bad;
    std::string named;
  };
  // The first bad entry in row-major order is named, wherever the others are (other threads'
  // blocks, earlier columns of later rows); an entry equal to the extent is outside.
  const std::vector<Case> cases{
      {{{39000, 1, 1000}, {200, 0, -2}}, "entry [200, 0] = -2 is outside [0, 1000)"},
      {{{39999, 1, 5000}}, "entry [39999, 1] = 5000 is outside [0, 1000)"},
      {{{20001, 0, 1000}, {20000, 1, 2147483647}, {30000, 0, -2147483647 - 1}},
       "entry [20000, 1] = 2147483647 is outside [0, 1000)"},
      {{{0, 0, 1000}}, "entry [0, 0] = 1000 is outside [0, 1000)"},
  };
  for (const Case& c : cases) {
    INFO(c.named);
    Arguments a = large_mesh(vertices, edges, c.bad);
    std::string error;
    try {
      compiled_alone("reduce")->run(a);
    } catch (const weir::Error& e) {
      error = e.what();
    }
    CHECK_THAT(error, Catch::Contains("connectivity table 'E2V': " + c.named +
                                      ", the extent of 'v' in dimension 0, which it indexes"));
    // No output element was written: every one still holds the value it had before the call.
    const std::vector<double> out = values(a.arrays.at("out"));
    CHECK(out == std::vector<double>(static_cast<std::size_t>(edges), -7.0));
  }
}
