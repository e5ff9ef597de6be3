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
  CHECK_THAT(r.out, Catch::Contains("program laplacian(f: Field[[I, J, K], float64], out: Field[[I, J, K], float64])"));
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
                                   "def f(a: gtx.Field[[I], gtx.float64], b: gtx.Field[[I], gtx.float32]) -> gtx.Field[[I], gtx.float64]:\n"
                                   "    return a + b\n";
  auto r = run_weir("check " + (dir / "bad.py").string());
  CHECK(r.code == 1);
  // Column 14 is the `+` of `    return a + b`.
  CHECK_THAT(r.out, Catch::Contains("bad.py:5:14: error: cannot add") && Catch::Contains("float64") && Catch::Contains("float32"));
}
