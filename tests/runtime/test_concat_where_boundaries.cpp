// concat_where at the boundaries of the domain, over the whole range of every dimension and on
// both sides: the branch not taken reads outside the field there, so it must not read at all
// (embedded: it is not evaluated; cpu: its shifted reads are clamped into the container, with
// bounds checks on). Values against hand-written loops; embedded, cpu and cpu+auto-optimize.
// Regression: the cpu backend failed its bounds check on concat_where(K == 0, 0.0, u - u(K - 1)).
#include "embedded_test_util.h"
#include "three_ways.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kColumns = R"(
KF = Field[[K], float64]

@gtx.field_operator
def diff_down(u: KF) -> KF:
    return concat_where(K == 0, 0.0, u - u(K - 1))

@gtx.field_operator
def diff_up(u: KF, n: int32) -> KF:
    return concat_where(K == n - 1, 0.0, u(K + 1) - u)

@gtx.field_operator
def both_sides(u: KF) -> KF:
    return concat_where(K < 2, u(K + 2), u(K - 2))

@gtx.field_operator
def top(u: KF, n: int32) -> KF:
    return concat_where(K >= n - 1, u(K - 1), u(K + 1))

@gtx.field_operator
def nested(u: KF, n: int32) -> KF:
    return concat_where(K == 0, u(K + 1), concat_where(K == n - 1, u(K - 1), 0.5 * (u(K + 1) + u(K - 1))))

@gtx.field_operator
def through_a_name(u: KF) -> KF:
    d = u - u(K - 1)
    return 2.0 * concat_where(K != 0, d, u)

@gtx.program
def columns(u: KF, n: int32, o1: KF, o2: KF, o3: KF, o4: KF, o5: KF, o6: KF):
    diff_down(u, out=o1)
    diff_up(u, n, out=o2)
    both_sides(u, out=o3)
    top(u, n, out=o4)
    nested(u, n, out=o5)
    through_a_name(u, out=o6)
)";

const char* kPlanes = R"(
IJK = Field[[I, J, K], float64]

@gtx.field_operator
def west(f: IJK) -> IJK:
    return concat_where(I == 0, f(I + 1), f(I - 1))

@gtx.field_operator
def south(f: IJK, nj: int32) -> IJK:
    return concat_where(J < nj - 1, f(J + 1), f(J - 1) + f)

@gtx.field_operator
def corner(f: IJK) -> IJK:
    return concat_where((I == 0) | (K == 0), -1.0, f(I - 1, K - 1))

@gtx.program
def planes(f: IJK, nj: int32, o1: IJK, o2: IJK, o3: IJK):
    west(f, out=o1)
    south(f, nj, out=o2)
    corner(f, out=o3)
)";

void require_ok(const test::PathResult& r) {
  INFO(r.path);
  REQUIRE(r.error == "");
}

}  // namespace

TEST_CASE("concat_where: reads beyond both ends of K are never made, on every backend path",
          "[runtime][concat_where][boundaries]") {
  auto p = load(kColumns, "columns");
  REQUIRE(p.options.bounds_checks);  // the cpu paths run with bounds checks on
  const std::int64_t n = 6;
  Arguments args;
  auto u = [](std::int64_t k) { return 1.0 + static_cast<double>(k * k) * 0.5; };
  args.arrays.emplace("u", make({n}, u));
  for (const char* o : {"o1", "o2", "o3", "o4", "o5", "o6"}) args.arrays.emplace(o, full({n}, -99.0));
  args.values["n"] = n;
  for (const auto& r : test::run_three_ways(p, args)) {
    require_ok(r);
    INFO(r.path);
    for (std::int64_t k = 0; k < n; ++k) {
      INFO("k = " << k);
      CHECK(at(r.args.arrays.at("o1"), {k}) == (k == 0 ? 0.0 : u(k) - u(k - 1)));
      CHECK(at(r.args.arrays.at("o2"), {k}) == (k == n - 1 ? 0.0 : u(k + 1) - u(k)));
      CHECK(at(r.args.arrays.at("o3"), {k}) == (k < 2 ? u(k + 2) : u(k - 2)));
      CHECK(at(r.args.arrays.at("o4"), {k}) == (k >= n - 1 ? u(k - 1) : u(k + 1)));
      double mid = k == 0 ? u(1) : k == n - 1 ? u(n - 2) : 0.5 * (u(k + 1) + u(k - 1));
      CHECK(at(r.args.arrays.at("o5"), {k}) == mid);
      CHECK(at(r.args.arrays.at("o6"), {k}) == 2.0 * (k != 0 ? u(k) - u(k - 1) : u(k)));
    }
  }
}

