// Orchestration functions on both backends against NumPy: time loops with swaps (odd and even
// numbers), branches, while/break/continue, nested orchestration, local fields, field operator
// calls with out= slices and domain=.
#include <tuple>

#include "orchestration_run_util.h"
#include "weir/runtime/errors.h"

using namespace weir;
using namespace weir::test::orchestration;

namespace {

// The NumPy stencils the scripts share (written from the definitions in the prelude).
const std::string kNumpyStencils =
    "def lap(x):\n"
    "    return -4.0 * x[1:-1, 1:-1] + x[2:, 1:-1] + x[:-2, 1:-1] + x[1:-1, 2:] + x[1:-1, :-2]\n";

runtime::Arguments diffusion_args(std::int64_t n) {
  runtime::Arguments a;
  a.arrays.emplace("u",
                   make({9, 11}, [](std::int64_t i) { return std::sin(0.37 * static_cast<double>(i)); }));
  a.arrays.emplace("v", make({9, 11}, [](std::int64_t i) { return 0.01 * static_cast<double>(i % 7); }));
  a.arrays.emplace("tmp", make({9, 11}, [](std::int64_t) { return 0.0; }));
  a.values["alpha"] = 0.1;
  a.values["n"] = n;
  return a;
}

// u and v of diffusion_args alone (no tmp, no scalars): the fields of the smaller functions.
runtime::Arguments uv_args() {
  runtime::Arguments a = diffusion_args(0);
  a.arrays.erase("tmp");
  a.values.clear();
  return a;
}

const std::string kDiffuse =
    "def diffuse(u: IJ, v: IJ, tmp: IJ, alpha: float64, n: int32):\n"
    "    for _ in range(n):\n"
    "        laplace(u, tmp)\n"
    "        update(u, tmp, alpha, out=v, offset_provider={})\n"
    "        u, v = v, u\n";

const std::string kDiffuseNumpy = kNumpyStencils +
                                  "U, V, T = inp['u'], inp['v'], inp['tmp']\n"
                                  "x, y = U, V\n"
                                  "for _ in range(int(N)):\n"
                                  "    T[1:-1, 1:-1] = lap(x)\n"
                                  "    y[1:-1, 1:-1] = x[1:-1, 1:-1] + 0.1 * T[1:-1, 1:-1]\n"
                                  "    x, y = y, x\n"
                                  "out['u'], out['v'], out['tmp'] = U, V, T\n";

}  // namespace

TEST_CASE("orchestration: a time loop with a swap, odd and even step counts", "[orchestration][run]") {
  for (std::int64_t n : {0, 1, 4, 5}) {
    INFO("n = " << n);
    runtime::Arguments args = diffusion_args(n);
    auto ref = numpy_reference("diffuse" + std::to_string(n), args,
                               "N = " + std::to_string(n) + "\n" + kDiffuseNumpy, {"u", "v", "tmp"});
    check_both_backends(kDiffuse, "diffuse", args, ref);
  }
}

// A program that takes a scalar it does not use (a model's common signature): its SDFG keeps
// the scalar's container, which the call must not leave without a connector.
TEST_CASE("orchestration: a call of a program with a scalar parameter it does not use",
          "[orchestration][run]") {
  const std::string body =
      "@gtx.program\n"
      "def lap_unused(u: IJ, a: float64, out: IJ):\n"
      "    lap(u, out=out[1:-1, 1:-1])\n"
      "def g(u: IJ, v: IJ, alpha: float64, n: int32):\n"
      "    for _ in range(n):\n"
      "        lap_unused(u, alpha, v, offset_provider={})\n"
      "        u, v = v, u\n";
  runtime::Arguments args = uv_args();
  args.values["alpha"] = 0.1;
  args.values["n"] = std::int64_t{3};
  auto ref = numpy_reference("unused_scalar", args,
                             kNumpyStencils +
                                 "x, y = inp['u'], inp['v']\n"
                                 "for _ in range(3):\n"
                                 "    y[1:-1, 1:-1] = lap(x)\n"
                                 "    x, y = y, x\n"
                                 "out['u'], out['v'] = inp['u'], inp['v']\n",
                             {"u", "v"});
  check_both_backends(body, "g", args, ref);
}

