// DaCe's lapack library nodes (dace/libraries/lapack/nodes: what its Solve, Inv and Cholesky
// expansions write) as one C++ tasklet each (lapack_call.h), LAPACK's routine on the row-major
// matrices of its connectors:
// - Getrf: _xin (m x n) -> _xout, its LU factorization with partial pivoting (L unit lower
//   below the diagonal, U on and above), _ipiv (int32, min(m, n)): row k was swapped with row
//   _ipiv[k] (1-based, as LAPACK), _res (int32): info (k + 1 where U(k, k) is exactly zero).
// - Getrs: _a (n x n, Getrf's LU), _ipiv, _rhs_in (n, or n x r) -> _rhs_out: the solution of
//   A X = B; _res: 0.
// - Getri: _xin (n x n, Getrf's LU), _ipiv -> _xout: the inverse; _res: info (k + 1 where
//   U(k, k) is zero, the LU then written back unchanged, as LAPACK leaves it).
// - Potrf (`lower`, default true): _xin (n x n, Hermitian positive definite) -> _xout: the
//   Cholesky factor L (A = L L^H) in the lower triangle, or U (A = U^H U) in the upper one; the
//   other triangle keeps the input's values (LAPACK does not touch it); _res: info (k + 1 where
//   the leading minor of order k + 1 is not positive definite).
// float32, float64, complex64 and complex128. Two implementations, by the node's
// `implementation` (DaCe writes OpenBLAS): OpenBLAS, MKL, LAPACKE or LAPACK call LAPACKE_?getrf
// / ?getrs / ?getri / ?potrf with LAPACK_ROW_MAJOR; any other (DaCe's default, none) runs the
// same algorithms as loops (unblocked; pivots by LAPACK's i?amax: |x|, or |re| + |im| for
// complex). Both work on a row-major scratch copy, so any strides and in-place or separate
// input and output containers give one result. DaCe ignores `info`; so does weir (no fault but a
// failed allocation of the scratch matrices, the tasklet's declared fault).
#include <cctype>

#include "lapack_call.h"

