// Linear-algebra library nodes of DaCe's linalg library (Cholesky, Solve, Inv; the nodes
// `np.linalg.cholesky`, `np.linalg.solve` and `np.linalg.inv` become) in two implementations,
// chosen by the node's `implementation` (ADR 0015):
// - pure (weir's default, and `pure`): LAPACK's algorithms as loops on a row-major scratch copy:
//   Cholesky-Banachiewicz (potrf), LU with partial pivoting (getrf) and its triangular solves
//   (getrs); the inverse is the solve against the identity.
// - LAPACKE (DaCe's `OpenBLAS` / `MKL`, and `LAPACKE`): LAPACKE_?potrf, ?gesv, ?getrf + ?getri
//   from Debian's liblapacke on the same scratch copy.
// Operands are the connectors' memlet subsets with unit dimensions squeezed, as DaCe's
// expansions see them (connectors and the `lower` attribute as in dace/libraries/linalg/nodes).
// A matrix that is not positive definite (Cholesky) or singular (Solve, Inv) is a run-time
// fault naming the node, as NumPy raises LinAlgError; DaCe ignores LAPACK's `info`.
#include <algorithm>

#include "blas_operand.h"
#include "library_gen.h"
#include "state_codegen.h"

namespace weir::codegen::detail {

std::string lapack_prefix(ScalarType t) {
  switch (t) {
    case ScalarType::Float32: return "s";
    case ScalarType::Complex64: return "c";
    case ScalarType::Complex128: return "z";
    default: return "d";
  }
}

const char* lapack_complex_type(ScalarType t) {
  return t == ScalarType::Complex64 ? "lapack_complex_float" : "lapack_complex_double";
}

void emit_potf2(Writer& w, const Potf2Names& v, bool cplx) {
  auto for_ = [&](const std::string& var, const std::string& from, const std::string& to) {
    w.open("for (int64_t " + var + " = " + from + "; " + var + " < " + to + "; ++" + var + ") {");
  };
  auto l = [&](const std::string& r, const std::string& c) {
    return v.l + "[" + r + " * " + v.n + " + " + c + "]";
  };
  auto cj = [&](const std::string& x) { return cplx ? "std::conj(" + x + ")" : x; };
  const std::string re = cplx ? "std::real(__d)" : "__d";
  for_(v.j, "0", v.n);
  w.line(v.t + " __d = " + l(v.j, v.j) + ";");
  for_(v.k, "0", v.j);
  w.line("__d -= " + l(v.j, v.k) + " * " + cj(l(v.j, v.k)) + ";");
  w.close();
  w.open("if (!(" + re + " > 0)) {");
  w.line(v.info + " = " + v.j + " + 1;");
  w.line("break;");
  w.close();
  w.line("const " + v.t + " __s = " + v.t + "(std::sqrt(" + re + "));");
  w.line(l(v.j, v.j) + " = __s;");
  for_(v.i, v.j + " + 1", v.n);
  w.line(v.t + " __v = " + l(v.i, v.j) + ";");
  for_(v.k, "0", v.j);
  w.line("__v -= " + l(v.i, v.k) + " * " + cj(l(v.j, v.k)) + ";");
  w.close();
  w.line(l(v.i, v.j) + " = __v / __s;");
  w.close();
  w.close();
}

void emit_lu_solve(Writer& w, const LuSolveNames& v) {
  auto for_ = [&](const std::string& var, const std::string& from, const std::string& to) {
    w.open("for (int64_t " + var + " = " + from + "; " + var + " < " + to + "; ++" + var + ") {");
  };
  auto x = [&](const std::string& r, const std::string& c) {
    return v.x + "[" + r + " * " + v.r + " + " + c + "]";
  };
  auto a = [&](const std::string& r, const std::string& c) {
    return v.a + "[" + r + " * " + v.n + " + " + c + "]";
  };
  // laswp: the row interchanges in order.
  for_(v.k, "0", v.n);
  w.open("if (" + v.p + "[" + v.k + "] != " + v.k + ") {");
  for_(v.j, "0", v.r);
  w.line("std::swap(" + x(v.k, v.j) + ", " + x(v.p + "[" + v.k + "]", v.j) + ");");
  w.close();
  w.close();
  w.close();
  // L (unit diagonal), then U backwards.
  for_(v.i, "0", v.n);
  for_(v.k, "0", v.i);
  for_(v.j, "0", v.r);
  w.line(x(v.i, v.j) + " -= " + a(v.i, v.k) + " * " + x(v.k, v.j) + ";");
  w.close();
  w.close();
  w.close();
  w.open("for (int64_t " + v.i + " = " + v.n + " - 1; " + v.i + " >= 0; --" + v.i + ") {");
  for_(v.k, v.i + " + 1", v.n);
  for_(v.j, "0", v.r);
  w.line(x(v.i, v.j) + " -= " + a(v.i, v.k) + " * " + x(v.k, v.j) + ";");
  w.close();
  w.close();
  for_(v.j, "0", v.r);
  w.line(x(v.i, v.j) + " /= " + a(v.i, v.i) + ";");
  w.close();
  w.close();
}

namespace {

/// LAPACK's getrf as loops: LU with partial pivoting of `v.a` (n x n, row-major) in place, the
/// 0-based pivots into `v.p`; at a zero pivot column, info = its order (1-based), as LAPACK's.
/// `T`: the element type's C++ name. (v.r and v.x are not used.)
void emit_getrf(Writer& w, const LuSolveNames& v, const std::string& info, const std::string& T) {
  const std::string &N = v.n, &A = v.a, &P = v.p, &i = v.i, &j = v.j, &k = v.k;
  auto for_ = [&](const std::string& var, const std::string& from, const std::string& to) {
    w.open("for (int64_t " + var + " = " + from + "; " + var + " < " + to + "; ++" + var + ") {");
  };
  // getrf: LU with partial pivoting (the largest magnitude in column k), rows swapped in place.
  for_(k, "0", N);
  w.line("int64_t __p = " + k + ";");
  w.line("auto __m = std::abs(" + A + "[" + k + " * " + N + " + " + k + "]);");
  for_(i, k + " + 1", N);
  w.open("if (std::abs(" + A + "[" + i + " * " + N + " + " + k + "]) > __m) {");
  w.line("__m = std::abs(" + A + "[" + i + " * " + N + " + " + k + "]);");
  w.line("__p = " + i + ";");
  w.close();
  w.close();
  w.line(P + "[" + k + "] = __p;");
  w.open("if (__m == 0) {");
  w.line("if (" + info + " == 0) " + info + " = " + k + " + 1;");
  w.line("continue;");
  w.close();
  w.open("if (__p != " + k + ") {");
  for_(j, "0", N);
  w.line("const " + T + " __t = " + A + "[" + k + " * " + N + " + " + j + "];");
  w.line(A + "[" + k + " * " + N + " + " + j + "] = " + A + "[__p * " + N + " + " + j + "];");
  w.line(A + "[__p * " + N + " + " + j + "] = __t;");
  w.close();
  w.close();
  for_(i, k + " + 1", N);
  w.line("const " + T + " __l = " + A + "[" + i + " * " + N + " + " + k + "] /= " + A + "[" + k + " * " + N +
         " + " + k + "];");
  for_(j, k + " + 1", N);
  w.line(A + "[" + i + " * " + N + " + " + j + "] -= __l * " + A + "[" + k + " * " + N + " + " + j + "];");
  w.close();
  w.close();
  w.close();
}

/// A fault of a LAPACK node labelled `label` (printf-escaped): a positive `info` (not positive
/// definite for a Cholesky factorization, singular otherwise), a negative one or a failed
/// allocation of `scratch`: recorded (the node may run inside a parallel loop) and raised
/// after the state.
void emit_lapack_fault(Writer& w, bool chol, const std::string& label, const std::string& info,
                       const std::vector<std::string>& scratch) {
  const std::string &A = scratch[0], &X = scratch[1], &P = scratch[2];
  std::string why =
      chol ? "the matrix is not positive definite (its leading minor of order %lld is not); NumPy raises "
             "LinAlgError"
           : "the matrix is singular (U(%lld, %lld) of its LU factorization is exactly zero); NumPy raises "
             "LinAlgError";
  std::string args = chol ? "static_cast<long long>(" + info + ")"
                          : "static_cast<long long>(" + info + "), static_cast<long long>(" + info + ")";
  w.open("if ((" + info + " != 0 || !" + A + " || !" + X + " || !" + P + ") && weir_fault_claim()) {");
  w.line("weir_fault_located = false;");
  w.line("if (" + info + " > 0)");
  w.line("  std::snprintf(weir_fault_text, sizeof weir_fault_text, \"" + label + ": " + why + "\", " + args +
         ");");
  w.line("else");
  w.line(
      "  "
      "std::snprintf(weir_fault_text, sizeof weir_fault_text, \"" +
      label + ": %s (info %lld)\", " + info +
      " < 0 ? \"LAPACK refused an argument\" : \"out of memory\", "
      "static_cast<long long>(" +
      info + "));");
  w.line("weir_fault_publish();");
  note_fault();
  w.close();
}

std::string lowercase(const std::string& s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

bool LibraryGen::is_lapack(const LibraryNode& n) {
  const std::string cls = n.class_name();
  return cls == "Cholesky" || cls == "Solve" || cls == "Inv";
}

void LibraryGen::emit_lapack(const LibraryNode& n, Writer& w) {
  ElementRef where = g_.ref(n);
  const std::string cls = n.class_name();
  auto need = [&](const std::string& conn, bool input, std::initializer_list<std::size_t> ranks) {
    BlasOperand op = blas_operand(n, conn, input);
    if (!op.present)
      throw CodegenError(
          where, cls + " needs " + (input ? "an input" : "an output") + " edge on connector '" + conn + "'");
    if (op.loc.data.empty() || op.loc.binding->scalar)
      throw CodegenError(where, cls + " connector '" + conn + "' must be connected to an array");
    if (std::find(ranks.begin(), ranks.end(), op.rank()) == ranks.end())
      throw CodegenError(where, cls + " operand '" + conn + "' has " + std::to_string(op.rank()) +
                                    " non-unit dimensions, which this library node does not take");
    return op;
  };
  const bool chol = cls == "Cholesky", solve = cls == "Solve";
  BlasOperand a = need(chol ? "_a" : "_ain", true, {2});
  BlasOperand b = solve ? need("_bin", true, {1, 2}) : BlasOperand{};
  BlasOperand out = need(chol ? "_b" : solve ? "_bout" : "_aout", false, {solve ? b.rank() : 2});
  ScalarType t = a.loc.type;
  const bool cplx = t == ScalarType::Complex128 || t == ScalarType::Complex64;
  if (t != ScalarType::Float64 && t != ScalarType::Float32 && !cplx)
    throw CodegenError(where,
                       cls + " of " + std::string(to_string(t)) +
                           " is not supported by the CPU code generator (float32, float64, complex64 and "
                           "complex128 are)");
  for (const BlasOperand* op : {&b, &out})
    if (op->present && op->loc.type != t)
      throw CodegenError(where, cls + " operands must share one data type, as DaCe's node requires");
  const std::string impl = lowercase(n.implementation);
  const bool lapacke = impl == "openblas" || impl == "mkl" || impl == "lapacke" || impl == "lapack";
  const bool lower = !chol || numeric_attribute(n, "lower", "true", where) != "false";
  const std::string T(cpp_name(t)), p = lapack_prefix(t);
  // LAPACKE takes complex matrices as its own complex type, of std::complex's layout.
  auto lp = [&](const std::string& m) {
    return cplx ? "reinterpret_cast<" + std::string(lapack_complex_type(t)) + "*>(" + m + ")" : m;
  };

  // Loop variables, the order, the scratch matrices and the fault text.
  std::string i = g_.loop_var("__li", 0), j = g_.loop_var("__lj", 0), k = g_.loop_var("__lk", 0);
  const std::string N = "__ln", R = "__lr", A = "__la", X = "__lx", P = "__lp", info = "__linfo";
  auto for_ = [&](const std::string& v, const std::string& from, const std::string& to) {
    w.open("for (int64_t " + v + " = " + from + "; " + v + " < " + to + "; ++" + v + ") {");
  };
  // The node's name in a printf format: '%' doubled.
  std::string label;
  for (char c : c_escape(cls + " '" + n.label + "' (node " + std::to_string(n.id()) + ")"))
    label += c == '%' ? std::string("%%") : std::string(1, c);

  if (g_.opts.emit_comments)
    w.line("// " + cls + " " + n.label + " (node " + std::to_string(n.id()) + ") " +
           (lapacke ? "with LAPACKE" : "as loops (LAPACK's algorithm)"));
  w.open("{");
  w.line("const int64_t " + N + " = " + sym_cpp(a.extent(0)) + ";");
  w.line("const int64_t " + R + " = " + (solve ? b.rank() == 2 ? sym_cpp(b.extent(1)) : "1" : N) + ";");
  w.line("int64_t " + info + " = 0;");
  w.line(T + "* " + A + " = new (std::nothrow) " + T + "[" + N + " * " + N + " + 1];");
  w.line(T + "* " + X + " = new (std::nothrow) " + T + "[" + N + " * " + R + " + 1];");
  std::string piv_t = lapacke ? "lapack_int" : "int64_t";
  w.line(piv_t + "* " + P + " = new (std::nothrow) " + piv_t + "[" + N + " + 1];");
  w.open("if (" + A + " && " + X + " && " + P + ") {");
  // The row-major copy of A (transposed for an upper Cholesky factor: U = L(A^T)^T).
  for_(i, "0", N);
  for_(j, "0", N);
  w.line(A + "[" + i + " * " + N + " + " + j + "] = " + a.at(lower ? std::vector{i, j} : std::vector{j, i}) +
         ";");
  w.close();
  w.close();
  if (solve || cls == "Inv") {
    // The right-hand sides: B, or the identity for the inverse.
    for_(i, "0", N);
    for_(j, "0", R);
    w.line(X + "[" + i + " * " + R + " + " + j + "] = " +
           (solve ? b.at(b.rank() == 2 ? std::vector{i, j} : std::vector{i})
                  : "(" + i + " == " + j + ") ? " + T + "(1) : " + T + "(0)") +
           ";");
    w.close();
    w.close();
  }

  const std::string ld = "std::max<int64_t>(" + N + ", 1)";
  if (lapacke) {
    sg.prog.link_libraries.insert("lapacke");
    note_algorithm();  // ld
    if (chol)
      w.line(info + " = LAPACKE_" + p + "potrf(LAPACK_ROW_MAJOR, 'L', static_cast<lapack_int>(" + N + "), " +
             lp(A) + ", static_cast<lapack_int>(" + ld + "));");
    else
      w.line(info + " = LAPACKE_" + p + "gesv(LAPACK_ROW_MAJOR, static_cast<lapack_int>(" + N +
             "), static_cast<lapack_int>(" + R + "), " + lp(A) + ", static_cast<lapack_int>(" + ld + "), " +
             P + ", " + lp(X) + ", static_cast<lapack_int>(std::max<int64_t>(" + R + ", 1)));");
  } else if (chol) {
    // potrf, lower: column by column, L[j][j] = sqrt(A[j][j] - sum |L[j][k]|^2), then the column
    // below (A = L L^H: the conjugate of row j's entries for complex matrices; the upper factor
    // of the transposed copy is then L^H).
    emit_potf2(w, {N, A, info, T, i, j, k}, cplx);
  } else {
    emit_getrf(w, {N, R, A, X, P, i, j, k}, info, T);
    // getrs: the pivots applied to the right-hand sides, then L (unit diagonal) and U solved.
    w.open("if (" + info + " == 0) {");
    note_algorithm();  // std::swap
    emit_lu_solve(w, {N, R, A, X, P, i, j, k});
    w.close();
  }

  // The result: the factor with the other triangle zero (as DaCe's `_uzero_` map), or X.
  w.open("if (" + info + " == 0) {");
  for_(i, "0", N);
  for_(j, "0", R);
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
  emit_lapack_fault(w, chol, label, info, {A, X, P});
  w.line("delete[] " + A + ";");
  w.line("delete[] " + X + ";");
  w.line("delete[] " + P + ";");
  w.close();
}

}  // namespace weir::codegen::detail
