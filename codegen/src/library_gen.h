// Library nodes that reach code generation (library_codegen.cpp dispatches): BLAS products as
// loops (blas_codegen.cpp; their CBLAS calls are the library-expansion pass's), DaCe's linalg nodes
// (lapack_codegen.cpp), LAPACK's factorizations (lapack_factor_codegen.cpp) and weir's
// HaloExchange (halo_exchange_codegen.cpp). The library-expansion pass (transforms/) owns the
// others. Made per node by StateGen::emit_untimed.
#pragma once

#include <string>

#include "state_codegen.h"

namespace weir::codegen::detail {

struct BlasOperand;
struct BlasProduct;

/// The library-node family of a state's code generation: reads the StateGen it works for (its
/// bindings, scopes and options), writes the node's code.
class LibraryGen {
 public:
  explicit LibraryGen(StateGen& g);

  /// Emits library node `n`, or throws CodegenError at it: a node the library-expansion pass
  /// owns that reaches code generation unexpanded, or a class no code here generates.
  void emit(const LibraryNode& n, Writer& w);

 private:
  // --- BLAS library nodes as loops (blas_codegen.cpp) --------------------------------------
  void emit_blas(const LibraryNode& n, Writer& w);
  /// The contraction of MatMul, Gemm or Gemv node `n` (its operands, loop variables, extents and
  /// scalars; of a Dot its operands only) into `p`, whose `cls` is set; throws CodegenError at
  /// `n` for missing or misshapen operands and for a class it does not take.
  void plan_blas(const LibraryNode& n, BlasProduct& p) const;
  /// A matrix product (two output dimensions) two rows at a time, k outside j (CPU code).
  void emit_row_pairs(const LibraryNode& n, const BlasProduct& p, Writer& w);
  /// A product with a vector result whose matrix rows run along k: eight rows at a time.
  void emit_row_groups(const BlasProduct& p, Writer& w);
  /// A product with a vector result in blocks of 256 output elements, k outside.
  void emit_vector_blocks(const BlasProduct& p, Writer& w);
  /// Any other contraction as plain loops, one output element per iteration of the outer loops.
  void emit_plain_loops(const BlasProduct& p, Writer& w);
  /// The location of connector `conn` of `n` (present = false if it has no edge).
  BlasOperand blas_operand(const LibraryNode& n, const std::string& conn, bool input) const;
  // --- LAPACK library nodes: Cholesky, Solve, Inv (lapack_codegen.cpp) --------------------
  /// Whether `n` is one of DaCe's linalg nodes that emit_lapack generates.
  static bool is_lapack(const LibraryNode& n);
  /// Emits `n` as loops (pure) or LAPACKE calls, by its implementation; a singular or not
  /// positive definite matrix is a fault raised after the state.
  void emit_lapack(const LibraryNode& n, Writer& w);
  /// Whether `n` is one of DaCe's lapack nodes (Getrf, Getrs, Getri, Potrf) that
  /// emit_lapack_factor generates (lapack_factor_codegen.cpp).
  static bool is_lapack_factor(const LibraryNode& n);
  /// Emits `n` as LAPACK's routine: loops, or one LAPACKE call for OpenBLAS, MKL or LAPACKE.
  void emit_lapack_factor(const LibraryNode& n, Writer& w);
  // --- HaloExchange, weir's distributed-memory node (halo_exchange_codegen.cpp) -----------
  /// Emits `n` as non-blocking MPI (MPI_Irecv/MPI_Isend/MPI_Waitall per decomposed axis, with
  /// packing and unpacking loops) and makes the program include <mpi.h> and link -lmpi.
  void emit_halo_exchange(const LibraryNode& n, Writer& w);
  /// Declares `__hx_comm`, the communicator HaloExchange `n` (of array `data`) reads on its
  /// connector `_comm` (MPI_COMM_WORLD without it).
  void declare_communicator(const LibraryNode& n, const std::string& data, Writer& w);
  // --- Allreduce, weir's global reduction node (allreduce_codegen.cpp) -----------------------
  /// Emits `n` (weir/distributed/global_reductions.h) as one MPI_Allreduce in place of its
  /// scalar on its communicator, with MPI_MAX, MPI_MIN or MPI_SUM on the scalar's MPI type.
  void emit_allreduce(const LibraryNode& n, Writer& w);
  // --- UnstructuredHaloExchange (unstructured_exchange_codegen.cpp) ------------------------
  /// Emits `n` (weir/distributed/unstructured_exchange.h) as packing loops over its send list,
  /// MPI_Irecv/MPI_Isend per peer, MPI_Waitall and unpacking loops over its receive list, after
  /// checking the lists (a bad list stops every rank with MPI_Abort and the rank's message).
  void emit_unstructured_exchange(const LibraryNode& n, Writer& w);
  // --- the parallel loops of a library node (parallel_threshold.cpp) -----------------------
  /// The `#pragma omp parallel for` of a library node's loops doing about `work` operations:
  /// none for a constant below the small-map threshold, an if() clause for a symbolic amount.
  std::string small_work_pragma(const sym::Expr& work) const;
  /// `loops` (a loop nest doing about `work` operations) with `#pragma omp parallel for` where
  /// the work is large, without where it is small, both behind a test where it is symbolic.
  void emit_parallel_loops(const sym::Expr& work, const Writer& loops, Writer& w);

  StateGen& g_;
  SdfgGen& sg;
  const SDFGState& st;
  const CodegenOptions& opts;
};

}  // namespace weir::codegen::detail
