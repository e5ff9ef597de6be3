// The embedded backend on Cartesian field-view programs: every construct's values against plain
// C++ loops over the same inputs, domain semantics (shifts move domains, intersections, sliced and
// domain= outputs, the error when the result does not cover the output), argument checks.
#include "embedded_test_util.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kLap = R"(
IJ = Field[Dims[I, J], float64]

@gtx.field_operator
def lap(f: IJ) -> IJ:
    return -4.0 * f + f(I + 1) + f(I - 1) + f(J + 1) + f(J - 1)

@gtx.program
def lap_sliced(f: IJ, out: IJ):
    lap(f, out=out[1:-1, 1:-1])

@gtx.program
def lap_domain(f: IJ, out: IJ, n: int32):
    lap(f, out=out, domain={I: (1, n - 1), J: (1, 3)})

@gtx.program
def lap_whole(f: IJ, out: IJ):
    lap(f, out=out)

@gtx.program
def twice(f: IJ, tmp: IJ, out: IJ):
    lap(f, out=tmp[1:-1, 1:-1])
    lap(tmp, out=out[2:-2, 2:-2])
)";

double lap_ref(const Field& f, std::int64_t i, std::int64_t j) {
  return -4.0 * at(f, {i, j}) + at(f, {i + 1, j}) + at(f, {i - 1, j}) + at(f, {i, j + 1}) + at(f, {i, j - 1});
}

}  // namespace

TEST_CASE("embedded: shifted reads with a sliced out= write the interior only", "[runtime][embedded]") {
  auto p = load(kLap, "lap_sliced");
  Arguments args;
  args.arrays.emplace("f", make({7, 6}, [](auto i) { return wave(i); }));
  args.arrays.emplace("out", full({7, 6}, -7.0));
  std::string input = args.arrays.at("f").checksum();
  run_embedded(p, args);
  const Field& f = args.arrays.at("f");
  const Field& out = args.arrays.at("out");
  for (std::int64_t i = 0; i < 7; ++i)
    for (std::int64_t j = 0; j < 6; ++j) {
      bool inside = i >= 1 && i < 6 && j >= 1 && j < 5;
      INFO(i << ", " << j);
      CHECK(close(at(out, {i, j}), inside ? lap_ref(f, i, j) : -7.0));
    }
  CHECK(args.arrays.at("f").checksum() == input);  // inputs are never modified
}

TEST_CASE("embedded: domain= bounds from scalar arguments", "[runtime][embedded]") {
  auto p = load(kLap, "lap_domain");
  Arguments args;
  args.arrays.emplace("f", make({6, 5}, [](auto i) { return wave(i, 1); }));
  args.arrays.emplace("out", full({6, 5}, 0.0));
  args.values["n"] = std::int64_t{5};
  run_embedded(p, args);
  const Field& f = args.arrays.at("f");
  for (std::int64_t i = 0; i < 6; ++i)
    for (std::int64_t j = 0; j < 5; ++j) {
      bool inside = i >= 1 && i < 4 && j >= 1 && j < 3;
      CHECK(close(at(args.arrays.at("out"), {i, j}), inside ? lap_ref(f, i, j) : 0.0));
    }
}

TEST_CASE("embedded: a later call reads what an earlier call wrote", "[runtime][embedded]") {
  auto p = load(kLap, "twice");
  Arguments args;
  args.arrays.emplace("f", make({8, 9}, [](auto i) { return wave(i, 2); }));
  args.arrays.emplace("tmp", full({8, 9}, 0.0));
  args.arrays.emplace("out", full({8, 9}, 0.0));
  run_embedded(p, args);
  Field tmp = full({8, 9}, 0.0);
  const Field& f = args.arrays.at("f");
  for (std::int64_t i = 1; i < 7; ++i)
    for (std::int64_t j = 1; j < 8; ++j)
      static_cast<double*>(tmp.data())[flat({8, 9}, {i, j})] = lap_ref(f, i, j);
  for (std::int64_t i = 0; i < 8; ++i)
    for (std::int64_t j = 0; j < 9; ++j) {
      CHECK(close(at(args.arrays.at("tmp"), {i, j}), at(tmp, {i, j})));
      bool inside = i >= 2 && i < 6 && j >= 2 && j < 7;
      CHECK(close(at(args.arrays.at("out"), {i, j}), inside ? lap_ref(tmp, i, j) : 0.0));
    }
}

