// `weir check`: several files and nested definitions, every independent error, located, exit
// code 1, with messages in the user's terms: a literal of another type or width says how to
// write it, a misspelt gt4py decorator names the one meant, NumPy functions and builtins not
// imported point to gt4py.next's, a caller stopped by a callee's errors names the callee;
// orchestration functions are listed; a module not on the search path is one headline with the
// directory to add, or a note where no definition uses it. (That every example type-checks and
// a dtype mismatch's location: tests/lit/frontend/.)
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

using weir::test::run_weir;

const std::string kExamples = std::string(WEIR_SOURCE_DIR) + "/examples";

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

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

TEST_CASE("first hour: a module not found is one headline with the directory to add", "[cli][check]") {
  auto dir = weir::test::scratch_dir("cli-module-not-found");
  // From the repository root (as README's commands run), the folder is shown as typed.
  const std::string in_root = "cd " + q(WEIR_SOURCE_DIR) + " &&";
  auto r = run_weir("sdfg examples/multimodule/mymodel/program.py::smooth -o " + q(dir / "x.sdfg"), in_root);
  CHECK(r.code == 1);
  CHECK(r.out ==
        "weir: error: module 'mymodel' not found\n"
        "  examples/multimodule/mymodel/program.py:19:8: error: cannot subscript "
        "'mymodel.common.dimension.EdgeKField' (from a module not on the search path: no module 'mymodel' in "
        "examples/multimodule/mymodel) at module level\n"
        "    e: EdgeKField[vpfloat],\n"
        "       ^\n"
        "  hint: add -I examples/multimodule (it holds 'mymodel'), or list examples/multimodule in "
        "WEIR_PATH\n");
  CHECK_FALSE(fs::exists(dir / "x.sdfg"));
  // With the hint followed, it lowers.
  r = run_weir(
      "sdfg -I examples/multimodule examples/multimodule/mymodel/program.py::smooth -o " + q(dir / "x.sdfg"),
      in_root);
  CHECK(r.code == 0);
  // `weir check` says it once for the three definitions that use its names.
  r = run_weir("check examples/multimodule/mymodel/program.py", in_root);
  CHECK(r.code == 1);
  CHECK_THAT(
      r.out,
      Catch::StartsWith("weir: error: module 'mymodel' not found (3 errors come from it; the first:)\n  "
                        "examples/multimodule/mymodel/program.py:12:8: error: ") &&
          Catch::EndsWith("  hint: add -I examples/multimodule (it holds 'mymodel'), or list "
                          "examples/multimodule in WEIR_PATH\n"
                          "examples/multimodule/mymodel/program.py: 3 definitions checked, 3 with "
                          "errors\n"));
  CHECK(r.out.find("not found", r.out.find("not found") + 1) == std::string::npos);
}

