// Integer operations whose value NumPy defines unusually or not at all, on every path (embedded,
// cpu as lowered and run from the SDFG, cpu after auto_optimize): `//` and `%` by zero are 0
// (NumPy's floor_divide and remainder), an integer to a negative integer power is an error
// (NumPy raises ValueError). Regressions: the embedded backend refused division by zero, the
// cpu backend trapped (SIGFPE) there, and returned 1 for a negative run-time exponent.
#include <algorithm>
#include <limits>

#include "embedded_test_util.h"
#include "three_ways.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kOps = R"(
IF = Field[[I], int32]
LF = Field[[I], int64]

@gtx.field_operator
def divmod_(a: IF, b: IF) -> tuple[IF, IF]:
    return a // b, a % b

@gtx.program
def floor_div_mod(a: IF, b: IF, q: IF, r: IF):
    divmod_(a, b, out=(q, r))

@gtx.field_operator
def wide_div(a: LF, b: LF) -> LF:
    return a // b

@gtx.program
def floor_div64(a: LF, b: LF, q: LF):
    wide_div(a, b, out=q)

@gtx.field_operator
def power(a: IF, e: IF) -> IF:
    return a ** e

@gtx.program
def int_power(a: IF, e: IF, p: IF):
    power(a, e, out=p)
)";

Field ints(const std::vector<double>& v, ScalarType t = ScalarType::Int32) { return from_values(v, t); }

}  // namespace

TEST_CASE("integer faults: // and % by zero are 0 on every path, as in NumPy", "[runtime][integers]") {
  // NumPy: np.array([7, -7, 5, 0, -9], np.int32) // np.array([0, 2, 0, -3, 4]) = [0, -4, 0, 0, -3]
  // and % = [0, 1, 0, 0, 3] (with a divide-by-zero warning).
  Arguments args;
  args.arrays.emplace("a", ints({7, -7, 5, 0, -9}));
  args.arrays.emplace("b", ints({0, 2, 0, -3, 4}));
  args.arrays.emplace("q", ints({11, 11, 11, 11, 11}));
  args.arrays.emplace("r", ints({11, 11, 11, 11, 11}));
  for (const auto& r : test::run_three_ways(load(kOps, "floor_div_mod"), args)) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    CHECK(values(r.args.arrays.at("q")) == std::vector<double>{0, -4, 0, 0, -3});
    CHECK(values(r.args.arrays.at("r")) == std::vector<double>{0, 1, 0, 0, 3});
  }
}

TEST_CASE("integer faults: INT64_MIN // -1 wraps instead of trapping", "[runtime][integers]") {
  // NumPy: np.array([-2**63], np.int64) // -1 = [-2**63] (overflow wraps); 6 // -1 = -6.
  const double lowest = static_cast<double>(std::numeric_limits<std::int64_t>::min());
  Arguments args;
  args.arrays.emplace("a", ints({lowest, 6}, ScalarType::Int64));
  args.arrays.emplace("b", ints({-1, -1}, ScalarType::Int64));
  args.arrays.emplace("q", ints({0, 0}, ScalarType::Int64));
  for (const auto& r : test::run_three_ways(load(kOps, "floor_div64"), args)) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    CHECK(values(r.args.arrays.at("q")) == std::vector<double>{lowest, -6});
  }
}

TEST_CASE("integer faults: an integer to a negative run-time power is an error on every path",
          "[runtime][integers]") {
  Arguments args;
  args.arrays.emplace("a", ints({3, 2, 5, 4}));
  args.arrays.emplace("e", ints({2, -1, 0, 1}));
  args.arrays.emplace("p", ints({0, 0, 0, 0}));
  // Every path leads with a source line (user30 F6: the compiled paths named the SDFG state
  // only): the embedded backend the line of `a ** e`, the compiled ones their tasklet's (the
  // call `power(a, e, out=p)` the SDFG's debuginfo gives it), then the state and tasklet.
  for (const auto& r : test::run_three_ways(load(kOps, "int_power"), args)) {
    INFO(r.path << ": " << r.error);
    const std::string what = ": integer power 2 ** -1: an integer to a negative integer power";
    const auto at = r.error.find(what);
    REQUIRE(at != std::string::npos);
    const auto file = r.error.rfind("test.py:", at);
    REQUIRE(file != std::string::npos);
    const std::string line = r.error.substr(file + 8, at - file - 8);  // "L:C"
    CHECK(line.find_first_not_of("0123456789:") == std::string::npos);
    CHECK(std::count(line.begin(), line.end(), ':') == 1);
    if (r.path != "embedded") {
      CHECK(r.error.find("\n  in the SDFG: state '", at) != std::string::npos);
      CHECK(r.error.find("tasklet '", at) != std::string::npos);
    }
  }
  // Without the negative exponent: 3**2, 2**3, 5**0, 4**1.
  args.arrays.at("e") = ints({2, 3, 0, 1});
  for (const auto& r : test::run_three_ways(load(kOps, "int_power"), args)) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    CHECK(values(r.args.arrays.at("p")) == std::vector<double>{9, 8, 1, 4});
  }
}
