// The domain of a scan operator call: gt4py's scan reads every argument at every point of its
// domain, also one its body never uses, so an argument shifted out of its field bounds the call
// (and a level outside it is an error), on every backend path alike. A field operator call is
// inlined (gt4py calls it as a Python function): an argument its body never uses bounds nothing.
// Regression: fuzzer seed 9002, programs 900, 2401 and 2992 (the cpu paths never read the unused
// argument and ran; the embedded backend refused).
#include "embedded_test_util.h"
#include "three_ways.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kOperators = R"(
IK = Field[[I, K], float64]

@gtx.scan_operator(axis=K, forward=True, init=0.0)
def acc(c: float64, x: float64, y: float64) -> float64:
    return c + y

@gtx.scan_operator(axis=K, forward=True, init=0.0)
def acc_if(c: float64, x: float64, y: float64) -> float64:
    return c + y if y > -100.0 else c

@gtx.scan_operator(axis=K, forward=True, init=0.0)
def acc_x(c: float64, x: float64) -> float64:
    return c + x

@gtx.field_operator
def unused_i(a: IK, b: IK) -> IK:
    return acc(a(I + 1), b)

@gtx.field_operator
def unused_k(a: IK, b: IK) -> IK:
    return acc(a(K + 1), b)

@gtx.field_operator
def unused_k_if(a: IK, b: IK) -> IK:
    return acc_if(a(K + 1), b)

@gtx.field_operator
def used_k(a: IK, b: IK) -> IK:
    return acc_x(a(K + 1))

@gtx.field_operator
def second(x: IK, y: IK) -> IK:
    return y

@gtx.field_operator
def unused_by_operator(a: IK, b: IK) -> IK:
    return second(a(I + 1), b)

@gtx.field_operator
def partly_defined(a: IK, b: IK) -> IK:
    return acc(concat_where(K >= 1, 1.0, a(I + 1)), b)
)";

/// `@gtx.program def <name>(a, b, o): <operator>(a, b, out=o<domain>)`.
std::string program(const std::string& name, const std::string& op, const std::string& domain = "") {
  return "\n@gtx.program\ndef " + name + "(a: IK, b: IK, o: IK):\n    " + op + "(a, b, out=o" + domain +
         ")\n";
}

const std::string kScans = kOperators + program("scan_i", "unused_i") +
                           program("scan_i_inside", "unused_i", ", domain={I: (0, 2), K: (0, 3)}") +
                           program("scan_k", "unused_k") + program("scan_k_if", "unused_k_if") +
                           program("scan_k_inside", "unused_k", ", domain={I: (0, 3), K: (0, 2)}") +
                           program("scan_used_k", "used_k") + program("operator_i", "unused_by_operator") +
                           program("partly", "partly_defined") +
                           program("partly_inside", "partly_defined", ", domain={I: (0, 2), K: (0, 3)}");

constexpr std::int64_t kNi = 3, kNk = 3;

Arguments scan_args() {
  Arguments args;
  args.arrays.emplace("a", make({kNi, kNk}, [](auto i) { return 100.0 + static_cast<double>(i); }));
  // b[i, k] = i + 10 k
  args.arrays.emplace("b",
                      make({kNi, kNk}, [](auto f) { return static_cast<double>(f / kNk + 10 * (f % kNk)); }));
  args.arrays.emplace("o", full({kNi, kNk}, -1.0));
  return args;
}

/// o[i, k] of acc over b: the running sum of b[i, 0..k] (exact in binary).
double running_sum(std::int64_t i, std::int64_t k) {
  double s = 0;
  for (std::int64_t l = 0; l <= k; ++l) s += static_cast<double>(i + 10 * l);
  return s;
}

/// Checks that every path refused with the given message: the embedded backend's, the lowered
/// SDFG's located bounds check, and after auto_optimize the check of the column map that
/// LoopMapInterchange makes of the scan (it carries no source line).
void check_refused(const std::string& program, const std::string& embedded, const std::string& lowered,
                   const std::string& optimized) {
  for (const auto& r : test::run_three_ways(load(kScans, program), scan_args())) {
    INFO(r.path << ": " << r.error);
    CHECK_THAT(r.error, Catch::Contains(r.path == "embedded" ? embedded
                                        : r.path == "cpu"    ? lowered
                                                             : optimized));
  }
}

}  // namespace

TEST_CASE("scan arguments: an unused argument shifted out of its field is refused on every path",
          "[runtime][scan][bounds]") {
  // acc(a(I + 1), b) never reads its x, but a(I + 1) has no value at I = 2: the call's domain
  // is I in [0, 2), the output's [0, 3).
  check_refused(
      "scan_i",
      "test.py:58:5: the result of 'unused_i' is computed over (I: [0, 2), K: [0, 3)), which does "
      "not cover the output domain of 'o' (I: [0, 3), K: [0, 3))",
      "program 'scan_i' stopped with an error: test.py:30:16: 'a' is read over I: [1, 4), outside its "
      "domain I: [0, 3)\n  in the SDFG: state 'scan0_acc/scan0_acc_level', map 'scan0_acc_map': reads "
      "a[1 .. 3] in dimension 0 of a with shape 3 (shifted reads need a larger input or a smaller "
      "output domain)",
      "map 'scan0_acc_init_columns_map': reads a[0 .. 3] in dimension 0 of a with shape 3");
}

