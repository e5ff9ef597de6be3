// out= naming a field the call also reads. gt4py evaluates the whole right-hand side before it
// writes anything (its compiled backends materialize a temporary), so every such call has one
// meaning: the result computed from the values before the call. weir runs a read at the written
// point in place, follows tuple elements and domains to see which other reads cannot reach a
// written point (in place too), and computes an output that some point reads where another
// writes into a temporary that is copied afterwards (docs/adr/0043). Each case runs on the
// embedded backend, the cpu backend and the cpu backend after auto_optimize, against values
// computed here by hand from the inputs. Regression: the cpu backend ran `lap(a, out=a)` and
// returned a result that depended on the order the points were computed in; then such calls were
// refused, also where nothing overlaps (a model's fused dycore programs).
#include <set>

#include "embedded_test_util.h"
#include "three_ways.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kOps = R"(
IF = Field[[I], float64]

@gtx.field_operator
def scale(a: IF, b: IF) -> IF:
    return a * 2.0 + b(I + 1)

@gtx.program
def in_place(a: IF, b: IF):
    scale(a, b, out=a[0:-1])

@gtx.program
def hazard(a: IF, b: IF):
    scale(b, a, out=a[0:-1])
)";

/// Fields over cells and levels as a model's dycore writes them (I stands for the cells).
const char* kModel = R"(
CK = Field[Dims[I, K], float64]
CKvp = Field[Dims[I, K], float32]

@gtx.field_operator
def _cast_then_shift(a: CKvp, b: CK) -> CK:
    a_wp, b_wp = astype((a, b), float64)
    return a_wp(Koff[1]) + b_wp

@gtx.program
def cast_then_shift(a: CKvp, b: CK, nlev: int32):
    _cast_then_shift(a, b, out=b, domain={K: (0, nlev - 1)})

@gtx.field_operator
def _scaled_pair(a: CK, b: CK) -> tuple[CK, CK]:
    return a * 2.0, b + 1.0

@gtx.field_operator
def _tuple_helper(a: CK, b: CK) -> CK:
    x, y = _scaled_pair(a, b)
    return x(Koff[1]) + y

@gtx.program
def tuple_helper(a: CK, b: CK, nlev: int32):
    _tuple_helper(a, b, out=b, domain={K: (0, nlev - 1)})

@gtx.field_operator
def _extrapolate_to_surface(w: CK) -> CK:
    return 2.0 * w(Koff[-1]) - w(Koff[-2])

@gtx.program
def extrapolate_to_surface(w: CK, nlev: int32):
    _extrapolate_to_surface(w, out=w, domain={K: (nlev - 1, nlev)})

@gtx.field_operator
def _first_level_from_top(w: CK, z: CK) -> CK:
    return concat_where(K == 1, 0.5 * w(Koff[-1]), 0.25 * w + z)

@gtx.program
def first_level_from_top(w: CK, z: CK, nlev: int32):
    _first_level_from_top(w, z, out=w, domain={K: (1, nlev)})

@gtx.field_operator
def _smooth(w: CK) -> CK:
    return w(Koff[1]) + w(Koff[-1])

@gtx.program
def smooth(w: CK, nlev: int32):
    _smooth(w, out=w, domain={K: (1, nlev - 1)})

@gtx.field_operator
def _neighbours(w: CK, z: CK) -> tuple[CK, CK]:
    w_wp, z_wp = astype((w, z), float64)
    return w_wp(Koff[-1]), w_wp(Koff[1]) * z_wp

@gtx.field_operator
def _smooth_through_helper(w: CK, z: CK) -> CK:
    below, above = _neighbours(w, z)
    mean = 0.5 * (below + above)
    return mean(I + 1)

@gtx.program
def smooth_through_helper(w: CK, z: CK, nlev: int32):
    _smooth_through_helper(w, z, out=w, domain={I: (0, 3), K: (1, nlev - 1)})

@gtx.field_operator
def _swap_and_smooth(a: CK, b: CK) -> tuple[CK, CK]:
    return b(Koff[1]) + b(Koff[-1]), a * 2.0

@gtx.program
def swap_and_smooth(a: CK, b: CK, nlev: int32):
    _swap_and_smooth(a, b, out=(a, b), domain={K: (1, nlev - 1)})

@gtx.field_operator
def _sum_and_double(a: CK, b: CK) -> tuple[CK, CK]:
    return a + b, a * 2.0

