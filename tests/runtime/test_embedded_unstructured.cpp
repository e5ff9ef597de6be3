// The embedded backend on unstructured programs (gathers through connectivity tables with -1
// entries, neighbour reductions, local indexing) and scan operators (forward, backward, tuple
// carries: the Thomas solve of examples/cartesian/vertical_solver.py), against C++ loops.
#include <algorithm>
#include <limits>

#include "embedded_test_util.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

// 5 edges over 4 vertices, at most 3 "vertices" per edge; -1 = no neighbour.
const std::vector<std::vector<int>> kE2V = {{0, 1, -1}, {1, 2, 3}, {3, -1, -1}, {2, 0, 1}, {-1, -1, -1}};

Field e2v_table(ScalarType dtype) {
  return make(
      {5, 3}, [](auto i) { return kE2V[static_cast<std::size_t>(i / 3)][static_cast<std::size_t>(i % 3)]; },
      dtype);
}

const char* kUnstructured = R"(
VK = Field[Dims[V, K], float64]
EK = Field[Dims[E, K], float64]

@gtx.field_operator
def reductions(pv: VK, w: Field[Dims[E, E2VDim], float64]) -> tuple[EK, EK, EK, EK]:
    nb = pv(E2V)
    return neighbor_sum(nb * w, axis=E2VDim), max_over(nb, axis=E2VDim), min_over(nb, axis=E2VDim), nb[E2VDim(0)]

@gtx.program
def prog(pv: VK, w: Field[Dims[E, E2VDim], float64], s: EK, mx: EK, mn: EK, first: EK):
    reductions(pv, w, out=(s, mx, mn, first[0:2, :]))

@gtx.field_operator
def second(pv: VK) -> EK:
    return pv(E2V[1])

@gtx.program
def second_prog(pv: VK, out: EK, ne: int32):
    second(pv, out=out, domain={E: (0, ne)})
)";

}  // namespace

TEST_CASE("embedded: gathers and neighbour reductions skip -1 entries", "[runtime][embedded]") {
  for (ScalarType table_type : {ScalarType::Int32, ScalarType::Int64}) {
    auto p = load(kUnstructured, "prog");
    const std::int64_t nv = 4, ne = 5, nk = 3;
    Arguments args;
    args.arrays.emplace("pv", make({nv, nk}, [](auto i) { return wave(i); }));
    args.arrays.emplace("w", make({ne, 3}, [](auto i) { return 1.0 + 0.5 * static_cast<double>(i); }));
    args.arrays.emplace("E2V", e2v_table(table_type));
    for (const char* o : {"s", "mx", "mn", "first"}) args.arrays.emplace(o, full({ne, nk}, 9.0));
    run_embedded(p, args);
    const Field &pv = args.arrays.at("pv"), &w = args.arrays.at("w");
    for (std::int64_t e = 0; e < ne; ++e)
      for (std::int64_t k = 0; k < nk; ++k) {
        double sum = 0, mx = -std::numeric_limits<double>::infinity(),
               mn = std::numeric_limits<double>::infinity();
        for (std::int64_t j = 0; j < 3; ++j) {
          int v = kE2V[static_cast<std::size_t>(e)][static_cast<std::size_t>(j)];
          if (v < 0) continue;
          double x = at(pv, {v, k});
          sum += x * at(w, {e, j});
          mx = std::max(mx, x);
          mn = std::min(mn, x);
        }
        INFO("edge " << e << " level " << k);
        CHECK(close(at(args.arrays.at("s"), {e, k}), sum));
        CHECK(at(args.arrays.at("mx"), {e, k}) == mx);
        CHECK(at(args.arrays.at("mn"), {e, k}) == mn);
        CHECK(at(args.arrays.at("first"), {e, k}) ==
              (e < 2 ? at(pv, {kE2V[static_cast<std::size_t>(e)][0], k}) : 9.0));
      }
  }
}