namespace weir::transforms::detail {

namespace {

/// The C++ names of a factorization's loops: sizes m, n and r, the row-major scratch matrix `a`
/// (m x n), right-hand sides `x` (n x r), pivots `p`, Potrf's factor `l` (n x n), the info
/// variable, the element type's C++ name and three free loop variables.
struct FactorNames {
  std::string m, n, r, a, x, p, l, info, t, i, j, k;
};

/// `m[r * ld + c]`.
std::string element(const std::string& m, const std::string& r, const std::string& c, const std::string& ld) {
  return m + "[" + r + " * " + ld + " + " + c + "]";
}

/// LAPACK's i?amax measure of one element: |x|, or |re| + |im| for complex values.
std::string magnitude(const std::string& x, bool cplx) {
  return cplx ? "(std::abs(std::real(" + x + ")) + std::abs(std::imag(" + x + ")))" : "std::abs(" + x + ")";
}

/// The conjugate of `x` for complex values, `x` otherwise.
std::string conjugate(const std::string& x, bool cplx) { return cplx ? "std::conj(" + x + ")" : x; }

/// LAPACK's getf2 as loops on `v.a` (m x n): pivots into `v.p` (0-based), info = k + 1 at the
/// first zero pivot.
void emit_getf2(CodeLines& w, const FactorNames& v, bool cplx) {
  const std::string &M = v.m, &N = v.n, &A = v.a, &P = v.p, &info = v.info, &T = v.t, &i = v.i, &j = v.j,
                    &k = v.k;
  // getf2: per column k, the pivot (the first largest magnitude), the rows swapped, the column
  // below scaled by the pivot's reciprocal and the trailing matrix updated.
  w.open_for(k, "0", "std::min(" + M + ", " + N + ")");
  w.line("int64_t __p = " + k + ";");
  w.line("auto __m = " + magnitude(element(A, k, k, N), cplx) + ";");
  w.open_for(i, k + " + 1", M);
  w.open("if (" + magnitude(element(A, i, k, N), cplx) + " > __m) {");
  w.line("__m = " + magnitude(element(A, i, k, N), cplx) + ";");
  w.line("__p = " + i + ";");
  w.close();
  w.close();
  w.line(P + "[" + k + "] = __p;");
  w.open("if (" + element(A, "__p", k, N) + " != " + T + "(0)) {");
  w.open("if (__p != " + k + ") {");
  w.open_for(j, "0", N);
  w.line("std::swap(" + element(A, k, j, N) + ", " + element(A, "__p", j, N) + ");");
  w.close();
  w.close();
  w.line("const " + T + " __r = " + T + "(1) / " + element(A, k, k, N) + ";");
  w.open_for(i, k + " + 1", M);
  w.line(element(A, i, k, N) + " *= __r;");
  w.close();
  w.close();
  w.open("else if (" + info + " == 0) {");
  w.line(info + " = " + k + " + 1;");
  w.close();
  w.open_for(i, k + " + 1", M);
  w.open_for(j, k + " + 1", N);
  w.line(element(A, i, j, N) + " -= " + element(A, i, k, N) + " * " + element(A, k, j, N) + ";");
  w.close();
  w.close();
  w.close();
}

/// getrs (the solution of A X = B into `v.x`) or getri (the inverse, into `v.a`) as loops on
/// Getrf's LU in `v.a`; getri: info = k + 1 where U(k, k) is zero, the LU then left as it is.
void emit_getrs_getri(CodeLines& w, const FactorNames& v, bool getri) {
  const std::string &N = v.n, &R = v.r, &A = v.a, &X = v.x, &P = v.p, &info = v.info, &T = v.t, &i = v.i,
                    &j = v.j, &k = v.k;
  if (getri) {
    // The inverse solves A X = I; a zero on U's diagonal leaves the LU as it is.
    w.open_for(k, "0", N);
    w.line("if (" + info + " == 0 && " + element(A, k, k, N) + " == " + T + "(0)) " + info + " = " + k +
           " + 1;");
    w.close();
    w.open_for(i, "0", N);
    w.line(element(X, i, i, R) + " = " + T + "(1);");
    w.close();
  }
  w.open("if (" + info + " == 0) {");
  emit_lu_solve(w, {N, R, A, X, P, i, j, k});
  if (getri) w.line("std::swap(" + A + ", " + X + ");");
  w.close();
}

/// potrf as loops: potf2 on the lower triangle of `v.a` (the upper one read as the conjugate
/// transpose when not `lower`) into `v.l`, the factor written back into `v.a` as far as computed.
void emit_potrf_loops(CodeLines& w, const FactorNames& v, bool lower, bool cplx) {
  const std::string &N = v.n, &A = v.a, &L = v.l, &info = v.info, &T = v.t, &i = v.i, &j = v.j, &k = v.k;
  // potf2 on the lower triangle (the upper one read as the conjugate transpose for 'U').
  auto src = [&](const std::string& r, const std::string& c) {
    return lower ? element(A, r, c, N) : conjugate(element(A, c, r, N), cplx);
  };
  w.open_for(i, "0", N);
  w.open_for(j, "0", i + " + 1");
  w.line(element(L, i, j, N) + " = " + src(i, j) + ";");
  w.close();
  w.close();
  emit_potf2(w, {N, L, info, T, i, j, k}, cplx);
  // The factor's triangle back into the scratch matrix (U = L^H for 'U'), as far as computed.
  w.open_for(i, "0", "(" + info + " == 0 ? " + N + " : " + info + " - 1)");
  w.open_for(j, "0", i + " + 1");
  w.line((lower ? element(A, i, j, N) : element(A, j, i, N)) + " = " +
         (lower ? element(L, i, j, N) : conjugate(element(L, i, j, N), cplx)) + ";");
  w.close();
  w.close();
}

/// The results of a factorization from its scratch (`v`): the output (`ops[0]`: the right-hand
/// sides' solution for Getrs, else the matrix), the pivots (`ops[1]`, 1-based) and info
/// (`ops[2]`) where connected. `lapacke`: the scratch pivots are LAPACKE's (1-based already).
void emit_factor_results(CodeLines& w, const FactorNames& v, const std::vector<const LapackOperand*>& ops,
                         bool getrs, bool lapacke) {
  const std::string &M = v.m, &N = v.n, &R = v.r, &A = v.a, &X = v.x, &P = v.p, &info = v.info, &i = v.i,
                    &j = v.j, &k = v.k;
  const LapackOperand &out = *ops[0], &piv_out = *ops[1], &res = *ops[2];
  if (getrs) {
    w.open_for(i, "0", N);
    w.open_for(j, "0", R);
    w.line(out.at(out.rank() == 2 ? std::vector{i, j} : std::vector{i}) + " = " + element(X, i, j, R) + ";");
    w.close();
    w.close();
  } else {
    w.open_for(i, "0", M);
    w.open_for(j, "0", N);
    w.line(out.at({i, j}) + " = " + element(A, i, j, N) + ";");
    w.close();
    w.close();
  }
  if (piv_out.present) {
    w.open_for(k, "0", "std::min(" + M + ", " + N + ")");
    w.line(piv_out.at({k}) + " = static_cast<int32_t>(" + P + "[" + k + "])" + (lapacke ? "" : " + 1") + ";");
    w.close();
  }
  if (res.present) w.line(res.at({}) + " = static_cast<int32_t>(" + info + ");");
}

}  // namespace

std::unique_ptr<SDFG> expand_lapack_factor(const ExpansionSite& site, std::vector<LibraryOperand>& ops) {
  const LibraryNode& n = site.node;
  const std::string cls = n.class_name();
  LapackOperands ops_of(site, ops);
  auto take = [&](const std::string& conn, bool input, std::initializer_list<std::size_t> ranks,
                  bool required) { return ops_of.take(conn, input, ranks, required, false); };
  const bool getrf = cls == "Getrf", getrs = cls == "Getrs", getri = cls == "Getri", potrf = cls == "Potrf";
  LapackOperand a = take(getrs ? "_a" : "_xin", true, {2}, true);
  LapackOperand piv_in = getrs || getri ? take("_ipiv", true, {1}, true) : LapackOperand{};
  LapackOperand rhs = getrs ? take("_rhs_in", true, {1, 2}, true) : LapackOperand{};
  LapackOperand out = getrs ? take("_rhs_out", false, {rhs.rank()}, true) : take("_xout", false, {2}, true);
  LapackOperand piv_out = getrf ? take("_ipiv", false, {1}, false) : LapackOperand{};
  LapackOperand res = take("_res", false, {0}, false);
  ops_of.check_all_taken();
  const ScalarType t = a.type;
  check_lapack_type(site, t);
  for (const LapackOperand* op : {&rhs, &out})
    if (op->present && op->type != t)
      throw site.error(cls + " operands must share one data type, as DaCe's node requires");
  for (const LapackOperand* op : {&piv_in, &piv_out})
    if (op->present && op->type != ScalarType::Int32)
      throw site.error(cls + " pivots ('_ipiv') must be int32, as DaCe's node requires");
  const sym::Expr diff = a.extents[0] - a.extents[1];
  if (!getrf && !(diff.is_integer() && diff.value() == 0))
    throw site.error(cls + " needs a square matrix; '" + std::string(getrs ? "_a" : "_xin") + "' is " +
                     a.extents[0].str() + " x " + a.extents[1].str());
  std::string impl_name;
  for (char c : cls) impl_name += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  const bool lapacke = lapacke_implementation(n);
  const bool lower = !potrf || numeric_attribute(site, "lower", "true") != "false";
  const bool cplx = lapack_complex(t);
  const std::string T(cpp_name(t)), p = lapack_prefix(t);
  auto lp = [&](const std::string& m) { return lapacke_pointer(m, t); };

  const std::string i = "__li", j = "__lj", k = "__lk";
  const std::string M = "__lm", N = "__ln", R = "__lr", A = "__la", X = "__lx", P = "__lp", L = "__ll",
                    info = "__linfo";
  const FactorNames v{M, N, R, A, X, P, L, info, T, i, j, k};
  const std::string piv_t = lapacke ? "lapack_int" : "int64_t";
  CodeLines w;
  w.line("// " + cls + " " + n.label + " (node " + std::to_string(n.id()) + ") " +
         (lapacke ? "with LAPACKE" : "as loops (LAPACK's algorithm)"));
  w.line("const int64_t " + M + " = " + a.extent_cpp[0] + ";");
  w.line("const int64_t " + N + " = " + a.extent_cpp[1] + ";");
  w.line("const int64_t " + R + " = " +
         (getrs   ? rhs.rank() == 2 ? rhs.extent_cpp[1] : "1"
          : getri ? N
                  : "0") +
         ";");
  w.line("int64_t " + info + " = 0;");
  w.line("__fault = 0;");
  w.line("__fault_arg = 0;");
  // Scratch (value-initialized: zero): the matrix, the right-hand sides (the identity's for
  // Getri), the pivots, and Potrf's factor.
  w.line(T + "* " + A + " = new (std::nothrow) " + T + "[" + M + " * " + N + " + 1]();");
  w.line(T + "* " + X + " = new (std::nothrow) " + T + "[" + N + " * " + R + " + 1]();");
  w.line(piv_t + "* " + P + " = new (std::nothrow) " + piv_t + "[std::min(" + M + ", " + N + ") + 1]();");
  w.line(T + "* " + L + " = new (std::nothrow) " + T + "[" + (potrf ? N + " * " + N : "0") + " + 1]();");
  w.open("if (!" + A + " || !" + X + " || !" + P + " || !" + L + ") {");
  w.line("__fault = 1;  // out of memory (lapack_call.h)");
  w.close();
  w.open("else {");
  w.open_for(i, "0", M);
  w.open_for(j, "0", N);
  w.line(element(A, i, j, N) + " = " + a.at({i, j}) + ";");
  w.close();
  w.close();
  if (piv_in.present) {
    w.open_for(k, "0", N);
    w.line(P + "[" + k + "] = static_cast<" + piv_t + ">(" + piv_in.at({k}) + ")" + (lapacke ? "" : " - 1") +
           ";");
    w.close();
  }
  if (getrs) {
    w.open_for(i, "0", N);
    w.open_for(j, "0", R);
    w.line(element(X, i, j, R) + " = " + rhs.at(rhs.rank() == 2 ? std::vector{i, j} : std::vector{i}) + ";");
    w.close();
    w.close();
  }
  const std::string ld = "static_cast<lapack_int>(std::max<int64_t>(" + N + ", 1))";
  auto li = [](const std::string& x) { return "static_cast<lapack_int>(" + x + ")"; };
  if (lapacke) {
    std::string call = "LAPACKE_" + p + impl_name + "(LAPACK_ROW_MAJOR, ";
    if (getrf) call += li(M) + ", " + li(N) + ", " + lp(A) + ", " + ld + ", " + P + ");";
    if (getri) call += li(N) + ", " + lp(A) + ", " + ld + ", " + P + ");";
    if (getrs)
      call += "'N', " + li(N) + ", " + li(R) + ", " + lp(A) + ", " + ld + ", " + P + ", " + lp(X) +
              ", static_cast<lapack_int>(std::max<int64_t>(" + R + ", 1)));";
    if (potrf) call += std::string(lower ? "'L'" : "'U'") + ", " + li(N) + ", " + lp(A) + ", " + ld + ");";
    w.line(info + " = " + call);
  } else if (getrf) {
    emit_getf2(w, v, cplx);
  } else if (getrs || getri) {
    emit_getrs_getri(w, v, getri);
  } else {
    emit_potrf_loops(w, v, lower, cplx);
  }
  emit_factor_results(w, v, {&out, &piv_out, &res}, getrs, lapacke);
  w.line("(void)" + info + ";");
  w.close();
  w.line("delete[] " + A + ";");
  w.line("delete[] " + X + ";");
  w.line("delete[] " + P + ";");
  w.line("delete[] " + L + ";");
  return lapack_call_sdfg(site, ops, impl_name + (lapacke ? "_lapacke" : "_loops"), w.text(),
                          {lapack_label(n) + ": out of memory"});
}

}  // namespace weir::transforms::detail