TEST_CASE("concat_where: I, J and K boundaries of a 3-D field, conditions joined with |",
          "[runtime][concat_where][boundaries]") {
  auto p = load(kPlanes, "planes");
  const std::int64_t ni = 4, nj = 3, nk = 5;
  Arguments args;
  args.arrays.emplace("f", make({ni, nj, nk}, [](auto i) { return wave(i) * 10; }));
  for (const char* o : {"o1", "o2", "o3"}) args.arrays.emplace(o, full({ni, nj, nk}, -99.0));
  args.values["nj"] = nj;
  const Field& f = args.arrays.at("f");
  for (const auto& r : test::run_three_ways(p, args)) {
    require_ok(r);
    INFO(r.path);
    for (std::int64_t i = 0; i < ni; ++i)
      for (std::int64_t j = 0; j < nj; ++j)
        for (std::int64_t k = 0; k < nk; ++k) {
          INFO(i << ", " << j << ", " << k);
          CHECK(at(r.args.arrays.at("o1"), {i, j, k}) == (i == 0 ? at(f, {1, j, k}) : at(f, {i - 1, j, k})));
          double s = j < nj - 1 ? at(f, {i, j + 1, k}) : at(f, {i, j - 1, k}) + at(f, {i, j, k});
          CHECK(at(r.args.arrays.at("o2"), {i, j, k}) == s);
          CHECK(at(r.args.arrays.at("o3"), {i, j, k}) ==
                (i == 0 || k == 0 ? -1.0 : at(f, {i - 1, j, k - 1})));
        }
  }
}

namespace {

const char* kRegions = R"(
IK = Field[[I, K], float64]

@gtx.field_operator
def never_true(a: IK, b: IK) -> IK:
    return concat_where(I < 0, a(K + 1), b)

@gtx.field_operator
def never_false(a: IK, b: IK) -> IK:
    return concat_where(I >= 0, a, b(K + 1))

@gtx.program
def empty_regions(a: IK, b: IK, o1: IK, o2: IK):
    never_true(a, b, out=o1)
    never_false(a, b, out=o2)

@gtx.field_operator
def reads_past_top(a: IK) -> IK:
    return concat_where(K > 0, a(K + 1), 0.0)

@gtx.program
def taken_reads_outside(a: IK, o1: IK):
    reads_past_top(a, out=o1)
)";

}  // namespace

TEST_CASE("concat_where: a branch whose region is empty is the other branch everywhere",
          "[runtime][concat_where][boundaries]") {
  // gt4py: concat_where(I < 0, x, b) is b over b's domain, whatever x's extent (x = a(K + 1)
  // lacks the last K level). Regression: the embedded backend cut the result to x's K extent
  // (fuzzer seed 2004, program 97).
  const std::int64_t ni = 3, nk = 4;
  Arguments args;
  args.arrays.emplace("a", make({ni, nk}, [](auto i) { return wave(i); }));
  args.arrays.emplace("b", make({ni, nk}, [](auto i) { return wave(i, 3) * 7; }));
  for (const char* o : {"o1", "o2"}) args.arrays.emplace(o, full({ni, nk}, -99.0));
  const Field &a = args.arrays.at("a"), &b = args.arrays.at("b");
  for (const auto& r : test::run_three_ways(load(kRegions, "empty_regions"), args)) {
    require_ok(r);
    INFO(r.path);
    for (std::int64_t i = 0; i < ni; ++i)
      for (std::int64_t k = 0; k < nk; ++k) {
        CHECK(at(r.args.arrays.at("o1"), {i, k}) == at(b, {i, k}));
        CHECK(at(r.args.arrays.at("o2"), {i, k}) == at(a, {i, k}));
      }
  }
}

