// `--no-bounds-checks` (weir run, weir compile): the unsafe escape hatch of the generated code's
// bounds checks (docs/security.md): the code has none left, the results of a valid run are the
// same, the help says it is unsafe.
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli_run.h"
#include "cli_test_util.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

using weir::test::run_numpy;
using weir::test::run_weir;
using weir::test::cli::python;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
fs::path ex_path(const std::string& rel) { return fs::path(WEIR_SOURCE_DIR) / "examples" / rel; }

/// The generated program's part after the prelude (which defines the check functions).
std::string program_part(const fs::path& cpp) {
  std::string text = weir::test::read_text(cpp);
  std::size_t at = text.find("// --- SDFG");
  REQUIRE(at != std::string::npos);
  return text.substr(at);
}

}  // namespace

TEST_CASE("no bounds checks: the generated code has none, the results are the same", "[cli][run]") {
  auto dir = weir::test::scratch_dir("cli-no-bounds-checks");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  const std::string nabla = ex_path("unstructured/nabla.py").string() + "::nabla_program";

  auto checked = run_weir("compile " + q(nabla) + " --verbose --emit-cpp " + q(dir / "checked"));
  REQUIRE(checked.code == 0);
  // --verbose says which checks an entry check of a table stands for (docs/adr/0051).
  CHECK_THAT(checked.out,
             Catch::Contains("nabla_program: bounds of 24 indices read through table 'V2E' (into "
                             "'E2V', 'S_MXX', 'S_MYY') proven by its entry check in weir_run"));
  auto unchecked = run_weir("compile " + q(nabla) + " --no-bounds-checks --emit-cpp " + q(dir / "unchecked"));
  INFO(unchecked.out);
  REQUIRE(unchecked.code == 0);
  const std::string with = program_part(dir / "checked" / "nabla_program.cpp");
  const std::string without = program_part(dir / "unchecked" / "nabla_program.cpp");
  CHECK(with.find("weir_index(") != std::string::npos);
  CHECK(with.find("weir_check_bounds(") != std::string::npos);
  CHECK(without.find("weir_index(") == std::string::npos);
  CHECK(without.find("weir_check_bounds(") == std::string::npos);
  CHECK(without.find("weir_bounds_ok(") == std::string::npos);
  // The entry check of V2E that stands for the checks of its entries (docs/adr/0051) goes too.
  CHECK(with.find("weir_check_table(\"V2E\"") != std::string::npos);
  CHECK(without.find("weir_check_table(") == std::string::npos);

  // The Laplacian of a valid input: the same bytes with and without checks, and NumPy's values.
  python(dir, "make.py",
         "np.save(d + '/f.npy', np.random.default_rng(3).random((9, 8, 4)))\n"
         "np.save(d + '/out.npy', np.zeros((9, 8, 4)))\n");
  const std::string lap = ex_path("cartesian/laplacian.py").string() + "::laplacian";
  for (const char* how : {"checked", "unchecked"}) {
    const bool off = std::string(how) == "unchecked";
    auto r = run_weir("run " + q(lap) + " --backend cpu --in f=" + q(dir / "f.npy") +
                      " --in out=" + q(dir / "out.npy") + " --out " + q(dir / (std::string("run-") + how)) +
                      (off ? " --no-bounds-checks" : ""));
    INFO(r.out);
    REQUIRE(r.code == 0);
  }
  CHECK(weir::test::read_text(dir / "run-checked" / "out.npy") ==
        weir::test::read_text(dir / "run-unchecked" / "out.npy"));
  CHECK(run_numpy(dir,
                  std::string(weir::test::cli::kNumpyLaplacian) +
                      "f = np.load('f.npy'); o = np.load('run-unchecked/out.npy')\n"
                      "sys.exit(0 if np.allclose(o[1:-1, 1:-1], lap(f), rtol=1e-13, atol=1e-13) else 1)\n") ==
        0);

  for (const char* cmd : {"run", "compile"}) {
    auto help = run_weir(std::string(cmd) + " --help");
    CHECK_THAT(help.out, Catch::Contains("--no-bounds-checks"));
    CHECK_THAT(help.out, Catch::Contains("UNSAFE"));
  }
}
