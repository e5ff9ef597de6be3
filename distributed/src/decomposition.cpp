#include "weir/distributed/decomposition.h"

#include <algorithm>
#include <stdexcept>

namespace weir::distributed {

std::pair<std::int64_t, std::int64_t> split_part(std::int64_t n, int parts, int index) {
  const std::int64_t base = n / parts, rem = n % parts;
  const std::int64_t begin = index * base + std::min<std::int64_t>(index, rem);
  return {begin, begin + base + (index < rem ? 1 : 0)};
}

AxisWindow axis_window(const DecomposedAxis& axis, std::int64_t global, int c) {
  const std::int64_t domain = global - axis.frame_lo - axis.frame_hi;
  auto [b, e] = split_part(domain, axis.ranks, c);
  AxisWindow w;
  w.part_lo = axis.frame_lo + b;
  w.part_hi = axis.frame_lo + e;
  w.local_lo = w.part_lo - axis.frame_lo;
  w.local_hi = w.part_hi + axis.frame_hi;
  w.own_lo = c == 0 ? 0 : w.part_lo;
  w.own_hi = c == axis.ranks - 1 ? global : w.part_hi;
  return w;
}

std::vector<int> balanced_grid(int ranks, int ndims) {
  if (ranks < 1 || ndims < 1)
    throw std::invalid_argument("balanced_grid: ranks and dimensions must be positive");
  std::vector<int> grid(static_cast<std::size_t>(ndims), 1);
  // Prime factors, largest first, each onto the dimension with the fewest ranks so far.
  std::vector<int> factors;
  int n = ranks;
  for (int p = 2; p * p <= n; ++p)
    while (n % p == 0) {
      factors.push_back(p);
      n /= p;
    }
  if (n > 1) factors.push_back(n);
  std::sort(factors.rbegin(), factors.rend());
  for (int f : factors) *std::min_element(grid.begin(), grid.end()) *= f;
  std::sort(grid.rbegin(), grid.rend());
  return grid;
}

std::vector<int> grid_coordinates(int rank, const std::vector<int>& grid) {
  std::vector<int> c(grid.size());
  for (std::size_t k = grid.size(); k-- > 0;) {
    c[k] = rank % grid[k];
    rank /= grid[k];
  }
  return c;
}

}  // namespace weir::distributed
