// The embedded backend's scans read every argument at every level of the call's output domain
// along the scan axis (gt4py's column range): a level outside an argument (a shifted read past
// the input's end, an input smaller than the output) is refused with a located error, forward
// and backward, for shifts of 1 and 2, tuple arguments, expressions of shifted fields and
// unused arguments; a column range inside every argument runs.
#include <catch2/catch.hpp>

#include "embedded_test_util.h"

using namespace weir;
using namespace weir::test::embedded;
using runtime::ProgramError;

namespace {

/// "test.py:L:C" of the first `needle` in `body` (loaded after the prelude by `load`).
std::string where_in(const std::string& body, const std::string& needle) {
  std::size_t at = body.find(needle);
  REQUIRE(at != std::string::npos);
  std::size_t line =
      static_cast<std::size_t>(std::count(kPrelude.begin(), kPrelude.end(), '\n')) + 1 +
      static_cast<std::size_t>(std::count(body.begin(), body.begin() + static_cast<long>(at), '\n'));
  std::size_t start = body.rfind('\n', at);
  std::size_t col = at - (start == std::string::npos ? 0 : start + 1) + 1;
  return "test.py:" + std::to_string(line) + ":" + std::to_string(col);
}

/// a[i, k] = 10^i * (k + 1) over (2, nk).
Field ramp(std::int64_t nk) {
  return make({2, nk},
              [nk](std::int64_t f) { return (f / nk ? 10.0 : 1.0) * static_cast<double>(f % nk + 1); });
}

/// Runs `name` of `body` with a = ramp(nk) and each of `outs` over (2, nk) filled with -1, and
/// checks that it is refused with exactly `message` and that no output changed.
void check_refused(const std::string& body, const std::string& name, std::int64_t nk,
                   const std::vector<std::string>& outs, const std::string& message) {
  auto p = load(body, name);
  Arguments args;
  args.arrays.emplace("a", ramp(nk));
  for (const auto& o : outs) args.arrays.emplace(o, full({2, nk}, -1.0));
  CHECK_THROWS_AS(run_embedded(p, args), ProgramError);
  CHECK_THROWS_WITH(run_embedded(p, args), message);
  for (const auto& o : outs)
    for (std::int64_t i = 0; i < 2 * nk; ++i) CHECK(args.arrays.at(o).value_as_double(i) == -1.0);
}

const std::string kShifted = "shifted reads need a larger input or a smaller output domain)";

}  // namespace

TEST_CASE("embedded: a backward scan over the whole K range refuses an argument shifted by K + 1",
          "[runtime][embedded][scan]") {
  // Fuzzer seed 9002, program 4220: the scan ran and read a at K = 4 (past its end).
  std::string body = R"(
@gtx.scan_operator(axis=K, forward=False, init=(0.5, -1.0))
def s(carry: tuple[float64, float64], x: float64, y: float64) -> tuple[float64, float64]:
    c0, c1 = carry
    return -0.125 * c0 + 1.75 * y, -0.375 * c1 + 0.125 * c0

@gtx.field_operator
def f(a: Field[Dims[I, K], float64]) -> tuple[Field[Dims[I, K], float64], Field[Dims[I, K], float64]]:
    return s(a, a(K + 1))

@gtx.program
def prog(a: Field[Dims[I, K], float64], o0: Field[Dims[I, K], float64], o1: Field[Dims[I, K], float64]):
    f(a, out=(o0, o1), domain={I: (0, 2), K: (0, 4)})
)";
  check_refused(
      body, "prog", 4, {"o0", "o1"},
      where_in(body, "s(a, a(K + 1))") +
          ": scan operator 's' reads its argument 'y' at K = 3, outside its domain K: [-1, 3) (the scan "
          "runs over the output domain K: [0, 4); " +
          kShifted);
}

