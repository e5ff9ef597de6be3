// MapUnroll: one copy of a constant-range map's body per iteration, parameters substituted.
#include "weir/transforms/map_unroll.h"

#include <map>
#include <set>

#include "dataflow_util.h"
#include "scope_copy.h"
#include "weir/transforms/trivial_map_elimination.h"

namespace weir::transforms {

MapUnroll::MapUnroll()
    : PatternTransformation(
          "MapUnroll",
          "Replace a map of constant range by one copy of its body per iteration (parameters substituted)",
          {{"max_copies", 16LL, "the most iterations a map may have to be unrolled", 1}}) {}

std::vector<std::vector<std::uint32_t>> MapUnroll::expand(const MatchContext&, std::uint32_t anchor) const {
  return {{anchor}};
}

namespace {

/// The points of the map's range (one value per parameter), or why it has no constant range.
std::vector<std::vector<long long>> points(const MapInfo& m, long long limit, std::string& why) {
  std::vector<std::vector<long long>> out{{}};
  for (std::size_t d = 0; d < m.params.size(); ++d) {
    const Range& r = m.range[d];
    auto s = r.start.as_integer(), e = r.end.as_integer(), st = r.step.as_integer();
    if (!s || !e || !st || *st <= 0) {
      why = "the range of parameter '" + m.params[d] + "' (" + Subset({r}).str() +
            ") is not a constant with a positive step";
      return {};
    }
    std::vector<std::vector<long long>> next;
    for (const auto& p : out)
      for (long long v = *s; v <= *e; v += *st) {
        if (static_cast<long long>(next.size()) >= limit) {
          why = "map '" + m.label + "' has more than " + std::to_string(limit) + " iterations (max_copies)";
          return {};
        }
        next.push_back(p);
        next.back().push_back(v);
      }
    out = std::move(next);
  }
  if (out.empty()) why = "map '" + m.label + "' has an empty range";
  return out;
}

}  // namespace

MatchResult MapUnroll::can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) const {
  const MapEntry& me = pattern(ctx, sub).get<0>();
  const MapInfo& m = *me.map;
  if (auto dyn = detail::dynamic_inputs(me); !dyn.empty())
    return refuse("map '" + m.label + "' has dynamic range inputs (" + dyn + ")");
  if (m.range.dims() != m.params.size())
    return refuse("map '" + m.label + "' has a different number of parameters and ranges");
  if (m.schedule == ScheduleType::GPU_Device || m.schedule == ScheduleType::GPU_Persistent ||
      m.schedule == ScheduleType::GPU_Default)
    return refuse("map '" + m.label + "' is a GPU kernel (" + std::string(to_string(m.schedule)) +
                  "): unrolled, its body would run on the host");
  std::string why;
  if (points(m, options().get_int("max_copies"), why).empty()) return refuse(why);
  return MatchResult::success();
}

void MapUnroll::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  SDFGState& st = *ctx.state;
  MapEntry& me = pattern(ctx, sub).get<0>();
  std::string why;
  auto pts = points(*me.map, options().get_int("max_copies"), why);
  if (pts.empty()) throw TransformError("MapUnroll: " + why);
  const ScopeTree tree = st.scope_tree();
  std::vector<NodeId> scope = detail::scope_body(st, tree, me.id());
  const std::set<std::string> locals = detail::transients_local_to(ctx.sdfg, ctx.cache, st, scope);
  scope.push_back(me.id());
  scope.push_back(me.exit);
  TrivialMapElimination eliminate;
  for (std::size_t k = 0; k < pts.size(); ++k) {
    auto id =
        detail::copy_scope(st, scope, detail::copy_transients(ctx.sdfg, locals, "_u" + std::to_string(k)));
    MapEntry& copy = *st.node(id.at(me.id())).as<MapEntry>();
    std::vector<Range> point;
    for (long long v : pts[k]) point.push_back(Range::index(sym::Expr(v)));
    copy.map->range = Subset(point);
    eliminate.apply(ctx, {copy.id()});
  }
  for (NodeId n : scope) st.remove_node(n);
  for (const auto& data : locals) ctx.sdfg.remove_data(data);
  ctx.sdfg.relink_nested();
}

}  // namespace weir::transforms
