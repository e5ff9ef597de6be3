// Prefetch of the next iteration's argument blocks of a nested SDFG called in a map (docs/adr/
// 0041, session 31). ScanColumnBlocking's vertical solver calls, per block of 8 columns, a nested
// SDFG whose two scans walk the levels of all 8 columns together: per level it reads one element
// of each column, 640 bytes apart, and comes back to the next element a level later. The block
// itself is contiguous (8 x 80 doubles per array), but the hardware prefetchers do not follow that
// order across a block, so every block waited for memory about once per level. Before the call of
// iteration p, the generated code prefetches into L2 the blocks that iteration p + step will pass
// (weir_prefetch_row, codegen/prelude/weir_prefetch.h): from each argument's first to its last
// element, where that span holds at most twice the argument's elements (a block, not a strided
// subset whose gaps would be fetched too) and all spans together at most kMaxBlockBytes, both
// tested at run time. One prefetch per cache line, never a fault; values unchanged.
#include <string>
#include <vector>

#include "stream_gen.h"

namespace weir::codegen::detail {

namespace {

/// At most this many bytes of argument blocks are prefetched per call (all arguments together,
/// tested at run time): the next blocks must fit in L2 beside the current ones (2 MiB per core on
/// the development machine); a larger block is left to the hardware.
constexpr long long kMaxBlockBytes = 64 * 1024;

/// Whether `r` runs a loop (a LoopRegion anywhere inside): a body whose work per call is more
/// than a few operations, so that a block's prefetch costs little beside it.
bool has_loop(const ControlFlowRegion& r) {
  for (const ControlFlowBlock* b : r.blocks()) {
    if (b->kind() == BlockKind::Loop) return true;
    if (const auto* c = b->as<ConditionalBlock>()) {
      for (const auto& br : c->branches())
        if (br.body && has_loop(*br.body)) return true;
    } else if (const auto* sub = b->as<ControlFlowRegion>(); sub && has_loop(*sub)) {
      return true;
    }
  }
  return false;
}

/// The elements from the first to the last element of `s` in an array of descriptor `d` (its
/// strides): 1 + the sum over dimensions of (end - start) x stride. A block of consecutive
/// elements spans its element count; a subset with gaps spans more.
sym::Expr span(const DataDescriptor& d, const Subset& s) {
  sym::Expr n{1};
  for (std::size_t k = 0; k < s.dims(); ++k) n = n + (s[k].end - s[k].start) * d.strides[k];
  return n;
}

}  // namespace

void StreamGen::emit_block_prefetch(const NestedSDFGNode& n, Writer& w) {
  if (!g_.opts.gather_prefetch || g_.frames_.empty() || g_.device_code() ||
      g_.sg.prog.target.parallel_scopes_on_device() || !n.sdfg || !has_loop(*n.sdfg))
    return;
  const auto* outer = g_.st.node(g_.frames_.back().entry).as<MapEntry>();
  if (!outer || outer->map->params.empty()) return;
  const MapInfo& m = *outer->map;
  const std::size_t last = m.params.size() - 1;
  const Range& r = m.range[last];
  if (!r.step.is_integer() || r.step.value() < 1) return;
  const std::string& param = m.params[last];
  const sym::Expr next = sym::Expr::symbol(param) + r.step;
  // Per argument block: its first element, its span and its element count (C++).
  struct Block {
    std::string start, span, elements;
  };
  std::vector<Block> blocks;
  for (bool incoming : {true, false})
    for (EdgeId id : incoming ? g_.st.in_edges(n.id()) : g_.st.out_edges(n.id())) {
      const Memlet& mm = g_.st.edge(id).memlet;
      if (mm.is_empty() || !g_.sg.sdfg.arrays.count(mm.data)) continue;
      const DataDescriptor& d = g_.sg.sdfg.arrays.at(mm.data);
      if (d.is_scalar() || d.is_view() || d.storage == StorageType::GPU_Global ||
          mm.subset.dims() != d.strides.size() || !mm.subset.free_symbols().count(param))
        continue;
      const Subset ahead = mm.subset.subs({{param, next}});
      const std::string bytes =
          " * static_cast<int64_t>(sizeof(" + std::string(cpp_name(d.dtype.base)) + "))";
      Block b{g_.location(mm.data, ahead).pointer(),
              "static_cast<int64_t>(" + sym_cpp(span(d, ahead)) + ")" + bytes,
              "static_cast<int64_t>(" + sym_cpp(ahead.num_elements()) + ")" + bytes};
      bool seen = false;
      for (const Block& x : blocks) seen = seen || x.start == b.start;
      if (!seen) blocks.push_back(std::move(b));  // an in/out connector's block once
    }
  if (blocks.empty()) return;
  const std::string p = cpp_ident(param);
  const std::string spans = g_.fresh("__weir_span");
  std::string list, total, dense;
  for (std::size_t k = 0; k < blocks.size(); ++k) {
    const std::string at = spans + "[" + std::to_string(k) + "]";
    list += (k ? ", " : "") + blocks[k].span;
    total += (k ? " + " : "") + at;
    dense += " && " + at + " <= 2 * " + blocks[k].elements;
  }
  if (g_.opts.emit_comments)
    w.line("// prefetch: the argument blocks of the iteration after this one on '" + param +
           "' (docs/adr/0041, session 31)");
  w.open("if (" + p + " + (" + sym_cpp(r.step) + ") <= " + sym_cpp(r.end) + ") {");
  w.line("const int64_t " + spans + "[] = {" + list + "};");
  w.open("if (" + total + " <= " + std::to_string(kMaxBlockBytes) + dense + ") {");
  for (std::size_t k = 0; k < blocks.size(); ++k)
    w.line("weir_prefetch_row(" + blocks[k].start + ", " + spans + "[" + std::to_string(k) + "]);");
  w.close();
  w.close();
  note_prefetches();
}

}  // namespace weir::codegen::detail
