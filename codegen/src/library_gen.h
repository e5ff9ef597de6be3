// Library nodes that reach code generation (library_codegen.cpp dispatches): weir's
// distributed-memory nodes (HaloExchange, Allreduce, UnstructuredHaloExchange). The
// library-expansion pass (transforms/) owns the others, LAPACK's included. Made per node by
// StateGen::emit_untimed.
#pragma once

#include <string>

#include "state_codegen.h"

namespace weir::codegen::detail {

struct BlasOperand;

/// The library-node family of a state's code generation: reads the StateGen it works for (its
/// bindings, scopes and options), writes the node's code.
class LibraryGen {
 public:
  explicit LibraryGen(StateGen& g);

  /// Emits library node `n`, or throws CodegenError at it: a node the library-expansion pass
  /// owns that reaches code generation unexpanded, or a class no code here generates.
  void emit(const LibraryNode& n, Writer& w);

 private:
  // --- operands (library_codegen.cpp) ------------------------------------------------------
  /// The location of connector `conn` of `n` (present = false if it has no edge).
  BlasOperand blas_operand(const LibraryNode& n, const std::string& conn, bool input) const;
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
  StateGen& g_;
  SdfgGen& sg;
  const SDFGState& st;
  const CodegenOptions& opts;
};

}  // namespace weir::codegen::detail