TEST_CASE("orchestration: branches, while, break, continue, nested functions, local fields",
          "[orchestration][run]") {
  const std::string body =
      "def inner(p: IJ, q: IJ, c: float64):\n"
      "    scale_prog(p, c, q)\n"
      "def outer(p, q, c: float64):\n"
      "    inner(p, q, c)\n"
      "def g(u: IJ, v: IJ, a: float64, n: int32, flag: bool, ni: int32, nj: int32):\n"
      "    t = gtx.zeros({I: ni, J: nj}, dtype=float64)\n"
      "    k = 0\n"
      "    b = 0.5 * a\n"
      "    while k < n:\n"
      "        k += 1\n"
      "        if k == 2:\n"
      "            continue\n"
      "        if flag and k % 3 == 0:\n"
      "            lap(u, out=t[1:-1, 1:-1])\n"
      "            axpy(u, t, b, out=v[1:-1, 1:-1])\n"
      "        elif k > 4:\n"
      "            outer(u, v, 1.0 + b)\n"
      "        else:\n"
      "            scale(u, a, out=v, domain={I: (1, ni - 1), J: (0, nj)})\n"
      "        if k >= 7:\n"
      "            break\n"
      "        u, v = v, u\n";
  const std::string numpy = kNumpyStencils +
                            "U, V = inp['u'], inp['v']\n"
                            "a, n, flag = 0.75, N, FLAG\n"
                            "t = np.zeros((9, 11))\n"
                            "x, y = U, V\n"
                            "k = 0\n"
                            "b = 0.5 * a\n"
                            "while k < n:\n"
                            "    k += 1\n"
                            "    if k == 2:\n"
                            "        continue\n"
                            "    if flag and k % 3 == 0:\n"
                            "        t[1:-1, 1:-1] = lap(x)\n"
                            "        y[1:-1, 1:-1] = x[1:-1, 1:-1] + b * t[1:-1, 1:-1]\n"
                            "    elif k > 4:\n"
                            "        y[:, :] = (1.0 + b) * x\n"
                            "    else:\n"
                            "        y[1:-1, :] = a * x[1:-1, :]\n"
                            "    if k >= 7:\n"
                            "        break\n"
                            "    x, y = y, x\n"
                            "out['u'], out['v'] = U, V\n";
  for (auto [n, flag] : {std::pair<std::int64_t, bool>{9, true}, {6, false}, {3, true}, {0, true}}) {
    INFO("n = " << n << ", flag = " << flag);
    runtime::Arguments args = diffusion_args(0);
    args.arrays.erase("tmp");
    args.values.erase("alpha");
    args.values["a"] = 0.75;
    args.values["n"] = n;
    args.values["flag"] = flag;
    args.values["ni"] = std::int64_t{9};
    args.values["nj"] = std::int64_t{11};
    auto ref = numpy_reference(
        "branches" + std::to_string(n) + (flag ? "t" : "f"), args,
        "N = " + std::to_string(n) + "\nFLAG = " + (flag ? "True" : "False") + "\n" + numpy, {"u", "v"});
    check_both_backends(body, "g", args, ref);
  }
}

TEST_CASE("orchestration: for loops over range(a, b, s) with scalar arithmetic and tuple assignment",
          "[orchestration][run]") {
  const std::string body =
      "def h(u: IJ, v: IJ, n: int32):\n"
      "    c, d = 1.0, 0.5\n"
      "    for i in range(n, 0, -2):\n"
      "        c, d = d, c + d / 2\n"
      "        scale_prog(u, c, v)\n"
      "        scale_prog(v, d * i, u)\n";
  const std::string numpy =
      "U, V = inp['u'], inp['v']\n"
      "c, d = 1.0, 0.5\n"
      "for i in range(7, 0, -2):\n"
      "    c, d = d, c + d / 2\n"
      "    V[:, :] = c * U\n"
      "    U[:, :] = (d * i) * V\n"
      "out['u'], out['v'] = U, V\n";
  runtime::Arguments args = diffusion_args(0);
  args.arrays.erase("tmp");
  args.values.erase("alpha");
  args.values["n"] = std::int64_t{7};
  auto ref = numpy_reference("range-step", args, numpy, {"u", "v"});
  check_both_backends(body, "h", args, ref);
}

