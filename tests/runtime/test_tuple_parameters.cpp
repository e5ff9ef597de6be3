// Program parameters of tuple and named-collection type (issue 34): `x: tuple[A, tuple[B, s]]`,
// a NamedTuple or a dataclass of fields (and scalars), as inputs and as out= targets (whole,
// `out.v`, `t[0]`, nested). Each is passed as one argument per leaf, named as gt4py's DaCe
// backend names a flattened tuple: x_0, x_1_0, x_1_1. Each program runs on the embedded
// backend, the cpu backend and the cpu backend after auto_optimize, against values computed
// here from the inputs.
#include "embedded_test_util.h"
#include "three_ways.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kTuples = R"(
import dataclasses
from typing import NamedTuple

IK = Field[Dims[I, K], float64]

class Pair(NamedTuple):
    doubled: IK
    shifted: IK

@dataclasses.dataclass
class State:
    u: IK
    v: IK

@gtx.field_operator
def _combine(t: tuple[IK, tuple[IK, float64]]) -> IK:
    return t[0] + t[1][0] * t[1][1]

@gtx.field_operator
def _add(a: IK, b: IK) -> IK:
    return a + b

@gtx.program
def tuple_in(x: tuple[IK, tuple[IK, float64]], out: IK):
    _combine(x, out=out)

@gtx.program
def tuple_parts_in(x: tuple[IK, tuple[IK, float64]], out: IK):
    _add(x[0], x[1][0], out=out)

@gtx.field_operator
def _pair(x: IK) -> Pair:
    return x * 2.0, x + 1.0

@gtx.program
def named_out(x: IK, out: Pair):
    _pair(x, out=out)

@gtx.field_operator
def _swap(s: State) -> tuple[IK, IK]:
    return s.v + 1.0, s.u * 2.0

@gtx.program
def dataclass_in_out(s: State, out: State, c: IK):
    _swap(s, out=out)
    _pair(s.u, out=(out.v, c))

@gtx.field_operator
def _nested(x: IK) -> tuple[tuple[IK, IK], IK]:
    return (x * 2.0, x + 1.0), x - 3.0

@gtx.field_operator
def _half(x: IK) -> IK:
    return x * 0.5

@gtx.program
def nested_out(x: IK, out: tuple[tuple[IK, IK], IK]):
    _nested(x, out=out)
    _half(x, out=out[0][1][:, 1:])
)";

constexpr std::int64_t kCells = 2, kLevels = 4, kN = kCells * kLevels;

double x_at(std::int64_t i) { return 1.0 + 0.5 * wave(i, 4); }
double y_at(std::int64_t i) { return -2.0 + 0.25 * wave(i, 3); }

Field zeros() { return full({kCells, kLevels}, 0.0); }

}  // namespace

