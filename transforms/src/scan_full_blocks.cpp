// ScanFullBlocks: full column blocks of constant width plus the partial last block.
#include "weir/transforms/scan_full_blocks.h"

#include "dataflow_util.h"
#include "scope_copy.h"
#include "weir/transforms/memlet_propagation.h"

namespace weir::transforms {

namespace {

constexpr const char* kWidth = "__colblock_n";  // ScanColumnBlocking's block width (ADR 0044)

/// The nested SDFG that is the only node of `me`'s scope, or null.
const NestedSDFGNode* only_nested(const SDFGState& st, const ScopeTree& tree, const MapEntry& me) {
  const std::vector<NodeId> body = detail::scope_body(st, tree, me.id());
  if (body.size() != 1) return nullptr;
  return st.node(body[0]).as<NestedSDFGNode>();
}

}  // namespace

ScanFullBlocks::ScanFullBlocks()
    : PatternTransformation("ScanFullBlocks",
                            "Run a column-blocked scan's full blocks with a constant width (full-width SIMD "
                            "levels) and its partial last block apart",
                            {}) {}

std::vector<std::vector<std::uint32_t>> ScanFullBlocks::expand(const MatchContext&,
                                                               std::uint32_t anchor) const {
  return {{anchor}};
}

MatchResult ScanFullBlocks::can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) const {
  const MapEntry& me = pattern(ctx, sub).get<0>();
  const MapInfo& m = *me.map;
  if (auto dyn = detail::dynamic_inputs(me); !dyn.empty())
    return refuse("map '" + m.label + "' has dynamic range inputs (" + dyn + ")");
  if (m.extra.find(kColumnRemainderAttribute))
    return refuse("map '" + m.label + "' is the partial last block of a scan split into full blocks");
  const SDFGState& st = *ctx.state;
  const NestedSDFGNode* ns = only_nested(st, ctx.cache.scope_tree(st), me);
  if (!ns)
    return refuse("the scope of map '" + m.label +
                  "' is not exactly one nested SDFG (a column-blocked scan)");
  auto width = ns->symbol_mapping.find(kWidth);
  if (width == ns->symbol_mapping.end())
    return refuse("nested SDFG '" + ns->label + "' has no block width " + kWidth +
                  "; its columns are not blocked (scan-column-blocking first)");
  if (m.params.empty() || m.range.dims() != m.params.size())
    return refuse("map '" + m.label + "' has a different number of parameters and ranges");
  const Range& r = m.range[m.params.size() - 1];
  const std::optional<long long> b = r.step.as_integer();
  if (!b || *b < 2)
    return refuse("the last dimension of map '" + m.label + "' has step " + r.step.str() +
                  "; a column block needs a constant step of at least 2");
  if (width->second.as_integer())
    return refuse("nested SDFG '" + ns->label + "' already runs full blocks of constant width " +
                  width->second.str());
  const sym::Expr expected =
      sym::Expr::min(sym::Expr(*b), r.end - sym::Expr::symbol(m.params.back()) + sym::Expr(1));
  if (!(width->second == expected) && width->second.str() != expected.str())
    return refuse("the block width " + std::string(kWidth) + " of nested SDFG '" + ns->label + "' is " +
                  width->second.str() + ", not " + expected.str() + " (the width ScanColumnBlocking gives)");
  return MatchResult::success();
}

void ScanFullBlocks::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  SDFGState& st = *ctx.state;
  MapEntry& me = pattern(ctx, sub).get<0>();
  const std::size_t last = me.map->params.size() - 1;
  const Range r = me.map->range[last];
  const long long b = *r.step.as_integer();
  const sym::Expr bx(b);
  // Full blocks start in [start, split - 1]; the partial block, if any, at split.
  const sym::Expr split = r.start + sym::Expr::floordiv(r.end - r.start + sym::Expr(1), bx) * bx;
  const NodeId nested = detail::scope_body(st, st.scope_tree(), me.id()).at(0);
  MapEntry& rem = detail::copy_map_as_remainder(ctx.sdfg, ctx.cache, st, me);
  rem.map->range.ranges()[last] = Range(split, r.end, bx, r.tile);
  rem.map->extra.set(kColumnRemainderAttribute, std::to_string(b));
  propagate_memlets_scope(st, rem.id());

  me.map->range.ranges()[last] = Range(r.start, split - sym::Expr(1), bx, r.tile);
  st.node(nested).as<NestedSDFGNode>()->symbol_mapping[kWidth] = bx;
  propagate_memlets_scope(st, me.id());
  ctx.sdfg.relink_nested();
}

}  // namespace weir::transforms