TEST_CASE("orchestration: nested orchestration functions from other modules, module constants",
          "[orchestration][run]") {
  std::filesystem::path dir = weir::test::scratch_dir("orchestration-modules");
  std::ofstream(dir / "stencils.py") << kPrelude << "FACTOR = 0.5\n";
  std::ofstream(dir / "helpers.py") << "from stencils import IJ, scale_prog, FACTOR\n"
                                       "def twice(p, q, c):\n"
                                       "    scale_prog(p, c * FACTOR, q)\n"
                                       "    scale_prog(q, c, p)\n";
  std::ofstream(dir / "main.py") << "import helpers\n"
                                    "from helpers import twice as again\n"
                                    "from stencils import IJ, float64, int32, FACTOR\n"
                                    "STEPS = 2\n"
                                    "def main(u: IJ, v: IJ, a: float64):\n"
                                    "    for _ in range(STEPS):\n"
                                    "        helpers.twice(u, v, a)\n"
                                    "        again(v, u, a + FACTOR)\n";
  runtime::FieldViewProgram p = runtime::load_field_view_program((dir / "main.py").string(), "main");
  runtime::Arguments args = uv_args();
  args.values["a"] = 0.8;
  auto ref = numpy_reference("modules", args,
                             "U, V = inp['u'], inp['v']\n"
                             "def twice(p, q, c):\n"
                             "    q[:, :] = (c * 0.5) * p\n"
                             "    p[:, :] = c * q\n"
                             "for _ in range(2):\n"
                             "    twice(U, V, 0.8)\n"
                             "    twice(V, U, 0.8 + 0.5)\n"
                             "out['u'], out['v'] = U, V\n",
                             {"u", "v"});
  check_both_backends(p, args, ref);
}

