// Connectivity tables with -1 entries (no neighbour) and of both index dtypes, int32 and int64,
// on the embedded backend, the cpu backend as lowered and after auto_optimize, and the lowered
// SDFG saved as a file and run from it. A direct read of a missing neighbour has no value:
// every path refuses it with a located error, where the call's domain reads it (a -1 outside
// the domain is fine). Neighbour reductions skip -1 entries. Regressions: the cpu backend read
// entry 0 for a missing neighbour (and still did for an SDFG run as a file), refused int64
// tables, and refused a -1 outside the domain.
#include <filesystem>

#include "embedded_test_util.h"
#include "three_ways.h"
#include "weir/frontend/lowering.h"
#include "weir/sdfg/serialize.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kReads = R"(
VF = Field[[V], float64]
EF = Field[[E], float64]

@gtx.field_operator
def second(v: VF) -> EF:
    return v(E2V[1])

@gtx.field_operator
def first(v: VF) -> EF:
    return v(E2V[0]) * 2.0

@gtx.field_operator
def picked(v: VF) -> EF:
    return v(E2V)[E2VDim(1)]

@gtx.field_operator
def summed(v: VF) -> EF:
    return neighbor_sum(v(E2V), axis=E2VDim) + max_over(v(E2V), axis=E2VDim)

@gtx.program
def direct(v: VF, out: EF):
    second(v, out=out)

@gtx.program
def column0(v: VF, out: EF):
    first(v, out=out)

@gtx.program
def pick(v: VF, out: EF):
    picked(v, out=out)

@gtx.program
def reduce(v: VF, out: EF):
    summed(v, out=out)

@gtx.program
def direct_head(v: VF, out: EF):
    second(v, out=out, domain={E: (0, 2)})

@gtx.program
def direct_tail(v: VF, out: EF):
    second(v, out=out, domain={E: (1, 4)})

@gtx.field_operator
def guarded(v: VF) -> EF:
    return neighbor_sum(v(E2V), axis=E2VDim) + v(E2V[1]) * 0.0

@gtx.program
def reduce_then_direct(v: VF, out: EF):
    guarded(v, out=out, domain={E: (3, 4)})

@gtx.field_operator
def dead(v: VF, e: EF) -> EF:
    unused = v(E2V[1])
    return e * 2.0

@gtx.program
def dead_table(v: VF, e: EF, out: EF):
    dead(v, e, out=out)
)";

const std::vector<double> kV{1.5, 20.0, 300.0, -4000.0};

/// Edges 0..3 of a 4-vertex mesh; `missing` puts -1 in column 1 of edge 2.
Field table(ScalarType dtype, bool missing) {
  std::vector<double> e{0, 1, 1, 2, 3, 0, 2, 3};
  if (missing) e[5] = -1;
  return make(
      {4, 2}, [&](std::int64_t i) { return e[static_cast<std::size_t>(i)]; }, dtype);
}

Arguments arguments(ScalarType dtype, bool missing) {
  Arguments args;
  args.arrays.emplace("v", make({4}, [](std::int64_t i) { return kV[static_cast<std::size_t>(i)]; }));
  args.arrays.emplace("out", full({4}, -7.0));
  args.arrays.emplace("E2V", table(dtype, missing));
  return args;
}

std::vector<double> out_of(const Arguments& a) {
  std::vector<double> v;
  for (std::int64_t i = 0; i < 4; ++i) v.push_back(at(a.arrays.at("out"), {i}));
  return v;
}

}  // namespace

TEST_CASE("neighbours: direct reads agree on int32 and int64 tables", "[runtime][unstructured][neighbours]") {
  for (ScalarType dtype : {ScalarType::Int32, ScalarType::Int64}) {
    INFO(to_string(dtype));
    for (const char* prog : {"direct", "pick"}) {
      INFO(prog);
      for (const auto& r : test::run_three_ways(load(kReads, prog), arguments(dtype, false))) {
        INFO(r.path);
        REQUIRE(r.error == "");
        CHECK(out_of(r.args) == std::vector<double>{20.0, 300.0, 1.5, -4000.0});
        CHECK(r.args.arrays.at("E2V").dtype() == dtype);  // the caller's table is left as it was
      }
    }
  }
}

