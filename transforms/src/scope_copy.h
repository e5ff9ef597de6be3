// Copying a map scope inside its state (private to the transforms layer; MapUnroll, MapVectorization).
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"
#include "weir/transforms/analysis.h"

namespace weir::transforms::detail {

/// Copies the nodes of `scope` (a map's entry, exit and body) and every edge touching them;
/// edges to nodes outside are duplicated to the same outside nodes. Copied maps get map
/// properties of their own; containers in `rename` are accessed under their new names in the
/// copy (the caller adds the descriptors). Returns old node id -> copy's node id.
std::map<NodeId, NodeId> copy_scope(SDFGState& st, const std::vector<NodeId>& scope,
                                    const std::map<std::string, std::string>& rename);

/// Copies the map `me` with its body right beside it (transients local to the body copied with
/// suffix `_rem`), labels the copy `<label>_remainder` and returns its entry. The caller sets the
/// copy's range and propagates its memlets (MapVectorization, ScanFullBlocks).
MapEntry& copy_map_as_remainder(SDFG& sdfg, AnalysisCache& cache, SDFGState& st, const MapEntry& me);

/// For each transient in `locals`, a fresh container `<name><suffix>` with the same descriptor;
/// returns old name -> new name.
std::map<std::string, std::string> copy_transients(SDFG& sdfg, const std::set<std::string>& locals,
                                                   const std::string& suffix);

}  // namespace weir::transforms::detail
