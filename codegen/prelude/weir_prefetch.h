// The prelude's prefetch of gathered rows, in generated code whose sequential innermost maps
// gather rows through tables (codegen/src/gather_prefetch.cpp, docs/adr/0041-loop-invariant-
// hoisting.md, "prefetch of gathered rows"). Embedded into generated code (cmake/embed_text.cmake)
// after the common prelude. An unstructured stencil's K loop reads a few neighbour columns per
// cell, at places the hardware prefetcher cannot guess (each a short stream in another page);
// the loop over cells then waits for memory once per cell. The generated code asks for the
// columns of the cell weir_prefetch_distance ahead before it computes the current one.
#include <cstdint>

// How many iterations of the enclosing loop ahead the rows are prefetched: enough to cover the
// memory latency with the work of the iterations in between (a cell of 80 levels takes about
// 60 ns on the development machine, its memory latency is over 100 ns; 8 measured best of 4,
// 8 and 16 on cell_laplacian, docs/adr/0041).
[[maybe_unused]] static constexpr std::int64_t weir_prefetch_distance = 8;

// Prefetches the cache lines of `bytes` bytes from `p` into L2 (prefetcht1: the rows of eight
// cells ahead would crowd L1). A prefetch never faults, whatever the address.
[[maybe_unused]] static inline void weir_prefetch_row(const void* p, std::int64_t bytes) {
  const char* c = static_cast<const char*>(p);
  for (std::int64_t o = 0; o < bytes; o += 64) __builtin_prefetch(c + o, 0, 2);
}
