// A Cartesian field-view program (a @program or an orchestration function calling them) made
// ready to run on the ranks of a 2-D process grid: the C++ entry point that takes each rank's
// local arrays and a communicator (docs/distributed.md "From C++ and Python", ADR 0057
// "communicators"). `weir run --decompose` and the Python module's `weir.decompose` use it.
//
// Layout of the local arrays: along every decomposed dimension, rank (c_0, c_1) of the grid
// holds the window `[part_lo - frame_lo, part_hi + frame_hi)` of each global array (its part of
// the output domain plus the program's frame around it, which holds the halo its shifted reads
// need); window() computes it. Along the other dimensions arrays are whole. The halo points
// need not be filled by the caller: the program's HaloExchange nodes fill them from the
// neighbours before they are read.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "weir/distributed/decomposition.h"
#include "weir/distributed/halo_analysis.h"
#include "weir/runtime/arguments.h"
#include "weir/runtime/backend.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/field_view_program.h"
#include "weir/runtime/program.h"
#include "weir/transforms/halo_exchange_overlap.h"

namespace weir::distributed {

/// The ranks a decomposed program runs on: the dimensions split, in order ({"I", "J"} or
/// {"I"}), and the ranks along each ({2, 2}). Ranks are numbered row-major, the last dimension
/// fastest: rank r of the communicator has coordinates grid_coordinates(r, sizes).
struct ProcessGrid {
  std::vector<std::string> dims;
  std::vector<int> sizes;
  /// The product of `sizes`: how many ranks the communicator must have.
  int ranks() const;
};

/// One program on the ranks of a ProcessGrid. Construction lowers (when given a field-view
/// program), analyses the halos, inserts the HaloExchange nodes (which read the communicator
/// from the scalar argument kCommArgument, halo_exchange.h) and runs auto-optimize for the CPU: the same
/// SDFG, so the same compiled library, on every rank. prepare() compiles it; run() calls it on one rank's
/// arrays. run() is not thread-safe (one call at a time per object, as runtime::Program).
class DecomposedProgram {
 public:
  /// From a Cartesian field-view program (loaded with runtime::load_field_view_program).
  /// Throws weir::Error for a grid whose `dims` and `sizes` differ in count, are empty, or have
  /// a size below 1, and as analyse_halos / analyse_orchestration_halos do (naming the program
  /// and dimension) for a program that cannot be decomposed along `grid.dims`. With `overlap`,
  /// HaloExchangeOverlap splits each exchange it can (weir/transforms/halo_exchange_overlap.h;
  /// overlap() says which), so the interior of the stencil reading it runs while messages fly.
  DecomposedProgram(const runtime::FieldViewProgram& program, ProcessGrid grid, bool overlap = false);
  /// From the SDFG lowered but not optimized (`lowered.sdfg`; `orchestration` when it is an
  /// orchestration function's, whose calls are still nested SDFGs): as above, with auto-optimize
  /// skipped when `optimize` is false, and `overlap` as above. The options of `lowered` (bounds
  /// checks) are kept.
  DecomposedProgram(const runtime::CompilableProgram& lowered, bool orchestration, ProcessGrid grid,
                    bool optimize = true, bool overlap = false);

  const ProcessGrid& grid() const { return grid_; }
  /// Per entry of grid().dims: the dimension, its ranks and the program's frame along it.
  const std::vector<DecomposedAxis>& axes() const { return axes_; }
  /// The frame, the inputs' halo widths and the outputs, per decomposed dimension.
  const ProgramHalos& halos() const { return halos_; }
  /// How many HaloExchange nodes the SDFG has (0 when nothing is read shifted).
  int exchanges() const { return exchanges_; }
  /// How many global reductions (Reduce nodes restricted to the owned points, each followed
  /// by an Allreduce node) the SDFG has (weir/distributed/global_reductions.h).
  int reductions() const { return reductions_; }
  /// With `overlap`: how many exchange states were split and why the others were not.
  const transforms::OverlapReport& overlap() const { return overlap_; }
  /// What prepare() compiles: the SDFG with its exchanges and the code generation options.
  const runtime::CompilableProgram& compilable() const { return program_; }

  /// The decomposed axes of array argument `name` (dimension -> axis index); empty for an
  /// array along no decomposed dimension (and for scalars).
  std::map<std::string, std::size_t> decomposed_axes(const std::string& name) const;
  /// Rank `coords`' window of array `name` whose global shape is `global_shape`: [lo, hi) of the
  /// global indices per axis, the local array's extent being hi - lo. With `own`, the block the
  /// rank owns instead (its part, plus the global frame at the grid's edges): what a gather
  /// collects. Throws weir::Error when `coords` has not one entry per grid dimension or one lies
  /// outside the grid.
  std::vector<std::pair<std::int64_t, std::int64_t>> window(const std::string& name,
                                                            const std::vector<std::int64_t>& global_shape,
                                                            const std::vector<int>& coords,
                                                            bool own = false) const;

  /// Compiles the program with `backend` (or loads it from the program cache): a CPU backend
  /// whose compiler finds <mpi.h>, such as make_mpi_cpu_backend(). Every rank may call it; the
  /// cache's writes are atomic (ADR 0038), and `weir run` lets rank 0 compile first.
  void prepare(const runtime::Backend& backend);
  /// Whether prepare() succeeded.
  bool prepared() const { return runnable_ != nullptr; }

  /// Runs the program on this rank's local arrays `local` (arrays by argument name, each the
  /// window() of its global array in C order; scalars and sizes not following from the shapes in
  /// `values`; outputs written in place). `comm` is the communicator's Fortran handle,
  /// MPI_Comm_c2f(comm) (weir/distributed/mpi_comm.h takes an MPI_Comm); it must have
  /// grid().ranks() ranks, and `coords` must be this rank's coordinates in the grid,
  /// grid_coordinates(rank in comm, grid().sizes). Every rank of the communicator must call
  /// run() (the exchanges are point-to-point messages between neighbours).
  /// Throws weir::Error, before any message, when the program is not prepared, MPI is not
  /// initialized, `comm` is MPI_COMM_NULL or not a communicator of grid().ranks() ranks,
  /// `coords` are not this rank's, or two arrays have different extents along a decomposed
  /// dimension; throws what runtime::Program::run throws for arguments that do not fit the
  /// program. A local part narrower than a halo the program exchanges stops every rank of the
  /// communicator (MPI_Abort) with the sizes, as a failure inside an exchange cannot be
  /// answered on one rank alone.
  void run(runtime::Arguments& local, std::int64_t comm, const std::vector<int>& coords) const;

 private:
  void decompose(std::unique_ptr<SDFG> sdfg, bool orchestration, bool optimize, bool overlap);

  ProcessGrid grid_;
  std::vector<DecomposedAxis> axes_;
  ProgramHalos halos_;
  int exchanges_ = 0;
  int reductions_ = 0;
  transforms::OverlapReport overlap_;
  runtime::CompilableProgram program_;
  std::shared_ptr<runtime::Program> runnable_;
};

/// A CPU backend for decomposed programs: `config` with the -I flags of the MPI weir was built
/// with (mpi_compile_flags()), so that the generated exchanges find <mpi.h>.
std::unique_ptr<runtime::CompiledBackend> make_mpi_cpu_backend(runtime::CompiledBackendConfig config = {});

}  // namespace weir::distributed
