// DaCe's linalg library nodes (Cholesky, Solve, Inv: what `np.linalg.cholesky`, `solve` and `inv`
// become) as one C++ tasklet (lapack_call.h), by the node's `implementation` (ADR 0015):
// - pure (weir's default, and `pure`): LAPACK's algorithms as loops on a row-major scratch copy:
//   Cholesky-Banachiewicz (potrf), LU with partial pivoting (getrf) and its triangular solves
//   (getrs); the inverse is the solve against the identity.
// - LAPACKE (DaCe's `OpenBLAS` / `MKL`, and `LAPACKE`): LAPACKE_?potrf or ?gesv from Debian's
//   liblapacke on the same scratch copy.
// Operands are the connectors' memlet subsets with unit dimensions squeezed, as DaCe's
// expansions see them (connectors and the `lower` attribute as in dace/libraries/linalg/nodes).
// A matrix that is not positive definite (Cholesky) or singular (Solve, Inv) is a run-time
// fault naming the node, as NumPy raises LinAlgError (the tasklet's declared fault); DaCe
// ignores LAPACK's `info`.
#include "lapack_call.h"

namespace weir::transforms::detail {

namespace {

/// LAPACK's getrf as loops: LU with partial pivoting of `v.a` (n x n, row-major) in place, the
/// 0-based pivots into `v.p`; at a zero pivot column, info = its order (1-based), as LAPACK's.
/// `T`: the element type's C++ name. (v.r and v.x are not used.)
void emit_getrf(CodeLines& w, const LuSolveNames& v, const std::string& info, const std::string& T) {
  const std::string &N = v.n, &A = v.a, &P = v.p, &i = v.i, &j = v.j, &k = v.k;
  auto at = [&](const std::string& r, const std::string& c) {
    return A + "[" + r + " * " + N + " + " + c + "]";
  };
  // getrf: LU with partial pivoting (the largest magnitude in column k), rows swapped in place.
  w.open_for(k, "0", N);
  w.line("int64_t __p = " + k + ";");
  w.line("auto __m = std::abs(" + at(k, k) + ");");
  w.open_for(i, k + " + 1", N);
  w.open("if (std::abs(" + at(i, k) + ") > __m) {");
  w.line("__m = std::abs(" + at(i, k) + ");");
  w.line("__p = " + i + ";");
  w.close();
  w.close();
  w.line(P + "[" + k + "] = __p;");
  w.open("if (__m == 0) {");
  w.line("if (" + info + " == 0) " + info + " = " + k + " + 1;");
  w.line("continue;");
  w.close();
  w.open("if (__p != " + k + ") {");
  w.open_for(j, "0", N);
  w.line("const " + T + " __t = " + at(k, j) + ";");
  w.line(at(k, j) + " = " + at("__p", j) + ";");
  w.line(at("__p", j) + " = __t;");
  w.close();
  w.close();
  w.open_for(i, k + " + 1", N);
  w.line("const " + T + " __l = " + at(i, k) + " /= " + at(k, k) + ";");
  w.open_for(j, k + " + 1", N);
  w.line(at(i, j) + " -= __l * " + at(k, j) + ";");
  w.close();
  w.close();
  w.close();
}

/// The fault messages of a linalg node labelled `label`: 1 a positive info (not positive
/// definite for a Cholesky factorization, singular otherwise), 2 a negative one, 3 a failed
/// allocation of the scratch matrices; "{}" is info.
std::vector<std::string> linalg_messages(bool chol, const std::string& label) {
  return {
      label + (chol ? ": the matrix is not positive definite (its leading minor of order {} is not); NumPy "
                      "raises LinAlgError"
                    : ": the matrix is singular (U({}, {}) of its LU factorization is exactly zero); NumPy "
                      "raises LinAlgError"),
      label + ": LAPACK refused an argument (info {})", label + ": out of memory (info {})"};
}

}  // namespace

std::unique_ptr<SDFG> expand_lapack(const ExpansionSite& site, std::vector<LibraryOperand>& ops) {
  const LibraryNode& n = site.node;
  const std::string cls = n.class_name();
  const bool chol = cls == "Cholesky", solve = cls == "Solve";
  LapackOperands take(site, ops);
  LapackOperand a = take.take(chol ? "_a" : "_ain", true, {2}, true, true);
  LapackOperand b = solve ? take.take("_bin", true, {1, 2}, true, true) : LapackOperand{};
  LapackOperand out = take.take(chol    ? "_b"
                                : solve ? "_bout"
                                        : "_aout",
                                false, {solve ? b.rank() : 2}, true, true);
  take.check_all_taken();
  const ScalarType t = a.type;
  check_lapack_type(site, t);
  for (const LapackOperand* op : {&b, &out})
    if (op->present && op->type != t)
      throw site.error(cls + " operands must share one data type, as DaCe's node requires");
  const bool lapacke = lapacke_implementation(n);
  const bool lower = !chol || numeric_attribute(site, "lower", "true") != "false";
  const bool cplx = lapack_complex(t);
  const std::string T(cpp_name(t)), p = lapack_prefix(t);

  const std::string i = "__li", j = "__lj", k = "__lk", N = "__ln", R = "__lr", A = "__la", X = "__lx",
                    P = "__lp", info = "__linfo";
  CodeLines w;
  w.line("// " + cls + " " + n.label + " (node " + std::to_string(n.id()) + ") " +
         (lapacke ? "with LAPACKE" : "as loops (LAPACK's algorithm)"));
  w.line("const int64_t " + N + " = " + a.extent_cpp[0] + ";");
  w.line("const int64_t " + R + " = " + (solve ? b.rank() == 2 ? b.extent_cpp[1] : "1" : N) + ";");
  w.line("int64_t " + info + " = 0;");
  w.line(T + "* " + A + " = new (std::nothrow) " + T + "[" + N + " * " + N + " + 1];");
  w.line(T + "* " + X + " = new (std::nothrow) " + T + "[" + N + " * " + R + " + 1];");
  const std::string piv_t = lapacke ? "lapack_int" : "int64_t";
  w.line(piv_t + "* " + P + " = new (std::nothrow) " + piv_t + "[" + N + " + 1];");
  w.open("if (" + A + " && " + X + " && " + P + ") {");
  // The row-major copy of A (transposed for an upper Cholesky factor: U = L(A^T)^T).
  w.open_for(i, "0", N);
  w.open_for(j, "0", N);
  w.line(A + "[" + i + " * " + N + " + " + j + "] = " + a.at(lower ? std::vector{i, j} : std::vector{j, i}) +
         ";");
  w.close();
  w.close();
  if (solve || cls == "Inv") {
    // The right-hand sides: B, or the identity for the inverse.
    w.open_for(i, "0", N);
    w.open_for(j, "0", R);
    w.line(X + "[" + i + " * " + R + " + " + j + "] = " +
           (solve ? b.at(b.rank() == 2 ? std::vector{i, j} : std::vector{i})
                  : "(" + i + " == " + j + ") ? " + T + "(1) : " + T + "(0)") +
           ";");
    w.close();
    w.close();
  }
  const std::string ld = "std::max<int64_t>(" + N + ", 1)";
  if (lapacke) {
    if (chol)
      w.line(info + " = LAPACKE_" + p + "potrf(LAPACK_ROW_MAJOR, 'L', static_cast<lapack_int>(" + N + "), " +
             lapacke_pointer(A, t) + ", static_cast<lapack_int>(" + ld + "));");
    else
      w.line(info + " = LAPACKE_" + p + "gesv(LAPACK_ROW_MAJOR, static_cast<lapack_int>(" + N +
             "), static_cast<lapack_int>(" + R + "), " + lapacke_pointer(A, t) +
             ", static_cast<lapack_int>(" + ld + "), " + P + ", " + lapacke_pointer(X, t) +
             ", static_cast<lapack_int>(std::max<int64_t>(" + R + ", 1)));");
  } else if (chol) {
    // potrf, lower: column by column (A = L L^H: the conjugate of row j's entries for complex
    // matrices; the upper factor of the transposed copy is then L^H).
    emit_potf2(w, {N, A, info, T, i, j, k}, cplx);
  } else {
    emit_getrf(w, {N, R, A, X, P, i, j, k}, info, T);
    // getrs: the pivots applied to the right-hand sides, then L (unit diagonal) and U solved.
    w.open("if (" + info + " == 0) {");
    emit_lu_solve(w, {N, R, A, X, P, i, j, k});
    w.close();
  }
  // The result: the factor with the other triangle zero (as DaCe's `_uzero_` map), or X.
  w.open("if (" + info + " == 0) {");
  w.open_for(i, "0", N);
  w.open_for(j, "0", R);
  if (chol)
    w.line(out.at({i, j}) + " = " + (lower ? j + " <= " + i : i + " <= " + j) + " ? " + A + "[" +
           (lower ? i + " * " + N + " + " + j : j + " * " + N + " + " + i) + "] : " + T + "(0);");
  else
    w.line(out.at(out.rank() == 2 ? std::vector{i, j} : std::vector{i}) + " = " + X + "[" + i + " * " + R +
           " + " + j + "];");
  w.close();
  w.close();
  w.close();
  w.close();
  // The fault (lapack_call.h): 1 info > 0, 2 info < 0, 3 no scratch memory.
  w.line("__fault = " + info + " > 0 ? 1 : " + info + " < 0 ? 2 : (!" + A + " || !" + X + " || !" + P +
         ") ? 3 : 0;");
  w.line("__fault_arg = " + info + ";");
  w.line("delete[] " + A + ";");
  w.line("delete[] " + X + ";");
  w.line("delete[] " + P + ";");
  std::string name = cls;
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return lapack_call_sdfg(site, ops, name + (lapacke ? "_lapacke" : "_loops"), w.text(),
                          linalg_messages(chol, lapack_label(n)));
}

}  // namespace weir::transforms::detail