// A local field is as long as its size expression says, whatever the sizes of the other fields
// (docs/adr/0049): one row shorter than u is valid where no call reaches past it; a call that
// does is refused with the call's location on the embedded backend and the field's name on
// both; a negative size and scalar arithmetic are refused alike on both backends (issue 16,
// friction 20: the cpu backend walks the statements without their calls before running the
// SDFG); the caller's arrays stay as they were. (w is read after it is written: the cpu
// backend's checks see only the accesses auto_optimize leaves, not those of dead results.)
TEST_CASE("orchestration: a local field shorter, exactly right or too large, on both backends",
          "[orchestration][run]") {
  const std::string body =
      "def g(u: IJ, v: IJ, ni: int32, nj: int32, di: int32, d: int32, wide: bool):\n"
      "    t = gtx.zeros({I: ni + di, J: nj}, dtype=float64)\n"
      "    laplace(u, t)\n"
      "    if wide:\n"
      "        w = gtx.empty({I: ni + 1, J: nj}, dtype=float64)\n"
      "        scale_prog(u, 1.0, w)\n"
      "        update(u, w, 0.0, v)\n"
      "    update(u, t, 1.0 * (nj // d), v)\n";
  runtime::FieldViewProgram p = load(body, "g");
  auto args_for = [](std::int64_t di, std::int64_t d, bool wide) {
    runtime::Arguments a = uv_args();
    a.values["ni"] = std::int64_t{9};
    a.values["nj"] = std::int64_t{11};
    a.values["di"] = di;
    a.values["d"] = d;
    a.values["wide"] = wide;
    return a;
  };
  for (std::int64_t di : {0, -1}) {
    // 11 // 2 = 5: v's interior is u + 5 * t with t = lap(u) on rows 1 .. 7 - di; one row
    // short, t's last row (7) stays zero and v's row 7 keeps u's values.
    INFO("di = " << di);
    runtime::Arguments args = args_for(di, 2, false);
    auto ref = numpy_reference("local-size" + std::to_string(-di), args,
                               kNumpyStencils + "U, V = inp['u'], inp['v'].copy()\n" + "T = np.zeros((9 + " +
                                   std::to_string(di) + ", 11))\n" +
                                   "T[1:-1, 1:-1] = lap(U[:T.shape[0], :])\n"
                                   "V[1:-1, 1:-1] = U[1:-1, 1:-1] + 5.0 * T[1:8, 1:-1]\n"
                                   "out['u'], out['v'] = U, V\n",
                               {"u", "v"});
    check_both_backends(p, args, ref);
  }
  auto at = [](int l, int c) {
    return "orch.py:" + std::to_string(prelude_lines() + l) + ":" + std::to_string(c) + ": ";
  };
  // {di, d, wide, the embedded backend's message starts with, the cpu backend's contains}
  for (auto [di, d, wide, embedded, cpu] :
       std::vector<std::tuple<std::int64_t, std::int64_t, bool, std::string, std::string>>{
           {1, 2, false, at(3, 5) + "in the call of 'laplace' (its 'out' is 't'): ",
            "'u' is read over I: [0, 10), outside its domain I: [0, 9)"},
           {-20, 2, false, at(2, 9) + "the size of a local field is negative (-11)",
            at(2, 9) + "the size of a local field is negative (-11)"},
           {0, 2, true, at(6, 9) + "in the call of 'scale_prog' (its 'out' is 'w'): ",
            "'u' is read over I: [0, 10), outside its domain I: [0, 9)"},
           {0, 0, false, at(8, 28) + "integer division by zero", at(8, 28) + "integer division by zero"}}) {
    static const std::string cache = weir::test::shared_cache_dir("orchestration").string();
    ::setenv("WEIR_CACHE_DIR", cache.c_str(), 1);
    for (const char* backend : {"embedded", "cpu"}) {
      INFO("di = " << di << ", d = " << d << ", wide = " << wide << ", backend " << backend);
      runtime::Arguments a = args_for(di, d, wide);
      runtime::Arguments before = clone(a);
      std::string message = program_error(backend, p, a);
      if (std::string(backend) == "embedded") {
        CHECK_THAT(message, Catch::StartsWith(embedded));
      } else {
        CHECK_THAT(message, Catch::Contains(cpu));
        // A fault inside a call is said in the function's terms as the embedded backend says
        // it: the call's location, the callee, the caller's names (user32 H5, H11), not the
        // SDFG's state ("state 'call_laplace'") on its first line.
        if (embedded.find("in the call of") != std::string::npos) {
          CHECK_THAT(message, Catch::StartsWith(embedded));
          // (The code generator's "in the SDFG:" detail line may name it.)
          CHECK_THAT(message.substr(0, message.find('\n')), !Catch::Contains("state 'call_"));
        }
      }
      CHECK(max_rel_diff(a.arrays.at("v"), before.arrays.at("v")) == 0.0);
      CHECK(max_rel_diff(a.arrays.at("u"), before.arrays.at("u")) == 0.0);
    }
  }
}

TEST_CASE("orchestration: a fault in a field operator call names the call, not the SDFG's state",
          "[orchestration][run]") {
  // user32 H5, H11: the cpu backend said "state 'call___scale_call0': ..." with the callee's
  // names; both backends now start with the call's location, the callee and the caller's names.
  const std::string body =
      "def g(u: IJ, v: IJ, ni: int32, nj: int32):\n"
      "    lwp = gtx.zeros({I: ni + 1, J: nj}, dtype=float64)\n"
      "    scale(u, 2.0, out=lwp, offset_provider={})\n"
      "    laplace(lwp, v)\n";
  runtime::FieldViewProgram p = load(body, "g");
  const std::string at = "orch.py:" + std::to_string(prelude_lines() + 3) + ":5: in the call of 'scale'";
  static const std::string cache = weir::test::shared_cache_dir("orchestration").string();
  ::setenv("WEIR_CACHE_DIR", cache.c_str(), 1);
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    runtime::Arguments a = uv_args();
    a.values["ni"] = std::int64_t{9};
    a.values["nj"] = std::int64_t{11};
    const std::string message = program_error(backend, p, a);
    CHECK_THAT(message, Catch::StartsWith(at));
    CHECK_THAT(message.substr(0, message.find('\n')), !Catch::Contains("state 'call_"));
  }
}

