// `weir run FILE.py::PROGRAM` with program parameters of tuple and NamedTuple type: each leaf is
// one argument named x_0, x_1_0, ... (`--in x_0=FILE.npy`, `--set x_1_1=V`), written by
// --save-inputs and --out under those names; results against NumPy on embedded and cpu.
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "cli_test_util.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

const char* kProgram = R"(import gt4py.next as gtx
from typing import NamedTuple
from gt4py.next import Field, float64
I = gtx.Dimension('I')
F = Field[[I], float64]

class Pair(NamedTuple):
    low: F
    high: F

@gtx.field_operator
def spread(t: tuple[F, tuple[F, float64]]) -> Pair:
    return t[0] - t[1][1], t[1][0] + t[1][1]

@gtx.program
def spread_program(x: tuple[F, tuple[F, float64]], out: Pair):
    spread(x, out=out)
)";

}  // namespace

TEST_CASE("weir run FILE.py::PROGRAM: tuple parameters are given and written leaf by leaf",
          "[cli][run][fieldview][tuple-parameters]") {
  auto dir = weir::test::scratch_dir("cli-run-tuple-parameters");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "tuples.py") << kProgram;
  REQUIRE(weir::test::run_numpy(dir, R"(
os.makedirs("in", exist_ok=True)
np.save("in/a.npy", np.arange(5.0))
np.save("in/b.npy", np.linspace(-1.0, 1.0, 5))
)",
                                "inputs.py") == 0);
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    auto out = dir / (std::string("out_") + backend);
    auto r = weir::test::run_weir("run " + q(dir / "tuples.py") + "::spread_program --backend " + backend +
                                  " --in x_0=" + q(dir / "in/a.npy") + " --in x_1_0=" + q(dir / "in/b.npy") +
                                  " --set x_1_1=2.5 --out " + q(out));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK_THAT(r.out, Catch::Contains("out_0: float64 (5,)") && Catch::Contains("out_1: float64 (5,)"));
    CHECK(weir::test::run_numpy(dir,
                                "a, b = np.load('in/a.npy'), np.load('in/b.npy')\n"
                                "assert (np.load('" +
                                    out.filename().string() +
                                    "/out_0.npy') == a - 2.5).all()\n"
                                    "assert (np.load('" +
                                    out.filename().string() + "/out_1.npy') == b + 2.5).all()\n",
                                "check.py") == 0);
  }
  // --random-inputs makes, and --save-inputs writes, each leaf under its own name.
  auto saved = dir / "saved";
  auto r = weir::test::run_weir("run " + q(dir / "tuples.py") +
                                "::spread_program --random-inputs --set I=4 "
                                "--set x_1_1=1.0 --save-inputs " +
                                q(saved) + " --out " + q(dir / "rand"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  CHECK(weir::test::run_numpy(dir,
                              "a, b = np.load('saved/x_0.npy'), np.load('saved/x_1_0.npy')\n"
                              "assert a.shape == (4,) and b.shape == (4,)\n"
                              "assert (np.load('rand/out_0.npy') == a - 1.0).all()\n"
                              "assert (np.load('rand/out_1.npy') == b + 1.0).all()\n",
                              "check_random.py") == 0);
}
