// The diffusion granule after auto_optimize (docs/adr/0052, 2026-12-06): `nabla2_e -> diffuse_vn`
// (`z4`, a consumer over the output's own size symbols) and `cell_divergence -> diffuse_theta`
// (`lap`, read again by the next step's `diffuse_w` only after a whole write) fuse in both
// unrolled copies, and each fused map keeps the bounds checks of what the fusion removed;
// `edge_gradient` is recomputed at the C2E reads of `g` in the divergences (CodeReadFusion,
// "2026-12-06, later"), in both Laplacians of both copies. Values
// of the optimized granule against NumPy: test_component.cpp; a short local field still
// failing: test_orchestration_run.cpp.
#include <functional>

#include "component_util.h"
#include "weir/frontend/orchestration.h"
#include "weir/sdfg/checked_accesses.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/auto_optimize.h"

using namespace weir;
using namespace weir::test::orchestration;

TEST_CASE("orchestration: the diffusion granule fuses z4 and lap across calls and keeps their checks",
          "[orchestration][optimize][fusion]") {
  runtime::FieldViewProgram p = runtime::load_field_view_program(granule_path(), "diffusion_granule");
  std::unique_ptr<SDFG> sdfg = frontend::lower_orchestration(*p.orchestration);
  transforms::auto_optimize(*sdfg, DeviceType::CPU);
  REQUIRE(validate(*sdfg).empty());
  std::size_t top_maps = 0, z4_nodes = 0, g_nodes = 0;
  std::map<std::string, int> fused_into;  // consumer map label -> fused maps that checked T there
  for (const SDFGState* st : sdfg->all_states()) {
    ScopeTree tree = st->scope_tree();
    for (const Node* n : st->nodes()) {
      if (const auto* an = n->as<AccessNode>()) {
        z4_nodes += an->data == "z4";
        g_nodes += an->data == "g";
      }
      const auto* e = n->as<MapEntry>();
      if (!e || tree.parent[n->id()] != kNoNode) continue;
      ++top_maps;
      for (const CheckedAccess& a : checked_accesses(*e->map))
        if (!a.write && (a.data == "z4" || a.data == "lap" || a.data == "g") &&
            a.scope == "map '" + e->map->label + "'")
          ++fused_into[e->map->label + ":" + a.data];
    }
  }
  // 28 outermost maps before (every branch and unrolled copy), 8 fusions: z4 and lap pointwise,
  // g recomputed at the divergences' neighbour reads (4 edge_gradient maps gone).
  CHECK(top_maps == 20);
  CHECK(z4_nodes == 0);
  CHECK(g_nodes == 0);
  CHECK_FALSE(sdfg->has_data("z4"));
  CHECK_FALSE(sdfg->has_data("g"));
  CHECK(sdfg->has_data("lap"));  // diffuse_w still reads it
  // Per fusion of g the consumer's read of g over its outer memlet and, since no input of
  // edge_gradient is read at `__K` (the copies' reads do not check that index against g's
  // extent), g over the consumer's K range: the same record in cell_divergence (0:n_levels),
  // another in diffuse_theta (0:__theta_new_K_size).
  CHECK(fused_into == std::map<std::string, int>{{"cell_divergence_map:g", 2},
                                                 {"diffuse_theta_map:g", 4},
                                                 {"diffuse_theta_map:lap", 2},
                                                 {"diffuse_vn_map:z4", 2}});
  // The granule's signature is unchanged by fusion: the sizes the fused reads were checked
  // against stay arguments.
  auto args = sdfg->arglist();
  CHECK(std::find(args.begin(), args.end(), "n_edges") != args.end());
  CHECK(std::find(args.begin(), args.end(), "n_cells") != args.end());
}
