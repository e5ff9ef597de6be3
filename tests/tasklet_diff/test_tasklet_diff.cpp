// Differential testing of tasklet expressions against CPython (docs/testing.md): random
// well-typed Python expressions, CPython's value of each against weir's cpu backend and the
// reference interpreter. WEIR_TASKLETDIFF_SEED, _FIRST, _COUNT and _BATCH widen or focus the
// seeded run; WEIR_TASKLETDIFF_REPORT names a file for every finding, WEIR_TASKLETDIFF_DIR the
// scratch directory, WEIR_TASKLETDIFF_OPT (e.g. -O1) the cpu backend's optimization flag;
// WEIR_TASKLETDIFF_VERBOSE=1 prints every expression with what each side did.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <fstream>
#include <iostream>

#include "corpus.h"
#include "diff_driver.h"

using namespace weir::tasklet_diff;

namespace {

std::uint64_t env_number(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  return v && *v ? std::strtoull(v, nullptr, 10) : fallback;
}

}  // namespace

TEST_CASE("tasklet_diff: seeded random tasklet expressions agree with CPython on cpu and the interpreter",
          "[tasklet_diff]") {
  DriverOptions o;
  o.seed = env_number("WEIR_TASKLETDIFF_SEED", 1);
  o.first = env_number("WEIR_TASKLETDIFF_FIRST", 0);
  o.count = env_number("WEIR_TASKLETDIFF_COUNT", 400);
  o.batch = env_number("WEIR_TASKLETDIFF_BATCH", 200);
  const char* dir = std::getenv("WEIR_TASKLETDIFF_DIR");
  o.dir = dir && *dir ? std::filesystem::path(dir) : weir::test::scratch_dir("tasklet_diff");
  if (const char* opt = std::getenv("WEIR_TASKLETDIFF_OPT")) o.opt = opt;
  RunSummary s = run_tasklet_diff(o);
  std::cout << "tasklet_diff: seed " << o.seed << ", expressions " << o.first << ".." << o.first + o.count - 1
            << ": " << s.expressions << " expressions in " << s.batches << " compiles, " << s.compared
            << " compared with CPython's value (floats: " << s.float_exact << " identical, " << s.float_close
            << " within " << kUlpTolerance << " ulps), " << s.refused_by_weir << " refused by weir ("
            << s.refused_python_value << " where CPython has a value), " << s.python_raises
            << " where CPython raises, " << s.interpreter_refused
            << " refused by the interpreter where CPython has a value; " << s.seconds << " s, "
            << s.findings.size() << " findings\n";
  std::string report;
  for (const Finding& f : s.findings) report += f.str() + "\n";
  if (const char* path = std::getenv("WEIR_TASKLETDIFF_REPORT")) std::ofstream(path) << report;
  INFO(report);
  CHECK(s.findings.empty());
  CHECK(s.expressions == o.count);
}

TEST_CASE("tasklet_diff: the generator is deterministic and well-formed", "[tasklet_diff]") {
  for (std::uint64_t k = 0; k < 50; ++k) {
    GeneratedExpr a = generate_expression(3, k), b = generate_expression(3, k);
    CHECK(a.text == b.text);
    CHECK(a.type == b.type);
    CHECK(!a.text.empty());
  }
}
