// with_output_domain: a @field_operator run directly on part of its output (gt4py's
// `op(args, out=out, domain={I: (1, 4)})`), as the @program call that says the same; values
// against a hand computation, points outside the domain untouched.
#include <catch2/catch.hpp>

#include "embedded_test_util.h"
#include "weir/runtime/output_domain.h"

using namespace weir::test::embedded;
using weir::runtime::ArgumentError;
using weir::runtime::BackendError;
using weir::runtime::with_output_domain;

namespace {

const char* kDiff =
    "@gtx.field_operator\n"
    "def diff(f: Field[[I, J], float64]) -> Field[[I, J], float64]:\n"
    "    return f(I + 1) - f\n"
    "@gtx.program\n"
    "def diff_program(f: Field[[I, J], float64], out: Field[[I, J], float64]):\n"
    "    diff(f, out=out[:-1, :])\n";

}  // namespace

TEST_CASE("with_output_domain computes a field operator on part of its output only", "[runtime][domain]") {
  FieldViewProgram p = with_output_domain(load(kDiff, "diff"), {"I", "J"});
  weir::runtime::Signature sig = weir::runtime::field_view_signature(p);
  CHECK(sig.names() == "f, __out, __domain_I_start, __domain_I_stop, __domain_J_start, __domain_J_stop");
  CHECK(sig.find("__out")->written);
  Arguments args;
  args.arrays.emplace("f", make({5, 3}, [](std::int64_t i) { return static_cast<double>(i * i); }));
  args.arrays.emplace("__out", full({5, 3}, -1.0));
  args.values["__domain_I_start"] = std::int64_t{1};
  args.values["__domain_I_stop"] = std::int64_t{4};
  args.values["__domain_J_start"] = std::int64_t{0};
  args.values["__domain_J_stop"] = std::int64_t{2};
  run_embedded(p, args);
  const Field& out = args.arrays.at("__out");
  for (std::int64_t i = 0; i < 5; ++i)
    for (std::int64_t j = 0; j < 3; ++j) {
      // f[i, j] = (3i + j)^2, so f[i + 1, j] - f[i, j] = 9(2i + 1) + 6j inside [1, 4) x [0, 2).
      double want = i >= 1 && i < 4 && j < 2 ? 9.0 * (2 * i + 1) + 6.0 * j : -1.0;
      CHECK(at(out, {i, j}) == want);
    }
  // A domain past the output: the @program's domain check.
  args.values["__domain_I_stop"] = std::int64_t{6};
  CHECK_THROWS_WITH(run_embedded(p, args),
                    Catch::Contains("domain= gives I: [1, 6), outside the output field"));
}

TEST_CASE("with_output_domain refuses programs and dimensions the result lacks", "[runtime][domain]") {
  CHECK_THROWS_AS(with_output_domain(load(kDiff, "diff_program"), {"I"}), BackendError);
  CHECK_THROWS_WITH(
      with_output_domain(load(kDiff, "diff_program"), {"I"}),
      Catch::Contains("'diff_program' is a @program: it sets the domain of each call inside it"));
  CHECK_THROWS_AS(with_output_domain(load(kDiff, "diff"), {"K"}), ArgumentError);
  CHECK_THROWS_WITH(with_output_domain(load(kDiff, "diff"), {"K"}),
                    Catch::Contains("the domain of 'diff' gives K, but it returns a field over (I, J)"));
  CHECK_THROWS_WITH(with_output_domain(load(kDiff, "diff"), {"J", "J"}),
                    Catch::Contains("the domain of 'diff' gives J twice"));
}
