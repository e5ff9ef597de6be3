// The diffusion granule after inlining and simplify: the `__binding` assignments of its call
// edges (ADR 0019) are dead (nothing reads the binding once the swaps unroll the loop), so
// dead-assignment-elimination removes them and the states of consecutive calls fuse
// (docs/adr/0052). Its values after auto_optimize are checked against NumPy in
// test_component.cpp.
#include <functional>

#include "component_util.h"
#include "weir/frontend/orchestration.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/registry.h"

using namespace weir;
using namespace weir::test::orchestration;

namespace {

struct Counts {
  std::size_t states = 0, binding_assignments = 0;
};

Counts count(const ControlFlowRegion& r) {
  Counts c;
  std::function<void(const ControlFlowRegion&)> walk = [&](const ControlFlowRegion& reg) {
    for (const ControlFlowEdge* e : reg.edges())
      for (const auto& [k, v] : e->data.assignments) c.binding_assignments += k == "__binding";
    for (const ControlFlowBlock* b : reg.blocks()) {
      if (b->as<SDFGState>()) ++c.states;
      if (const auto* sub = b->as<ControlFlowRegion>()) walk(*sub);
      if (const auto* cb = b->as<ConditionalBlock>())
        for (const auto& br : cb->branches())
          if (br.body) walk(*br.body);
    }
  };
  walk(r);
  return c;
}

}  // namespace

TEST_CASE("orchestration: the diffusion granule's dead binding assignments go and its call states fuse",
          "[orchestration][optimize]") {
  runtime::FieldViewProgram p = runtime::load_field_view_program(granule_path(), "diffusion_granule");
  std::unique_ptr<SDFG> sdfg = frontend::lower_orchestration(*p.orchestration);
  transforms::AnalysisCache cache;
  for (const char* name : {"inline-sdfgs", "dead-state-elimination"}) {
    transforms::make_pass(name)->run(*sdfg, cache);
    REQUIRE(validate(*sdfg).empty());
  }
  const Counts before = count(*sdfg);
  REQUIRE(before.binding_assignments > 0);
  REQUIRE(sdfg->symbols.count("__binding"));

  CHECK(transforms::make_pass("dead-assignment-elimination")->run(*sdfg, cache) >=
        before.binding_assignments);
  REQUIRE(validate(*sdfg).empty());
  CHECK(count(*sdfg).binding_assignments == 0);
  CHECK_FALSE(sdfg->symbols.count("__binding"));
  auto args = sdfg->arglist();
  CHECK(std::find(args.begin(), args.end(), "__binding") == args.end());

  CHECK(transforms::make_pass("state-fusion")->run(*sdfg, cache) > 0);
  REQUIRE(validate(*sdfg).empty());
  // Calls that follow one another without a write after write of one field now share a state
  // (on the inlined granule: 31 states become 12).
  CHECK(count(*sdfg).states < before.states / 2);
}
