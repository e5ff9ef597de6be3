// The Cartesian decomposition of a program's I x J domain over a 2-D grid of MPI ranks: which
// part of the output domain each rank computes, the window of every global array it holds
// (its part plus the frame the program's sliced out= leaves around it) and the points it owns
// (its part, plus the global frame at the domain's edges). Pure arithmetic, no MPI.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace weir::distributed {

/// One decomposed dimension on one rank: global array indices along it (half-open).
struct AxisWindow {
  std::int64_t part_lo = 0, part_hi = 0;    ///< the output domain's points this rank computes
  std::int64_t local_lo = 0, local_hi = 0;  ///< the window of the global array the rank holds
  std::int64_t own_lo = 0, own_hi = 0;      ///< the points it owns (scatter and gather)
};

/// A decomposed dimension: its name, ranks along it, and the frame around the output domain
/// (`frame_lo` points before it, `frame_hi` after, from the program's out= slices).
struct DecomposedAxis {
  std::string dim;
  int ranks = 1;
  std::int64_t frame_lo = 0, frame_hi = 0;
};

/// Splits `n` points into `parts` contiguous parts, the first `n % parts` one point longer:
/// part `index` as [begin, end) relative to 0.
std::pair<std::int64_t, std::int64_t> split_part(std::int64_t n, int parts, int index);

/// The window of rank coordinate `c` along `axis` for a global array of `global` points.
AxisWindow axis_window(const DecomposedAxis& axis, std::int64_t global, int c);

/// The process grid of `ranks` ranks over `ndims` dimensions (MPI_Dims_create's balanced
/// choice, computed here without MPI: the largest factors first). Throws std::invalid_argument
/// for ranks < 1.
std::vector<int> balanced_grid(int ranks, int ndims);

/// Rank `rank`'s coordinate in a row-major grid (the last dimension fastest), as the generated
/// halo exchange computes it.
std::vector<int> grid_coordinates(int rank, const std::vector<int>& grid);

}  // namespace weir::distributed
