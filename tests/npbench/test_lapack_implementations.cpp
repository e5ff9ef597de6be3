// LAPACK library nodes of DaCe's linalg library (Cholesky, Solve, Inv: what np.linalg.cholesky,
// solve and inv become), built with DaCe's connectors (_a/_b; _ain/_bin/_bout; _ain/_aout) and
// attributes (`lower`), in both implementations: pure (loops) and OpenBLAS (LAPACKE calls), each
// against NumPy's np.linalg on the same inputs at sizes 7, 1 and 2, with row pivoting, a
// sub-block operand, a vector right-hand side and float32. A singular or not positive definite
// matrix is an error naming the node, as NumPy raises LinAlgError.
#include <catch2/catch.hpp>

#include "corpus.h"
#include "library_case.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/cpu_schedules.h"

using namespace weir;
using test::check_library_case;
using test::LibraryCase;

namespace {

LibraryCase linalg(LibraryCase c) {
  c.library = "linalg";
  return c;
}

// A symmetric positive definite A (M x M).
const char* kSpd = "inputs['A'] = inputs['A'] @ inputs['A'].T + M * np.eye(M, dtype=dt)";
// A well-conditioned A whose LU factorization must swap rows (rows of a dominant diagonal reversed).
const char* kPivoting = "inputs['A'] = (inputs['A'] + M * np.eye(M, dtype=dt))[::-1].copy()";

}  // namespace

TEST_CASE("lapack: Cholesky (lower), pure and LAPACKE, matches NumPy", "[lapack][npbench]") {
  LibraryCase c{"cholesky",
                "cholesky.Cholesky",
                {{"A", {"M", "M"}}, {"L", {"M", "M"}}},
                {{"_a", "A", "0:M, 0:M"}},
                {{"_b", "L", "0:M, 0:M"}},
                {},
                "expected['L'] = np.linalg.cholesky(inputs['A'])"};
  c.prepare = kSpd;
  check_library_case(linalg(c), "LAPACKE_dpotrf");
}

TEST_CASE("lapack: Cholesky with lower = false gives the upper factor", "[lapack][npbench]") {
  LibraryCase c{"cholesky_upper",
                "cholesky.Cholesky",
                {{"A", {"M", "M"}}, {"U", {"M", "M"}}},
                {{"_a", "A", "0:M, 0:M"}},
                {{"_b", "U", "0:M, 0:M"}},
                {{"lower", "false"}},
                "expected['U'] = np.linalg.cholesky(inputs['A']).T"};
  c.prepare = kSpd;
  check_library_case(linalg(c), "LAPACKE_dpotrf");
}

TEST_CASE("lapack: Solve with a matrix right-hand side and pivoting matches NumPy", "[lapack][npbench]") {
  LibraryCase c{"solve",
                "solve.Solve",
                {{"A", {"M", "M"}}, {"B", {"M", "N"}}, {"X", {"M", "N"}}},
                {{"_ain", "A", "0:M, 0:M"}, {"_bin", "B", "0:M, 0:N"}},
                {{"_bout", "X", "0:M, 0:N"}},
                {},
                "expected['X'] = np.linalg.solve(inputs['A'], inputs['B'])"};
  c.prepare = kPivoting;
  check_library_case(linalg(c), "LAPACKE_dgesv");
}

TEST_CASE("lapack: Solve of a sub-block with a vector right-hand side matches NumPy", "[lapack][npbench]") {
  LibraryCase c{"solve_block",
                "solve.Solve",
                {{"A", {"M + 2", "M + 3"}}, {"b", {"M"}}, {"x", {"M"}}},
                {{"_ain", "A", "1:M + 1, 2:M + 2"}, {"_bin", "b", "0:M"}},
                {{"_bout", "x", "0:M"}},
                {},
                "expected['x'] = np.linalg.solve(inputs['A'][1:M + 1, 2:M + 2], inputs['b'])"};
  c.prepare = "inputs['A'][1:M + 1, 2:M + 2] += M * np.eye(M, dtype=dt)";
  check_library_case(linalg(c), "LAPACKE_dgesv");
}

