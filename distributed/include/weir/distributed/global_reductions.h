// Global reductions on a decomposed program (docs/adr/0057, section "global reductions"): an
// orchestration function's `np.max(u)` is a Reduce library node over a slice of an array (the
// lowering's, frontend/orchestration.h). Decomposed, each rank reduces only the points of the
// slice it owns (never its halo, nor another rank's frame), and an Allreduce library node after
// it combines the ranks' values on the program's communicator: MPI_Allreduce with MPI_MAX,
// MPI_MIN or MPI_SUM (codegen/src/allreduce_codegen.cpp). Its attributes: `op` ("max", "min",
// "sum"); connectors `_in`/`_out` (the scalar, in place) and `_comm` (kCommArgument).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "weir/distributed/halo_analysis.h"
#include "weir/sdfg/sdfg.h"

namespace weir::distributed {

/// The library node class name (`LibraryNode::class_name()`).
inline constexpr const char* kAllreduceClass = "Allreduce";

/// The int64 symbol that is 1 on the ranks at the lower edge of the grid along `dim` (the
/// first coordinate) and 0 elsewhere; `__weir_last_<dim>` likewise at the upper edge. A program
/// with global reductions takes both as arguments of every call (DecomposedProgram::run sets
/// them from the rank's coordinates).
std::string first_symbol(const std::string& dim);
/// See first_symbol.
std::string last_symbol(const std::string& dim);

/// "file:line:column: " of a Reduce node's debuginfo (the orchestration statement), "" without
/// one: the prefix of the refusals about it.
std::string reduce_location(const LibraryNode& n);

/// The Python slice bounds of a Reduce node's attribute `key` ("slice_lower" or "slice_upper"),
/// one per dimension of its input, nullopt where the slice gives none. Throws weir::Error,
/// located, for an attribute that is no list of integers and nulls.
std::vector<std::optional<std::int64_t>> reduce_slice_bounds(const LibraryNode& n, const std::string& key);

/// Adds, in `st`, an Allreduce node after Reduce node `reduce` whose result is the scalar access
/// node `scalar` of array `data`: it reads that scalar and writes it back combined over the ranks
/// of the program's communicator (kCommArgument, added as an argument if missing), with the
/// Reduce's operation (max, min or sum; throws weir::Error for any other).
void add_allreduce(SDFG& sdfg, SDFGState& st, const LibraryNode& reduce, NodeId scalar,
                   const std::string& data);

/// Restricts every Reduce node of `sdfg` (at any depth of its control flow, not in nested SDFGs)
/// to the points of its slice the rank owns along the decomposed dimensions `dims` (the frame
/// per dimension and the arrays the calls read and write: `halos`) and adds an Allreduce node
/// after it. Returns how many it rewrote. Throws weir::Error, naming the statement (the node's
/// debuginfo) and the field, for a reduction over an array without every decomposed dimension
/// (each rank would hold the same points), over an array no call reads or writes (the
/// decomposition does not split it: every rank holds it whole), and for a slice bound along a
/// decomposed dimension that reaches past the frame into the ranks' parts (`u[5:]` with a frame
/// of 1: which rank's points it excludes depends on the split).
int insert_global_reductions(SDFG& sdfg, const ProgramHalos& halos, const std::vector<std::string>& dims);

}  // namespace weir::distributed