TEST_CASE("embedded: a result that does not cover the output domain is an error", "[runtime][embedded]") {
  auto p = load(kLap, "lap_whole");
  Arguments args;
  args.arrays.emplace("f", make({5, 5}, [](auto i) { return wave(i); }));
  args.arrays.emplace("out", full({5, 5}, 3.0));
  CHECK_THROWS_AS(run_embedded(p, args), ProgramError);
  CHECK_THROWS_WITH(run_embedded(p, args),
                    Catch::Contains("test.py:") &&
                        Catch::Contains("the result of 'lap' is computed over (I: [1, 4), J: [1, 4))") &&
                        Catch::Contains("does not cover the output domain of 'out' (I: [0, 5), J: [0, 5))"));
  // Nothing was written.
  for (std::int64_t i = 0; i < 25; ++i) CHECK(args.arrays.at("out").value_as_double(i) == 3.0);
}

TEST_CASE("embedded: domain= outside the output field is an error", "[runtime][embedded]") {
  auto p = load(kLap, "lap_domain");
  Arguments args;
  args.arrays.emplace("f", make({6, 5}, [](auto i) { return wave(i); }));
  args.arrays.emplace("out", full({6, 5}, 0.0));
  args.values["n"] = std::int64_t{9};
  CHECK_THROWS_WITH(run_embedded(p, args),
                    Catch::Contains("domain= gives I: [1, 8), outside the output field 'out'"));
}

TEST_CASE("embedded: field operators calling operators, shifted intermediates, where",
          "[runtime][embedded]") {
  // hdiff-like: a flux of an intermediate, limited by where, then its divergence.
  auto p = load(R"(
IJ = Field[Dims[I, J], float64]

@gtx.field_operator
def lap(u: IJ) -> IJ:
    return 4.0 * u - (u(I - 1) + u(I + 1) + u(J - 1) + u(J + 1))

@gtx.field_operator
def flux(u: IJ, l: IJ) -> IJ:
    flx = l(I + 1) - l
    return where(flx * (u(I + 1) - u) > 0.0, 0.0, flx)

@gtx.field_operator
def diffuse(u: IJ, c: IJ) -> IJ:
    l = lap(u)
    flx = flux(u, l)
    return u - c * (flx - flx(I - 1))

@gtx.program
def prog(u: IJ, c: IJ, out: IJ):
    diffuse(u, c, out=out[2:-2, 1:-1])
)",
                "prog");
  const std::int64_t n = 9, m = 7;
  Arguments args;
  args.arrays.emplace("u", make({n, m}, [](auto i) { return wave(i, 3); }));
  args.arrays.emplace("c", make({n, m}, [](auto i) { return 0.1 + 0.01 * static_cast<double>(i % 5); }));
  args.arrays.emplace("out", full({n, m}, 0.0));
  run_embedded(p, args);
  const Field &u = args.arrays.at("u"), &c = args.arrays.at("c");
  auto U = [&](std::int64_t i, std::int64_t j) { return at(u, {i, j}); };
  auto L = [&](std::int64_t i, std::int64_t j) {
    return 4.0 * U(i, j) - (U(i - 1, j) + U(i + 1, j) + U(i, j - 1) + U(i, j + 1));
  };
  auto F = [&](std::int64_t i, std::int64_t j) {
    double flx = L(i + 1, j) - L(i, j);
    return flx * (U(i + 1, j) - U(i, j)) > 0.0 ? 0.0 : flx;
  };
  for (std::int64_t i = 0; i < n; ++i)
    for (std::int64_t j = 0; j < m; ++j) {
      bool inside = i >= 2 && i < n - 2 && j >= 1 && j < m - 1;
      double want = inside ? U(i, j) - at(c, {i, j}) * (F(i, j) - F(i - 1, j)) : 0.0;
      INFO(i << ", " << j);
      CHECK(close(at(args.arrays.at("out"), {i, j}), want));
    }
}

