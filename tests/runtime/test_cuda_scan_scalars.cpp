// A scan operator taking a float scalar (an implicit vertical solver's time step) on the GPU
// backend's code: the scan's column is a nested SDFG called from a kernel, whose by-value scalar
// parameter is const; the nested SDFG's functions took every scalar as `double&`, and nvcc
// refused the call ("qualifiers dropped in binding reference of type double & to initializer of
// type const double"). A scalar no state of a nested SDFG writes is now a const reference. Run
// through the host emulation (tests/support/cuda_emulation.h) against a hand computation.
#include <cmath>

#include "cuda_emulation.h"
#include "embedded_test_util.h"

using namespace weir;
using namespace weir::runtime;
using namespace weir::test::embedded;

namespace {

const char* kImplicit = R"(
IJK = Field[[I, J, K], float64]

@gtx.scan_operator(axis=K, forward=True, init=0.0)
def relax(state: float64, f: float64, dt: float64) -> float64:
    return (state + dt * f) / (1.0 + dt)

@gtx.scan_operator(axis=K, forward=False, init=(0.0, 1.0))
def sweep(carry: tuple[float64, float64], f: float64, dt: float64, w: float64) -> tuple[float64, float64]:
    s, p = carry
    return s * w + dt * f, p * dt

@gtx.program
def implicit_step(f: IJK, dt: float64, out: IJK):
    relax(f, dt, out=out)

@gtx.program
def two_carries(f: IJK, dt: float64, w: float64, a: IJK, b: IJK):
    sweep(f, dt, w, out=(a, b))
)";

}  // namespace

TEST_CASE("cuda emulation: scan operators with float scalar arguments run from kernels", "[runtime][gpu]") {
  const std::vector<std::int64_t> shape{3, 2, 5};
  Arguments args;
  args.arrays.emplace("f",
                      make(shape, [](std::int64_t i) { return 0.25 * static_cast<double>(i % 7) - 0.5; }));
  args.arrays.emplace("out", full(shape, -1.0));
  args.values["dt"] = 0.3;
  run(*weir::test::make_cuda_emulation_backend(), load(kImplicit, "implicit_step"), args);
  // Hand computation: state_k = (state_{k-1} + dt f_k) / (1 + dt), state_{-1} = 0, per column.
  const Field& f = args.arrays.at("f");
  const Field& out = args.arrays.at("out");
  for (std::int64_t i = 0; i < 3; ++i)
    for (std::int64_t j = 0; j < 2; ++j) {
      double s = 0.0;
      for (std::int64_t k = 0; k < 5; ++k) {
        s = (s + 0.3 * at(f, {i, j, k})) / (1.0 + 0.3);
        INFO("i " << i << " j " << j << " k " << k);
        CHECK(at(out, {i, j, k}) == s);
      }
    }
}

TEST_CASE("cuda emulation: a backward scan with two carries and two float scalars", "[runtime][gpu]") {
  const std::vector<std::int64_t> shape{2, 2, 4};
  Arguments args;
  args.arrays.emplace("f", make(shape, [](std::int64_t i) { return static_cast<double>(i % 5) - 1.0; }));
  args.arrays.emplace("a", full(shape, -1.0));
  args.arrays.emplace("b", full(shape, -1.0));
  args.values["dt"] = 0.5;
  args.values["w"] = 2.0;
  run(*weir::test::make_cuda_emulation_backend(), load(kImplicit, "two_carries"), args);
  const Field& f = args.arrays.at("f");
  for (std::int64_t i = 0; i < 2; ++i)
    for (std::int64_t j = 0; j < 2; ++j) {
      double s = 0.0, p = 1.0;
      for (std::int64_t k = 3; k >= 0; --k) {
        s = s * 2.0 + 0.5 * at(f, {i, j, k});
        p = p * 0.5;
        INFO("i " << i << " j " << j << " k " << k);
        CHECK(at(args.arrays.at("a"), {i, j, k}) == s);
        CHECK(at(args.arrays.at("b"), {i, j, k}) == p);
      }
    }
}