TEST_CASE("concat_where: a read outside the field in the branch taken is refused on every path",
          "[runtime][concat_where][boundaries]") {
  // At K = nk - 1 the branch K > 0 is taken and reads a(K + 1), outside the field. Regression:
  // the cpu backend clamped that read (a[nk - 1] instead of an error). The part K > 0 of the
  // split domain reads a[2 .. 4] through its outer memlet, refused before the run.
  const std::int64_t ni = 2, nk = 4;
  Arguments args;
  args.arrays.emplace("a", make({ni, nk}, [](auto i) { return wave(i); }));
  args.arrays.emplace("o1", full({ni, nk}, -99.0));
  for (const auto& r : test::run_three_ways(load(kRegions, "taken_reads_outside"), args)) {
    INFO(r.path << ": " << r.error);
    CHECK(r.error != "");
    if (r.path != "embedded")
      CHECK(r.error.find("state 'call_0_reads_past_top_part1', map 'reads_past_top_map': reads a[2 .. 4] in "
                         "dimension 1 of a with shape 4") != std::string::npos);
  }
}

namespace {

const char* kSplitDomains = R"(
KF = Field[[K], float64]
IK = Field[[I, K], float64]

@gtx.field_operator
def nested(u: KF) -> KF:
    return concat_where(K == 0, u(K + 1), concat_where(K == 5, u(K - 1), 0.5 * (u(K + 1) + u(K - 1))))

@gtx.field_operator
def band(f: IK, n: int32) -> IK:
    return concat_where((I > 2) & (I < n), f(I - 3), f)

@gtx.program
def split_domains(u: KF, f: IK, n: int32, o1: KF, g: IK):
    nested(u, out=o1, domain={K: (0, 6)})
    band(f, n, out=g, domain={I: (0, n + 2), K: (0, 4)})
)";

}  // namespace

TEST_CASE(
    "concat_where: split domains (nested, symbol bounds) give the values of each branch, checks on and off",
    "[runtime][concat_where][boundaries]") {
  // The lowering computes each branch only on its part of the domain (one map per part), so
  // the results are the same with bounds checks off.
  for (bool checks : {true, false})
    for (std::int64_t n : {5, 2, 0}) {
      INFO("bounds checks " << checks << ", n = " << n);
      auto p = load(kSplitDomains, "split_domains");
      p.options.bounds_checks = checks;
      const std::int64_t nk = 6, ni = 9;
      Arguments args;
      auto u = [](std::int64_t k) { return 1.0 + static_cast<double>(k * k) * 0.5; };
      args.arrays.emplace("u", make({nk}, u));
      args.arrays.emplace("f", make({ni, 4}, [](auto i) { return wave(i) * 10; }));
      args.arrays.emplace("o1", full({nk}, -99.0));
      args.arrays.emplace("g", full({ni, 4}, -99.0));
      args.values["n"] = n;
      const Field& f = args.arrays.at("f");
      for (const auto& r : test::run_three_ways(p, args)) {
        require_ok(r);
        INFO(r.path);
        for (std::int64_t k = 0; k < nk; ++k) {
          double want = k == 0 ? u(1) : k == 5 ? u(4) : 0.5 * (u(k + 1) + u(k - 1));
          CHECK(at(r.args.arrays.at("o1"), {k}) == want);
        }
        for (std::int64_t i = 0; i < ni; ++i)
          for (std::int64_t k = 0; k < 4; ++k) {
            INFO(i << ", " << k);
            double want = i >= n + 2 ? -99.0 : (i > 2 && i < n) ? at(f, {i - 3, k}) : at(f, {i, k});
            CHECK(at(r.args.arrays.at("g"), {i, k}) == want);
          }
      }
    }
}