TEST_CASE("lapack: Inv matches NumPy, float64 and float32", "[lapack][npbench]") {
  LibraryCase c{"inv",
                "inv.Inv",
                {{"A", {"M", "M"}}, {"B", {"M", "M"}}},
                {{"_ain", "A", "0:M, 0:M"}},
                {{"_aout", "B", "0:M, 0:M"}},
                {},
                "expected['B'] = np.linalg.inv(inputs['A'])"};
  c.prepare = kPivoting;
  check_library_case(linalg(c), "LAPACKE_dgesv");
  c.name = "inv_f32";
  c.dtype = ScalarType::Float32;
  check_library_case(linalg(c), "LAPACKE_sgesv");
}

TEST_CASE("lapack: a singular or indefinite matrix is an error naming the node", "[lapack][npbench]") {
  auto dir = test::scratch_dir("lapack-singular");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  struct Bad {
    LibraryCase c;
    std::vector<double> a;  // A's values, 2 x 2
    std::string message;
  };
  std::vector<Bad> cases = {{linalg({"inv_singular",
                                     "inv.Inv",
                                     {{"A", {"M", "M"}}, {"B", {"M", "M"}}},
                                     {{"_ain", "A", "0:M, 0:M"}},
                                     {{"_aout", "B", "0:M, 0:M"}},
                                     {},
                                     ""}),
                             {1, 2, 2, 4},
                             "the matrix is singular"},
                            {linalg({"cholesky_indefinite",
                                     "cholesky.Cholesky",
                                     {{"A", {"M", "M"}}, {"L", {"M", "M"}}},
                                     {{"_a", "A", "0:M, 0:M"}},
                                     {{"_b", "L", "0:M, 0:M"}},
                                     {},
                                     ""}),
                             {1, 2, 2, 1},
                             "the matrix is not positive definite (its leading minor of order 2"}};
  for (const auto& bad : cases)
    for (const std::string impl : {"pure", "OpenBLAS"}) {
      INFO(bad.c.name << ", implementation " << impl);
      auto sdfg = test::build_library_case(bad.c, impl);
      runtime::Arguments args;
      runtime::Field a = runtime::Allocator::cpu().allocate(ScalarType::Float64, {2, 2});
      runtime::Field b = runtime::Allocator::cpu().allocate(ScalarType::Float64, {2, 2});
      for (std::size_t i = 0; i < 4; ++i) static_cast<double*>(a.data())[i] = bad.a[i];
      args.arrays.emplace("A", std::move(a));
      args.arrays.emplace(bad.c.outs[0].data, std::move(b));
      args.values["M"] = std::int64_t(2);
      runtime::CompilableProgram program{std::shared_ptr<const SDFG>(std::move(sdfg)), {}, bad.c.name};
      auto backend = runtime::make_cpu_backend();
      try {
        runtime::run(*backend, program, args);
        FAIL("no error");
      } catch (const std::exception& e) {
        std::string what = e.what();
        INFO(what);
        CHECK(what.find(bad.message) != std::string::npos);
        CHECK(what.find("(node ") != std::string::npos);
      }
    }
}

TEST_CASE("lapack: weir's cpu schedules give linalg nodes without an implementation OpenBLAS",
          "[lapack][npbench]") {
  auto sdfg = test::build_library_case(linalg({"sched",
                                               "inv.Inv",
                                               {{"A", {"M", "M"}}, {"B", {"M", "M"}}},
                                               {{"_ain", "A", "0:M, 0:M"}},
                                               {{"_aout", "B", "0:M, 0:M"}},
                                               {},
                                               ""}),
                                       "");
  transforms::AnalysisCache cache;
  transforms::CpuSchedules().run(*sdfg, cache);
  for (Node* n : sdfg->all_states()[0]->nodes())
    if (auto* l = n->as<LibraryNode>()) CHECK(l->implementation == "OpenBLAS");
}