@gtx.program
def sum_and_double(a: CK, b: CK, nlev: int32):
    _sum_and_double(a, b, out=(a, b), domain=({K: (0, nlev)}, {K: (1, nlev)}))
)";

constexpr std::int64_t kCells = 4, kLevels = 6;

/// A cell x level field with irregular values (seed picks which).
Field ck(int seed, ScalarType t = ScalarType::Float64) {
  return make(
      {kCells, kLevels}, [seed](std::int64_t i) { return wave(i, seed); }, t);
}

Arguments model_args(std::initializer_list<std::pair<const char*, int>> fields) {
  Arguments args;
  for (const auto& [name, seed] : fields) args.arrays.emplace(name, ck(seed));
  args.values["nlev"] = kLevels;
  return args;
}

/// Whether the lowered SDFG computes an output through a temporary (`__<name>_result`).
bool copies(const FieldViewProgram& p) {
  auto sdfg = frontend::lower_to_sdfg(*p.definition);
  for (const auto& [name, d] : sdfg->arrays)
    if (d.transient && name.size() > 7 && name.compare(name.size() - 7, 7, "_result") == 0) return true;
  return false;
}

using Expect =
    std::function<double(const Arguments& before, const std::string& field, std::int64_t i, std::int64_t k)>;

/// Runs `p` the three ways and checks every element of `fields` against `expect` (computed from
/// the arguments before the call).
void check_three_ways(const FieldViewProgram& p, const Arguments& args,
                      const std::vector<std::string>& fields, const Expect& expect) {
  for (const auto& r : test::run_three_ways(p, args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    for (const std::string& f : fields)
      for (std::int64_t i = 0; i < kCells; ++i)
        for (std::int64_t k = 0; k < kLevels; ++k) {
          INFO(f << "[" << i << ", " << k << "]");
          CHECK(close(at(r.args.arrays.at(f), {i, k}), expect(args, f, i, k)));
        }
  }
}

double old(const Arguments& a, const std::string& f, std::int64_t i, std::int64_t k) {
  return at(a.arrays.at(f), {i, k});
}

}  // namespace

