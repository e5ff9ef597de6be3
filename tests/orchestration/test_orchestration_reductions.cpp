// Whole-domain reductions in orchestration functions (`np.max(f)`, `f.asnumpy()[1:-1].min()`,
// `np.sum(...)`): an adaptive time step (the branch taken and not taken) on the embedded and cpu
// backends and after `weir optimize --auto cpu`, every accepted form against NumPy, NaN
// propagating through np.max and np.min as in NumPy, reductions of np.abs(...), and the forms
// refused at their location
// (docs/adr/0019, section 2026-12-06).
#include <cmath>
#include <filesystem>

#include "cli_run.h"
#include "orchestration_run_util.h"
#include "weir/runtime/errors.h"

namespace fs = std::filesystem;
using namespace weir;
using namespace weir::test::orchestration;

namespace {

const fs::path kAdaptive = fs::path(WEIR_SOURCE_DIR) / "examples" / "orchestration" / "adaptive_heat.py";

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

runtime::Arguments adaptive_args(double dt, double limit, std::int64_t steps) {
  runtime::Arguments a;
  auto init = [](std::int64_t k) {
    const double i = static_cast<double>(k / 10), j = static_cast<double>(k % 10);
    return 1.0 + std::sin(0.3 * i) * std::cos(0.2 * j);
  };
  a.arrays.emplace("u", make({12, 10}, init));
  a.arrays.emplace("u_next", make({12, 10}, init));
  a.values["dt"] = dt;
  a.values["limit"] = limit;
  a.values["steps"] = steps;
  return a;
}

// adaptive_heat.py in NumPy, written from its docstring's semantics: `taken` counts the steps
// whose dt was halved. After an odd number of steps the name u holds the array passed as u_next.
std::string adaptive_numpy(double dt, double limit, std::int64_t steps) {
  return "dt, limit, steps = " + std::to_string(dt) + ", " + std::to_string(limit) + ", " +
         std::to_string(steps) +
         "\n"
         "a, b = inp['u'].copy(), inp['u_next'].copy()\n"
         "P, Q = a, b\n"
         "taken = 0\n"
         "for _ in range(steps):\n"
         "    if dt * np.max(a[1:-1, 1:-1]) > limit:\n"
         "        dt = dt * 0.5\n"
         "        taken += 1\n"
         "    c = a[1:-1, 1:-1]\n"
         "    b[1:-1, 1:-1] = c + dt * (-4.0 * c + a[2:, 1:-1] + a[:-2, 1:-1] + a[1:-1, 2:] + a[1:-1, :-2])\n"
         "    a, b = b, a\n"
         "lowest = a[1:-1, 1:-1].min()\n"
         "total = np.sum(a)\n"
         "b[1:-1, 1:-1] = a[1:-1, 1:-1] + (total * 0.001 - lowest)\n"
         "out['u'], out['u_next'] = P, Q\n"
         "out['taken'] = np.array([taken], dtype=np.float64)\n";
}

// Loads `body` (after the prelude) and expects a FrontendError at body line `line`, `column`.
void expect_error(const std::string& body, std::uint32_t line, std::uint32_t column,
                  const std::string& message) {
  INFO(body);
  try {
    load(body, "f");
  } catch (const frontend::FrontendError& e) {
    INFO(e.what());
    CHECK(e.location().line == prelude_lines() + line);
    CHECK(e.location().column == column);
    CHECK_THAT(e.message(), Catch::Matchers::Contains(message));
    return;
  }
  FAIL("expected a FrontendError containing: " << message);
}

}  // namespace

