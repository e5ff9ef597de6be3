// `weir run` of model-style programs whose out= field the call also reads (docs/adr/0043): the
// values against NumPy computed independently from the inputs before the call, on the embedded
// and cpu backends; `--verbose` names the outputs computed through a temporary and a copy, and
// only those.
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "cli_test_util.h"

namespace fs = std::filesystem;

namespace {

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

const char* kProgram = R"(import gt4py.next as gtx
from gt4py.next import Field, Dims, float64, int32, astype
from gt4py.next.experimental import concat_where

Cell = gtx.Dimension("Cell")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
Koff = gtx.FieldOffset("Koff", source=K, target=(K,))
CK = Field[Dims[Cell, K], float64]


@gtx.field_operator
def _neighbours(w: CK, z: CK) -> tuple[CK, CK]:
    w_wp, z_wp = astype((w, z), float64)
    return w_wp(Koff[-1]), w_wp(Koff[1]) * z_wp


@gtx.field_operator
def _smooth(w: CK, z: CK) -> CK:
    below, above = _neighbours(w, z)
    return 0.5 * (below + above)


@gtx.program
def smooth(w: CK, z: CK, nlev: int32):
    _smooth(w, z, out=w, domain={K: (1, nlev - 1)})


@gtx.field_operator
def _top(w: CK, z: CK) -> CK:
    lower, upper = _neighbours(z, w)
    return concat_where(K == 1, 0.5 * w(Koff[-1]) + upper, 0.25 * w + z)


@gtx.program
def top(w: CK, z: CK, nlev: int32):
    _top(w, z, out=w, domain={K: (1, nlev)})
)";

}  // namespace

TEST_CASE("weir run: out= read at other levels is computed through a copy, NumPy's values",
          "[cli][run][fieldview][out-hazard]") {
  auto dir = weir::test::scratch_dir("cli-run-out-aliasing");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  std::ofstream(dir / "model.py") << kProgram;
  weir::test::cli::python(dir, "inputs.py", R"(
import os
os.makedirs(d + "/in", exist_ok=True)
rng = np.random.default_rng(7)
np.save(d + "/in/w.npy", rng.random((5, 6)))
np.save(d + "/in/z.npy", rng.random((5, 6)))
)");
  for (const char* backend : {"embedded", "cpu"}) {
    for (const char* program : {"smooth", "top"}) {
      INFO(backend << " " << program);
      auto out = dir / (std::string("out_") + backend + "_" + program);
      auto r = weir::test::run_weir("run " + q(dir / "model.py") + "::" + program + " --backend " + backend +
                                    " --verbose --set nlev=6 --in-dir " + q(dir / "in") + " --out " + q(out));
      INFO(r.out);
      REQUIRE(r.code == 0);
      // smooth reads w at the levels above and below the written one: a copy; top reads w
      // shifted only at level 1, from level 0, which it does not write: in place.
      bool copy = std::string(program) == "smooth" && std::string(backend) == "cpu";
      CHECK((r.out.find("computes 'w' into a temporary and then copies it to 'w'") != std::string::npos) ==
            copy);
      weir::test::cli::python(dir, "check.py", "out = '" + out.string() + R"('
w = np.load(d + "/in/w.npy"); z = np.load(d + "/in/z.npy"); o = np.load(out + "/w.npy")
ref = w.copy()
if ")" + program + R"(" == "smooth":
    ref[:, 1:5] = 0.5 * (w[:, 0:4] + w[:, 2:6] * z[:, 1:5])
else:
    ref[:, 1] = 0.5 * w[:, 0] + z[:, 2] * w[:, 1]
    ref[:, 2:6] = 0.25 * w[:, 2:6] + z[:, 2:6]
assert np.allclose(o, ref, rtol=1e-12, atol=0), np.abs(o - ref).max()
)");
    }
  }
}