TEST_CASE("out= aliasing: a point-wise read of the written field runs on every path",
          "[runtime][out-hazard]") {
  Arguments args;
  args.arrays.emplace("a", make({5}, [](auto i) { return 1.0 + static_cast<double>(i); }));
  args.arrays.emplace("b", make({5}, [](auto i) { return 10.0 * static_cast<double>(i); }));
  for (const auto& r : test::run_three_ways(load(kOps, "in_place"), args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    for (std::int64_t i = 0; i < 5; ++i) {
      double expect = i < 4 ? 2.0 * (1.0 + static_cast<double>(i)) + 10.0 * static_cast<double>(i + 1) : 5.0;
      CHECK(at(r.args.arrays.at("a"), {i}) == expect);
    }
  }
  CHECK_FALSE(copies(load(kOps, "in_place")));
}

TEST_CASE("out= aliasing: a shifted read of the written field is computed before anything is written",
          "[runtime][out-hazard]") {
  // a[i] = 2 b[i] + a[i + 1] for i < 4, all from the values before the call.
  Arguments args;
  args.arrays.emplace("a", make({5}, [](auto i) { return 1.0 + static_cast<double>(i * i); }));
  args.arrays.emplace("b", make({5}, [](auto i) { return 10.0 * static_cast<double>(i); }));
  FieldViewProgram p = load(kOps, "hazard");
  CHECK(copies(p));
  for (const auto& r : test::run_three_ways(p, args)) {
    INFO(r.path);
    REQUIRE(r.error == "");
    for (std::int64_t i = 0; i < 5; ++i) {
      double ai = 1.0 + static_cast<double>(i * i), an = 1.0 + static_cast<double>((i + 1) * (i + 1));
      CHECK(at(r.args.arrays.at("a"), {i}) == (i < 4 ? 20.0 * static_cast<double>(i) + an : ai));
    }
  }
}

TEST_CASE("out= aliasing: tuple elements of astype are followed one by one, in place",
          "[runtime][out-hazard]") {
  // `a_wp, b_wp = astype((a, b), float64)` then a_wp(Koff[1]): b itself is read only where
  // it is written.
  Arguments args = model_args({{"b", 2}});
  args.arrays.emplace("a", ck(1, ScalarType::Float32));
  FieldViewProgram p = load(kModel, "cast_then_shift");
  CHECK_FALSE(copies(p));
  check_three_ways(p, args, {"b"},
                   [](const Arguments& a, const std::string&, std::int64_t i, std::int64_t k) {
                     return k < kLevels - 1 ? old(a, "a", i, k + 1) + old(a, "b", i, k) : old(a, "b", i, k);
                   });
}

TEST_CASE("out= aliasing: a helper's tuple result taints only the element that reads the output",
          "[runtime][out-hazard]") {
  FieldViewProgram p = load(kModel, "tuple_helper");
  CHECK_FALSE(copies(p));
  check_three_ways(p, model_args({{"a", 1}, {"b", 2}}), {"b"},
                   [](const Arguments& a, const std::string&, std::int64_t i, std::int64_t k) {
                     return k < kLevels - 1 ? 2.0 * old(a, "a", i, k + 1) + old(a, "b", i, k) + 1.0
                                            : old(a, "b", i, k);
                   });
}

TEST_CASE("out= aliasing: shifted reads of levels the domain does not write run in place",
          "[runtime][out-hazard]") {
  SECTION("the surface level from the two above it") {
    FieldViewProgram p = load(kModel, "extrapolate_to_surface");
    CHECK_FALSE(copies(p));
    check_three_ways(p, model_args({{"w", 3}}), {"w"},
                     [](const Arguments& a, const std::string&, std::int64_t i, std::int64_t k) {
                       return k == kLevels - 1 ? 2.0 * old(a, "w", i, k - 1) - old(a, "w", i, k - 2)
                                               : old(a, "w", i, k);
                     });
  }
  SECTION("a concat_where branch that reads the level above the domain") {
    FieldViewProgram p = load(kModel, "first_level_from_top");
    CHECK_FALSE(copies(p));
    check_three_ways(p, model_args({{"w", 3}, {"z", 4}}), {"w"},
                     [](const Arguments& a, const std::string&, std::int64_t i, std::int64_t k) {
                       if (k == 0) return old(a, "w", i, k);
                       if (k == 1) return 0.5 * old(a, "w", i, 0);
                       return 0.25 * old(a, "w", i, k) + old(a, "z", i, k);
                     });
  }
}

TEST_CASE("out= aliasing: real overlaps are computed into a temporary and copied", "[runtime][out-hazard]") {
  SECTION("levels above and below") {
    FieldViewProgram p = load(kModel, "smooth");
    CHECK(copies(p));
    check_three_ways(p, model_args({{"w", 3}}), {"w"},
                     [](const Arguments& a, const std::string&, std::int64_t i, std::int64_t k) {
                       if (k == 0 || k == kLevels - 1) return old(a, "w", i, k);
                       return old(a, "w", i, k + 1) + old(a, "w", i, k - 1);
                     });
  }
  SECTION("through a helper's tuple, astype, a local name and a shift of the mean") {
    FieldViewProgram p = load(kModel, "smooth_through_helper");
    CHECK(copies(p));
    check_three_ways(p, model_args({{"w", 3}, {"z", 4}}), {"w"},
                     [](const Arguments& a, const std::string&, std::int64_t i, std::int64_t k) {
                       if (i >= 3 || k == 0 || k == kLevels - 1) return old(a, "w", i, k);
                       return 0.5 *
                              (old(a, "w", i + 1, k - 1) + old(a, "w", i + 1, k + 1) * old(a, "z", i + 1, k));
                     });
  }
  SECTION("one element of a tuple out= read shifted to compute the other") {
    FieldViewProgram p = load(kModel, "swap_and_smooth");
    CHECK(copies(p));
    check_three_ways(p, model_args({{"a", 1}, {"b", 2}}), {"a", "b"},
                     [](const Arguments& x, const std::string& f, std::int64_t i, std::int64_t k) {
                       if (k == 0 || k == kLevels - 1) return old(x, f, i, k);
                       if (f == "a") return old(x, "b", i, k + 1) + old(x, "b", i, k - 1);
                       return 2.0 * old(x, "a", i, k);
                     });
  }
  SECTION("outputs over different domains, one read by the other's element") {
    FieldViewProgram p = load(kModel, "sum_and_double");
    CHECK(copies(p));
    check_three_ways(p, model_args({{"a", 1}, {"b", 2}}), {"a", "b"},
                     [](const Arguments& x, const std::string& f, std::int64_t i, std::int64_t k) {
                       if (f == "a") return old(x, "a", i, k) + old(x, "b", i, k);
                       return k >= 1 ? 2.0 * old(x, "a", i, k) : old(x, "b", i, k);
                     });
  }
}