TEST_CASE("embedded: a -1 neighbour written to an output is an error", "[runtime][embedded]") {
  auto p = load(kUnstructured, "second_prog");
  Arguments args;
  args.arrays.emplace("pv", make({4, 2}, [](auto i) { return wave(i); }));
  args.arrays.emplace("E2V", e2v_table(ScalarType::Int32));
  args.arrays.emplace("out", full({5, 2}, 0.0));
  args.values["ne"] = std::int64_t{2};  // edges 0 and 1 have a second vertex
  run_embedded(p, args);
  CHECK(at(args.arrays.at("out"), {0, 1}) == at(args.arrays.at("pv"), {1, 1}));
  CHECK(at(args.arrays.at("out"), {1, 0}) == at(args.arrays.at("pv"), {2, 0}));
  CHECK(at(args.arrays.at("out"), {2, 0}) == 0.0);
  args.values["ne"] = std::int64_t{3};  // edge 2 has none
  // Said at the shift, with the table entry (E2V[2, 1] = -1) and the call.
  CHECK_THROWS_WITH(
      run_embedded(p, args),
      "test.py:28:12: a read of 'pv' through E2V[2, 1], which is -1 (a missing neighbour, which "
      "has no value to read), leaves the result of 'second' undefined at (E=2, K=0) of the output "
      "'out' (the call at test.py:32:5)");
}

TEST_CASE("embedded: connectivity errors", "[runtime][embedded]") {
  auto p = load(kUnstructured, "second_prog");
  Arguments args;
  args.arrays.emplace("pv", make({4, 2}, [](auto i) { return wave(i); }));
  args.arrays.emplace("out", full({5, 2}, 0.0));
  args.values["ne"] = std::int64_t{2};
  CHECK_THROWS_WITH(
      run_embedded(p, args),
      "missing connectivity table 'E2V' (an int32 or int64 array of shape (n_E, max_neighbours))");
  args.arrays.emplace("E2V", full({5, 3}, 0.0));
  CHECK_THROWS_WITH(run_embedded(p, args),
                    Catch::Contains("connectivity table 'E2V': expected an int32 or int64 array"));
  args.arrays.at("E2V") = make(
      {5, 3}, [](auto i) { return i == 1 ? 7 : 0; }, ScalarType::Int32);
  CHECK_THROWS_WITH(
      run_embedded(p, args),
      Catch::Contains("connectivity 'E2V' entry [0, 1] is 7, outside the shifted field's range V: [0, 4)"));
  Signature sig = field_view_signature(*p.definition);
  REQUIRE(sig.find("E2V"));
  CHECK(sig.find("E2V")->describe() == "int32 array of shape (__E2V_E_size, __E2V_E2VDim_size)");
  auto conns = connectivities_of(*p.definition);
  REQUIRE(conns.size() == 1);
  CHECK((conns[0].name == "E2V" && conns[0].from == "E" && conns[0].to == "V" && conns[0].local == "E2VDim"));
}

TEST_CASE("embedded: nabla example against loops", "[runtime][embedded]") {
  auto p = load_field_view_program(std::string(WEIR_SOURCE_DIR) + "/examples/unstructured/nabla.py",
                                   "nabla_program");
  // A small mesh: 4 vertices, 5 edges; V2E rows padded with -1.
  const std::vector<std::vector<int>> e2v = {{0, 1}, {1, 2}, {2, 3}, {3, 0}, {0, 2}};
  const std::vector<std::vector<int>> v2e = {{0, 3, 4}, {0, 1, -1}, {1, 2, 4}, {2, 3, -1}};
  const std::int64_t nv = 4, ne = 5, nk = 2;
  Arguments args;
  args.arrays.emplace("pp", make({nv, nk}, [](auto i) { return wave(i); }));
  args.arrays.emplace("S_MXX", make({ne}, [](auto i) { return wave(i, 1); }));
  args.arrays.emplace("S_MYY", make({ne}, [](auto i) { return wave(i, 2); }));
  args.arrays.emplace("sign", make({nv, 3}, [](auto i) { return i % 2 ? 1.0 : -1.0; }));
  args.arrays.emplace("vol", make({nv}, [](auto i) { return 1.0 + static_cast<double>(i); }));
  args.arrays.emplace(
      "E2V",
      make(
          {ne, 2},
          [&](auto i) { return e2v[static_cast<std::size_t>(i / 2)][static_cast<std::size_t>(i % 2)]; },
          ScalarType::Int32));
  args.arrays.emplace(
      "V2E",
      make(
          {nv, 3},
          [&](auto i) { return v2e[static_cast<std::size_t>(i / 3)][static_cast<std::size_t>(i % 3)]; },
          ScalarType::Int64));
  args.arrays.emplace("out_x", full({nv, nk}, 0.0));
  args.arrays.emplace("out_y", full({nv, nk}, 0.0));
  run_embedded(p, args);
  auto A = [&](const char* n, std::vector<std::int64_t> idx) { return at(args.arrays.at(n), idx); };
  for (std::int64_t v = 0; v < nv; ++v)
    for (std::int64_t k = 0; k < nk; ++k) {
      double sx = 0, sy = 0;
      for (std::int64_t j = 0; j < 3; ++j) {
        int e = v2e[static_cast<std::size_t>(v)][static_cast<std::size_t>(j)];
        if (e < 0) continue;
        double zavg = 0.5 * (A("pp", {e2v[static_cast<std::size_t>(e)][0], k}) +
                             A("pp", {e2v[static_cast<std::size_t>(e)][1], k}));
        sx += A("S_MXX", {e}) * zavg * A("sign", {v, j});
        sy += A("S_MYY", {e}) * zavg * A("sign", {v, j});
      }
      CHECK(close(A("out_x", {v, k}), sx / A("vol", {v})));
      CHECK(close(A("out_y", {v, k}), sy / A("vol", {v})));
    }
}