TEST_CASE("embedded: a field operator run directly writes __out over its whole shape",
          "[runtime][embedded]") {
  auto p = load(R"(
@gtx.field_operator
def scale(f: Field[[I, K], float64], a: float64) -> tuple[Field[[I, K], float64], Field[[I, K], float64]]:
    return a * f, f + a
)",
                "scale");
  Arguments args;
  args.arrays.emplace("f", make({3, 4}, [](auto i) { return wave(i); }));
  args.arrays.emplace("__out_0", full({3, 4}, 0.0));
  args.arrays.emplace("__out_1", full({3, 4}, 0.0));
  args.values["a"] = 2.5;
  run_embedded(p, args);
  for (std::int64_t i = 0; i < 12; ++i) {
    double f = args.arrays.at("f").value_as_double(i);
    CHECK(args.arrays.at("__out_0").value_as_double(i) == 2.5 * f);
    CHECK(args.arrays.at("__out_1").value_as_double(i) == f + 2.5);
  }
  Signature sig = field_view_signature(*p.definition);
  CHECK(sig.names() == "f, a, __out_0, __out_1");
  CHECK(sig.find("__out_0")->written);
  CHECK(sig.find("f")->describe() == "float64 array of shape (__f_I_size, __f_K_size)");
}

TEST_CASE("embedded: math builtins, minimum/maximum, astype, unary operators", "[runtime][embedded]") {
  auto p = load(R"(
F = Field[[I], float64]

@gtx.field_operator
def math_ops(x: F, y: F) -> tuple[F, F, F, F, Field[[I], float32], Field[[I], int32], Field[[I], bool]]:
    return (sqrt(abs(x)) + exp(y), minimum(x, y), maximum(x, y), -x,
            astype(x, float32) * float32(3.0), astype(x * 10.0, int32), ~(x > y))
)",
                "math_ops");
  Arguments args;
  const std::int64_t n = 11;
  args.arrays.emplace("x", make({n}, [](auto i) { return wave(i) * 2.0; }));
  args.arrays.emplace("y", make({n}, [](auto i) { return wave(i, 4); }));
  for (int k = 0; k < 4; ++k) args.arrays.emplace("__out_" + std::to_string(k), full({n}, 0.0));
  args.arrays.emplace("__out_4", full({n}, 0.0, ScalarType::Float32));
  args.arrays.emplace("__out_5", full({n}, 0.0, ScalarType::Int32));
  args.arrays.emplace("__out_6", full({n}, 0.0, ScalarType::Bool));
  run_embedded(p, args);
  for (std::int64_t i = 0; i < n; ++i) {
    double x = args.arrays.at("x").value_as_double(i), y = args.arrays.at("y").value_as_double(i);
    CHECK(close(args.arrays.at("__out_0").value_as_double(i), std::sqrt(std::abs(x)) + std::exp(y)));
    CHECK(args.arrays.at("__out_1").value_as_double(i) == std::min(x, y));
    CHECK(args.arrays.at("__out_2").value_as_double(i) == std::max(x, y));
    CHECK(args.arrays.at("__out_3").value_as_double(i) == -x);
    CHECK(args.arrays.at("__out_4").value_as_double(i) == static_cast<double>(static_cast<float>(x) * 3.0f));
    CHECK(args.arrays.at("__out_5").value_as_double(i) ==
          static_cast<double>(static_cast<std::int32_t>(x * 10.0)));
    CHECK(args.arrays.at("__out_6").value_as_double(i) == (x > y ? 0.0 : 1.0));
  }
}

TEST_CASE("embedded: integer floor division and modulo follow Python", "[runtime][embedded]") {
  auto p = load(R"(
@gtx.field_operator
def idiv(a: Field[[I], int32], b: Field[[I], int32]) -> tuple[Field[[I], int32], Field[[I], int32]]:
    return a // b, a % b
)",
                "idiv");
  Arguments args;
  std::vector<int> a = {7, -7, 7, -7, 0}, b = {2, 2, -2, -2, 3};
  args.arrays.emplace("a",
                      make(
                          {5}, [&](auto i) { return a[static_cast<std::size_t>(i)]; }, ScalarType::Int32));
  args.arrays.emplace("b",
                      make(
                          {5}, [&](auto i) { return b[static_cast<std::size_t>(i)]; }, ScalarType::Int32));
  args.arrays.emplace("__out_0", full({5}, 0, ScalarType::Int32));
  args.arrays.emplace("__out_1", full({5}, 0, ScalarType::Int32));
  run_embedded(p, args);
  std::vector<double> q = {3, -4, -4, 3, 0}, r = {1, 1, -1, -1, 0};
  for (std::int64_t i = 0; i < 5; ++i) {
    CHECK(args.arrays.at("__out_0").value_as_double(i) == q[static_cast<std::size_t>(i)]);
    CHECK(args.arrays.at("__out_1").value_as_double(i) == r[static_cast<std::size_t>(i)]);
  }
  // By zero: 0, NumPy's value (docs/adr/0014; it was an error here, a trap on cpu).
  args.arrays.at("b") = full({5}, 0, ScalarType::Int32);
  run_embedded(p, args);
  for (std::int64_t i = 0; i < 5; ++i) {
    CHECK(args.arrays.at("__out_0").value_as_double(i) == 0);
    CHECK(args.arrays.at("__out_1").value_as_double(i) == 0);
  }
}

