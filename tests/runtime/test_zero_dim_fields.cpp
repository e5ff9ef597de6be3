// 0-d fields (`Field[Dims[()], T]`, gt4py's `Field[[], T]`) as outputs (issue 34): a program
// writes one with out=, a tuple of them, and reads it back in a later call; a field operator
// returns one. The SDFG holds a 0-d field as an array of shape (1,) (as DaCe does) and callers
// pass NumPy's 0-d arrays. Each runs on the embedded backend, the cpu backend as lowered and
// after auto_optimize, against values computed here by hand.
#include "embedded_test_util.h"
#include "three_ways.h"
#include "weir/runtime/allocator.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kZeroDim = R"(
EmptyField = Field[Dims[()], int32]
Zero = Field[Dims[()], float64]

@gtx.field_operator
def implicit_broadcast_scalar(inp: EmptyField) -> EmptyField:
    return inp

@gtx.program
def copy0(inp: EmptyField, out: EmptyField):
    implicit_broadcast_scalar(inp, out=out)

@gtx.field_operator
def sum_and_product(a: Zero, b: float64) -> tuple[Zero, Zero]:
    return a + b, a * b

@gtx.field_operator
def spread(s: Zero, f: Field[[I], float64]) -> Field[[I], float64]:
    return f + broadcast(s, (I,))

@gtx.program
def chain(a: Zero, b: float64, s: Zero, p: Zero, f: Field[[I], float64], out: Field[[I], float64]):
    sum_and_product(a, b, out=(s, p))
    spread(s, f, out=out)
    sum_and_product(s, b, out=(s, p))
)";

Field zero_d(double v, ScalarType t = ScalarType::Float64) { return full({}, v, t); }

}  // namespace

TEST_CASE("0-d fields: out= a 0-d int32 field, as gt4py's zero-dims test", "[runtime][zero-dim]") {
  Arguments args;
  args.values["inp"] = std::int64_t{7};
  args.arrays.emplace("out", zero_d(0, ScalarType::Int32));
  for (const auto& r : test::run_three_ways(load(kZeroDim, "copy0"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    const Field& out = r.args.arrays.at("out");
    CHECK(out.ndim() == 0);
    CHECK(out.dtype() == ScalarType::Int32);
    CHECK(at(out, {}) == 7.0);
  }
}

TEST_CASE("0-d fields: a tuple of 0-d outputs, read back by later calls", "[runtime][zero-dim]") {
  Arguments args;
  args.values["b"] = 3.0;
  args.arrays.emplace("a", zero_d(2.0));
  args.arrays.emplace("s", zero_d(0.0));
  args.arrays.emplace("p", zero_d(0.0));
  args.arrays.emplace("f", from_values({0.0, 1.0, 2.0, 3.0, 4.0}));
  args.arrays.emplace("out", full({5}, 0.0));
  for (const auto& r : test::run_three_ways(load(kZeroDim, "chain"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    // s = 2 + 3 = 5, p = 6; out = f + 5; then s = 5 + 3 = 8, p = 5 * 3 = 15.
    CHECK(at(r.args.arrays.at("s"), {}) == 8.0);
    CHECK(at(r.args.arrays.at("p"), {}) == 15.0);
    CHECK(values(r.args.arrays.at("out")) == std::vector<double>{5.0, 6.0, 7.0, 8.0, 9.0});
  }
}

TEST_CASE("0-d fields: a field operator returning 0-d fields, run on its own", "[runtime][zero-dim]") {
  Arguments args;
  args.values["b"] = 0.5;
  args.arrays.emplace("a", zero_d(4.0));
  args.arrays.emplace("__out_0", zero_d(0.0));
  args.arrays.emplace("__out_1", zero_d(0.0));
  for (const auto& r : test::run_three_ways(load(kZeroDim, "sum_and_product"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    CHECK(at(r.args.arrays.at("__out_0"), {}) == 4.5);
    CHECK(at(r.args.arrays.at("__out_1"), {}) == 2.0);
  }
}

TEST_CASE("0-d fields: the compiled program takes shape (1,) as well, and refuses other shapes",
          "[runtime][zero-dim]") {
  auto cpu = make_backend("cpu");
  FieldViewProgram program = load(kZeroDim, "copy0");
  {
    Arguments args;
    args.values["inp"] = std::int64_t{-3};
    args.arrays.emplace("out", full({1}, 0, ScalarType::Int32));  // DaCe's spelling of a 0-d array
    run(*cpu, program, args);
    CHECK(at(args.arrays.at("out"), {0}) == -3.0);
  }
  Arguments args;
  args.values["inp"] = std::int64_t{5};
  args.arrays.emplace("out", full({2}, 0, ScalarType::Int32));
  CHECK_THROWS_WITH(
      run(*cpu, program, args),
      Catch::Matchers::Contains("argument 'out': expected int32 array of shape (1,) or a 0-d array, "
                                "got int32 (2,)"));
  CHECK(values(args.arrays.at("out")) == std::vector<double>{0.0, 0.0});
}
