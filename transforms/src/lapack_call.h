// The parts the LAPACK expansions share (expand_lapack.cpp: DaCe's linalg Cholesky, Solve, Inv;
// expand_lapack_factor.cpp: its lapack Getrf, Getrs, Getri, Potrf). Each node becomes a nested
// SDFG of one state and one C++ tasklet that weir writes (marked so in memory,
// weir/sdfg/written_by_weir.h): LAPACK's algorithm as loops (implementation pure or none) or
// one LAPACKE call (OpenBLAS, MKL, LAPACKE, LAPACK) on a row-major scratch copy of the operands,
// which it reads and writes through pointer connectors. The fault of the call (info != 0, a
// failed allocation) is declared in the SDFG (weir/sdfg/tasklet_fault.h): the tasklet sets its
// connectors `__fault` (the message number) and `__fault_arg` (info), written to the transient
// scalars `_fault` and `_fault_arg`, and the code generator raises the message after the state.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "library_expansion_internal.h"

namespace weir::transforms::detail {

/// C++ lines, two spaces deeper per open block.
class CodeLines {
 public:
  void line(const std::string& s);
  /// `s` (ending in "{"), then the lines after it one level deeper.
  void open(const std::string& s);
  /// One level less, then "}".
  void close();
  /// Opens `for (int64_t v = from; v < to; ++v) {`.
  void open_for(const std::string& v, const std::string& from, const std::string& to);
  const std::string& text() const { return text_; }

 private:
  std::string text_;
  int depth_ = 0;
};

/// One operand of a LAPACK call tasklet.
struct LapackOperand {
  bool present = false;
  /// Its index in the expansion's operands, and the tasklet's connector (`__ain` for `_ain`).
  std::size_t index = 0;
  std::string conn;
  ScalarType type = ScalarType::Float64;
  /// Its non-unit dimensions' extents (as symbolic expressions and as C++), and their strides
  /// as C++; none for a scalar (a value connector).
  std::vector<sym::Expr> extents;
  std::vector<std::string> extent_cpp, stride_cpp;
  std::size_t rank() const { return extents.size(); }
  /// The element at `vars` (one loop variable per non-unit dimension): `__ain[i * (N) + j]`; the
  /// connector itself for a scalar.
  std::string at(const std::vector<std::string>& vars) const;
};

/// Takes the operands of the node at a site, one connector at a time, and checks them as the
/// code generator did (its messages, now naming the node as the pass's errors do).
class LapackOperands {
 public:
  LapackOperands(const ExpansionSite& site, std::vector<LibraryOperand>& ops) : site_(site), ops_(ops) {}
  /// The operand on connector `conn` (an input or an output) whose non-unit dimensions are one
  /// of `ranks`; absent (present false) where it has no edge and is not `required`.
  /// `array_only`: a scalar container is refused ("must be connected to an array").
  LapackOperand take(const std::string& conn, bool input, std::initializer_list<std::size_t> ranks,
                     bool required, bool array_only);
  /// Throws where the node has a data edge on a connector no take() took.
  void check_all_taken() const;
  const ExpansionSite& site() const { return site_; }

 private:
  const ExpansionSite& site_;
  std::vector<LibraryOperand>& ops_;
};

/// LAPACK's letter of a data type: s (float32), d (float64, and any other), c (complex64), z
/// (complex128).
std::string lapack_prefix(ScalarType t);
/// Whether `t` is complex64 or complex128.
bool lapack_complex(ScalarType t);
/// `m`, or for complex types `m` as lapacke.h's complex pointer (of std::complex's layout).
std::string lapacke_pointer(const std::string& m, ScalarType t);
/// Whether the node's implementation calls LAPACKE: OpenBLAS, MKL, LAPACKE, LAPACK (any case).
bool lapacke_implementation(const LibraryNode& n);
/// The node in a fault's message: "Solve 'solve' (node 3)".
std::string lapack_label(const LibraryNode& n);
/// Throws, naming the node at `site`, unless `t` is float32, float64, complex64 or complex128.
void check_lapack_type(const ExpansionSite& site, ScalarType t);

/// The C++ names emit_potf2 uses: the size n, the row-major matrix `l` (n x n), the info
/// variable, the element type's C++ name and three free loop variables.
struct Potf2Names {
  std::string n, l, info, t, i, j, k;
};
/// LAPACK's potf2, lower, as loops: the Cholesky factor L (A = L L^H, conjugates where `cplx`)
/// of the lower triangle of `l`, in place, column by column; at a leading minor that is not
/// positive definite, info = its order and the loop stops.
void emit_potf2(CodeLines& w, const Potf2Names& v, bool cplx);
/// The C++ names emit_lu_solve uses: sizes n and r, the row-major LU `a` (n x n) and right-hand
/// sides `x` (n x r), the 0-based pivots `p`, and three free loop variables.
struct LuSolveNames {
  std::string n, r, a, x, p, i, j, k;
};
/// LAPACK's getrs as loops: the row interchanges p[0], p[1], ... applied to `x` in order, then
/// L (unit diagonal) and U of `a` solved in place.
void emit_lu_solve(CodeLines& w, const LuSolveNames& v);

/// The nested SDFG of a LAPACK node: the operands' containers, the transient int64 scalars
/// `_fault` and `_fault_arg`, and one state with the tasklet `name` running `code` (marked as
/// weir's own), reading the inputs and writing the outputs of `ops` through pointers (a scalar
/// output as a value), `__fault`/`__fault_arg` into the transients, and declaring `messages`.
std::unique_ptr<SDFG> lapack_call_sdfg(const ExpansionSite& site, const std::vector<LibraryOperand>& ops,
                                       const std::string& name, const std::string& code,
                                       const std::vector<std::string>& messages);

}  // namespace weir::transforms::detail
