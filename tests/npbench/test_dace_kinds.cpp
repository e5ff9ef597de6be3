// Kinds of SDFGs DaCe writes (issue 37, section 1), one small program each, written by DaCe 2.0
// from the sources in tests/npbench/dace_kinds/README.md with inputs and NumPy's results (NumPy
// computed them when the fixtures were written; DaCe's own run agreed). Each runs through the
// built `weir run ... --out DIR` as a user runs it, and DIR must hold exactly the arrays of
// expected/ (what the program writes: in-place arguments, `__return`, `__return_0`, ...), each
// equal to NumPy's (rtol 1e-10; 1e-5 for float32 and complex64, the corpus README's rule;
// integers exactly), checked by Debian's /usr/bin/python3.
#include <catch2/catch.hpp>
#include <filesystem>
#include <string>

#include "cli_run.h"
#include "corpus.h"
#include "weir_test_paths.h"

namespace {

namespace fs = std::filesystem;

fs::path kinds_dir() { return fs::path(WEIR_SOURCE_DIR) / "tests" / "npbench" / "dace_kinds"; }

std::string quoted(const fs::path& p) { return "'" + p.string() + "'"; }

// Runs fixture `name` (with --trust-code where `trust`; after `weir optimize --auto cpu` where
// `auto_cpu`, on 2 threads) and compares what --out wrote.
void check_kind(const std::string& name, bool trust = false, bool auto_cpu = false) {
  INFO("fixture tests/npbench/dace_kinds/" << name << (auto_cpu ? " after --auto cpu" : ""));
  const fs::path dir = kinds_dir() / name;
  REQUIRE(fs::exists(dir / (name + ".sdfg")));
  const fs::path work = weir::test::scratch_dir("dace_kinds_" + name + (auto_cpu ? "_auto" : ""));
  fs::remove_all(work / "out");
  fs::path program = dir / (name + ".sdfg");
  if (auto_cpu) {
    const fs::path opt = work / (name + ".opt.sdfg");
    const std::string o = "optimize " + quoted(program) + " --auto cpu -o " + quoted(opt);
    weir::test::CliRun r = weir::test::run_weir(o, "WEIR_CACHE_DIR=" + quoted(work / "cache"));
    INFO("weir " << o << "\n" << r.out);
    REQUIRE(r.code == 0);
    program = opt;
  }
  const std::string args = "run " + quoted(program) + " --in-dir " + quoted(dir / "inputs") + " --set-json " +
                           quoted(dir / "symbols.json") + " --set-json " + quoted(dir / "scalars.json") +
                           (auto_cpu ? " --threads 2" : " --threads 1") + " --out " + quoted(work / "out") +
                           (trust ? " --trust-code" : "");
  weir::test::CliRun r = weir::test::run_weir(args, "WEIR_CACHE_DIR=" + quoted(work / "cache"));
  INFO("weir " << args << "\n" << r.out);
  REQUIRE(r.code == 0);
  const std::string script =
      "E = " + quoted(dir / "expected") + "\nO = " + quoted(work / "out") +
      "\n"
      "exp, got = sorted(os.listdir(E)), sorted(os.listdir(O))\n"
      "if exp != got:\n"
      "    print('--out wrote', got, 'but the program writes', exp); sys.exit(1)\n"
      "for f in exp:\n"
      "    a, b = np.load(os.path.join(O, f)), np.load(os.path.join(E, f))\n"
      "    # A scalar result: DaCe's shape-(1,) __return against NumPy's 0-d value.\n"
      "    if a.dtype != b.dtype or (a.shape != b.shape and not (a.size == b.size == 1)):\n"
      "        print(f, 'is', a.dtype, a.shape, 'expected', b.dtype, b.shape); sys.exit(1)\n"
      "    a = a.reshape(b.shape)\n"
      "    rtol = 1e-5 if b.dtype in (np.float32, np.complex64) else 1e-10\n"
      "    ok = np.array_equal(a, b) if b.dtype.kind in 'biu' else np.allclose(a, b, rtol=rtol, atol=0)\n"
      "    if not ok:\n"
      "        print(f, 'differs:', a, 'expected', b); sys.exit(1)\n";
  CHECK(weir::test::run_numpy(work, script) == 0);
}

}  // namespace

TEST_CASE("dace kinds: sympy functions in interstate code and memlet subsets", "[npbench][dace_kinds]") {
  check_kind("symfuncs");        // `i % 4 == 1`, `(i ** 2) % 5`; int_floor(i, 3) and Mod(i**2, N) in subsets
  check_kind("sympow");          // `i**2.0` and `Mod(i**3.0, N)`: integer powers in subsets
  check_kind("strided_return");  // shape ceiling(1/3*N) of A[::3]: ceildiv(N, 3), not N*(1/3)
  check_kind("isfuncs");  // `i < int_floor(N, 3)`, `k < int_ceil(N, 3)`, `j = Mod(N, 5)`; decltype(__out)(0)
}

TEST_CASE("dace kinds: a map DaCe tiled has SymExpr in map ranges and memlet subsets",
          "[npbench][dace_kinds]") {
  // weir's hdiff4 SDFG tiled by DaCe's MapTiling (16, 8, 1) on sizes the tiles do not divide:
  // each tile ends at SymExpr(Min(range end, tile + 15), tile + 15), read as the exact end.
  check_kind("tiled");
}