TEST_CASE("embedded: scans forward and backward with init", "[runtime][embedded]") {
  auto p = load(R"(
IK = Field[Dims[I, K], float64]

@gtx.scan_operator(axis=K, forward=True, init=1.0)
def cumsum(acc: float64, x: float64) -> float64:
    return acc + x

@gtx.scan_operator(axis=K, forward=False, init=0.0)
def from_top(acc: float64, x: float64, y: float64) -> float64:
    return 0.5 * acc + x * y

@gtx.field_operator
def both(f: IK, g: IK) -> tuple[IK, IK]:
    return cumsum(f), from_top(f, g(K + 1))

@gtx.program
def prog(f: IK, g: IK, up: IK, down: IK):
    both(f, g, out=(up[:, 0:4], down[:, 0:4]))
)",
                "prog");
  const std::int64_t ni = 3, nk = 5;
  Arguments args;
  args.arrays.emplace("f", make({ni, nk}, [](auto i) { return wave(i); }));
  args.arrays.emplace("g", make({ni, nk}, [](auto i) { return wave(i, 7); }));
  args.arrays.emplace("up", full({ni, nk}, 0.0));
  args.arrays.emplace("down", full({ni, nk}, 0.0));
  run_embedded(p, args);
  const Field &f = args.arrays.at("f"), &g = args.arrays.at("g");
  for (std::int64_t i = 0; i < ni; ++i) {
    double acc = 1.0;
    for (std::int64_t k = 0; k < 4; ++k) {
      acc += at(f, {i, k});
      CHECK(close(at(args.arrays.at("up"), {i, k}), acc));
    }
    // The backward scan's domain is K: [0, 4) (g(K + 1) ends one level early), so it starts at k = 3.
    double d = 0.0;
    for (std::int64_t k = 3; k >= 0; --k) {
      d = 0.5 * d + at(f, {i, k}) * at(g, {i, k + 1});
      CHECK(close(at(args.arrays.at("down"), {i, k}), d));
    }
    CHECK(at(args.arrays.at("up"), {i, 4}) == 0.0);
  }
}

TEST_CASE("embedded: the Thomas solve of vertical_solver.py matches a C++ Thomas loop",
          "[runtime][embedded]") {
  auto p = load_field_view_program(std::string(WEIR_SOURCE_DIR) + "/examples/cartesian/vertical_solver.py",
                                   "vertical_solver");
  const std::int64_t ni = 3, nj = 2, nk = 7;
  std::vector<std::int64_t> shape = {ni, nj, nk};
  Arguments args;
  args.arrays.emplace("a", make(shape, [](auto i) { return -1.0 + 0.1 * wave(i); }));
  args.arrays.emplace("b", make(shape, [](auto i) { return 4.0 + wave(i, 1); }));
  args.arrays.emplace("c", make(shape, [](auto i) { return -1.0 + 0.1 * wave(i, 2); }));
  args.arrays.emplace("d", make(shape, [](auto i) { return wave(i, 3); }));
  args.arrays.emplace("x", full(shape, 0.0));
  args.values["nk"] = nk;
  run_embedded(p, args);
  for (std::int64_t i = 0; i < ni; ++i)
    for (std::int64_t j = 0; j < nj; ++j) {
      std::vector<double> cp(nk), dp(nk), x(nk);
      auto A = [&](const char* n, std::int64_t k) { return at(args.arrays.at(n), {i, j, k}); };
      for (std::int64_t k = 0; k < nk; ++k) {
        double cprev = k ? cp[k - 1] : 0.0, dprev = k ? dp[k - 1] : 0.0;
        double den = A("b", k) - A("a", k) * cprev;
        cp[k] = A("c", k) / den;
        dp[k] = (A("d", k) - A("a", k) * dprev) / den;
      }
      for (std::int64_t k = nk - 1; k >= 0; --k) x[k] = dp[k] - cp[k] * (k + 1 < nk ? x[k + 1] : 0.0);
      for (std::int64_t k = 0; k < nk; ++k) {
        INFO(i << ", " << j << ", " << k);
        CHECK(close(A("x", k), x[static_cast<std::size_t>(k)]));
      }
    }
}

