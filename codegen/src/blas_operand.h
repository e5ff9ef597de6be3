// The operands of a BLAS library node as the code generator sees them (blas_codegen.cpp emits
// them as loop nests), and the refusal of an unexpanded node.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "state_codegen.h"

namespace weir::codegen::detail {

/// One operand: a connector's location with its non-unit dimensions (the memlet's subset
/// squeezed, as DaCe's expansions see it).
struct BlasOperand {
  Location loc;
  std::vector<std::size_t> dims;
  bool present = false;
  std::size_t rank() const { return dims.size(); }
  sym::Expr extent(std::size_t k) const { return loc.subset[dims[k]].size(); }
  /// The element stride of non-unit dimension k (the container's stride times the subset's step).
  sym::Expr stride(std::size_t k) const {
    return loc.binding->desc->strides[dims[k]] * loc.subset[dims[k]].step;
  }
  /// The element at `vars` (one loop variable per non-unit dimension).
  std::string at(const std::vector<std::string>& vars) const {
    if (loc.data.empty()) return loc.var;
    if (loc.binding->scalar) return loc.binding->cpp;
    std::vector<sym::Expr> idx = loc.start();
    for (std::size_t k = 0; k < dims.size(); ++k)
      idx[dims[k]] = loc.subset[dims[k]].start + sym::Expr::symbol(vars[k]) * loc.subset[dims[k]].step;
    return loc.binding->cpp + "[" + linear_offset(*loc.binding->desc, idx) + "]";
  }
};

/// LAPACK's letter of a data type: s (float32), d (float64, and any other), c (complex64), z
/// (complex128) (lapack_codegen.cpp).
std::string lapack_prefix(ScalarType t);
/// lapacke.h's complex type of a complex data type: lapack_complex_float or _double.
const char* lapack_complex_type(ScalarType t);

/// The C++ names emit_potf2 uses: the size n, the row-major matrix `l` (n x n), the info
/// variable, the element type's C++ name and three free loop variables.
struct Potf2Names {
  std::string n, l, info, t, i, j, k;
};
/// LAPACK's potf2, lower, as loops (lapack_codegen.cpp): the Cholesky factor L (A = L L^H,
/// conjugates where `cplx`) of the lower triangle of `l`, in place, column by column; at a
/// leading minor that is not positive definite, info = its order and the loop stops.
void emit_potf2(Writer& w, const Potf2Names& v, bool cplx);

/// The C++ names emit_lu_solve uses: sizes n and r, the row-major LU `a` (n x n) and right-hand
/// sides `x` (n x r), the 0-based pivots `p`, and three free loop variables.
struct LuSolveNames {
  std::string n, r, a, x, p, i, j, k;
};
/// LAPACK's getrs as loops (lapack_codegen.cpp): the row interchanges p[0], p[1], ... applied to
/// `x` in order, then L (unit diagonal) and U of `a` solved in place. Needs <algorithm>.
void emit_lu_solve(Writer& w, const LuSolveNames& v);

/// A library node attribute that DaCe leaves out at its default (alpha 1, beta 0, trans False):
/// the C++ literal of a number (a JSON number or a string of one), or "true"/"false"; `dflt`
/// when absent or null. Throws CodegenError at `where` for anything else.
std::string numeric_attribute(const LibraryNode& n, const std::string& key, const std::string& dflt,
                              const ElementRef& where);

/// The error for a library node of a class the library-expansion pass owns (or of an
/// implementation it owns: "pure" MatMul, Gemm, Gemv), given to the code generator unexpanded.
std::string unexpanded_message(const LibraryNode& n);

/// A MatMul, Gemm or Gemv node as LibraryGen::plan_blas works it out (blas_codegen.cpp):
/// out[ov] = alpha * (sum over kvar of the product of the terms) (+ beta * add[ov]). Not
/// copyable: the terms point at its operands.
struct BlasProduct {
  /// One factor of the product: an operand at the loop variables `vars`.
  struct Term {
    const BlasOperand* op;
    std::vector<std::string> vars;
  };
  BlasProduct() = default;
  BlasProduct(const BlasProduct&) = delete;
  BlasProduct& operator=(const BlasProduct&) = delete;

  std::string cls;  // MatMul, Gemm, Gemv
  BlasOperand out, a, b, add;
  std::vector<Term> terms;
  std::vector<std::string> ov;  // output loop variables
  std::vector<sym::Expr> oext;  // their extents
  std::string kvar;             // contracted variable, empty if none
  sym::Expr kext{0};
  std::string alpha = "1", beta = "0";
  bool ta = false, tb = false;  // Gemm's / Gemv's transA, transB
  std::string T;                // the output's C++ element type

  /// C++ of the terms' product, each converted to T, with the loop variables in `renamed`
  /// replaced.
  std::string product(const std::map<std::string, std::string>& renamed = {}) const;
  /// `sum` times alpha, plus beta times `add` at `vars` where there is one: an output element's
  /// value.
  std::string value(std::string sum, const std::vector<std::string>& vars) const;
};

}  // namespace weir::codegen::detail
