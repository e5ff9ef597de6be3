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

// A field passed both for a parameter the program reads and for its out= parameter
// (`laplace(u, u)`, user32 H3): the program's lowering sees two arrays, so in place its
// neighbour reads would see points already written. The orchestration gives the read parameter
// a copy taken before the call, as gt4py and the embedded backend compute it: out of place. With
// the swap, the call runs under two bindings (a branch per binding, each with its copy).
TEST_CASE("orchestration: a field passed as input and out= of one program is computed out of place",
          "[orchestration][run][out-hazard]") {
  const std::string body =
      "def run(u: IJ, w: IJ, n: int32):\n"
      "    for _ in range(n):\n"
      "        laplace(u, u)\n"
      "        u, w = w, u\n";
  for (std::int64_t n : {1, 3}) {
    INFO("n = " << n);
    runtime::Arguments args;
    args.arrays.emplace(
        "u", make({6, 7}, [](std::int64_t i) { return std::sin(0.37 * static_cast<double>(i * i)); }));
    args.arrays.emplace("w",
                        make({6, 7}, [](std::int64_t i) { return std::cos(0.29 * static_cast<double>(i)); }));
    args.values["n"] = n;
    auto ref = numpy_reference("out-aliasing-args" + std::to_string(n), args,
                               "def lap(x):\n"
                               "    return -4.0 * x[1:-1, 1:-1] + x[2:, 1:-1] + x[:-2, 1:-1] + x[1:-1, 2:] + "
                               "x[1:-1, :-2]\n"
                               "U, W = inp['u'], inp['w']\n"
                               "for _ in range(" +
                                   std::to_string(n) +
                                   "):\n"
                                   "    U[1:-1, 1:-1] = lap(U)\n"
                                   "    U, W = W, U\n"
                                   "out['u'], out['w'] = inp['u'], inp['w']\n",
                               {"u", "w"});
    check_both_backends(body, "run", args, ref);
  }
}
