// `weir check`: several files and nested definitions, every independent error, located, exit code 1.
// (That every example type-checks and a dtype mismatch's location: tests/lit/frontend/.)
#include <catch2/catch.hpp>
#include <fstream>

#include "cli_run.h"
#include "corpus.h"

namespace {

using weir::test::run_weir;

}  // namespace

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
