// The partition of an unstructured mesh over N parts for a distributed run (`weir mesh --parts`,
// `weir run --parts`; docs/adr/0060-unstructured-partitioning.md): the primary entity (the one
// the program's outputs live on) is split by METIS; each part holds its owned entities and the
// halo its outputs reach through the program's connectivity chains, numbered locally (owned
// first, then halo, each in increasing global id), with the local connectivity tables and the
// lists of halo entries it receives from and sends to every other part.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace weir::mesh {

/// One connectivity table as the program reads it: `rows` x `cols` int32 entries, row-major,
/// each row an entity of `from` ("Edge" for E2V), each entry an entity of `to` ("Vertex").
struct PartitionTable {
  std::string name, from, to;
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int32_t> data;
};

/// The halo entries one part exchanges with one other part for one entity: local indices of
/// both sides in the same order (entry k of `recv` on this part is entry k of the peer's `send`
/// to it).
struct PeerLists {
  int peer = 0;
  std::vector<std::int32_t> send;  ///< local indices this part sends to `peer` (it owns them)
  std::vector<std::int32_t> recv;  ///< local indices this part receives from `peer` (its halo)
};

/// One call of an orchestration function as its part's halo needs it: the entities of the fields
/// it writes and the connectivity tables it reads. The call computes the rows a part owns of
/// each written entity from the rows its own tables reach from them.
struct CallChains {
  std::set<std::string> writes;  ///< entities of the fields the call writes
  std::set<std::string> tables;  ///< connectivity tables the call reads
};

/// One entity (Vertex, Edge, Cell, ...) on one part.
struct PartEntity {
  std::int64_t owned = 0;            ///< local indices [0, owned) are owned, the rest halo
  std::vector<std::int32_t> global;  ///< global id of every local index (owned first)
  std::vector<PeerLists> peers;      ///< by increasing peer number, only peers with entries
};

/// One part: its entities and its tables in local numbering (same names, same columns; rows of
/// its local entities of `from`). An entry whose entity is not on the part (only in halo rows,
/// which no owned output reads) is 0, a valid local index.
struct Part {
  std::map<std::string, PartEntity> entities;
  std::map<std::string, PartitionTable> tables;
};

/// The whole partition.
struct MeshPartition {
  std::string primary;                         ///< the entity METIS split
  std::map<std::string, std::int64_t> counts;  ///< global count of every entity
  std::vector<int> owner_of_primary;           ///< METIS's part of every primary entity
  std::int64_t edge_cut = 0;                   ///< METIS's objective (cut edges of the graph)
  /// Whether the chains start at the owned entities of every entity (partition_mesh's
  /// `every_entity`), not only at the owned primaries.
  bool every_entity = false;
  /// The calls whose chains made the halo (partition_mesh's `calls`; empty: every table from
  /// every entity's owned rows, or from the primary's).
  std::vector<CallChains> calls;
  std::vector<Part> parts;
};

/// The global count of every entity the tables name: the rows of a table on it, else one more
/// than the largest entry pointing to it. Throws std::invalid_argument (naming the table, row
/// and column) for a table whose data is not rows x cols, entries below 0 (missing neighbours
/// are not supported by partitioning), entries past a known count, or two tables on the same
/// entity with different row counts.
std::map<std::string, std::int64_t> entity_counts(const std::vector<PartitionTable>& tables);

/// METIS_PartGraphKway (fixed seed 0, so the same tables give the same parts) of the graph of
/// `primary` entities in which two are adjacent when a table from `primary` lists them in one
/// row or lists one of them in the other's row. Returns the part (0..parts-1) of each primary
/// entity. Throws std::invalid_argument for parts < 1, parts > the primary count, a primary with
/// no table starting at it, or a part METIS leaves empty; std::runtime_error when weir was built
/// without METIS (WEIR_METIS=OFF or libmetis-dev missing) or METIS fails. parts == 1 needs no
/// METIS.
std::vector<int> metis_parts(const std::vector<PartitionTable>& tables, const std::string& primary, int parts,
                             std::int64_t* edge_cut = nullptr);

/// True when weir was built with METIS.
bool have_metis();

/// The partition of `owner` (the part of every primary entity, e.g. metis_parts'): each part's
/// local entities are its owned primaries and everything reached from them along every chain of
/// `tables` that starts at `primary` and uses each table at most once (V2E then E2V for a program
/// reading a vertex field on edges and summing edges per vertex). A non-primary entity is owned by
/// the lowest part holding it. With `every_entity` (an orchestration function, whose calls write
/// fields on several entities and read them through tables after an exchange) the chains also
/// start at every part's owned entities of every other entity, so that each part computes all
/// the rows it owns, of every entity, from local rows; an entity no chain from a primary reaches
/// is owned by part 0. With `every_entity` and `calls` (an orchestration's calls, each with the
/// entities it writes and the tables it reads), the owners are the same but the halo is
/// narrower: the chains start at the owned rows of each entity a call writes and follow only
/// that call's tables (each at most once per chain), since a call computes its owned rows from
/// those alone and reads other calls' results at halo rows after an exchange. Throws
/// std::invalid_argument as entity_counts does, for an `owner` of the wrong length or out of
/// range, and for a call naming a table or entity the tables do not have.
MeshPartition partition_mesh(const std::vector<PartitionTable>& tables, const std::string& primary,
                             const std::vector<int>& owner, int parts, bool every_entity = false,
                             const std::vector<CallChains>& calls = {});

}  // namespace weir::mesh