TEST_CASE("orchestration: a fault reading a local field names its dimensions", "[orchestration][run]") {
  // user29 #12: a local field of gtx.zeros has extents `ni - 1`, no size symbol, and the cpu
  // backend's message said "dimension 0" where the embedded backend says "I": the frontend now
  // records the dimensions of every array it makes (weir/sdfg/field_dims.h), and a fusion that
  // removes the access keeps them in its record (checked_accesses.h).
  const std::string body =
      "def g(u: IJ, v: IJ, ni: int32, nj: int32):\n"
      "    lwp = gtx.zeros({I: ni - 1, J: nj}, dtype=float64)\n"
      "    scale(lwp, 2.0, out=v, offset_provider={})\n";
  runtime::FieldViewProgram p = load(body, "g");
  static const std::string cache = weir::test::shared_cache_dir("orchestration").string();
  ::setenv("WEIR_CACHE_DIR", cache.c_str(), 1);
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    runtime::Arguments a = uv_args();
    a.values["ni"] = std::int64_t{9};
    a.values["nj"] = std::int64_t{11};
    const std::string message = program_error(backend, p, a);
    CHECK_THAT(message, Catch::Contains("I: [0, 8)"));  // lwp's extent along I, by name
    if (std::string(backend) == "cpu")
      CHECK_THAT(message, Catch::Contains("'lwp' is read over I: [0, 9), outside its domain I: [0, 8)"));
    // The first line is in the program's terms (the "in the SDFG:" line numbers axes).
    CHECK_THAT(message.substr(0, message.find('\n')), !Catch::Contains("dimension"));
  }
}

TEST_CASE("orchestration: scalar // and % of floats and integers are Python's on both backends",
          "[orchestration][run]") {
  // Python: 1.0 // 0.1 == 9.0 (not floor(1.0 / 0.1) == 10.0) and 1.0 % 0.1 == 0.09999999999999995;
  // -7.5 // 2.0 == -4.0, -7.5 % 2.0 == 0.5; -7 // 2 == -4, -7 % 2 == 1, 7 % -2 == -1.
  const std::string body =
      "def h(u: IJ, v: IJ, a: float64, b: float64, m: int32, n: int32):\n"
      "    c = a // b + (a % b) * 100.0 + (-7.5 // 2.0) * 1000.0 + (-7.5 % 2.0) * 10000.0\n"
      "    k = m // n + (m % n) * 10 + (7 % -2) * 100\n"
      "    scale_prog(u, c + k * 100000.0, v)\n";
  const std::string numpy =
      "U, V = inp['u'], inp['v']\n"
      "a, b, m, n = 1.0, 0.1, -7, 2\n"
      "c = a // b + (a % b) * 100.0 + (-7.5 // 2.0) * 1000.0 + (-7.5 % 2.0) * 10000.0\n"
      "k = m // n + (m % n) * 10 + (7 % -2) * 100\n"
      "V[:, :] = (c + k * 100000.0) * U\n"
      "out['u'], out['v'] = U, V\n";
  runtime::Arguments args = uv_args();
  args.values["a"] = 1.0;
  args.values["b"] = 0.1;
  args.values["m"] = std::int64_t{-7};
  args.values["n"] = std::int64_t{2};
  auto ref = numpy_reference("floor-division", args, numpy, {"u", "v"});
  check_both_backends(body, "h", args, ref);
}

