// Connectivity tables with -1 entries (no neighbour) and of both index dtypes, int32 and int64,
// on the embedded backend, the cpu backend as lowered and after auto_optimize. A direct read of
// a missing neighbour has no value: every path refuses it with a located error. Neighbour
// reductions skip -1 entries. Regressions: the cpu backend read entry 0 for a missing
// neighbour, and refused int64 tables.
#include "embedded_test_util.h"
#include "three_ways.h"

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
)";

const std::vector<double> kV{1.5, 20.0, 300.0, -4000.0};

/// Edges 0..3 of a 4-vertex mesh; `missing` puts -1 in column 1 of edge 2.
Field table(ScalarType dtype, bool missing) {
  std::vector<double> e{0, 1, 1, 2, 3, 0, 2, 3};
  if (missing) e[5] = -1;
  return make({4, 2}, [&](std::int64_t i) { return e[static_cast<std::size_t>(i)]; }, dtype);
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
        if (r.path == "embedded") CHECK(r.error.find("undefined at (E=2)") != std::string::npos);
        else CHECK(r.error.find("neighbour 1 of 'E2V' is missing at row 2") != std::string::npos);
      }
    }
  }
}

TEST_CASE("neighbours: -1 in a column the program does not read directly is fine", "[runtime][unstructured][neighbours]") {
  for (const auto& r : test::run_three_ways(load(kReads, "column0"), arguments(ScalarType::Int32, true))) {
    INFO(r.path);
    REQUIRE(r.error == "");
    CHECK(out_of(r.args) == std::vector<double>{3.0, 40.0, -8000.0, 600.0});
  }
}

TEST_CASE("neighbours: reductions skip -1 entries on int32 and int64 tables", "[runtime][unstructured][neighbours]") {
  for (ScalarType dtype : {ScalarType::Int32, ScalarType::Int64}) {
    INFO(to_string(dtype));
    for (const auto& r : test::run_three_ways(load(kReads, "reduce"), arguments(dtype, true))) {
      INFO(r.path);
      REQUIRE(r.error == "");
      // sum + max per edge: (1.5 + 20) + 20, (20 + 300) + 300, vertex 3 only: -4000 - 4000, (300 - 4000) + 300
      CHECK(out_of(r.args) == std::vector<double>{41.5, 620.0, -8000.0, -3400.0});
    }
  }
}
