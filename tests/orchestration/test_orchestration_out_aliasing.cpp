// out= overlaps inside orchestration functions (docs/adr/0043): a program whose first call reads
// its out= field at other points (computed into a temporary, then copied) followed by another
// call, and a field operator called with out= naming its own argument, in a time loop. The
// temporary lives in two states of the program's SDFG, which must therefore stay one nested SDFG.
// Both backends against NumPy.
#include "orchestration_run_util.h"

using namespace weir;
using namespace weir::test::orchestration;

TEST_CASE("orchestration: out= fields read at other points are computed before they are written",
          "[orchestration][run][out-hazard]") {
  const std::string body =
      "@gtx.program\n"
      "def smooth_then_mix(u: IJ, tmp: IJ):\n"
      "    lap(u, out=u[1:-1, 1:-1])\n"
      "    axpy(u, u, 0.5, out=tmp)\n"
      "def run(u: IJ, tmp: IJ, n: int32):\n"
      "    for _ in range(n):\n"
      "        smooth_then_mix(u, tmp)\n"
      "        lap(tmp, out=tmp[1:-1, 1:-1])\n";
  for (std::int64_t n : {1, 2}) {
    INFO("n = " << n);
    runtime::Arguments args;
    args.arrays.emplace("u",
                        make({7, 8}, [](std::int64_t i) { return std::sin(0.41 * static_cast<double>(i)); }));
    args.arrays.emplace("tmp",
                        make({7, 8}, [](std::int64_t i) { return std::cos(0.23 * static_cast<double>(i)); }));
    args.values["n"] = n;
    auto ref = numpy_reference("out-aliasing" + std::to_string(n), args,
                               "def lap(x):\n"
                               "    return -4.0 * x[1:-1, 1:-1] + x[2:, 1:-1] + x[:-2, 1:-1] + x[1:-1, 2:] + "
                               "x[1:-1, :-2]\n"
                               "U, T = inp['u'], inp['tmp']\n"
                               "for _ in range(" +
                                   std::to_string(n) +
                                   "):\n"
                                   "    U[1:-1, 1:-1] = lap(U)\n"
                                   "    T[:, :] = U + 0.5 * U\n"
                                   "    T[1:-1, 1:-1] = lap(T)\n"
                                   "out['u'], out['tmp'] = U, T\n",
                               {"u", "tmp"});
    check_both_backends(body, "run", args, ref);
  }
}
