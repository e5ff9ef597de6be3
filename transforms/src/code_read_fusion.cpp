// CodeReadFusion: a producer inlined at the consumer's code-level reads of its output (see the
// header; the analysis and rewrite are in code_read_recompute.cpp).
#include "weir/transforms/code_read_fusion.h"

#include <set>

#include "code_read_recompute.h"
#include "fusion_util.h"

namespace weir::transforms {

CodeReadFusion::CodeReadFusion()
    : PatternTransformation(
          "CodeReadFusion",
          "Fuse a map into a map whose tasklet code reads its transient output at neighbours, recomputing it "
          "there",
          {{"max_reads", 16LL,
            "most element reads one consumer iteration may do for the recomputed copies (0: no limit)", 0}}) {
}

std::vector<std::vector<std::uint32_t>> CodeReadFusion::expand(const MatchContext& ctx,
                                                               std::uint32_t anchor) const {
  return detail::producer_consumer_triples(*ctx.state, anchor);
}

namespace {

MatchResult check(const MatchContext& ctx, const std::vector<std::uint32_t>& sub, const Options& opts,
                  detail::CodeReadPlan& plan) {
  const SDFGState& st = *ctx.state;
  const auto* exit_a = &CodeReadFusion::pattern(ctx, sub).get<0>();
  if (sub.size() != 3)
    return refuse("map '" + exit_a->map->label + "' writes no access node that another map reads");
  const ScopeTree& tree = ctx.cache.scope_tree(st);
  if (tree.parent[st.entry_of(*exit_a).id()] != kNoNode || tree.parent[sub[2]] != kNoNode)
    return refuse("maps must be at the top level of the state");
  detail::CodeReadLimits limits{opts.get_int("max_reads")};
  return detail::analyze_code_read(ctx.sdfg, st, sub[0], sub[1], sub[2], ctx.cache.data_use(ctx.sdfg),
                                   detail::written_access_nodes(st), limits, plan);
}

}  // namespace

MatchResult CodeReadFusion::can_apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) const {
  detail::CodeReadPlan plan;
  return check(ctx, sub, options(), plan);
}

void CodeReadFusion::apply(const MatchContext& ctx, const std::vector<std::uint32_t>& sub) {
  detail::CodeReadPlan plan;
  if (auto r = check(ctx, sub, options(), plan); !r) throw TransformError("CodeReadFusion: " + r.reason());
  detail::apply_code_read(ctx.sdfg, *ctx.state, plan);
}

}  // namespace weir::transforms