TEST_CASE("tuple parameters: a nested tuple input with a scalar passed whole",
          "[runtime][tuple-parameters]") {
  Arguments args;
  args.arrays.emplace("x_0", make({kCells, kLevels}, x_at));
  args.arrays.emplace("x_1_0", make({kCells, kLevels}, y_at));
  args.values.emplace("x_1_1", 3.0);
  args.arrays.emplace("out", zeros());
  for (const auto& r : test::run_three_ways(load(kTuples, "tuple_in"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    for (std::int64_t i = 0; i < kN; ++i)
      CHECK(r.args.arrays.at("out").value_as_double(i) == x_at(i) + y_at(i) * 3.0);
  }
}

TEST_CASE("tuple parameters: elements of a tuple input passed one by one", "[runtime][tuple-parameters]") {
  Arguments args;
  args.arrays.emplace("x_0", make({kCells, kLevels}, x_at));
  args.arrays.emplace("x_1_0", make({kCells, kLevels}, y_at));
  args.values.emplace("x_1_1", 3.0);
  args.arrays.emplace("out", zeros());
  for (const auto& r : test::run_three_ways(load(kTuples, "tuple_parts_in"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    for (std::int64_t i = 0; i < kN; ++i)
      CHECK(r.args.arrays.at("out").value_as_double(i) == x_at(i) + y_at(i));
  }
}

TEST_CASE("tuple parameters: a NamedTuple as out= whole", "[runtime][tuple-parameters]") {
  Arguments args;
  args.arrays.emplace("x", make({kCells, kLevels}, x_at));
  args.arrays.emplace("out_0", zeros());
  args.arrays.emplace("out_1", zeros());
  for (const auto& r : test::run_three_ways(load(kTuples, "named_out"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    for (std::int64_t i = 0; i < kN; ++i) {
      CHECK(r.args.arrays.at("out_0").value_as_double(i) == x_at(i) * 2.0);
      CHECK(r.args.arrays.at("out_1").value_as_double(i) == x_at(i) + 1.0);
    }
  }
}

TEST_CASE("tuple parameters: a dataclass as input, as out= and one of its fields as out=",
          "[runtime][tuple-parameters]") {
  Arguments args;
  args.arrays.emplace("s_0", make({kCells, kLevels}, x_at));
  args.arrays.emplace("s_1", make({kCells, kLevels}, y_at));
  args.arrays.emplace("out_0", zeros());
  args.arrays.emplace("out_1", zeros());
  args.arrays.emplace("c", zeros());
  for (const auto& r : test::run_three_ways(load(kTuples, "dataclass_in_out"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    for (std::int64_t i = 0; i < kN; ++i) {
      // out = (s.v + 1, s.u * 2); then out.v = s.u * 2 (again) and c = s.u + 1.
      CHECK(r.args.arrays.at("out_0").value_as_double(i) == y_at(i) + 1.0);
      CHECK(r.args.arrays.at("out_1").value_as_double(i) == x_at(i) * 2.0);
      CHECK(r.args.arrays.at("c").value_as_double(i) == x_at(i) + 1.0);
    }
  }
}

TEST_CASE("tuple parameters: a nested tuple out= whole, then a sliced element of it",
          "[runtime][tuple-parameters]") {
  Arguments args;
  args.arrays.emplace("x", make({kCells, kLevels}, x_at));
  for (const char* n : {"out_0_0", "out_0_1", "out_1"}) args.arrays.emplace(n, zeros());
  for (const auto& r : test::run_three_ways(load(kTuples, "nested_out"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    for (std::int64_t i = 0; i < kCells; ++i)
      for (std::int64_t k = 0; k < kLevels; ++k) {
        const double x = x_at(i * kLevels + k);
        CHECK(at(r.args.arrays.at("out_0_0"), {i, k}) == x * 2.0);
        // out[0][1] is x + 1, then x * 0.5 from level 1 on (out=out[0][1][:, 1:]).
        CHECK(at(r.args.arrays.at("out_0_1"), {i, k}) == (k >= 1 ? x * 0.5 : x + 1.0));
        CHECK(at(r.args.arrays.at("out_1"), {i, k}) == x - 3.0);
      }
  }
}

TEST_CASE("tuple parameters: the signature has one argument per leaf", "[runtime][tuple-parameters]") {
  Signature sig = field_view_signature(load(kTuples, "dataclass_in_out"));
  std::vector<std::string> names;
  std::vector<bool> written;
  for (const auto& p : sig.params) {
    names.push_back(p.name);
    written.push_back(p.written);
  }
  CHECK(names == std::vector<std::string>{"s_0", "s_1", "out_0", "out_1", "c"});
  CHECK(written == std::vector<bool>{false, false, true, true, true});
  Signature scalars = field_view_signature(load(kTuples, "tuple_in"));
  REQUIRE(scalars.params.size() == 4);
  CHECK(scalars.params[2].name == "x_1_1");
  CHECK(scalars.params[2].kind == Parameter::Kind::Scalar);
}

namespace {

const std::string kOrchestration = std::string(kTuples) + R"(
def orch(a: IK, b: IK, out: IK, p: IK, q: IK):
    tuple_in((a, (b, 3.0)), out)
    named_out(out, (p, q))

def orch_not_written_out(a: IK, out: IK):
    tuple_in(a, out)
)";

}  // namespace

TEST_CASE("tuple parameters: an orchestration function passes tuples written out",
          "[runtime][tuple-parameters]") {
  Arguments args;
  args.arrays.emplace("a", make({kCells, kLevels}, x_at));
  args.arrays.emplace("b", make({kCells, kLevels}, y_at));
  for (const char* n : {"out", "p", "q"}) args.arrays.emplace(n, zeros());
  FieldViewProgram prog = load(kOrchestration, "orch");
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    Arguments a = test::clone_arguments(args);
    run(*make_backend(backend), prog, a);
    for (std::int64_t i = 0; i < kN; ++i) {
      const double out = x_at(i) + y_at(i) * 3.0;
      CHECK(a.arrays.at("out").value_as_double(i) == out);
      CHECK(a.arrays.at("p").value_as_double(i) == out * 2.0);
      CHECK(a.arrays.at("q").value_as_double(i) == out + 1.0);
    }
  }
}

TEST_CASE("tuple parameters: an orchestration function passing a field for a tuple is refused",
          "[runtime][tuple-parameters]") {
  REQUIRE_THROWS_WITH(
      load(kOrchestration, "orch_not_written_out"),
      Catch::Contains("argument 'x' of 'tuple_in' has type tuple[Field[[I, K], float64], "
                      "tuple[Field[[I, K], float64], float64]]: pass a tuple of its 2 elements written "
                      "out, (a, b, ...), got 'a'"));
}

TEST_CASE("tuple parameters: a field operator run directly with one says to call it from a program",
          "[runtime][tuple-parameters]") {
  REQUIRE_THROWS_WITH(field_view_signature(load(kTuples, "_combine")),
                      Catch::Contains("_combine: parameter 't' has type tuple[") &&
                          Catch::Contains("call it from a @program, which takes a tuple parameter as one "
                                          "argument per element (t_0, t_1, ...)"));
}