TEST_CASE("embedded: scans refuse every level outside an argument, forward and backward, by 1 and 2",
          "[runtime][embedded][scan]") {
  const std::string ops = R"(
@gtx.scan_operator(axis=K, forward=True, init=0.0)
def up(c: float64, x: float64) -> float64:
    return c + x

@gtx.scan_operator(axis=K, forward=False, init=0.0)
def down(c: float64, x: float64) -> float64:
    return 0.5 * c + x

@gtx.scan_operator(axis=K, forward=True, init=0.0)
def branchy(c: float64, x: float64) -> float64:
    return c + x if x > 0.0 else c

@gtx.scan_operator(axis=K, forward=True, init=0.0)
def pair(c: float64, x: tuple[float64, float64]) -> float64:
    x0, x1 = x
    return c + x0 * x1

@gtx.scan_operator(axis=K, forward=False, init=0.0)
def unused(c: float64, x: float64, y: float64) -> float64:
    return c + x
)";
  // One field operator `f` with the body `expr`, run over K in [lo, hi) of a (2, 5) field.
  auto program = [&](const std::string& expr, int lo, int hi) {
    return ops +
           "@gtx.field_operator\n"
           "def f(a: Field[Dims[I, K], float64]) -> Field[Dims[I, K], float64]:\n"
           "    return " +
           expr +
           "\n"
           "@gtx.program\n"
           "def prog(a: Field[Dims[I, K], float64], o: Field[Dims[I, K], float64]):\n"
           "    f(a, out=o, domain={I: (0, 2), K: (" +
           std::to_string(lo) + ", " + std::to_string(hi) + ")})\n";
  };
  struct Case {
    std::string expr;
    int lo, hi;
    std::string message;  // after the location
  };
  const std::vector<Case> cases = {
      // Forward from K = 0: a(K - 1) starts at 1.
      {"up(a(K - 1))", 0, 5,
       "scan operator 'up' reads its argument 'x' at K = 0, outside its domain K: [1, 6) (the scan runs over "
       "the output domain K: [0, 5); " +
           kShifted},
      // Forward, the top of a(K + 2) is 3.
      {"up(a(K + 2))", 1, 4,
       "scan operator 'up' reads its argument 'x' at K = 3, outside its domain K: [-2, 3) (the scan runs "
       "over "
       "the output domain K: [1, 4); " +
           kShifted},
      // Backward from K = 4: a(K + 2) ends at 3.
      {"down(a(K + 2))", 0, 5,
       "scan operator 'down' reads its argument 'x' at K = 4, outside its domain K: [-2, 3) (the scan runs "
       "over the output domain K: [0, 5); " +
           kShifted},
      // Backward inside the top, then past the bottom of a(K - 2).
      {"down(a(K - 2))", 1, 5,
       "scan operator 'down' reads its argument 'x' at K = 1, outside its domain K: [2, 7) (the scan runs "
       "over "
       "the output domain K: [1, 5); " +
           kShifted},
      // An expression of shifted fields: a(K + 1) * a is over K: [0, 4).
      {"down(2.0 * a(K + 1) * a + 1.0)", 0, 5,
       "scan operator 'down' reads its argument 'x' at K = 4, outside its domain K: [0, 4) (the scan runs "
       "over "
       "the output domain K: [0, 5); an input is smaller than the output domain, or a shifted read reaches "
       "past "
       "its end; pass larger inputs or a smaller output domain)"},
      // Column by column (data-dependent branches).
      {"branchy(a(K - 1))", 0, 5,
       "scan operator 'branchy' reads its argument 'x' at K = 0, outside its domain K: [1, 6) (the scan runs "
       "over the output domain K: [0, 5); " +
           kShifted},
      // A tuple argument: its second element is shifted.
      {"pair((a, a(K + 1)))", 0, 5,
       "scan operator 'pair' reads its argument 'x' (tuple element 1) at K = 4, outside its domain K: [-1, "
       "4) "
       "(the scan runs over the output domain K: [0, 5); " +
           kShifted},
      // gt4py reads every argument at every level, used by the body or not.
      {"unused(a, a(K + 1))", 0, 5,
       "scan operator 'unused' reads its argument 'y' at K = 4, outside its domain K: [-1, 4) (the scan runs "
       "over the output domain K: [0, 5); " +
           kShifted},
  };
  for (const Case& c : cases) {
    INFO(c.expr << " over K: [" << c.lo << ", " << c.hi << ")");
    std::string body = program(c.expr, c.lo, c.hi);
    check_refused(body, "prog", 5, {"o"}, where_in(body, c.expr) + ": " + c.message);
  }
}

