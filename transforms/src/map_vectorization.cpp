// MapVectorization: SIMD lanes of constant width plus a remainder map.
#include "weir/transforms/map_vectorization.h"

#include "dataflow_util.h"
#include "scope_copy.h"
#include "weir/transforms/cpu_schedules.h"
#include "weir/transforms/map_tiling.h"
#include "weir/transforms/memlet_propagation.h"

namespace weir::transforms {

namespace {
/// The most lanes a vector_width may ask for: an AVX-512 register of int8.
constexpr long long kMaxVectorWidth = 64;
}  // namespace

MapVectorization::MapVectorization()
    : PatternTransformation(
          "MapVectorization",
          "Strip-mine an innermost sequential 1-D map into SIMD lanes of constant width (omp simd "
          "simdlen) and a remainder map",
          {{"vector_width", 8LL, "lanes per vector (8 doubles = one AVX-512 register, two AVX2 ones)", 2}}) {}

std::vector<std::vector<std::uint32_t>> MapVectorization::expand(const MatchContext&,
                                                                 std::uint32_t anchor) const {
  return {{anchor}};
}

MatchResult MapVectorization::can_apply(const MatchContext& ctx,
                                        const std::vector<std::uint32_t>& sub) const {
  const MapEntry& me = pattern(ctx, sub).get<0>();
  const MapInfo& m = *me.map;
  if (auto dyn = detail::dynamic_inputs(me); !dyn.empty())
    return refuse("map '" + m.label + "' has dynamic range inputs (" + dyn + ")");
  if (m.extra.find(kVectorRemainderAttribute))
    return refuse("map '" + m.label + "' is the remainder of a vectorized map");
  if (const std::string* w = m.extra.find(kVectorizeAttribute); w && *w != "true")
    return refuse("map '" + m.label + "' already holds SIMD lanes of width " + *w);
  if (m.params.size() != 1 || m.range.dims() != 1)
    return refuse("map '" + m.label + "' has " + std::to_string(m.params.size()) +
                  " dimensions; only a one-dimensional (innermost) map is vectorized (MapExpansion first)");
  if (m.range[0].step != sym::Expr(1))
    return refuse("map '" + m.label + "' has step " + m.range[0].step.str() +
                  "; only unit-step maps are vectorized");
  if (m.schedule != ScheduleType::Sequential)
    return refuse("map '" + m.label + "' is scheduled " + std::string(to_string(m.schedule)) +
                  "; only a sequential map (an innermost loop) is vectorized");
  // The width (user33's J4): lanes of one register, a power of two, and no more than the map's points.
  const long long width = options().get_int("vector_width");
  if (width > kMaxVectorWidth)
    return refuse("option 'vector_width' is " + std::to_string(width) + ", more than the " +
                  std::to_string(kMaxVectorWidth) + " lanes of the widest SIMD register (64 bytes of int8)");
  if ((width & (width - 1)) != 0)
    return refuse("option 'vector_width' is " + std::to_string(width) +
                  ", not a power of two: SIMD registers hold 2, 4, 8, 16, 32 or 64 lanes");
  if (const auto n = (m.range[0].end - m.range[0].start + sym::Expr(1)).as_integer(); n && *n < width)
    return refuse("map '" + m.label + "' has " + std::to_string(*n) +
                  " points, fewer than option 'vector_width' " + std::to_string(width) +
                  ": every point would run in the remainder map");
  const SDFGState& st = *ctx.state;
  for (NodeId n : detail::scope_body(st, ctx.cache.scope_tree(st), me.id())) {
    const Node& node = st.node(n);
    if (node.kind() != NodeKind::Tasklet && node.kind() != NodeKind::Access)
      return refuse("the body of map '" + m.label + "' holds " + std::string(to_string(node.kind())) + " '" +
                    node.label + "'; SIMD lanes run tasklets only");
    for (EdgeId e : st.out_edges(n))
      if (!st.edge(e).memlet.wcr.empty())
        return refuse("the write to '" + st.edge(e).memlet.data + "' in map '" + m.label +
                      "' has conflict resolution; SIMD lanes would race on it");
  }
  return MatchResult::success();
}

void MapVectorization::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  SDFGState& st = *ctx.state;
  MapEntry& me = pattern(ctx, sub).get<0>();
  const long long width = options().get_int("vector_width");
  const sym::Expr w(width);
  const Range r = me.map->range[0];
  // The lanes cover [start, start + floor(size / w) * w - 1]; the remainder the rest.
  const sym::Expr split = r.start + sym::Expr::floordiv(r.end - r.start + sym::Expr(1), w) * w;
  MapEntry& rem = detail::copy_map_as_remainder(ctx.sdfg, ctx.cache, st, me);
  rem.map->range = Subset({Range(split, r.end)});
  rem.map->extra.set(kVectorRemainderAttribute, std::to_string(width));
  propagate_memlets_scope(st, rem.id());

  me.map->range = Subset({Range(r.start, split - sym::Expr(1))});
  MapTiling tiling;
  tiling.options().set("tile_sizes", std::vector<long long>{width});
  tiling.options().set("divides_evenly", true);
  tiling.apply(ctx, {me.id()});
  // The lanes' range is a multiple of the width by construction (split above): no run-time check.
  for (Node* n : st.nodes())
    if (auto* e = n->as<MapEntry>(); e && e->map != me.map && e->map->label == "tile_" + me.map->label)
      e->map->extra.erase(kTilesDivideAttribute);
  me.map->extra.set(kVectorizeAttribute, std::to_string(width));
}

}  // namespace weir::transforms
