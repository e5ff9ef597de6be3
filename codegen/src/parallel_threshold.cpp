// Small parallel maps run sequentially: an OpenMP fork/join costs microseconds, more than a
// cheap loop of a few thousand iterations (jacobi_1d's 398-point steps ran 2x slower than
// NumPy's). The parallel loop gets `if(iterations >= kMinParallelIterations)` unless its size
// is known to be large; only maps whose body is flat (tasklets and copies, no inner scope,
// nested SDFG or library node) get it, since a few iterations of a big body still pay off.
#include "state_codegen.h"

namespace weir::codegen::detail {

namespace {

/// Measured on 2 threads (OMP_PROC_BIND=close, g++ -O3): a 3-point 1-D stencil map took
/// 1.6-3.4 us parallel against 0.04-1.6 us sequential up to 8192 points, and was faster
/// parallel from about 16384 on. The lower end keeps heavier flat bodies parallel.
constexpr long long kMinParallelIterations = 8192;

}  // namespace

std::string StateGen::small_map_clause(const MapEntry& e, int collapse) const {
  if (collapse < 1) return "";
  auto it = children_.find(e.id());
  if (it != children_.end())
    for (NodeId c : it->second) {
      const Node& n = st.node(c);
      if (n.as<MapEntry>() || n.as<NestedSDFGNode>() || n.as<LibraryNode>()) return "";
    }
  sym::Expr count(1);
  for (int d = 0; d < collapse; ++d) count = count * e.map->range[static_cast<std::size_t>(d)].size();
  if (count.is_integer()) return count.value() >= kMinParallelIterations ? "" : " if(0)";
  return " if((" + sym_cpp(count) + ") >= " + std::to_string(kMinParallelIterations) + ")";
}

}  // namespace weir::codegen::detail
