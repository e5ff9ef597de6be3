// `weir run` speaks the program's terms, with exact messages: a failed bounds check on the cpu
// backend names the .py line, the field, the dimension, the range read and the field's domain,
// as the embedded backend does (ADR 0027), with the hint of its cause; and no message names the
// lowering's internal size symbols (`__f_I_size`).
#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;

namespace {

using weir::test::run_weir;

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

const std::string kLaplacian = (fs::path(WEIR_SOURCE_DIR) / "examples/cartesian/laplacian.py").string();

// copy.py: `ident(f, out=out)` at line 9, column 5; f.npy has 4 points, out.npy 6.
fs::path copy_program(const fs::path& dir) {
  std::ofstream(dir / "copy.py")
      << "import gt4py.next as gtx\nfrom gt4py.next import Field, float64\n"
         "I = gtx.Dimension('I')\n@gtx.field_operator\n"
         "def ident(f: Field[[I], float64]) -> Field[[I], float64]:\n    return f\n"
         "@gtx.program\ndef copy(f: Field[[I], float64], out: Field[[I], float64]):\n"
         "    ident(f, out=out)\n";
  std::ofstream(dir / "make.py") << "import numpy as np\nnp.save(" << q(dir / "f.npy")
                                 << ", np.arange(4.0))\n"
                                 << "np.save(" << q(dir / "out.npy") << ", np.zeros(6))\n"
                                 << "np.save(" << q(dir / "f3.npy") << ", np.ones((4, 4, 2)))\n";
  REQUIRE(std::system(("/usr/bin/python3 " + q(dir / "make.py")).c_str()) == 0);
  return dir / "copy.py";
}

}  // namespace

TEST_CASE("weir run --backend cpu: a failed bounds check names the .py line, the field and its domain",
          "[cli][run][bounds]") {
  auto dir = weir::test::scratch_dir("cli-run-user-terms-bounds");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  fs::path copy = copy_program(dir);
  const std::string args = "::copy --in f=" + q(dir / "f.npy") + " --in out=" + q(dir / "out.npy");
  // The input is smaller than the domain: the hint says so, not "shifted reads"; the location
  // is the call, as on the embedded backend.
  auto r = run_weir("run " + q(copy) + args + " --backend cpu");
  INFO(r.out);
  CHECK(r.code == 1);
  const std::string cpu_error =
      copy.string() +
      ":9:5: 'f' is read over I: [0, 6), outside its domain I: [0, 4)\n"
      "  in the SDFG: state 'call_0_ident', map 'ident_map': reads f[0 .. 5] in dimension 0 of f with shape "
      "4 "
      "(the input is smaller than the domain it is read over; pass a larger input or a smaller domain)\n"
      "  'out' is (6,) but 'f' is (4,) over (I): the output is larger along I\n";
  CHECK_THAT(r.out, Catch::EndsWith("weir: error: program 'copy' stopped with an error: " + cpu_error));
  CHECK_THAT(r.out, !Catch::Contains("shifted") && !Catch::Contains("hint:"));
  r = run_weir("run " + q(copy) + args + " --backend embedded");
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::EndsWith("weir: error: " + copy.string() +
                             ":9:5: the result of 'ident' is computed over (I: [0, 4)), which does not "
                             "cover the output domain of 'out' (I: [0, 6)) (an input is smaller than "
                             "the output domain; pass larger inputs or a smaller output domain)\n"
                             "  'out' is (6,) but 'f' is (4,) over (I): the output is larger along I\n"));
  // The SDFG file keeps the lowering's debuginfo, so running it says the same.
  REQUIRE(run_weir("sdfg " + q(copy) + "::copy -o " + q(dir / "copy.sdfg")).code == 0);
  r = run_weir("run " + q(dir / "copy.sdfg") + " --backend cpu --in f=" + q(dir / "f.npy") +
               " --in out=" + q(dir / "out.npy"));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::EndsWith(cpu_error));

  // A @field_operator with shifts run directly: the shifted reads of f over the union of its
  // reads, located at the first shifted read (f(I + 1), line 15), then the hint of how to give
  // it a smaller domain.
  r = run_weir("run '" + kLaplacian + "::lap' --backend cpu --random-inputs --set I=16 --set J=8 --set K=2");
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(
      r.out,
      Catch::EndsWith(
          "weir: error: program 'lap' stopped with an error: " + kLaplacian +
          ":15:23: 'f' is read over I: [-1, 17) and J: [-1, 9), outside its domain I: [0, 16) and J: [0, 8)\n"
          "  in the SDFG: state 'call_0_lap', map 'lap_map': reads f[-1 .. 16] in dimension 0 of f with "
          "shape 16 and f[-1 .. 8] in dimension 1 of f with shape 8 (shifted reads need a larger input or a "
          "smaller output domain)\n"
          "  hint: 'lap' is a @field_operator run directly, so its result must cover the whole output "
          "array '__out' (shaped like its inputs); to compute it on part of the domain, run a @program "
          "that calls it with a sliced out=, e.g. lap(f, out=out[1:-1, 1:-1, :])\n"));
}