TEST_CASE("orchestration: gt4py's scalar type constructors convert arguments of program calls",
          "[orchestration][run]") {
  // scale_prog(u, a, out) computes out = a * u; a = float64(n) * s with n = 3, s = 0.5, then
  // float64(int32(s * 5.0)) = float64(int32(2.5)) = 2.0 (toward zero), then float64(DT) = 4.0 of a
  // module constant.
  const std::string body =
      "DT = 4\n"
      "def g(u: IJ, v: IJ, w: IJ, x: IJ, s: float64, n: int32):\n"
      "    scale_prog(u, gtx.float64(n) * s, v)\n"
      "    scale_prog(u, gtx.float64(gtx.int32(s * 5.0)), w)\n"
      "    scale_prog(u, gtx.float64(DT), x)\n";
  runtime::Arguments args;
  args.arrays.emplace("u", make({4, 3}, [](std::int64_t i) { return 0.25 * static_cast<double>(i) - 1.0; }));
  args.arrays.emplace("v", make({4, 3}, [](std::int64_t) { return 0.0; }));
  args.arrays.emplace("w", make({4, 3}, [](std::int64_t) { return 0.0; }));
  args.arrays.emplace("x", make({4, 3}, [](std::int64_t) { return 0.0; }));
  args.values["s"] = 0.5;
  args.values["n"] = 3;
  std::map<std::string, runtime::Field> ref;
  ref.emplace("v", make({4, 3}, [](std::int64_t i) { return 1.5 * (0.25 * static_cast<double>(i) - 1.0); }));
  ref.emplace("w", make({4, 3}, [](std::int64_t i) { return 2.0 * (0.25 * static_cast<double>(i) - 1.0); }));
  ref.emplace("x", make({4, 3}, [](std::int64_t i) { return 4.0 * (0.25 * static_cast<double>(i) - 1.0); }));
  check_both_backends(body, "g", args, ref);
}

TEST_CASE("orchestration: domains given as arguments, a bound truncated from a float by gtx.int32",
          "[orchestration][run]") {
  // v[lo:int(x), lo + 1:hi] = 2 * u with lo = 1, hi = 10, x = 7.9: rows 1 .. 6 (int32(7.9) = 7,
  // toward zero as Python's int()), columns 2 .. 9; the rest of v keeps its values. The float
  // bound is computed into a symbol of its own before the call (ADR 0049).
  const std::string body =
      "def d(u: IJ, v: IJ, lo: int32, hi: int32, x: float64):\n"
      "    scale(u, 2.0, out=v, domain={I: (gtx.int32(lo), gtx.int32(x)), J: (lo + 1, hi)}, "
      "offset_provider={})\n";
  runtime::Arguments args = uv_args();
  args.values["lo"] = std::int64_t{1};
  args.values["hi"] = std::int64_t{10};
  args.values["x"] = 7.9;
  auto ref = numpy_reference("domain-arguments", args,
                             "U, V = inp['u'], inp['v'].copy()\n"
                             "V[1:7, 2:10] = 2.0 * U[1:7, 2:10]\n"
                             "out['u'], out['v'] = U, V\n",
                             {"u", "v"});
  check_both_backends(body, "d", args, ref);
}

TEST_CASE("orchestration: Python's min and max of scalars, an adaptive time step", "[orchestration][run]") {
  // A user's report: `dt = min(DT_MAX, tend - t)` was refused ("assigning the result of
  // 'min(...)'"). min/max of two or more scalars compute as Python's do (the result's type the
  // arguments' promotion: min(n, 2.5) with n = 3 is 2.5); the reference is the same loop in Python.
  const std::string body =
      "DT_MAX = 0.3\n"
      "def adapt(u: IJ, v: IJ, tend: float64, n: int32):\n"
      "    t = 0.0\n"
      "    while t < tend:\n"
      "        dt = min(DT_MAX, tend - t)\n"
      "        t = t + dt\n"
      "        scale_prog(u, 1.0 + dt, v)\n"
      "        scale_prog(v, 1.0, u)\n"
      "    scale_prog(u, max(n, 2, 1) * 0.5 + min(n, 2.5) + max(-1.0, min(t, 0.25)), v)\n";
  const std::string numpy =
      "U, V = inp['u'], inp['v']\n"
      "t = 0.0\n"
      "while t < 1.0:\n"
      "    dt = min(0.3, 1.0 - t)\n"
      "    t = t + dt\n"
      "    V[:, :] = (1.0 + dt) * U\n"
      "    U[:, :] = 1.0 * V\n"
      "V[:, :] = (max(3, 2, 1) * 0.5 + min(3, 2.5) + max(-1.0, min(t, 0.25))) * U\n"
      "out['u'], out['v'] = U, V\n";
  runtime::Arguments args = uv_args();
  args.values["tend"] = 1.0;
  args.values["n"] = std::int64_t{3};
  auto ref = numpy_reference("min-max-scalars", args, numpy, {"u", "v"});
  check_both_backends(body, "adapt", args, ref);
}