TEST_CASE("embedded: broadcast gives unbounded dimensions that intersect with anything",
          "[runtime][embedded]") {
  auto p = load(R"(
@gtx.field_operator
def bc(a: Field[[I], float64], f: Field[[I, K], float64]) -> Field[[I, K], float64]:
    return broadcast(a, (I, K)) * f(K + 1) + broadcast(2.0, (I, K))

@gtx.program
def prog(a: Field[[I], float64], f: Field[[I, K], float64], out: Field[[I, K], float64]):
    bc(a, f, out=out[:, :-1])
)",
                "prog");
  Arguments args;
  args.arrays.emplace("a", make({4}, [](auto i) { return 1.0 + static_cast<double>(i); }));
  args.arrays.emplace("f", make({4, 5}, [](auto i) { return wave(i); }));
  args.arrays.emplace("out", full({4, 5}, -1.0));
  run_embedded(p, args);
  for (std::int64_t i = 0; i < 4; ++i)
    for (std::int64_t k = 0; k < 5; ++k) {
      double want = k < 4 ? (1.0 + static_cast<double>(i)) * at(args.arrays.at("f"), {i, k + 1}) + 2.0 : -1.0;
      CHECK(close(at(args.arrays.at("out"), {i, k}), want));
    }
}

TEST_CASE("embedded: concat_where picks by a domain condition and concatenates domains",
          "[runtime][embedded]") {
  auto p = load(R"(
KF = Field[[I, K], float64]

@gtx.field_operator
def boundary(f: KF, n: int32) -> KF:
    inner = concat_where((K >= 1) & (K < n - 1), f(K - 1) + f(K + 1), f)
    return concat_where(K == 0, 100.0, inner)

@gtx.field_operator
def lower(f: KF) -> KF:
    return concat_where(K > 0, f(K - 1), -1.0)

@gtx.program
def prog(f: KF, out: KF, out2: KF, n: int32):
    boundary(f, n, out=out)
    lower(f, out=out2)
)",
                "prog");
  const std::int64_t ni = 2, nk = 6;
  Arguments args;
  args.arrays.emplace("f", make({ni, nk}, [](auto i) { return wave(i); }));
  args.arrays.emplace("out", full({ni, nk}, 0.0));
  args.arrays.emplace("out2", full({ni, nk}, 0.0));
  args.values["n"] = nk;
  run_embedded(p, args);
  const Field& f = args.arrays.at("f");
  for (std::int64_t i = 0; i < ni; ++i)
    for (std::int64_t k = 0; k < nk; ++k) {
      double want = k == 0 ? 100.0 : k < nk - 1 ? at(f, {i, k - 1}) + at(f, {i, k + 1}) : at(f, {i, k});
      CHECK(close(at(args.arrays.at("out"), {i, k}), want));
      CHECK(at(args.arrays.at("out2"), {i, k}) == (k > 0 ? at(f, {i, k - 1}) : -1.0));
    }
}

TEST_CASE("embedded: scalar if statements and conditional expressions", "[runtime][embedded]") {
  auto p = load(R"(
F = Field[[I], float64]

@gtx.field_operator
def choose(f: F, flag: bool, s: float64) -> F:
    if flag:
        g = f * s
    else:
        g = f - s
    return g if s > 0.0 else -g
)",
                "choose");
  for (bool flag : {true, false})
    for (double s : {2.0, -3.0}) {
      Arguments args;
      args.arrays.emplace("f", make({4}, [](auto i) { return wave(i); }));
      args.arrays.emplace("__out", full({4}, 0.0));
      args.values["flag"] = flag;
      args.values["s"] = s;
      run_embedded(p, args);
      for (std::int64_t i = 0; i < 4; ++i) {
        double x = args.arrays.at("f").value_as_double(i);
        double g = flag ? x * s : x - s;
        CHECK(args.arrays.at("__out").value_as_double(i) == (s > 0 ? g : -g));
      }
    }
}

