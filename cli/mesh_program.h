// What partitioning needs to know of an unstructured program (`weir mesh --parts`, `weir run
// --parts`; docs/adr/0060-unstructured-partitioning.md): the entity its outputs live on and the
// connectivity tables it reads.
#pragma once

#include <string>
#include <vector>

#include "run_target.h"
#include "weir/mesh/partition.h"

namespace weir::cli {

/// The first dimension of array parameter `name` of a field-view signature ("Vertex" for a
/// field over (Vertex, K)), or "" for a scalar or a 0-d array.
std::string first_dimension(const runtime::Signature& sig, const std::string& name);

/// Whether `t` is an orchestration function (loaded for a compiled or the embedded backend).
bool is_orchestration(const RunTarget& t);

/// The entity all of `t`'s outputs are on (their first dimension); for an orchestration function,
/// whose calls may write fields on several entities, the entity of its first written parameter
/// (the one METIS splits; the halo then starts at the owned rows of every entity). Throws
/// weir::Error naming the program and the outputs for a program without connectivities (not
/// unstructured), without outputs, or, for a single program, with outputs on different entities
/// (only one entity is partitioned).
std::string primary_entity(const RunTarget& t);

/// The calls of `t`, an orchestration function loaded for the embedded backend (`weir mesh
/// --parts`), as the halo of its partition needs them: per call (a NestedSDFG of its SDFG as
/// lowered, before auto-optimize inlines the calls) the entities of the fields it writes and the
/// connectivity tables it reads (mesh::partition_mesh's `calls`). Empty for a single program.
std::vector<mesh::CallChains> call_chains(const RunTarget& t);

}  // namespace weir::cli