TEST_CASE("orchestration reductions: an adaptive time step halves dt while the largest value is too large",
          "[orchestration][reduction]") {
  runtime::FieldViewProgram p = runtime::load_field_view_program(kAdaptive.string(), "adaptive_heat");
  // (dt, limit, steps, how often NumPy halves dt): never, in the first three steps, in every one.
  struct Case {
    double dt, limit;
    std::int64_t steps, taken;
  };
  for (const Case& c : {Case{0.05, 0.5, 4, 0}, Case{0.4, 0.15, 5, 3}, Case{0.4, 0.001, 3, 3}}) {
    INFO("dt " << c.dt << " limit " << c.limit << " steps " << c.steps);
    runtime::Arguments args = adaptive_args(c.dt, c.limit, c.steps);
    auto ref =
        numpy_reference("reduction-adaptive-" + std::to_string(c.steps) + "-" + std::to_string(c.taken), args,
                        adaptive_numpy(c.dt, c.limit, c.steps), {"u", "u_next", "taken"});
    CHECK(ref.at("taken").value_as_double(0) == static_cast<double>(c.taken));
    ref.erase("taken");
    check_both_backends(p, args, ref);
  }
}

TEST_CASE("orchestration reductions: every accepted form, in conditions, assignments and call arguments",
          "[orchestration][reduction]") {
  // A swap under a branch gives two possible bindings: each reduction reads the array its
  // name holds at run time (a conditional over __binding in the SDFG).
  const std::string body =
      "import numpy as np\n"
      "import numpy as xp\n"
      "def f(u: IJ, v: IJ, n: int32):\n"
      "    for k in range(n):\n"
      "        if np.max(u) - np.amin(u[1:-1, 2:]) > 0.5 and k % 2 == 0:\n"
      "            u, v = v, u\n"
      "        s = np.sum(u.asnumpy()[:, :-3]) + xp.amax(v.ndarray)\n"
      "        scale_prog(u, 0.5 + 0.01 * s, v, offset_provider={})\n"
      "        m = u.asnumpy().min() + v.ndarray[2:-1].max() - v.asnumpy()[-4:, :].sum()\n"
      "        update(u, v, m * 0.001, out=u, offset_provider={})\n";
  const std::string numpy =
      "a, b = inp['u'].copy(), inp['v'].copy()\n"
      "P, Q = a, b\n"
      "for k in range(3):\n"
      "    if np.max(a) - np.amin(a[1:-1, 2:]) > 0.5 and k % 2 == 0:\n"
      "        a, b = b, a\n"
      "    s = np.sum(a[:, :-3]) + np.amax(b)\n"
      "    b[:, :] = (0.5 + 0.01 * s) * a\n"
      "    m = a.min() + b[2:-1].max() - b[-4:, :].sum()\n"
      "    a[1:-1, 1:-1] = a[1:-1, 1:-1] + m * 0.001 * b[1:-1, 1:-1]\n"
      "out['u'], out['v'] = P, Q\n";
  runtime::Arguments args;
  args.arrays.emplace("u",
                      make({9, 11}, [](std::int64_t i) { return std::sin(0.37 * static_cast<double>(i)); }));
  args.arrays.emplace("v", make({9, 11}, [](std::int64_t i) { return 0.01 * static_cast<double>(i % 7); }));
  args.values["n"] = std::int64_t{3};
  auto ref = numpy_reference("reduction-forms", args, numpy, {"u", "v"});
  check_both_backends(body, "f", args, ref);
}