TEST_CASE("embedded: a scan operator called by a program, with a scalar argument", "[runtime][embedded]") {
  auto p = load(R"(
@gtx.scan_operator(axis=K, forward=False, init=(0.0, 1.0))
def damp(carry: tuple[float64, float64], x: float64, r: float64) -> tuple[float64, float64]:
    s, w = carry
    return s * r + x, w * r

@gtx.program
def prog(f: Field[[I, K], float64], r: float64, s: Field[[I, K], float64], w: Field[[I, K], float64]):
    damp(f, r, out=(s, w))
)",
                "prog");
  const std::int64_t ni = 2, nk = 4;
  Arguments args;
  args.arrays.emplace("f", make({ni, nk}, [](auto i) { return wave(i); }));
  args.arrays.emplace("s", full({ni, nk}, 0.0));
  args.arrays.emplace("w", full({ni, nk}, 0.0));
  args.values["r"] = 0.5;
  run_embedded(p, args);
  for (std::int64_t i = 0; i < ni; ++i) {
    double s = 0.0, w = 1.0;
    for (std::int64_t k = nk - 1; k >= 0; --k) {
      s = s * 0.5 + at(args.arrays.at("f"), {i, k});
      w = w * 0.5;
      CHECK(close(at(args.arrays.at("s"), {i, k}), s));
      CHECK(at(args.arrays.at("w"), {i, k}) == w);
    }
  }
}

TEST_CASE("embedded: a scan with data-dependent branches runs column by column", "[runtime][embedded]") {
  auto p = load(R"(
@gtx.scan_operator(axis=K, forward=True, init=0.0)
def clipped(acc: float64, x: float64) -> float64:
    if x > 0.0:
        s = acc + x
    else:
        s = acc * 0.5
    return s if s < 1.5 else 1.5

@gtx.program
def prog(f: Field[[I, K], float64], out: Field[[I, K], float64]):
    clipped(f, out=out)
)",
                "prog");
  const std::int64_t ni = 3, nk = 8;
  Arguments args;
  args.arrays.emplace("f", make({ni, nk}, [](auto i) { return wave(i, 1); }));
  args.arrays.emplace("out", full({ni, nk}, 0.0));
  run_embedded(p, args);
  for (std::int64_t i = 0; i < ni; ++i) {
    double acc = 0.0;
    for (std::int64_t k = 0; k < nk; ++k) {
      double x = at(args.arrays.at("f"), {i, k});
      double s = x > 0.0 ? acc + x : acc * 0.5;
      acc = s < 1.5 ? s : 1.5;
      CHECK(at(args.arrays.at("out"), {i, k}) == acc);
    }
  }
}

TEST_CASE("embedded: a local field must be as wide as its connectivity table, as on compiled backends",
          "[runtime][embedded]") {
  // The table has 3 columns; a weight field over E2VDim of 4 or 2 columns is refused (the
  // compiled backends fix the neighbour count from the table), not cut to the first 3.
  auto p = load(kUnstructured, "prog");
  for (std::int64_t width : {4, 2}) {
    Arguments args;
    args.arrays.emplace("pv", make({4, 3}, [](auto i) { return wave(i); }));
    args.arrays.emplace("w", full({5, width}, 1.0));
    args.arrays.emplace("E2V", e2v_table(ScalarType::Int32));
    for (const char* o : {"s", "mx", "mn", "first"}) args.arrays.emplace(o, full({5, 3}, 9.0));
    const std::string message = "argument 'w': expected float64 array of shape (5, 3), got float64 (5, " +
                                std::to_string(width) +
                                ")\n  'w' is over E2VDim, which has one entry per column of connectivity "
                                "table 'E2V' (3)";
    CHECK_THROWS_WITH(run_embedded(p, args), message);
    CHECK_THROWS_WITH(check_embedded_arguments(p, args), message);
    CHECK(at(args.arrays.at("s"), {0, 0}) == 9.0);  // nothing written
  }
}
