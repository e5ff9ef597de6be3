// The check of a connectivity table's entries compares with the extent of the fields the
// entries index, as gt4py's domain is the out field's: an `out` (or another argument read at
// the domain's own points) over the table's target dimension may be smaller than the field read
// through the table. Regression (user32 H1): the cpu backend compared with the smallest extent
// of every argument over that dimension and refused what the embedded backend runs.
#include "embedded_test_util.h"
#include "three_ways.h"
#include "weir/frontend/lowering.h"
#include "weir/runtime/indexed_connectivity_check.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kFar = R"(
V2VDim = gtx.Dimension("V2VDim", kind=gtx.DimensionKind.LOCAL)
V2V = gtx.FieldOffset("V2V", source=V, target=(V, V2VDim))
VF = Field[[V], float64]

@gtx.field_operator
def far(v: VF, w: VF) -> VF:
    return v(V2V[0]) + 2.0 * v(V2V[1]) + w

@gtx.program
def far_out(v: VF, w: VF, out: VF):
    far(v, w, out=out)

@gtx.field_operator
def far_local(v: VF, w: VF) -> VF:
    t = v * 1.0
    return t(V2V[0]) + w

@gtx.program
def far_local_out(v: VF, w: VF, out: VF):
    far_local(v, w, out=out)

@gtx.field_operator
def far_twice(v: VF) -> VF:
    return v(V2V[0])(V2V[1])

@gtx.program
def far_twice_out(v: VF, out: VF):
    far_twice(v, out=out)
)";

const std::vector<double> kV{1.0, 10.0, 100.0, 1000.0, 1e4, 1e5};

// 6 vertices; out and w over the first 3; row i names vertices (i + 3) % 6 and (i + 5) % 6.
Arguments arguments(std::int64_t bad_entry = -2) {
  Arguments a;
  a.arrays.emplace("v", make({6}, [](std::int64_t i) { return kV[static_cast<std::size_t>(i)]; }));
  a.arrays.emplace("w", make({3}, [](std::int64_t i) { return 0.5 * static_cast<double>(i); }));
  a.arrays.emplace("out", full({3}, -7.0));
  // 6 columns (V2V's default width): the columns past the two read are -1, no neighbour.
  a.arrays.emplace("V2V", make(
                              {6, 6},
                              [&](std::int64_t k) {
                                const std::int64_t i = k / 6, j = k % 6;
                                if (k == 1 && bad_entry != -2) return static_cast<double>(bad_entry);
                                if (j > 1) return -1.0;
                                return static_cast<double>(j == 0 ? (i + 3) % 6 : (i + 5) % 6);
                              },
                              ScalarType::Int32));
  return a;
}

}  // namespace

TEST_CASE("indexed extent: entries index the shifted field, not a smaller out or w",
          "[runtime][unstructured][neighbours]") {
  // By hand: out[i] = v[(i + 3) % 6] + 2 v[(i + 5) % 6] + 0.5 i.
  for (const auto& r : test::run_three_ways(load(kFar, "far_out"), arguments())) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    CHECK(values(r.args.arrays.at("out")) == std::vector<double>{201000.0, 10002.5, 100021.0});
  }
}

TEST_CASE("indexed extent: an entry outside the shifted field is still refused by every path",
          "[runtime][unstructured][neighbours]") {
  // Entry [0, 1] = 6 indexes past v's 6 vertices: the embedded backend has no value there.
  for (const auto& r : test::run_three_ways(load(kFar, "far_out"), arguments(6))) {
    INFO(r.path << ": " << r.error);
    CHECK(r.error != "");
    if (r.path != "embedded") CHECK(r.error.find("V2V") != std::string::npos);
  }
}

TEST_CASE("indexed extent: a local over the parameters is bounded by them",
          "[runtime][unstructured][neighbours]") {
  // `t = v * 1.0` lies over v's vertices: out[i] = v[(i + 3) % 6] + 0.5 i.
  for (const auto& r : test::run_three_ways(load(kFar, "far_local_out"), arguments())) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    CHECK(values(r.args.arrays.at("out")) == std::vector<double>{1000.0, 10000.5, 100001.0});
  }
}

TEST_CASE("indexed extent: what each table indexes", "[runtime][unstructured][neighbours]") {
  const IndexedFields far = indexed_fields_of(load(kFar, "far_out"));
  REQUIRE(far.count("V2V") == 1);
  CHECK(far.at("V2V") == std::vector<std::string>{"v"});
  // The second step of v(V2V[0])(V2V[1]) indexes the first one's result, no argument: every
  // argument over V then bounds the entries, as before.
  CHECK(indexed_fields_of(load(kFar, "far_twice_out")).count("V2V") == 0);
  // The lowering records the same for an SDFG run as a file.
  const auto sdfg = frontend::lower_to_sdfg(*load(kFar, "far_out").definition);
  CHECK(recorded_indexed_fields(*sdfg) == far);
}