TEST_CASE("embedded: tuples, unpacking, starred targets, where on tuples", "[runtime][embedded]") {
  auto p = load(R"(
F = Field[[I], float64]

@gtx.field_operator
def three(f: F) -> tuple[F, F, F]:
    return f, 2.0 * f, 3.0 * f

@gtx.field_operator
def tup(f: F, g: F) -> tuple[F, F]:
    a, *rest = three(f)
    b = rest[1] - rest[0]
    return where(f > g, (a, b), (g, b + g))

@gtx.program
def prog(f: F, g: F, x: F, y: F):
    tup(f, g, out=(x, y))
)",
                "prog");
  Arguments args;
  args.arrays.emplace("f", make({6}, [](auto i) { return wave(i); }));
  args.arrays.emplace("g", make({6}, [](auto i) { return wave(i, 5); }));
  args.arrays.emplace("x", full({6}, 0.0));
  args.arrays.emplace("y", full({6}, 0.0));
  run_embedded(p, args);
  for (std::int64_t i = 0; i < 6; ++i) {
    double f = args.arrays.at("f").value_as_double(i), g = args.arrays.at("g").value_as_double(i);
    double b = 3.0 * f - 2.0 * f;
    CHECK(args.arrays.at("x").value_as_double(i) == (f > g ? f : g));
    CHECK(args.arrays.at("y").value_as_double(i) == (f > g ? b : b + g));
  }
}

TEST_CASE("embedded: as_offset reads at a per-point offset", "[runtime][embedded]") {
  auto p = load(R"(
@gtx.field_operator
def dyn(f: Field[[I, K], float64], o: Field[[I, K], int32]) -> Field[[I, K], float64]:
    return f(as_offset(Koff, o))
)",
                "dyn");
  Arguments args;
  args.arrays.emplace("f", make({2, 5}, [](auto i) { return 10.0 * static_cast<double>(i); }));
  args.arrays.emplace(
      "o", make(
               {2, 5}, [](auto i) { return static_cast<double>((i % 5) == 4 ? -2 : 1); }, ScalarType::Int32));
  args.arrays.emplace("__out", full({2, 5}, 0.0));
  run_embedded(p, args);
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t k = 0; k < 5; ++k)
      CHECK(at(args.arrays.at("__out"), {i, k}) == 10.0 * static_cast<double>(i * 5 + k + (k == 4 ? -2 : 1)));
}

TEST_CASE("embedded: argument errors name the argument and change nothing", "[runtime][embedded]") {
  auto p = load(kLap, "lap_domain");
  auto fresh = [] {
    Arguments a;
    a.arrays.emplace("f", full({4, 4}, 1.0));
    a.arrays.emplace("out", full({4, 4}, 0.0));
    a.values["n"] = std::int64_t{4};
    return a;
  };
  Arguments a = fresh();
  a.arrays.erase("f");
  CHECK_THROWS_WITH(run_embedded(p, a), "missing argument 'f' (float64 field over (I, J))");
  a = fresh();
  a.arrays.at("f") = full({4, 4}, 1.0, ScalarType::Float32);
  CHECK_THROWS_WITH(run_embedded(p, a),
                    "argument 'f': expected a float64 field over (I, J) (2 dimensions), got float32 (4, 4)");
  a = fresh();
  a.arrays.at("out") = full({4, 4, 2}, 1.0);
  CHECK_THROWS_WITH(run_embedded(p, a),
                    Catch::Contains("argument 'out': expected a float64 field over (I, J)"));
  a = fresh();
  a.values.erase("n");
  CHECK_THROWS_WITH(run_embedded(p, a), "missing argument 'n' (int32 scalar)");
  a = fresh();
  a.values["n"] = 2.5;
  CHECK_THROWS_WITH(run_embedded(p, a), "argument 'n': expected int32 scalar, got 2.5 (not an integer)");
  // Out of int32's range: refused as bind_arguments refuses it, not wrapped (2**32 + 4 ran as 4).
  a = fresh();
  a.values["n"] = std::int64_t{4294967300};
  CHECK_THROWS_WITH(run_embedded(p, a), "argument 'n': expected int32 scalar, got 4294967300 (out of range)");
  a = fresh();
  a.values["q"] = std::int64_t{1};
  CHECK_THROWS_WITH(run_embedded(p, a), "unknown argument 'q' (program 'lap_domain' takes f, out, n)");
  a = fresh();
  a.values["__f_I_size"] = std::int64_t{4};  // a size symbol of the signature is accepted
  CHECK_NOTHROW(run_embedded(p, a));
  CHECK_NOTHROW(check_embedded_arguments(p, a));
}