TEST_CASE("embedded: a scan over an output smaller than its input is refused", "[runtime][embedded][scan]") {
  // o has 5 levels, a only 4: the scan over all of o would read a at K = 4.
  auto p = load(R"(
@gtx.scan_operator(axis=K, forward=True, init=0.0)
def up(c: float64, x: float64) -> float64:
    return c + x

@gtx.program
def prog(a: Field[Dims[I, K], float64], o: Field[Dims[I, K], float64]):
    up(a, out=o)
)",
                "prog");
  Arguments args;
  args.arrays.emplace("a", ramp(4));
  args.arrays.emplace("o", full({2, 5}, -1.0));
  CHECK_THROWS_WITH(
      run_embedded(p, args),
      Catch::Contains("scan operator 'up' reads its argument 'x' at K = 4, outside its domain K: "
                      "[0, 4) (the scan runs over the output domain K: [0, 5); an input is smaller "
                      "than the output domain"));
  for (std::int64_t i = 0; i < 10; ++i) CHECK(args.arrays.at("o").value_as_double(i) == -1.0);
}

TEST_CASE("embedded: scans over a part of K that keeps shifted reads inside run",
          "[runtime][embedded][scan]") {
  auto p = load(R"(
@gtx.scan_operator(axis=K, forward=False, init=0.0)
def down(c: float64, x: float64) -> float64:
    return 0.5 * c + x

@gtx.scan_operator(axis=K, forward=True, init=(0.0, 0.0))
def both(carry: tuple[float64, float64], x: float64, y: float64) -> tuple[float64, float64]:
    c0, c1 = carry
    return c0 + x, c1 - y

@gtx.scan_operator(axis=K, forward=True, init=0.0)
def up(c: float64, x: float64) -> float64:
    return c + x

@gtx.field_operator
def fd(a: Field[Dims[I, K], float64]) -> Field[Dims[I, K], float64]:
    return down(a(K + 1))

@gtx.field_operator
def fb(a: Field[Dims[I, K], float64]) -> tuple[Field[Dims[I, K], float64], Field[Dims[I, K], float64]]:
    return both(a(K - 1), a(K + 1))

@gtx.field_operator
def fu(a: Field[Dims[I, K], float64]) -> Field[Dims[I, K], float64]:
    return up(a(K - 2))

@gtx.program
def prog(a: Field[Dims[I, K], float64], od: Field[Dims[I, K], float64], o0: Field[Dims[I, K], float64],
         o1: Field[Dims[I, K], float64], ou: Field[Dims[I, K], float64], oe: Field[Dims[I, K], float64]):
    fd(a, out=od, domain={I: (0, 2), K: (0, 3)})
    fb(a, out=(o0, o1), domain={I: (0, 2), K: (1, 3)})
    fu(a, out=ou, domain={I: (0, 2), K: (2, 4)})
    fd(a, out=oe, domain={I: (0, 2), K: (4, 4)})
)",
                "prog");
  Arguments args;
  args.arrays.emplace("a", ramp(4));  // [[1, 2, 3, 4], [10, 20, 30, 40]]
  for (const char* o : {"od", "o0", "o1", "ou", "oe"}) args.arrays.emplace(o, full({2, 4}, -1.0));
  run_embedded(p, args);
  auto values = [&](const char* o) {
    std::vector<double> v;
    for (std::int64_t i = 0; i < 8; ++i) v.push_back(args.arrays.at(o).value_as_double(i));
    return v;
  };
  // Backward from K = 2 over a(K + 1): 4; 0.5 * 4 + 3 = 5; 0.5 * 5 + 2 = 4.5 (and 10 times that).
  CHECK(values("od") == std::vector<double>{4.5, 5, 4, -1, 45, 50, 40, -1});
  // Forward from K = 1: (a[0], -a[2]) = (1, -3), then (1 + a[1], -3 - a[3]) = (3, -7).
  CHECK(values("o0") == std::vector<double>{-1, 1, 3, -1, -1, 10, 30, -1});
  CHECK(values("o1") == std::vector<double>{-1, -3, -7, -1, -1, -30, -70, -1});
  // Forward from K = 2 over a(K - 2): a[0] = 1, then 1 + a[1] = 3.
  CHECK(values("ou") == std::vector<double>{-1, -1, 1, 3, -1, -1, 10, 30});
  // An empty column range reads nothing and writes nothing.
  CHECK(values("oe") == std::vector<double>(8, -1.0));
}
