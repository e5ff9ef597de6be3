// `weir check`: every example type-checks; errors are located and exit with code 1.
#include <catch2/catch.hpp>
#include <fstream>

#include "cli_run.h"
#include "corpus.h"

namespace {

using weir::test::run_weir;

const std::string kExamples = std::string(WEIR_SOURCE_DIR) + "/examples";

}  // namespace

TEST_CASE("weir check type-checks every example", "[cli][frontend]") {
  auto r = run_weir("check " + kExamples + "/cartesian/laplacian.py");
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains(
                        "program laplacian(f: Field[[I, J, K], float64], out: Field[[I, J, K], float64])"));
  for (const char* f : {"cartesian/hdiff.py", "cartesian/vertical_solver.py", "unstructured/nabla.py"}) {
    INFO(f);
    CHECK(run_weir("check " + kExamples + "/" + f).code == 0);
  }
  // Multi-module: the package root is given on the search path, as PYTHONPATH would be.
  r = run_weir("check -I " + kExamples + "/multimodule " + kExamples + "/multimodule/mymodel/program.py");
  CHECK(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("3 definitions checked"));
  r = run_weir("check " + kExamples + "/multimodule/mymodel/program.py");
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("program.py:12:8: error:"));
}

TEST_CASE("weir check reports a dtype mismatch at its location", "[cli][frontend]") {
  auto dir = weir::test::scratch_dir("cli-check");
  std::ofstream(dir / "bad.py") << "import gt4py.next as gtx\n"
                                   "I = gtx.Dimension(\"I\")\n"
                                   "@gtx.field_operator\n"
                                   "def f(a: gtx.Field[[I], gtx.float64], b: gtx.Field[[I], gtx.float32]) -> "
                                   "gtx.Field[[I], gtx.float64]:\n"
                                   "    return a + b\n";
  auto r = run_weir("check " + (dir / "bad.py").string());
  CHECK(r.code == 1);
  // Column 14 is the `+` of `    return a + b`.
  CHECK_THAT(r.out, Catch::Contains("bad.py:5:14: error: cannot add") && Catch::Contains("float64") &&
                        Catch::Contains("float32"));
}

TEST_CASE("weir check: several files, nested definitions, every independent error", "[cli][frontend]") {
  auto dir = weir::test::scratch_dir("cli-check-all");
  std::ofstream(dir / "grid.py") << "import gt4py.next as gtx\nI = gtx.Dimension('I')\n";
  std::ofstream(dir / "ok.py") << "import gt4py.next as gtx\nfrom grid import I\n"
                                  "@gtx.field_operator\n"
                                  "def f(a: gtx.Field[[I], float]) -> gtx.Field[[I], float]:\n"
                                  "    return a(I + 1)\n"
                                  "def test_f(case):\n"
                                  "    assert case\n"
                                  "    @gtx.program\n"
                                  "    def p(a: gtx.Field[[I], float], b: gtx.Field[[I], float]):\n"
                                  "        f(a, out=b)\n";
  std::ofstream(dir / "bad.py") << "import gt4py.next as gtx\nfrom grid import I\n"
                                   "@gtx.field_operator\n"
                                   "def g(a: gtx.Field[[I], float]) -> gtx.Field[[I], float]:\n"
                                   "    return a + nope\n"  // 5
                                   "@gtx.field_operator\n"
                                   "def h(a: gtx.Field[[I], float]) -> gtx.Field[[I], float]:\n"
                                   "    return g(a) + 1\n"  // 8 (also wrong, but g fails first)
                                   "@gtx.field_operator\n"
                                   "def k(a: gtx.Field[[I], float]) -> gtx.Field[[I], float]:\n"
                                   "    return a * gtx.float32(2)\n";  // 11
  auto r = run_weir("check " + (dir / "ok.py").string() + " " + (dir / "bad.py").string() + " -I " +
                    dir.string() + " --lower");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains("(in test_f) program p(a: Field[[I], float64], b: Field[[I], float64])"));
  CHECK_THAT(r.out,
             Catch::Contains("ok.py: 2 definitions checked (1 nested in functions), 1 program lowered"));
  CHECK_THAT(r.out, Catch::Contains("bad.py:5:16: error: unknown name 'nope'"));
  CHECK_THAT(r.out, Catch::Contains("bad.py:11:14: error: cannot multiply"));
  CHECK_THAT(r.out, Catch::Contains("bad.py: 3 definitions checked, 0 programs lowered, 3 with errors"));
  auto one = run_weir("check " + (dir / "bad.py").string() + " -I " + dir.string() + " --max-errors 1");
  CHECK(one.code == 1);
  CHECK_THAT(one.out, Catch::Contains("too many errors, stopped after 1"));
}