TEST_CASE("weir run: messages name a field's extents by its dimensions, never by internal size symbols",
          "[cli][run][usage]") {
  auto dir = weir::test::scratch_dir("cli-run-user-terms-sizes");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  copy_program(dir);
  const std::string lap = "run '" + kLaplacian + "::laplacian'";
  for (const char* backend : {"cpu", "embedded"}) {
    INFO(backend);
    auto r = run_weir(lap + " --backend " + backend + " --random-inputs");
    CHECK(r.code == 1);
    CHECK(
        r.out ==
        "weir: error: --random-inputs: the shape of 'f' (float64 array of shape (I, J, K)) needs the extents "
        "of I, J, K; give them with --set I=N --set J=N --set K=N (--set DIM=N sizes every field along "
        "DIM)\n");
  }
  // The compiled program's argument checks (before compiling).
  auto r = run_weir(lap + " --backend cpu");
  CHECK(r.code == 1);
  CHECK(
      r.out ==
      "weir: error: missing arguments 'f' (float64 array of shape (I, J, K)), 'out' (float64 array of shape "
      "(I, J, K))\n"
      "  hint: give it with --in f=FILE.npy\n"
      "  'out' is an output: weir allocates it (zeros, sized like the inputs) once the inputs are given\n");
  r = run_weir(lap + " --backend cpu --in f=" + q(dir / "f3.npy") + " --in out=" + q(dir / "f.npy"));
  CHECK(r.code == 1);
  CHECK(r.out ==
        "weir: error: argument 'out': expected float64 array of shape (I, J, K), got float64 (4,)\n");
  // A missing connectivity table: the same message on both backends (the compiled program
  // fixes the neighbours per row), never the table's row symbol.
  std::ofstream(dir / "cells.py") << "import numpy as np\nd = " << q(dir) << "\n"
                                  << "np.save(d + '/psi.npy', np.ones((6, 2)))\n"
                                  << "np.save(d + '/weights.npy', np.ones((6, 4)))\n"
                                  << "np.save(d + '/lap.npy', np.zeros((6, 2)))\n";
  REQUIRE(std::system(("/usr/bin/python3 " + q(dir / "cells.py")).c_str()) == 0);
  const std::string cells = "run '" +
                            (fs::path(WEIR_SOURCE_DIR) / "examples/unstructured/cell_laplacian.py").string() +
                            "::cell_laplacian' --in psi=" + q(dir / "psi.npy") +
                            " --in weights=" + q(dir / "weights.npy") + " --in lap=" + q(dir / "lap.npy");
  r = run_weir(cells + " --backend cpu");
  CHECK(r.code == 1);
  const std::string table_hint =
      "  hint: give it with --in C2E2CO=FILE.npy\n"
      "  'weir mesh --nx 8 --ny 6 -o mesh/' writes C2E2CO.npy and the other connectivity tables of a "
      "periodic "
      "triangular mesh\n";
  CHECK(r.out ==
        "weir: error: missing connectivity table 'C2E2CO' (an int32 or int64 array of shape (n_Cell, 4))\n" +
            table_hint);
  r = run_weir(cells + " --backend embedded");
  CHECK(r.code == 1);
  CHECK(r.out ==
        "weir: error: missing connectivity table 'C2E2CO' (an int32 or int64 array of shape (n_Cell, "
        "max_neighbours))\n" +
            table_hint);
}

