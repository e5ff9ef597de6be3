// An unstructured field-view program made ready to run on the ranks of a mesh partition (`weir
// mesh --parts N`, docs/adr/0060-unstructured-partitioning.md): the C++ entry point that takes
// each rank's local arrays (local numbering: owned rows first, then halo rows) with its
// send/receive lists and a communicator, as DecomposedProgram does for Cartesian programs.
// `weir run --parts DIR` and the Python module's `weir.partitioned` use it.
//
// The halo rows of every array the program reads on an exchanged entity are filled by
// UnstructuredHaloExchange library nodes in the SDFG (weir/distributed/unstructured_exchange.h),
// in a state before the program's first, from the rows their owners hold: the caller need not
// fill them.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "weir/runtime/arguments.h"
#include "weir/runtime/backend.h"
#include "weir/runtime/field_view_program.h"
#include "weir/runtime/program.h"

namespace weir::distributed {

/// The rows one rank exchanges with rank `peer` of the communicator along one entity: local
/// rows it sends (it owns them) and local halo rows it receives, in the order `peer`'s lists
/// give the same entities (`weir mesh --parts` writes them as send_<E>_to_<Q>.npy and
/// recv_<E>_from_<Q>.npy).
struct PeerRows {
  int peer = 0;
  std::vector<std::int32_t> send, recv;
};

/// Per exchanged entity ("Vertex"), the rank's peers (none on one rank).
using RowLists = std::map<std::string, std::vector<PeerRows>>;

/// The arrays to exchange: every array parameter of `sig` (a field-view signature) that `sdfg`
/// reads at halo rows (halo_rows_read: through a connectivity table, or to compute rows read
/// so; nabla's `sign` and `vol`, read at the output's row, are not), is not a connectivity table
/// of `tables`, and whose first dimension is an entity of `tables` (a row or an entry entity),
/// mapped to that entity.
std::map<std::string, std::string> rows_to_exchange(const runtime::Signature& sig,
                                                    const std::vector<runtime::ConnectivityParameter>& tables,
                                                    const SDFG& sdfg);

/// One unstructured program on the ranks of a partition. run() is not thread-safe (one call at
/// a time per object, as runtime::Program).
class PartitionedProgram {
 public:
  /// From an unstructured field-view program (runtime::load_field_view_program): lowers it for
  /// the CPU, inserts the exchanges of rows_to_exchange and validates; an orchestration function
  /// is lowered without optimizing, gets the exchanges between its calls
  /// (orchestration_rows.h) and is then optimized. Throws weir::Error for a program without
  /// connectivity tables. An orchestration runs on a partition whose halo starts at the owned
  /// rows of every entity (`weir mesh --parts` of it; mesh::partition_mesh's `every_entity`).
  explicit PartitionedProgram(const runtime::FieldViewProgram& program);
  /// From an orchestration function lowered but not optimized (`lowered`, as `weir run
  /// --backend cpu` lowers it) reading connectivity tables `tables`: inserts the exchanges
  /// between its calls, optimizes for the CPU and validates.
  PartitionedProgram(const runtime::CompilableProgram& lowered,
                     const std::vector<runtime::ConnectivityParameter>& tables);
  /// From a program already lowered and optimized (`compiled`, as `weir run --backend cpu`
  /// compiles it) and the arrays to exchange (array -> entity): inserts the exchanges.
  PartitionedProgram(const runtime::CompilableProgram& compiled,
                     std::map<std::string, std::string> exchanged);

  /// The arrays whose halo rows are exchanged, each with its entity (an orchestration's
  /// temporaries included).
  const std::map<std::string, std::string>& exchanged() const { return exchanged_; }
  /// The UnstructuredHaloExchange nodes in the SDFG (an orchestration exchanges an array before
  /// every call that reads it at halo rows after a write).
  int exchanges() const { return exchanges_; }
  /// The entities run() needs lists for.
  std::set<std::string> entities() const;
  /// The global reductions of an orchestration over fields on partitioned entities (`np.max(psi)`:
  /// each rank reduces its owned rows, an MPI_Allreduce combines them; row_reductions.h).
  int reductions() const { return reductions_; }
  /// The entities whose number of owned rows run() needs (those reductions reduce over).
  const std::set<std::string>& reduced_entities() const { return reduced_; }
  /// What prepare() compiles: the SDFG with its exchanges.
  const runtime::CompilableProgram& compilable() const { return program_; }

  /// Compiles the program with `backend` (or loads it from the program cache): a CPU backend
  /// whose compiler finds <mpi.h>, such as make_mpi_cpu_backend() (decomposed_program.h).
  void prepare(const runtime::Backend& backend);
  /// Whether prepare() succeeded.
  bool prepared() const { return runnable_ != nullptr; }

  /// Runs the program on this rank's local arrays `local` (arrays by argument name in local
  /// numbering, connectivity tables included; scalars in `values`; outputs written in place)
  /// with the lists `lists` of every entity of entities(), on the communicator whose Fortran
  /// handle is `comm` (MPI_Comm_c2f; weir/distributed/mpi_comm.h takes an MPI_Comm). `owned`
  /// gives, per entity of reduced_entities(), how many of the local rows (the first ones) the
  /// rank owns. Every rank of the communicator must call it. Throws weir::Error, on this rank and
  /// before any message, when the program is not prepared, MPI is not initialized, `comm` is no
  /// communicator, an entity's lists are missing, a peer is not another rank of `comm` or is
  /// listed twice, a list row is outside the local array of its entity, an owned count is missing
  /// or outside [0, local rows]; throws what runtime::Program::run throws for arguments that do
  /// not fit. Lists that disagree between ranks (a rank waiting for rows its peer does not send)
  /// are the caller's error and are not detected.
  void run(runtime::Arguments& local, const RowLists& lists, std::int64_t comm,
           const std::map<std::string, std::int64_t>& owned = {}) const;

 private:
  void insert();
  void partition_orchestration(const std::vector<runtime::ConnectivityParameter>& tables);

  std::map<std::string, std::string> exchanged_;
  std::map<std::string, std::string> on_entity_;  // arrays on partitioned entities (list checks)
  int exchanges_ = 0;
  int reductions_ = 0;
  std::set<std::string> reduced_;
  runtime::CompilableProgram program_;
  std::shared_ptr<runtime::Program> runnable_;
};

}  // namespace weir::distributed