TEST_CASE("dace kinds: NumPy functions DaCe writes with its runtime's names", "[npbench][dace_kinds]") {
  check_kind("fmod_int");      // np.fmod of int64 arrays: cpp_mod(__in1, __in2)
  check_kind("cplx_tasklet");  // np.conj: conj(__in1), complex128 and complex64
}

TEST_CASE("dace kinds: library nodes of DaCe's standard library", "[npbench][dace_kinds]") {
  check_kind("ttrans");              // np.transpose(A, axes=(2, 0, 1)): TensorTranspose
  check_kind("transpose2");          // A.T of a 2-D array: Transpose
  check_kind("tdot");                // np.tensordot(A, B, axes=([1, 2], [2, 0])): TensorDot
  check_kind("solve_c");             // np.linalg.solve of complex128: Solve (pure)
  check_kind("solve_c_openblas");    // the same node with implementation OpenBLAS (LAPACKE_zgesv)
  check_kind("inv_c");               // np.linalg.inv of complex128: Inv (pure)
  check_kind("inv_c_openblas");      // with implementation OpenBLAS
  check_kind("solve_c64");           // np.linalg.solve of complex64: Solve (pure), pivoting by |z|
  check_kind("solve_c64_openblas");  // the same node with implementation OpenBLAS (LAPACKE_cgesv)
  check_kind("solve_d");             // float64 Solve
  check_kind("chol");                // np.linalg.cholesky: Cholesky
  check_kind("dotgemv");             // A @ y and np.dot: Gemv (MatMul) and Dot
  check_kind("einsum3");             // np.einsum('ij,jk->ik'): Einsum
}

TEST_CASE("dace kinds: BLAS and FFT nodes DaCe's expansions and frontend write", "[npbench][dace_kinds]") {
  check_kind("bmm");        // A @ B of L x N x K and L x K x M, expanded once by DaCe: BatchedMatMul
  check_kind("bmm_bc");     // A @ B of L x N x K and K x M: BatchedMatMul with B broadcast
  check_kind("axpy");       // an Axpy node (a = 2.5) built with DaCe's API: 2.5 * x + y
  check_kind("fft_z");      // np.fft.fft of complex128: FFT (factor 1)
  check_kind("ifft_z");     // np.fft.ifft: IFFT with factor 1/$N
  check_kind("fft_ortho");  // np.fft.fft(A, norm='ortho') of float64: FFT with factor sqrt(1/$N)
}

TEST_CASE("dace kinds: lapack nodes DaCe's Solve, Inv and Cholesky expand into", "[npbench][dace_kinds]") {
  check_kind("getrf_d");        // a Getrf node (OpenBLAS): LU in place, 1-based int32 pivots, info 0
  check_kind("getrf_z");        // the same of complex128 (pivots by |re| + |im|, as izamax)
  check_kind("getrf_z_loops");  // implementation none: weir's loops, the same pivots and LU
  check_kind("getrs_d");        // np.linalg.solve expanded once by DaCe: Getrf + Getrs (OpenBLAS)
  check_kind("getrs_d_loops");  // the same with the loops
  check_kind("getri_z");        // np.linalg.inv of complex128 expanded once: Getrf + Getri
  check_kind("getri_z_loops");  // the same with the loops
  check_kind("potrf_u");        // a Potrf node, lower=False, complex128: U = L^H, the lower triangle kept
  check_kind("potrf_u_loops");  // the same with the loops
  check_kind("potrf_d", true);  // np.linalg.cholesky expanded once: Potrf + DaCe's C++ `_uzero_` tasklet
  check_kind("chol_z");         // np.linalg.cholesky of complex128: Cholesky (A = L L^H)
}

TEST_CASE("dace kinds: trusted C++ tasklets of DaCe's LAPACKE and CBLAS expansions",
          "[npbench][dace_kinds]") {
  check_kind("trusted_solve_d", true);  // LAPACKE_dgetrf/dgetrs, LAPACK_ROW_MAJOR, solving through _rhs_in
  check_kind("trusted_solve_z", true);  // LAPACKE_zgetrf/zgetrs on (lapack_complex_double*) casts
  check_kind("trusted_zgemm", true);    // dace::complex128 __alpha = dace::complex128(1); cblas_zgemm
  check_kind("trusted_cgemm", true);    // dace::complex64 __alpha = dace::complex64(1); cblas_cgemm
}

TEST_CASE("dace kinds: --out writes in-place outputs and __return arrays, nothing else",
          "[npbench][dace_kinds]") {
  check_kind("inplace");  // A[:] = A * 2.0; return B + A: A and __return, not B
  check_kind("tworet");   // return A + 1.0, A * 3.0: __return_0 and __return_1
  check_kind("scalret");  // return np.sum(A): a scalar __return
}

TEST_CASE("dace kinds: vadv's sweeps as column maps give NumPy's values", "[npbench][dace_kinds]") {
  // A reduced vadv (tests/npbench/dace_kinds/README.md): a forward sweep whose `divided` DaCe's
  // frontend reuses in two loops and whose `ccol[:, :, k] = t` copies a map's result, and a
  // backward sweep copying `datacol` into `data_col`. As DaCe wrote it, and after `--auto cpu`
  // (CopyIntoMap, DeadDataflowElimination of the write inside the fused map, then each sweep one
  // parallel map over the columns: tests/lit/optimize/vadv-sweeps.test).
  check_kind("vadv_sweeps");
  check_kind("vadv_sweeps", false, true);
}
