// `weir convert --flatten` of an orchestrated program's SDFG (examples/orchestration/heat.py: a
// time loop calling a stencil program, with swaps): the flat SDFG validates (the states moved
// out of the call regions get unique labels) and runs on the cpu backend to the same numbers as
// the structured one and as NumPy. And a conversion writes no invalid file: an input that is
// invalid already is written as read, with a warning.
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;
using weir::test::run_weir;

namespace {

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

}  // namespace

TEST_CASE("weir convert --flatten: an orchestrated time loop validates and runs as before",
          "[cli][convert]") {
  auto dir = weir::test::scratch_dir("cli-convert-flatten");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  const std::string heat = (fs::path(WEIR_SOURCE_DIR) / "examples" / "orchestration" / "heat.py").string();
  auto r = run_weir("sdfg " + q(heat) + "::heat -o " + q(dir / "heat.sdfg"));
  REQUIRE(r.code == 0);
  r = run_weir("convert --flatten " + q(dir / "heat.sdfg") + " -o " + q(dir / "flat.sdfg"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  // The loop and the conditional of the swaps' parity; both calls' states are now in one region.
  CHECK(r.out == "flattened 2 control-flow regions\nwrote " + (dir / "flat.sdfg").string() + "\n");
  r = run_weir("validate " + q(dir / "flat.sdfg"));
  CHECK(r.code == 0);
  CHECK(r.out == (dir / "flat.sdfg").string() + ": valid (SDFG 'heat')\n");

  REQUIRE(weir::test::run_numpy(dir, R"(
rng = np.random.default_rng(3)
os.makedirs("in", exist_ok=True)
np.save("in/u.npy", rng.random((12, 10)))
np.save("in/u_next.npy", np.zeros((12, 10)))
np.save("in/kappa.npy", rng.random((12, 10)))
)") == 0);
  for (const char* which : {"heat", "flat"}) {
    INFO(which);
    r = run_weir("run " + q(dir / (std::string(which) + ".sdfg")) + " --backend cpu --in-dir " +
                 q(dir / "in") + " --set dt=0.1 --set steps=3 --out " + q(dir / which));
    INFO(r.out);
    REQUIRE(r.code == 0);
  }
  // Three steps of the 5-point update on the interior, the time levels swapped after each (so
  // the newest values end in u_next); flat and structured are bit-identical.
  CHECK(weir::test::run_numpy(dir, R"(
u, v, kappa = np.load("in/u.npy"), np.load("in/u_next.npy"), np.load("in/kappa.npy")
a, b = u, v
for _ in range(3):
    c = a[1:-1, 1:-1]
    b[1:-1, 1:-1] = c + 0.1 * kappa[1:-1, 1:-1] * (-4.0 * c + a[2:, 1:-1] + a[:-2, 1:-1] + a[1:-1, 2:] + a[1:-1, :-2])
    a, b = b, a
for name, want in (("u", u), ("u_next", v)):
    s, f = np.load(f"heat/{name}.npy"), np.load(f"flat/{name}.npy")
    assert np.array_equal(s, f), name
    assert np.allclose(s, want, rtol=1e-12, atol=0), (name, np.max(np.abs(s - want)))
assert not np.array_equal(u, np.load("in/u.npy"))
)") == 0);
}

TEST_CASE("weir convert: an input that is invalid already is written as read, with a warning",
          "[cli][convert]") {
  auto dir = weir::test::scratch_dir("cli-convert-invalid-input");
  // An unknown descriptor type: weir's validator rejects the file, DaCe's tools read it.
  fs::path in = weir::test::dace_corpus_dir() / "doc-samples" / "reference.sdfg";
  auto out = dir / "ref.sdfg";
  auto r = run_weir("convert " + q(in) + " -o " + q(out));
  CHECK(r.code == 0);
  CHECK(r.out == "weir: warning: " + out.string() +
                     ": written with the 1 validation problem its input has already ('weir validate " +
                     out.string() + "' lists them)\nwrote " + out.string() + "\n");
  CHECK(fs::exists(out));
}
