// The halos of a Cartesian program, read off its SDFG: along each decomposed dimension, the
// frame its outputs leave unwritten around the output domain (a sliced out= such as
// out[2:-2, 2:-2]) and, per input, how far beyond the output domain it is read (its shifts).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"

namespace weir::distributed {

/// Points before (`lo`) and after (`hi`) a range.
struct Margin {
  std::int64_t lo = 0, hi = 0;
  bool operator==(const Margin&) const = default;
};

/// A non-transient array the program reads, with its axis per decomposed dimension and how far
/// beyond the output domain it is read along each (its halo width; 0 for unshifted reads).
struct InputHalo {
  std::string field;
  std::map<std::string, std::size_t> axis;  ///< decomposed dimension -> array axis
  std::map<std::string, Margin> width;      ///< decomposed dimension -> halo width
  /// decomposed dimension -> "file:line:column: " of the read reaching furthest beyond the output
  /// domain there (the program's statement), absent without debuginfo.
  std::map<std::string, std::string> where;
};

/// What decomposing a program needs to know about its halos.
struct ProgramHalos {
  std::map<std::string, Margin> frame;  ///< decomposed dimension -> the outputs' frame
  std::vector<InputHalo> inputs;        ///< inputs along the decomposed dimensions, by name
  /// Arrays the program writes (gathered after the run), each with its decomposed axes.
  std::map<std::string, std::map<std::string, std::size_t>> outputs;
};

/// "file:line:column: " of a node's debuginfo (the program's statement it was lowered from), ""
/// without one.
std::string node_location(const Node& n);

/// The dimension of axis `k` of container `name` in an SDFG lowered from a field-view program
/// (its extent is the size symbol `__NAME_DIM_size`), or "" when it has none.
std::string axis_dimension(const SDFG& sdfg, const std::string& name, std::size_t k);

/// Reads the halos of `sdfg` (lowered from a field-view program, optimized or not) along
/// `dims` ("I", "J") from the memlets at the top level of its states: every size symbol is
/// taken as one large extent, so frames and widths are numbers when the subsets are the
/// program's out= slices and shifts. Throws weir::Error naming the program and dimension when
/// its outputs are written over different domains along a dimension (no one frame), when it
/// writes no array along them, when an input is read beyond the frame (which the single-rank
/// program would refuse too), or when a top-level subset along a dimension is not the field's
/// size less fixed numbers (a domain such as {I: (0, 8)}); and, at the program's line, when a
/// range along `dims` is bounded by a scalar argument (gt4py's `domain={I: (1, ni - 1)}`:
/// scalar_bounds in domain_bounds.h), whose global value means another range on a rank.
ProgramHalos analyse_halos(const SDFG& sdfg, const std::vector<std::string>& dims);

/// Throws weir::Error naming the program and loop when a sequential loop (a LoopRegion of
/// `sdfg` or of an SDFG nested in it; a scan_operator lowers to one) indexes an array along one
/// of `dims` by its loop variable: its iterations depend on each other, so that dimension
/// cannot be split over ranks (each rank would restart the scan at its first point).
void check_parallel_along(const SDFG& sdfg, const std::vector<std::string>& dims);

}  // namespace weir::distributed