TEST_CASE("first hour: an integer literal with a float field says to write a float literal", "[cli][check]") {
  auto dir = weir::test::scratch_dir("cli-check-int-literal");
  std::ofstream(dir / "twice.py") << "import gt4py.next as gtx\nfrom gt4py.next import Field, float64\n"
                                     "I = gtx.Dimension('I')\n@gtx.field_operator\n"
                                     "def twice(f: Field[[I], float64]) -> Field[[I], float64]:\n"
                                     "    return 2 * f\n";
  auto r = run_weir("check " + q(dir / "twice.py"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::StartsWith(
                 (dir / "twice.py").string() +
                 ":6:14: error: cannot multiply int32 and Field[[I], float64]; write the literal 2 as 2.0 "
                 "(integers are not converted to floating point)\n"));
}

TEST_CASE("weir check: a literal of another width says how to write it", "[cli][check]") {
  // A float literal is float64 and an integer literal int32: with a float32 or int64 field the
  // operation does not type-check, and the error says the literal's fix.
  auto dir = weir::test::scratch_dir("cli-check-literal-width");
  auto check = [&](const std::string& type, const std::string& body) {
    std::ofstream(dir / "w.py")
        << "import gt4py.next as gtx\nfrom gt4py.next import Field, Dims, float32, int64\n"
           "I = gtx.Dimension('I')\n@gtx.field_operator\n"
           "def g(f: Field[Dims[I], "
        << type << "]) -> Field[Dims[I], " << type << "]:\n    return " << body << "\n";
    auto r = run_weir("check " + q(dir / "w.py"));
    CHECK(r.code == 1);
    return r.out;
  };
  const std::string w = (dir / "w.py").string();
  CHECK_THAT(
      check("float32", "f + 0.1"),
      Catch::StartsWith(w + ":6:14: error: cannot add Field[[I], float32] and float64; write the literal "
                            "0.1 as float32(0.1) (the literal is float64, and no width is converted "
                            "implicitly)\n"));
  CHECK_THAT(
      check("int64", "f ** 3"),
      Catch::StartsWith(w + ":6:14: error: cannot raise to a power Field[[I], int64] and int32; write the "
                            "literal 3 as int64(3) (the literal is int32, and no width is converted "
                            "implicitly)\n"));
  // The same width type-checks.
  std::ofstream(dir / "ok.py") << "import gt4py.next as gtx\nfrom gt4py.next import Field, Dims, float32\n"
                                  "I = gtx.Dimension('I')\n@gtx.field_operator\n"
                                  "def g(f: Field[Dims[I], float32]) -> Field[Dims[I], float32]:\n"
                                  "    return f + float32(0.1)\n";
  CHECK(run_weir("check " + q(dir / "ok.py")).code == 0);
}

TEST_CASE("weir check notes a module it cannot find that no definition uses", "[cli][check]") {
  // `from mylib import helper` with mylib missing passed silently while nothing used helper.
  auto dir = weir::test::scratch_dir("cli-check-unused-import");
  const std::string py = (dir / "imp.py").string();
  std::ofstream(py) << "import gt4py.next as gtx\nfrom gt4py.next import Field, Dims, float64\n"
                       "from mylib import helper\nimport numpy as np\nfrom mylib import other\n"
                       "I = gtx.Dimension('I')\n\n@gtx.field_operator\n"
                       "def f(a: Field[Dims[I], float64]) -> Field[Dims[I], float64]:\n    return a\n";
  auto r = run_weir("check " + q(dir / "imp.py"));
  CHECK(r.code == 0);
  // Once per module, at its first import. Not numpy: weir reads its names itself (dtypes,
  // constants, an orchestration function's np.max), so the search path does not matter for it
  // (user31 G1: the note said no definition used numpy next to an np.max that ran).
  CHECK(r.out == "field_operator f(a: Field[[I], float64]) -> Field[[I], float64]\n" + py +
                     ":3:19: note: module 'mylib' is not on the search path (-I DIR adds a directory); no "
                     "definition here uses it, so nothing fails\n" +
                     py + ": 1 definition checked\n");
  // A module a definition uses is an error there, not a note.
  std::ofstream(py, std::ios::app) << "\n@gtx.field_operator\n"
                                      "def g(a: Field[Dims[I], float64]) -> Field[Dims[I], float64]:\n"
                                      "    return helper(a)\n";
  r = run_weir("check " + q(dir / "imp.py"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, !Catch::Contains("note: module 'mylib'"));
  CHECK_THAT(r.out, !Catch::Contains("note: module 'numpy'"));
}

TEST_CASE("weir check: a misspelt gt4py decorator is an error at the decorator, with the name meant",
          "[cli][check]") {
  auto dir = weir::test::scratch_dir("cli-check-decorator");
  std::ofstream(dir / "s1.py") << "import gt4py.next as gtx\n"
                                  "from gt4py.next import Field, Dims, float64\n"
                                  "I = gtx.Dimension('I')\n"
                                  "@gtx.field_operatr\n"
                                  "def f1(x: Field[Dims[I], float64]) -> Field[Dims[I], float64]:\n"
                                  "    return x\n"
                                  "@gtx.field_operator\n"
                                  "def f2(x: Field[Dims[I], float64]) -> Field[Dims[I], float64]:\n"
                                  "    return x\n"
                                  "@gtx.progam\n"
                                  "def p(x: Field[Dims[I], float64], out: Field[Dims[I], float64]):\n"
                                  "    f2(x, out=out)\n";
  const std::string s1 = (dir / "s1.py").string();
  auto r = run_weir("check " + q(dir / "s1.py"));
  CHECK(r.code == 1);
  CHECK(r.out ==
        "field_operator f2(x: Field[[I], float64]) -> Field[[I], float64]\n" + s1 +
            ":4:2: error: unknown decorator 'gtx.field_operatr': gt4py.next has no 'field_operatr' (did "
            "you mean 'gtx.field_operator'?)\n@gtx.field_operatr\n ^\n" +
            s1 +
            ":10:2: error: unknown decorator 'gtx.progam': gt4py.next has no 'progam' (did you mean "
            "'gtx.program'?)\n@gtx.progam\n ^\n" +
            s1 + ": 3 definitions checked, 2 with errors\n");
  // Run, it says the same (once "error:": after "weir: error:" the located error drops its own).
  r = run_weir("run " + q(dir / "s1.py") + "::f1 --random-inputs --set I=4");
  CHECK(r.code == 1);
  CHECK(r.out ==
        "weir: error: " + s1 +
            ":4:2: unknown decorator 'gtx.field_operatr': gt4py.next has no 'field_operatr' (did you "
            "mean 'gtx.field_operator'?)\n@gtx.field_operatr\n ^\n");
}

TEST_CASE("weir check says which callee's errors stop a caller", "[cli][check]") {
  auto dir = weir::test::scratch_dir("cli-check-callee");
  std::ofstream(dir / "e3.py") << "import gt4py.next as gtx\n"
                                  "from gt4py.next import Field, Dims, float64\n"
                                  "I = gtx.Dimension('I')\n"
                                  "J = gtx.Dimension('J')\n"
                                  "K = gtx.Dimension('K')\n"
                                  "IJ = Field[Dims[I, J], float64]\n"
                                  "@gtx.field_operator\n"
                                  "def up(f: IJ) -> IJ:\n"
                                  "    return f(K + 1)\n"
                                  "@gtx.program\n"
                                  "def prog(f: IJ, out: IJ):\n"
                                  "    up(f, out=out)\n";
  const std::string e3 = (dir / "e3.py").string();
  auto r = run_weir("check " + q(dir / "e3.py"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::StartsWith(e3 + ":9:14: error: cannot shift"));
  CHECK_THAT(r.out,
             Catch::EndsWith(e3 + ":11:1: error: 'prog' is not checked: it calls 'up', which has errors (" +
                             e3 + ":9:14)\ndef prog(f: IJ, out: IJ):\n^\n" + e3 +
                             ": 2 definitions checked, 2 with errors\n"));
}

TEST_CASE("weir check: NumPy functions and gt4py builtins not imported point to gt4py.next's",
          "[cli][check]") {
  auto dir = weir::test::scratch_dir("cli-check-builtins");
  const std::string head =
      "import numpy as np\nimport gt4py.next as gtx\nfrom gt4py.next import Field, Dims, float64\n"
      "I = gtx.Dimension('I')\n@gtx.field_operator\n"
      "def g(f: Field[Dims[I], float64]) -> Field[Dims[I], float64]:\n";
  auto check = [&](const std::string& body) {
    std::ofstream(dir / "m.py") << head << "    return " << body << "\n";
    auto r = run_weir("check " + q(dir / "m.py"));
    CHECK(r.code == 1);
    return r.out;
  };
  const std::string m = (dir / "m.py").string();
  CHECK_THAT(
      check("np.sqrt(f)"),
      Catch::StartsWith(m + ":7:12: error: 'numpy.sqrt' is a NumPy function, which field operators cannot "
                            "call: use gt4py.next's 'sqrt' (from gt4py.next import sqrt)\n"));
  CHECK_THAT(
      check("where(f > 0.0, f, 0.0)"),
      Catch::StartsWith(m + ":7:12: error: unknown name 'where' (a gt4py.next builtin: from gt4py.next "
                            "import where)\n"));
  CHECK_THAT(
      check("max(f, 0.0)"),
      Catch::StartsWith(m + ":7:12: error: 'max' is Python's builtin, which a field_operator cannot call: "
                            "element-wise on fields use gt4py.next's maximum (from gt4py.next import "
                            "maximum)\n"));
  CHECK_THAT(
      check("pow(f, 2.0)"),
      Catch::StartsWith(m + ":7:12: error: 'pow' is Python's builtin, which a field_operator cannot call: "
                            "element-wise on fields use gt4py.next's power (from gt4py.next import "
                            "power)\n"));
  CHECK_THAT(
      check("4 * f"),
      Catch::StartsWith(m + ":7:14: error: cannot multiply int32 and Field[[I], float64]"
                            "; write the literal 4 as 4.0 (integers are not converted to floating point)\n"));
}

TEST_CASE("weir check lists the orchestration functions of a file", "[cli][check]") {
  auto dir = weir::test::scratch_dir("cli-check-lists-orchestration");
  std::ofstream(dir / "o.py")
      << "import gt4py.next as gtx\n"
         "from gt4py.next import Field, Dims, float64\n"
         "I = gtx.Dimension('I')\n"
         "@gtx.field_operator\n"
         "def twice(f: Field[Dims[I], float64]) -> Field[Dims[I], float64]:\n"
         "    return 2.0 * f\n"
         "def helper(x):\n"
         "    print(x)\n"
         "def advect(f: Field[Dims[I], float64], g: Field[Dims[I], float64], n: int):\n"
         "    for _ in range(n):\n"
         "        twice(f, out=g)\n";
  auto r = run_weir("check " + q(dir / "o.py"));
  CHECK(r.code == 0);
  CHECK(r.out ==
        "field_operator twice(f: Field[[I], float64]) -> Field[[I], float64]\n"
        "orchestration advect(f: Field[[I], float64], g: Field[[I], float64], n: int64)\n" +
            (dir / "o.py").string() + ": 1 definition and 1 orchestration function checked\n");
}

// The summary counts orchestration functions too (user32 H7: "0 definitions checked" after
// listing one); one that fails to check while it calls definitions counts, a helper does not.
TEST_CASE("weir check counts the orchestration functions it checks", "[cli][check]") {
  auto dir = weir::test::scratch_dir("cli-check-counts-orchestration");
  std::ofstream(dir / "lib.py") << "import gt4py.next as gtx\n"
                                   "from gt4py.next import Field, Dims, float64\n"
                                   "I = gtx.Dimension('I')\n"
                                   "@gtx.field_operator\n"
                                   "def twice(f: Field[Dims[I], float64]) -> Field[Dims[I], float64]:\n"
                                   "    return 2.0 * f\n";
  std::ofstream(dir / "model.py") << "from lib import *\n"
                                     "def helper(x):\n"
                                     "    print(x)\n"
                                     "def run(f: Field[Dims[I], float64], g: Field[Dims[I], float64]):\n"
                                     "    twice(f, out=g)\n"
                                     "def broken(f: Field[Dims[I], float64], g: Field[Dims[I], float64]):\n"
                                     "    twice(f, out=g)\n"
                                     "    print(f)\n";
  auto r = run_weir("check " + q(dir / "model.py") + " -I " + q(dir));
  CHECK(r.code != 0);
  CHECK_THAT(r.out,
             Catch::Contains((dir / "model.py").string() +
                             ": 0 definitions and 2 orchestration functions checked, 1 with errors\n"));
}
