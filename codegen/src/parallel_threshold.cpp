// Small parallel maps run sequentially: an OpenMP fork/join costs microseconds, more than a
// cheap loop of a few thousand iterations (jacobi_1d's 398-point steps ran 2x slower than
// NumPy's). A map whose size is not known is emitted twice, `if (points >= kMinParallelIterations)`
// the parallel loop, else the same loops without OpenMP: an `if(...)` clause on the pragma would
// still enter the OpenMP runtime (a team of one thread, microseconds per map: jacobi_1d's steps
// ran 25x slower than plain loops with it). Only maps whose body is flat (tasklets and copies,
// no inner scope, nested SDFG or library node) get it, since a few iterations of a big body
// still pay off. The count is of all the map's points (a 2-D map parallel over its rows only
// does the work of all its points in the region).
#include <optional>
#include <set>

#include "state_codegen.h"

namespace weir::codegen::detail {

namespace {

/// Measured on 2 threads (OMP_PROC_BIND=close, g++ -O3): a 3-point 1-D stencil map took
/// 1.6-3.4 us parallel against 0.04-1.6 us sequential up to 8192 points, and was faster
/// parallel from about 16384 on. The lower end keeps heavier flat bodies parallel.
constexpr long long kMinParallelIterations = 8192;

}  // namespace

std::optional<std::string> StateGen::small_map_condition(const MapEntry& e, int collapse) const {
  if (collapse < 1) return std::nullopt;
  auto it = children_.find(e.id());
  if (it != children_.end())
    for (NodeId c : it->second) {
      const Node& n = st.node(c);
      if (n.as<MapEntry>() || n.as<NestedSDFGNode>() || n.as<LibraryNode>()) return std::nullopt;
    }
  // The work of the region: every point of the map, not only the distributed (collapsed)
  // dimensions, as far as the sizes are known before the loop (not depending on parameters).
  const MapInfo& m = *e.map;
  sym::Expr count(1);
  for (std::size_t d = 0; d < m.range.dims(); ++d) {
    sym::Expr size = m.range[d].size();
    if (static_cast<int>(d) >= collapse) {
      std::set<std::string> fs = size.free_symbols();
      bool dep = false;
      for (std::size_t k = 0; k < d && k < m.params.size(); ++k) dep = dep || fs.count(m.params[k]);
      if (dep) break;
    }
    count = count * size;
  }
  if (count.is_integer())
    return count.value() >= kMinParallelIterations ? std::nullopt : std::optional("false");
  return "(" + sym_cpp(count) + ") >= " + std::to_string(kMinParallelIterations);
}

}  // namespace weir::codegen::detail