namespace {

const char* kBranchDomains = R"(
JK = Field[[J, K], float64]

@gtx.field_operator
def upper_only(nz: JK) -> JK:
    t0 = concat_where(K >= 2, -4.0, nz)
    return t0(J - 3, K + 2)

@gtx.field_operator
def both_read(nz: JK) -> JK:
    t0 = concat_where(K >= 2, -4.0, nz)
    return t0(J - 1, K + 1)

@gtx.field_operator
def lower_outside(nz: JK) -> JK:
    t0 = concat_where(K >= 2, -4.0, nz)
    return t0(J - 3, K + 1)

@gtx.program
def branch_domains(nz: JK, o1: JK, o2: JK):
    upper_only(nz, out=o1)
    both_read(nz, out=o2, domain={J: (1, 4), K: (0, 4)})

@gtx.program
def branch_outside(nz: JK, o1: JK):
    lower_outside(nz, out=o1)
)";

}  // namespace

TEST_CASE("concat_where: a branch's domain bounds the result only where its condition holds",
          "[runtime][concat_where][boundaries]") {
  // gt4py: the result is each branch on its own region. concat_where(K >= 2, -4.0, nz) is
  // defined at every J where K >= 2 (a constant), and on nz's J only where K < 2; read at
  // (J - 3, K + 2) it is -4 everywhere. Regression: the embedded backend bounded J by nz's
  // [0, 4) at every K and refused (fuzzer seed 9002, program 3145).
  const std::int64_t nj = 4, nk = 4;
  Arguments args;
  args.arrays.emplace("nz",
                      make({nj, nk}, [](auto i) { return static_cast<double>(i); }));  // nz[j, k] = 4j + k
  for (const char* o : {"o1", "o2"}) args.arrays.emplace(o, full({nj, nk}, -99.0));
  for (const auto& r : test::run_three_ways(load(kBranchDomains, "branch_domains"), args)) {
    require_ok(r);
    INFO(r.path);
    for (std::int64_t j = 0; j < nj; ++j)
      for (std::int64_t k = 0; k < nk; ++k) {
        INFO(j << ", " << k);
        CHECK(at(r.args.arrays.at("o1"), {j, k}) == -4.0);
        // (J - 1, K + 1) reads nz[j - 1, 1] at K = 0 (J in [1, 4)), the constant above.
        double want = j == 0 ? -99.0 : k == 0 ? static_cast<double>(4 * (j - 1) + 1) : -4.0;
        CHECK(at(r.args.arrays.at("o2"), {j, k}) == want);
      }
  }
}

TEST_CASE("concat_where: a read of a branch outside its field where the branch is taken is refused alike",
          "[runtime][concat_where][boundaries]") {
  // (J - 3, K + 1) reads the nz branch at K = 0, at J - 3 < 0 for J < 3; the cpu backend names
  // that shifted read (line 28, column 37), the embedded backend the call.
  Arguments args;
  args.arrays.emplace("nz", make({4, 4}, [](auto i) { return static_cast<double>(i); }));
  args.arrays.emplace("o1", full({4, 4}, -99.0));
  for (const auto& r : test::run_three_ways(load(kBranchDomains, "branch_outside"), args)) {
    INFO(r.path << ": " << r.error);
    CHECK_THAT(r.error,
               Catch::Contains(r.path == "embedded"
                                   ? "test.py:38:5: the result of 'lower_outside' is undefined at (J=0, "
                                     "K=0) of the output 'o1'"
                                   : "test.py:28:37: 'nz' is read over J: [-3, 1), outside its domain J: "
                                     "[0, 4)"));
  }
}