TEST_CASE("orchestration reductions: np.max and np.min propagate a NaN from anywhere in the slice as NumPy's",
          "[orchestration][reduction]") {
  // u has a NaN on its boundary (row 0), v one in its interior (neither the first point, where
  // Python's max(a, b) would keep it too), w none: np.max(u) and np.min(v) are NaN, the slice
  // u[1:-1, 1:-1] leaves u's NaN out, and w's extremes are plain.
  const std::string body =
      "import numpy as np\n"
      "def f(u: IJ, v: IJ, w: IJ, p: IJ, q: IJ, r: IJ, s: IJ):\n"
      "    a = np.max(u)\n"
      "    b = np.min(u[1:-1, 1:-1])\n"
      "    c = np.min(v)\n"
      "    d = np.max(w)\n"
      "    scale_prog(w, a, p, offset_provider={})\n"
      "    scale_prog(w, b, q, offset_provider={})\n"
      "    scale_prog(w, c, r, offset_provider={})\n"
      "    scale_prog(w, d, s, offset_provider={})\n";
  const std::string numpy =
      "u, v, w = inp['u'], inp['v'], inp['w']\n"
      "out['p'] = np.max(u) * w\n"
      "out['q'] = np.min(u[1:-1, 1:-1]) * w\n"
      "out['r'] = np.min(v) * w\n"
      "out['s'] = np.max(w) * w\n"
      "assert np.isnan(out['p']).all() and np.isnan(out['r']).all()\n"
      "assert not np.isnan(out['q']).any() and not np.isnan(out['s']).any()\n";
  auto field = [](std::int64_t nan_at) {
    return make({9, 11}, [nan_at](std::int64_t i) {
      return i == nan_at ? std::nan("") : 0.5 + std::sin(0.37 * static_cast<double>(i));
    });
  };
  runtime::Arguments args;
  args.arrays.emplace("u", field(3));           // (0, 3)
  args.arrays.emplace("v", field(5 * 11 + 6));  // (5, 6)
  args.arrays.emplace("w", field(-1));
  for (const char* o : {"p", "q", "r", "s"})
    args.arrays.emplace(o, make({9, 11}, [](std::int64_t) { return 0.0; }));
  auto ref = numpy_reference("reduction-nan", args, numpy, {"p", "q", "r", "s"});
  check_both_backends(body, "f", args, ref);
}

TEST_CASE("orchestration reductions: of absolute values np.max(np.abs(u)) as NumPy's",
          "[orchestration][reduction]") {
  // u takes both signs, its largest magnitude negative (-1.9 at (4, 5)); np.abs, np.absolute and
  // np.fabs, over the whole field and a slice, in max, min and sum, and the CFL form in a branch.
  const std::string body =
      "import numpy as np\n"
      "def f(u: IJ, w: IJ, p: IJ, q: IJ, r: IJ, s: IJ):\n"
      "    a = np.max(np.abs(u))\n"
      "    b = np.min(np.absolute(u[1:-1, 1:-1]))\n"
      "    c = np.sum(np.fabs(u.asnumpy()[:, 2:]))\n"
      "    scale_prog(w, a, p, offset_provider={})\n"
      "    scale_prog(w, b, q, offset_provider={})\n"
      "    scale_prog(w, c, r, offset_provider={})\n"
      "    if 0.1 * np.max(np.abs(u)) > 0.15:\n"
      "        scale_prog(w, 2.0, s, offset_provider={})\n"
      "    else:\n"
      "        scale_prog(w, 3.0, s, offset_provider={})\n";
  const std::string numpy =
      "u, w = inp['u'], inp['w']\n"
      "assert np.max(np.abs(u)) == 1.9 and np.max(u) < 1.9\n"
      "out['p'] = np.max(np.abs(u)) * w\n"
      "out['q'] = np.min(np.abs(u[1:-1, 1:-1])) * w\n"
      "out['r'] = np.sum(np.abs(u[:, 2:])) * w\n"
      "out['s'] = (2.0 if 0.1 * np.max(np.abs(u)) > 0.15 else 3.0) * w\n";
  runtime::Arguments args;
  args.arrays.emplace("u", make({9, 11}, [](std::int64_t i) {
                        return i == 4 * 11 + 5 ? -1.9 : std::sin(0.37 * static_cast<double>(i)) - 0.2;
                      }));
  args.arrays.emplace("w", make({9, 11}, [](std::int64_t i) { return 1.0 + 0.01 * static_cast<double>(i); }));
  for (const char* o : {"p", "q", "r", "s"})
    args.arrays.emplace(o, make({9, 11}, [](std::int64_t) { return 0.0; }));
  auto ref = numpy_reference("reduction-abs", args, numpy, {"p", "q", "r", "s"});
  CHECK(ref.at("s").value_as_double(0) == 2.0);  // the branch of the largest magnitude
  check_both_backends(body, "f", args, ref);
}

