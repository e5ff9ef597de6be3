// MapTiling: strip-mine every dimension of a map into tiles.
#include "weir/transforms/map_tiling.h"

#include <algorithm>
#include <nlohmann/json.hpp>

#include "dataflow_util.h"
#include "weir/transforms/memlet_propagation.h"

namespace weir::transforms {

MapTiling::MapTiling()
    : PatternTransformation(
          "MapTiling",
          "Tile a map: an outer map over tile origins, the original map over one tile (Min-bounded)",
          {
              {"tile_sizes", std::vector<long long>{128},
               "tile size per dimension (the last one repeats; 1 = not tiled)", 1},
              {"divides_evenly", false, "the tile sizes divide the ranges: inner ranges need no Min"},
          }) {}

std::vector<std::vector<std::uint32_t>> MapTiling::expand(const MatchContext&, std::uint32_t anchor) const {
  return {{anchor}};
}

namespace {

long long tile_size(const std::vector<long long>& sizes, std::size_t d) {
  if (sizes.empty()) return 1;
  return d < sizes.size() ? sizes[d] : sizes.back();
}

}  // namespace

MatchResult MapTiling::can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) const {
  const auto* me = &pattern(ctx, sub).get<0>();
  if (auto dyn = detail::dynamic_inputs(*me); !dyn.empty())
    return refuse("map '" + me->map->label + "' has dynamic range inputs (" + dyn + ")");
  const MapInfo& m = *me->map;
  const auto& sizes = options().get_int_list("tile_sizes");
  if (m.range.dims() != m.params.size())
    return refuse("map '" + m.label + "' has a different number of parameters and ranges");
  if (auto why = detail::too_many_per_parameter("tile_sizes", sizes, m); !why.empty()) return refuse(why);
  bool any = false;
  for (std::size_t d = 0; d < m.params.size(); ++d) {
    long long t = tile_size(sizes, d);
    if (t <= 0)
      return refuse("tile size " + std::to_string(t) + " for dimension " + std::to_string(d) +
                    " is not positive");
    if (t == 1) continue;
    if (m.range[d].step != sym::Expr(1))
      return refuse("dimension " + std::to_string(d) + " of map '" + m.label + "' has step " +
                    m.range[d].step.str() + "; only unit-step ranges are tiled");
    // A promise that is known to be false: refused here rather than out of bounds at run time.
    if (const auto n = (m.range[d].end - m.range[d].start + sym::Expr(1)).as_integer();
        n && options().get_bool("divides_evenly") && *n % t != 0)
      return refuse("divides_evenly=true, but " + m.params[d] + "=" + Subset({m.range[d]}).str() +
                    " of map '" + m.label + "' has " + std::to_string(*n) +
                    " points, not a multiple of the tile size " + std::to_string(t) + " (" +
                    std::to_string(*n / t) + " tiles of " + std::to_string(t) + " and " +
                    std::to_string(*n % t) + " left over); give divides_evenly=false");
    any = true;
  }
  if (!any) return refuse("every tile size is 1: nothing to tile");
  return MatchResult::success();
}

void MapTiling::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  SDFGState& st = *ctx.state;
  auto& me = pattern(ctx, sub).get<0>();
  MapInfo& m = *me.map;
  const auto& sizes = options().get_int_list("tile_sizes");
  bool even = options().get_bool("divides_evenly");
  std::vector<std::string> tparams;
  std::vector<Range> tranges;
  nlohmann::json promises = nlohmann::json::array();  // kTilesDivideAttribute
  const std::string outer_label = "tile_" + m.label;
  for (std::size_t d = 0; d < m.params.size(); ++d) {
    long long t = tile_size(sizes, d);
    if (t == 1) continue;
    Range& r = m.range.ranges()[d];
    if (const sym::Expr points = r.end - r.start + sym::Expr(1); even && !points.as_integer())
      promises.push_back({{"map", outer_label},
                          {"param", m.params[d]},
                          {"range", Subset({r}).str()},
                          {"points", points.str()},
                          {"tile", t}});
    std::string tp = detail::fresh_param(ctx.sdfg, st, "tile_" + m.params[d]);
    // fresh_param looks at existing maps only; avoid clashes among the ones made here.
    while (std::find(tparams.begin(), tparams.end(), tp) != tparams.end()) tp += "_";
    tparams.push_back(tp);
    tranges.emplace_back(r.start, r.end, sym::Expr(t));
    sym::Expr ts = sym::Expr::symbol(tp);
    sym::Expr last = ts + sym::Expr(t - 1);
    r = Range(ts, even ? last : sym::Expr::min(r.end, last), r.step, r.tile);
  }
  MapEntry& outer = st.add_map(outer_label, tparams, Subset(tranges), m.schedule);
  if (!promises.empty()) outer.map->extra.set(kTilesDivideAttribute, promises.dump());
  detail::insert_map_outside(st, me, outer);
  propagate_memlets_scope(st, outer.id());
}

}  // namespace weir::transforms
