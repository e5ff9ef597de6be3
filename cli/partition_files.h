// The files of a mesh partition (`weir mesh --parts N --out DIR`, read by `weir run --parts DIR`;
// docs/adr/0060-unstructured-partitioning.md):
//   DIR/partition.json       {"format": "weir-mesh-partition", "version": 1, "parts": N,
//                             "primary": "Vertex", "program": "FILE.py::NAME",
//                             "halo": "primary" or "every entity" (mesh::MeshPartition::every_entity),
//                             "calls": [{"writes": ["Cell"], "tables": ["C2E"]}, ...] (an
//                             orchestration's calls whose chains made the halo; absent: every table),
//                             "tables": {"E2V": {"from": "Edge", "to": "Vertex", "cols": 2}, ...},
//                             "entities": {"Vertex": count, ...}, "edge_cut": METIS's objective,
//                             "owned": [{"Vertex": owned of part 0, ...}, ...],
//                             "local": [{"Vertex": local count of part 0, ...}, ...]}
//   DIR/part<P>/<TABLE>.npy  int32 (local rows, cols): the table in part P's local numbering
//   DIR/part<P>/global_<ENTITY>.npy  int32 (local count,): global id of each local index (owned first)
//   DIR/part<P>/send_<ENTITY>_to_<Q>.npy, recv_<ENTITY>_from_<Q>.npy  int32: local indices P sends
//                             to / receives from part Q, in matching order
#pragma once

#include <filesystem>
#include <string>

#include "weir/mesh/partition.h"

namespace weir::cli {

/// Writes `m` into `dir` (created if missing; files replaced atomically). `program` is recorded.
void write_partition(const std::filesystem::path& dir, const mesh::MeshPartition& m,
                     const std::string& program);

/// What a rank reads back: the partition's header and its own part.
struct LoadedPart {
  int parts = 0;
  std::string primary, program;
  bool every_entity = false;                   ///< chains from every entity's owned rows ("halo")
  std::map<std::string, std::int64_t> counts;  ///< global count per entity
  mesh::Part part;                             ///< tables (data, rows, cols, from, to) and entities
};

/// Reads partition.json and part `p` of `dir`. Throws weir::Error naming the file for a missing
/// or malformed file, a part number outside the partition, files whose shapes disagree with
/// partition.json, and (naming the entry) a global id outside the mesh, a table entry outside the
/// part's local entities, a sent row the part does not own, a received row that is not a halo
/// row, lists with the part itself, and a receive list of another length than the peer's send
/// list (read from the peer's file).
LoadedPart read_part(const std::filesystem::path& dir, int p);

}  // namespace weir::cli