TEST_CASE(
    "orchestration reductions: the adaptive loop after weir optimize --auto cpu equals the embedded run",
    "[orchestration][reduction][cli]") {
  auto dir = weir::test::scratch_dir("orchestration-reduction-auto-cpu");
  fs::create_directories(dir / "in");
  runtime::Arguments args = adaptive_args(0.4, 0.15, 5);
  for (const auto& [k, f] : args.arrays) runtime::write_npy(dir / "in" / (k + ".npy"), f);
  auto r =
      weir::test::run_weir("sdfg " + q(kAdaptive.string() + "::adaptive_heat") + " -o " + q(dir / "a.sdfg"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  r = weir::test::run_weir("optimize " + q(dir / "a.sdfg") + " --auto cpu --verify-each -o " +
                           q(dir / "b.sdfg"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  const std::string set =
      " --in-dir " + q(dir / "in") + " --set dt=0.4 --set limit=0.15 --set steps=5 --out ";
  auto cpu = weir::test::run_weir("run " + q(dir / "b.sdfg") + " --backend cpu" + set + q(dir / "cpu"));
  INFO(cpu.out);
  REQUIRE(cpu.code == 0);
  auto ref = numpy_reference("reduction-auto-cpu-numpy", args, adaptive_numpy(0.4, 0.15, 5), {"u", "u_next"});
  for (const char* f : {"u", "u_next"}) {
    INFO("field " << f);
    CHECK(max_rel_diff(runtime::read_npy(dir / "cpu" / (std::string(f) + ".npy")), ref.at(f)) <= 1e-12);
  }
}

TEST_CASE("orchestration reductions: forms outside the language are refused at their location",
          "[orchestration][reduction][errors]") {
  const std::string sig = "import numpy as np\ndef f(u: IJ, v: IJ, a: float64, n: int32):\n";
  expect_error(sig + "    x = np.max(u, axis=0)\n", 3, 9, "'np.max' with other arguments than one field");
  expect_error(sig + "    x = np.max(u[0])\n", 3, 18, "reducing '0' of a field (slices such as 1:-1 only)");
  expect_error(sig + "    x = np.max(u[::2])\n", 3, 18, "reducing '::2' of a field");
  expect_error(sig + "    x = np.max(u[n:])\n", 3, 18,
               "slice bounds of a reduced field must be integer literals");
  expect_error(sig + "    x = np.max(u[1:, 1:, 1:])\n", 3, 18, "too many slices");
  expect_error(sig + "    x = np.max(a)\n", 3, 16, "reducing 'a' (a field variable");
  expect_error(sig + "    x = u.max()\n", 3, 11,
               "'.max()' of a field (reduce f.asnumpy() or call np.max(f))");
  expect_error(sig + "    x = u.asnumpy().mean()\n", 3, 21, "'.mean()' of an array");
  expect_error(sig + "    x = np.mean(u)\n", 3, 9, "'np.mean(...)'");
  expect_error(sig + "    while np.max(u) > a:\n        scale_prog(u, 0.5, v)\n", 3, 11,
               "a reduction in a 'while' condition");
}

// A CFL check at the top of the function reduces an unannotated field parameter before the
// first call that gives it its type (user32 H9): refused naming the parameter and how to fix
// it, not as "not a field variable". After a call it runs (the reductions above).
TEST_CASE("orchestration reductions: an unannotated parameter reduced before its first call",
          "[orchestration][reduction][errors]") {
  const std::string sig = "import numpy as np\ndef f(u, v, a: float64):\n";
  const std::string want =
      "the type of parameter 'u' is not known here: an unannotated parameter takes its type from the first "
      "call "
      "it is passed to, and this reduction comes before one; annotate it (e.g. 'u: gtx.Field[[Cell, K], "
      "float64]')";
  expect_error(sig + "    x = a * np.max(np.abs(u))\n    laplace(u, v)\n", 3, 27, want);
  expect_error(sig + "    x = np.max(u[1:-1, 1:-1])\n    laplace(u, v)\n", 3, 16, want);
  expect_error(sig + "    x = u.asnumpy().max()\n    laplace(u, v)\n", 3, 9, want);
}
