// The UnstructuredHaloExchange library node (weir's own class,
// `weir.distributed.UnstructuredHaloExchange`; docs/adr/0060-unstructured-partitioning.md,
// section 2026-12-06 "session 28"): fills the halo rows of one array on a partitioned entity of
// an unstructured mesh from the ranks that own them, in place. A row is everything after the
// first dimension (K levels, neighbours). The send/receive lists are data, not attributes: the
// program takes, per exchanged entity E, three int32 arrays as arguments (the same SDFG, so the
// same compiled library, serves every rank and every partition):
//   `__weir_E_peers`  [npeers, 3]: per peer rank, (rank in the communicator, rows sent, rows
//                     received), in the order the lists below are concatenated;
//   `__weir_E_send`   [nsend]: the local rows sent (this rank owns them), peer after peer;
//   `__weir_E_recv`   [nrecv]: the local halo rows received, peer after peer, in the order the
//                     peer sends the same entities.
// Connectors: `_in`/`_out` the array (whole), `_peers`, `_send`, `_recv` the lists, `_comm` the
// communicator (kCommArgument). Attribute `entity` ("Vertex"), for weir view. The code generator
// expands it to packing loops, MPI_Irecv/MPI_Isend per peer, MPI_Waitall and unpacking loops
// (codegen/src/unstructured_exchange_codegen.cpp).
#pragma once

#include <map>
#include <string>

#include "weir/sdfg/sdfg.h"

namespace weir::distributed {

/// The library node class name (`LibraryNode::class_name()`).
inline constexpr const char* kUnstructuredExchangeClass = "UnstructuredHaloExchange";

/// The program argument holding entity `entity`'s peers: "__weir_<entity>_peers".
std::string peers_argument(const std::string& entity);
/// The program argument holding entity `entity`'s rows to send: "__weir_<entity>_send".
std::string send_argument(const std::string& entity);
/// The program argument holding entity `entity`'s halo rows to receive: "__weir_<entity>_recv".
std::string recv_argument(const std::string& entity);

/// Whether some state at the top level of `sdfg` reads array `name` (an access node of it with
/// an outgoing edge).
bool reads_array(const SDFG& sdfg, const std::string& name);

/// Adds a state before `sdfg`'s start state holding one UnstructuredHaloExchange node per entry
/// of `exchanged` (array argument -> the entity its first dimension is on), each reading and
/// writing its array whole, and the list arguments of every entity used (and kCommArgument).
/// Returns how many nodes it added (0 for an empty `exchanged`: the SDFG is unchanged). Throws
/// weir::Error for an SDFG without a start state, a name that is no array of `sdfg`, or a 0-d
/// array.
int insert_unstructured_exchanges(SDFG& sdfg, const std::map<std::string, std::string>& exchanged);

}  // namespace weir::distributed