TEST_CASE("neighbours: a direct read of a missing neighbour is refused, located, by every path",
          "[runtime][unstructured][neighbours]") {
  for (ScalarType dtype : {ScalarType::Int32, ScalarType::Int64}) {
    INFO(to_string(dtype));
    for (const char* prog : {"direct", "pick"}) {
      INFO(prog);
      for (const auto& r : test::run_three_ways(load(kReads, prog), arguments(dtype, true))) {
        INFO(r.path << ": " << r.error);
        CHECK(r.error.find("test.py:") != std::string::npos);
        if (r.path == "embedded") {
          CHECK(r.error.find("undefined at (E=2)") != std::string::npos);
        } else {
          // The generated code's index check: the container, the index, the table entry read
          // (the shift's location in the source) and the map point (row 2).
          CHECK(r.error.find("of 'v': index -1 along V is outside [0, 4)") != std::string::npos);
          CHECK(r.error.find("the index is E2V[") != std::string::npos);
          CHECK(r.error.find("=2") != std::string::npos);
          CHECK(r.error.find("missing neighbour") != std::string::npos);
        }
      }
    }
  }
}

TEST_CASE("neighbours: -1 in a column the program does not read directly is fine",
          "[runtime][unstructured][neighbours]") {
  for (const auto& r : test::run_three_ways(load(kReads, "column0"), arguments(ScalarType::Int32, true))) {
    INFO(r.path);
    REQUIRE(r.error == "");
    CHECK(out_of(r.args) == std::vector<double>{3.0, 40.0, -8000.0, 600.0});
  }
}

TEST_CASE("neighbours: reductions skip -1 entries on int32 and int64 tables",
          "[runtime][unstructured][neighbours]") {
  for (ScalarType dtype : {ScalarType::Int32, ScalarType::Int64}) {
    INFO(to_string(dtype));
    for (const auto& r : test::run_three_ways(load(kReads, "reduce"), arguments(dtype, true))) {
      INFO(r.path);
      REQUIRE(r.error == "");
      // sum + max per edge: (1.5 + 20) + 20, (20 + 300) + 300, vertex 3 only: -4000 - 4000, (300 - 4000) +
      // 300
      CHECK(out_of(r.args) == std::vector<double>{41.5, 620.0, -8000.0, -3400.0});
    }
  }
}

TEST_CASE("neighbours: only the rows of the call's domain are read directly",
          "[runtime][unstructured][neighbours]") {
  // -1 at edge 2, column 1. Domain rows 0, 1: no -1 read; the rest of out keeps -7.
  for (ScalarType dtype : {ScalarType::Int32, ScalarType::Int64}) {
    INFO(to_string(dtype));
    for (const auto& r : test::run_three_ways(load(kReads, "direct_head"), arguments(dtype, true))) {
      INFO(r.path << ": " << r.error);
      REQUIRE(r.error == "");
      CHECK(out_of(r.args) == std::vector<double>{20.0, 300.0, -7.0, -7.0});
    }
    // Rows 1..3 include edge 2: refused by every path, located.
    for (const auto& r : test::run_three_ways(load(kReads, "direct_tail"), arguments(dtype, true))) {
      INFO(r.path << ": " << r.error);
      CHECK(r.error.find("test.py:") != std::string::npos);
      if (r.path != "embedded") CHECK(r.error.find("index -1 along V") != std::string::npos);
    }
  }
}

TEST_CASE("neighbours: a direct read beside a reduction, away from the -1, runs",
          "[runtime][unstructured][neighbours]") {
  // Edge 3 only: (v[2] + v[3]) + v[3] * 0 = 300 - 4000.
  for (const auto& r :
       test::run_three_ways(load(kReads, "reduce_then_direct"), arguments(ScalarType::Int32, true))) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    CHECK(out_of(r.args) == std::vector<double>{-7.0, -7.0, -7.0, -3700.0});
  }
}

TEST_CASE("neighbours: the lowered SDFG run as a file checks -1 and takes int64 tables",
          "[runtime][unstructured][neighbours]") {
  // `weir sdfg test.py::direct -o direct.sdfg`, then `weir run direct.sdfg --backend cpu`: the
  // checks travel in the SDFG (index checks in the generated code, the recorded tables).
  namespace fs = std::filesystem;
  const fs::path file = test::shared_cache_dir("neighbours-sdfg-file") / "direct.sdfg";
  save_sdfg(*frontend::lower_to_sdfg(*load(kReads, "direct").definition), file.string());
  std::shared_ptr<const SDFG> loaded = load_sdfg(file.string());
  ::setenv("WEIR_CACHE_DIR", test::shared_cache_dir("three-ways").c_str(), 1);
  auto cpu = make_backend("cpu");
  CompilableProgram c{loaded, {}, file.string()};
  for (ScalarType dtype : {ScalarType::Int32, ScalarType::Int64}) {
    INFO(to_string(dtype));
    Arguments ok = arguments(dtype, false);
    prepare(*cpu, c)->run(ok);
    CHECK(out_of(ok) == std::vector<double>{20.0, 300.0, 1.5, -4000.0});
    CHECK(ok.arrays.at("E2V").dtype() == dtype);
    Arguments bad = arguments(dtype, true);
    try {
      prepare(*cpu, c)->run(bad);
      FAIL("a -1 read directly must be refused");
    } catch (const weir::Error& e) {
      std::string m = e.what();
      INFO(m);
      CHECK(m.find("state '") != std::string::npos);
      CHECK(m.find("map '") != std::string::npos);
      CHECK(m.find("of 'v': index -1 along V is outside [0, 4)") != std::string::npos);
      CHECK(m.find("the index is E2V[") != std::string::npos);
      CHECK(m.find("test.py:") != std::string::npos);  // the memlet's debuginfo, saved in the file
    }
  }
}