TEST_CASE("weir run --domain: a @field_operator run directly gets the @program call for that domain",
          "[cli][run][usage]") {
  auto dir = weir::test::scratch_dir("cli-run-user-terms-domain");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  for (const char* backend : {"cpu", "embedded"}) {
    INFO(backend);
    const std::string lap = "run '" + kLaplacian + "::lap' --backend " + std::string(backend);
    auto r = run_weir(lap + " --domain I=1:9,K=0:5");
    CHECK(r.code == 2);
    CHECK(r.out ==
          "weir: error: --domain: weir runs a @field_operator called directly over its whole output; to "
          "compute "
          "'lap' on I: [1, 9), K: [0, 5), run a @program that calls it with a sliced out=: lap(f, "
          "out=out[1:9, :, 0:5])\n");
    r = run_weir(lap + " --domain X=1:9");
    CHECK(r.code == 2);
    CHECK(r.out == "weir: error: --domain: 'lap' returns a field over (I, J, K), not over X\n");
    for (const char* bad : {"I=1", "I=a:3", "=1:2", "I=1:2,"}) {
      r = run_weir(lap + " --domain '" + bad + "'");
      CHECK(r.code == 2);
      CHECK(r.out == "weir: error: --domain " + std::string(bad) +
                         ": expected DIM=START:STOP[,DIM=START:STOP...] (e.g. I=1:9,K=0:5)\n");
    }
    r = run_weir(lap + " --domain I=5:2");
    CHECK(r.code == 2);
    CHECK(r.out == "weir: error: --domain I=5:2: START and STOP must satisfy 0 <= START <= STOP\n");
    // A tuple of results (a user's report: "'smooth' is not a @field_operator run directly"): one
    // slice per result, each over its own dimensions, the tuple out= gt4py takes.
    std::ofstream(dir / "pair.py") << "import gt4py.next as gtx\n"
                                      "from gt4py.next import Field, float64\n"
                                      "I = gtx.Dimension('I')\n"
                                      "J = gtx.Dimension('J')\n"
                                      "@gtx.field_operator\n"
                                      "def pair(f: Field[[I, J], float64], s: float64) -> "
                                      "tuple[Field[[I, J], float64], Field[[I, J], float64]]:\n"
                                      "    return f(I + 1) * s, f(J - 1)\n";
    r = run_weir("run " + q(dir / "pair.py") + "::pair --backend " + backend + " --domain I=1:11,J=1:9");
    CHECK(r.code == 2);
    CHECK(r.out ==
          "weir: error: --domain: weir runs a @field_operator called directly over its whole output; to "
          "compute 'pair' on I: [1, 11), J: [1, 9), run a @program that calls it with a sliced out=: pair(f, "
          "s, "
          "out=(out_0[1:11, 1:9], out_1[1:11, 1:9]))\n");
    r = run_weir("run '" + kLaplacian + "::laplacian' --backend " + backend + " --domain I=1:9");
    CHECK(r.code == 2);
    CHECK(r.out ==
          "weir: error: --domain: 'laplacian' is not a @field_operator run directly; the calls of a @program "
          "give their own domains (out=out[1:-1, :] or domain={I: (1, 9)})\n");
  }
}

TEST_CASE("weir run --backend cpu: a computed index outside its field names the read's .py line first",
          "[cli][run][bounds]") {
  auto dir = weir::test::scratch_dir("cli-run-user-terms-index");
  ::setenv("WEIR_CACHE_DIR", (dir / "cache").c_str(), 1);
  // second(v) reads v(E2V[1]) at line 12, column 12; row 1 of E2V has no neighbour 1 (-1).
  std::ofstream(dir / "nb.py")
      << "import gt4py.next as gtx\nfrom gt4py.next import Field, float64\nV = gtx.Dimension('V')\n"
         "E = gtx.Dimension('E')\nE2VDim = gtx.Dimension('E2VDim', kind=gtx.DimensionKind.LOCAL)\n"
         "E2V = gtx.FieldOffset('E2V', source=V, target=(E, E2VDim))\nVF = Field[[V], float64]\n"
         "EF = Field[[E], float64]\n\n@gtx.field_operator\ndef second(v: VF) -> EF:\n    return v(E2V[1])\n\n"
         "@gtx.program\ndef direct(v: VF, out: EF):\n    second(v, out=out)\n";
  std::ofstream(dir / "make.py")
      << "import numpy as np\nd = " << q(dir) << "\n"
      << "np.save(d + '/v.npy', np.arange(4.0))\nnp.save(d + '/out.npy', np.zeros(3))\n"
      << "np.save(d + '/E2V.npy', np.array([[0, 1], [1, -1], [2, 3]], dtype=np.int32))\n";
  REQUIRE(std::system(("/usr/bin/python3 " + q(dir / "make.py")).c_str()) == 0);
  const std::string nb = (dir / "nb.py").string();
  auto r = run_weir("run " + q(dir / "nb.py") + "::direct --backend cpu --in-dir " + q(dir));
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(r.out,
             Catch::EndsWith("weir: error: program 'direct' stopped with an error: " + nb +
                             ":12:12: a read of 'v': index -1 along V is outside [0, 4) at (E=1); "
                             "the index is E2V[E, 1] (" +
                             nb +
                             ":12:12) (a -1 in a connectivity table marks a missing neighbour, which has "
                             "no value to read)\n"
                             "  in the SDFG: state 'call_0_second', map 'second_map', tasklet 'second', "
                             "connector '__all_v'\n"));
  r = run_weir("run " + q(dir / "nb.py") + "::direct --backend embedded --in-dir " + q(dir));
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::EndsWith(
                        "weir: error: " + nb +
                        ":12:12: a read of 'v' through E2V[1, 1], which is -1 (a missing neighbour, which "
                        "has no value to read), leaves the result of 'second' undefined at (E=1) of the "
                        "output 'out' (the call at " +
                        nb + ":16:5)\n"));
}
