// A compiled field-view program called with arrays its accesses do not fit: runtime::run on the
// cpu backend throws ProgramError with the bounds check's message and leaves the output as it
// was (the lowering indexes f and __out from 0 at the start of the output domain, so f(I - 1)
// reads f[-1]).
#include <algorithm>
#include <utility>

#include "runtime_test_util.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/field_view_program.h"

using namespace weir;
using namespace weir::runtime;

TEST_CASE("run: a shifting field operator called directly on the cpu backend fails its bounds check",
          "[runtime][bounds]") {
  weir::test::fresh_cache("bounds");
  FieldViewProgram lap =
      load_field_view_program(std::string(WEIR_SOURCE_DIR) + "/examples/cartesian/laplacian.py", "lap");
  auto backend = make_backend("cpu");
  const std::int64_t ni = 6, nj = 5, nk = 2;
  Arguments args;
  Field f = Allocator::cpu().allocate(ScalarType::Float64, {ni, nj, nk});
  auto* fd = static_cast<double*>(f.data());
  for (std::int64_t x = 0; x < f.size(); ++x) fd[x] = static_cast<double>((x * 7) % 11);
  Field out = Allocator::cpu().allocate(ScalarType::Float64, {ni, nj, nk});
  std::fill_n(static_cast<double*>(out.data()), out.size(), -1.0);
  args.arrays.emplace("f", std::move(f));
  args.arrays.emplace("__out", std::move(out));
  try {
    run(*backend, lap, args);
    FAIL("no error");
  } catch (const ProgramError& e) {
    CHECK_THAT(e.what(), Catch::Contains("reads f[-1 .. 6] in dimension 0 of f with shape 6"));
  }
  const auto* od = static_cast<const double*>(args.arrays.at("__out").data());
  for (std::int64_t x = 0; x < ni * nj * nk; ++x) REQUIRE(od[x] == -1.0);
}