TEST_CASE("scan arguments: an unused argument's level outside its field is refused on every path",
          "[runtime][scan][bounds]") {
  // a(K + 1) has no level K = 2; the scan reads it there. Both ways of running the scan on the
  // embedded backend (all columns a level at a time; a column at a time, for bodies that branch).
  for (const std::string scan : {"acc", "acc_if"}) {
    const bool branches = scan == "acc_if";
    const std::string program = branches ? "scan_k_if" : "scan_k";
    const std::string state = "scan0_" + scan;
    check_refused(
        program,
        std::string(branches ? "test.py:38:12" : "test.py:34:12") + ": scan operator '" + scan +
            "' reads its argument 'x' at K = 2, outside its domain K: [-1, 2) (the scan runs over the output "
            "domain K: [0, 3); shifted reads need a larger input or a smaller output domain)",
        "program '" + program + "' stopped with an error: test.py:" + (branches ? "38:19" : "34:16") +
            ": 'a' is read over K: [3, 4), outside its domain K: [0, 3)\n  in the SDFG: state '" + state +
            "/" + state + "_level', map '" + state +
            "_map': reads a[3 .. 3] in dimension 1 of a "
            "with shape 3 (shifted reads need a larger input or a smaller output domain)",
        "map '" + state + "_init_columns_map': reads a[0 .. 3] in dimension 1 of a with shape 3");
  }
}

TEST_CASE("scan arguments: inside the domain of every argument, an unused one changes nothing",
          "[runtime][scan]") {
  for (const char* program : {"scan_i_inside", "scan_k_inside", "partly_inside"}) {
    INFO(program);
    for (const auto& r : test::run_three_ways(load(kScans, program), scan_args())) {
      INFO(r.path << ": " << r.error);
      REQUIRE(r.error == "");
      const Field& o = r.args.arrays.at("o");
      for (std::int64_t i = 0; i < kNi; ++i)
        for (std::int64_t k = 0; k < kNk; ++k) {
          INFO(i << ", " << k);
          bool inside = std::string(program) == "scan_k_inside" ? k < 2 : i < 2;
          CHECK(at(o, {i, k}) == (inside ? running_sum(i, k) : -1.0));
        }
    }
  }
}

TEST_CASE("scan arguments: a column where an argument is undefined is refused only where it is written",
          "[runtime][scan][concat_where]") {
  // concat_where(K >= 1, 1.0, a(I + 1)) is defined at every I for K >= 1, and at K = 0 only on
  // I in [-1, 2): the column I = 2 has no value from K = 0 on. Over I in [0, 2) (partly_inside,
  // above) the program runs; over the whole field every path refuses the read of a at I = 3.
  for (const auto& r : test::run_three_ways(load(kScans, "partly"), scan_args())) {
    INFO(r.path << ": " << r.error);
    CHECK(r.error != "");
    if (r.path == "embedded")
      CHECK_THAT(r.error,
                 Catch::Contains("test.py:86:5: the result of 'partly_defined' is undefined at (I=2, "
                                 "K=0) of the output 'o'"));
    else
      CHECK_THAT(r.error, Catch::Contains("test.py:54:42: a read of 'a': index 3 along I is outside [0, 3)"));
  }
}

TEST_CASE("scan arguments: a field operator's unused argument bounds nothing", "[runtime][field_operator]") {
  // second(a(I + 1), b) is b: the call is inlined, as gt4py calls a field operator from another
  // (a Python call), so a(I + 1) is never evaluated at I = 2.
  for (const auto& r : test::run_three_ways(load(kScans, "operator_i"), scan_args())) {
    INFO(r.path << ": " << r.error);
    REQUIRE(r.error == "");
    for (std::int64_t i = 0; i < kNi; ++i)
      for (std::int64_t k = 0; k < kNk; ++k)
        CHECK(at(r.args.arrays.at("o"), {i, k}) == static_cast<double>(i + 10 * k));
  }
}

TEST_CASE("scan arguments: a used argument's level outside its field is refused on the embedded backend",
          "[runtime][scan][bounds]") {
  // Regression: all columns a level at a time, the embedded backend read a(K + 1) at K = 2 past
  // the level it has (whatever lay there) and ran. Every path refuses now.
  for (const auto& r : test::run_three_ways(load(kScans, "scan_used_k"), scan_args())) {
    INFO(r.path << ": " << r.error);
    CHECK(r.error != "");
    if (r.path == "embedded")
      CHECK_THAT(r.error,
                 Catch::Contains("scan operator 'acc_x' reads its argument 'x' at K = 2, outside its "
                                 "domain K: [-1, 2)"));
  }
}
