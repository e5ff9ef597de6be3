// OTFMapFusion: producer map copied into its consumer once per point read (see the header).
#include "weir/transforms/otf_map_fusion.h"

#include "fusion_util.h"

namespace weir::transforms {

OTFMapFusion::OTFMapFusion()
    : PatternTransformation(
          "OTFMapFusion",
          "Fuse a map into a map that reads its transient output at offsets, recomputing it per point read",
          {{"max_points", 0LL,
            "most distinct points of the intermediate one fusion may recompute (0: no limit)", 0},
           {"max_tasklets", 0LL, "most tasklets the consumer may hold after fusion (0: no limit)", 0}}) {}

std::vector<std::vector<std::uint32_t>> OTFMapFusion::expand(const MatchContext& ctx,
                                                             std::uint32_t anchor) const {
  return detail::producer_consumer_triples(*ctx.state, anchor);
}

namespace {

MatchResult check(const MatchContext& ctx, const std::vector<std::uint32_t>& sub, const Options& opts,
                  detail::OtfPlan& plan) {
  const SDFGState& st = *ctx.state;
  const auto* exit_a = &OTFMapFusion::pattern(ctx, sub).get<0>();
  if (sub.size() != 3)
    return refuse("map '" + exit_a->map->label + "' writes no access node that another map reads");
  const ScopeTree& tree = ctx.cache.scope_tree(st);
  if (tree.parent[st.entry_of(*exit_a).id()] != kNoNode || tree.parent[sub[2]] != kNoNode)
    return refuse("maps must be at the top level of the state");
  detail::OtfLimits limits{opts.get_int("max_points"), opts.get_int("max_tasklets"), true};
  return detail::analyze_otf(ctx.sdfg, st, sub[0], sub[1], sub[2], ctx.cache.data_use(ctx.sdfg),
                             detail::written_access_nodes(st), limits, plan);
}

}  // namespace

MatchResult OTFMapFusion::can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) const {
  detail::OtfPlan plan;
  return check(ctx, sub, options(), plan);
}

void OTFMapFusion::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  detail::OtfPlan plan;
  if (auto r = check(ctx, sub, options(), plan); !r) throw TransformError("OTFMapFusion: " + r.reason());
  std::size_t counter = 0;
  detail::apply_otf(ctx.sdfg, *ctx.state, plan, counter);
}

}  // namespace weir::transforms