TEST_CASE("neighbours: a table only dead code uses is an argument on every path",
          "[runtime][unstructured][neighbours]") {
  // The @program's signature includes E2V (the embedded backend's does); the lowering reads it
  // nowhere. Regression: the cpu backend refused it as an unknown argument.
  Arguments args = arguments(ScalarType::Int32, true);
  args.arrays.emplace("e", make({4}, [](std::int64_t i) { return 0.5 * static_cast<double>(i) - 1.0; }));
  for (const auto& r : test::run_three_ways(load(kReads, "dead_table"), args)) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    CHECK(out_of(r.args) == std::vector<double>{-2.0, -1.0, 0.0, 1.0});
  }
}

namespace {

const char* kHoles = R"(
VK = Field[[V, K], float64]
EK = Field[[E, K], float64]

@gtx.field_operator
def holey(a: VK, b: VK) -> EK:
    c = concat_where(K == 1, a(Koff[2]), b)
    return neighbor_sum(c(E2V), axis=E2VDim)

@gtx.field_operator
def whole(a: VK, b: VK) -> EK:
    c = concat_where(K == 0, a(Koff[2]), b)
    return neighbor_sum(c(E2V), axis=E2VDim)

@gtx.program
def reduce_hole(a: VK, b: VK, out: EK):
    holey(a, b, out=out)

@gtx.program
def reduce_whole(a: VK, b: VK, out: EK):
    whole(a, b, out=out)
)";

/// a[v, k] = kV[v] + k, b[v, k] = 2 kV[v] + k over 4 vertices x 3 levels; out over 4 edges x 3.
Arguments vertical_arguments() {
  Arguments args;
  auto v_of = [](std::int64_t i) { return kV[static_cast<std::size_t>(i / 3)]; };
  args.arrays.emplace("a", make({4, 3}, [&](std::int64_t i) { return v_of(i) + double(i % 3); }));
  args.arrays.emplace("b", make({4, 3}, [&](std::int64_t i) { return 2.0 * v_of(i) + double(i % 3); }));
  args.arrays.emplace("out", full({4, 3}, -7.0));
  args.arrays.emplace("E2V", table(ScalarType::Int32, true));
  return args;
}

}  // namespace

TEST_CASE("neighbours: a reduction skips -1 neighbours only and never an undefined neighbour value",
          "[runtime][unstructured][neighbours]") {
  // c = concat_where(K == 0, a(Koff[2]), b): defined everywhere; edge 2's -1 neighbour skipped.
  // By hand, c[v, 0] = kV[v] + 2, c[v, k > 0] = 2 kV[v] + k; out[e, k] = sum of c over E2V[e].
  for (const auto& r : test::run_three_ways(load(kHoles, "reduce_whole"), vertical_arguments())) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    const std::vector<std::vector<double>> expected{
        {25.5, 45.0, 47.0}, {324.0, 642.0, 644.0}, {-3998.0, -7999.0, -7998.0}, {-3696.0, -7398.0, -7396.0}};
    for (std::int64_t e = 0; e < 4; ++e)
      for (std::int64_t k = 0; k < 3; ++k)
        CHECK(at(r.args.arrays.at("out"), {e, k}) == expected[std::size_t(e)][std::size_t(k)]);
  }
  // K == 1: a(Koff[2]) has no level 1 (a has 3 levels), so c has no value there on any vertex.
  // Regression: the embedded backend's neighbor_sum skipped every undefined value as if it were a
  // -1 neighbour and wrote 0 at K = 1; now every path refuses, located.
  for (const auto& r : test::run_three_ways(load(kHoles, "reduce_hole"), vertical_arguments())) {
    INFO(r.path << ": " << r.error);
    CHECK(r.error.find("test.py:") != std::string::npos);
    if (r.path == "embedded") CHECK(r.error.find("undefined at (E=0, K=1)") != std::string::npos);
  }
}
