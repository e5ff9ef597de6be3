// The HaloExchange library node (weir's own class, `weir.distributed.HaloExchange`): fills the
// halo of one array from the neighbouring ranks of a 2-D process grid, in place. Its attributes
// (JSON arrays, one entry per decomposed axis, in exchange order): `axes` (the array's axes),
// `grid` (ranks along each), `frame_lo`/`frame_hi` (points of the local array before and after the
// rank's part: the out= frame), `width_lo`/`width_hi` (halo points exchanged before and after
// it). Its input connector `_comm` reads the communicator from the scalar argument
// kCommArgument. The code generator expands it to MPI_Irecv/MPI_Isend/MPI_Waitall with packing loops
// (codegen/src/halo_exchange_codegen.cpp). DaCe 2.0 does not load an SDFG with this node (it
// has no serializer for the type; ADR 0057).
#pragma once

#include <vector>

#include "weir/distributed/halo_analysis.h"
#include "weir/sdfg/sdfg.h"

namespace weir::distributed {

/// The library node class name (`LibraryNode::class_name()`).
inline constexpr const char* kHaloExchangeClass = "HaloExchange";

/// The scalar argument through which a program with HaloExchange nodes receives its
/// communicator: an int64 given at every call, MPI_Comm_c2f(comm), the communicator's Fortran
/// handle (a plain integer, so the program's C entry points are unchanged; docs/adr/
/// 0057-distributed-memory.md "communicators"). `weir run --decompose` passes MPI_COMM_WORLD's.
inline constexpr const char* kCommArgument = "__weir_comm";

/// Adds kCommArgument to `sdfg` (a non-transient int64 scalar, appended to its arg_names) when
/// it has no such container yet.
void add_comm_argument(SDFG& sdfg);

/// True when `in` is read beyond the output domain along some dimension (needs an exchange).
bool is_shifted(const InputHalo& in);

/// Adds to `st` one HaloExchange node filling the halo of `in.field` (widths `in.width`, frame
/// `frame` per dimension) from the neighbours, reading and writing the array whole; the node
/// reads its communicator from kCommArgument (connector `_comm`; add_comm_argument).
void add_halo_exchange(SDFG& sdfg, SDFGState& st, const InputHalo& in,
                       const std::map<std::string, Margin>& frame, const std::vector<std::string>& dims,
                       const std::vector<int>& grid);

/// Adds a state before `sdfg`'s start state with one HaloExchange node per input of `halos`
/// that is read shifted along a decomposed dimension (`dims`, ranks per dimension in `grid`),
/// each reading and writing its array whole. Returns how many nodes it added (0: nothing is
/// read shifted; the SDFG is unchanged). Throws weir::Error for an SDFG without a start state.
int insert_halo_exchanges(SDFG& sdfg, const ProgramHalos& halos, const std::vector<std::string>& dims,
                          const std::vector<int>& grid);

}  // namespace weir::distributed
