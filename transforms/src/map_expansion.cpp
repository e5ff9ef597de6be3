// MapExpansion: one n-dimensional map -> n nested one-dimensional maps.
#include "weir/transforms/map_expansion.h"

#include "dataflow_util.h"
#include "weir/transforms/memlet_propagation.h"

namespace weir::transforms {

MapExpansion::MapExpansion()
    : PatternTransformation(
          "MapExpansion",
          "Expand a multi-dimensional map into nested one-dimensional maps (dimension 0 outermost)") {}

std::vector<std::vector<std::uint32_t>> MapExpansion::expand(const MatchContext&,
                                                             std::uint32_t anchor) const {
  return {{anchor}};
}

MatchResult MapExpansion::can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) const {
  const auto* me = &pattern(ctx, sub).get<0>();
  if (auto dyn = detail::dynamic_inputs(*me); !dyn.empty())
    return refuse("map '" + me->map->label + "' has dynamic range inputs (" + dyn + ")");
  if (me->map->params.size() < 2) return refuse("map '" + me->map->label + "' has only one dimension");
  if (me->map->range.dims() != me->map->params.size())
    return refuse("map '" + me->map->label + "' has " + std::to_string(me->map->params.size()) +
                  " parameters but " + std::to_string(me->map->range.dims()) + " ranges");
  return MatchResult::success();
}

void MapExpansion::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  SDFGState& st = *ctx.state;
  auto* cur = &pattern(ctx, sub).get<0>();
  MapInfo& m = *cur->map;
  std::vector<std::string> params = m.params;
  std::vector<Range> ranges = m.range.ranges();
  m.params = {params[0]};
  m.range = Subset({ranges[0]});
  for (std::size_t d = 1; d < params.size(); ++d) {
    MapEntry& inner =
        st.add_map(m.label + "_" + params[d], {params[d]}, Subset({ranges[d]}), ScheduleType::Sequential);
    detail::insert_map_inside(st, *cur, inner);
    cur = &inner;
  }
  propagate_memlets_scope(st, sub[0]);
}

}  // namespace weir::transforms
