// The diffusion granule (nine stencils on the triangular mesh in a time loop with a flag and
// three swaps): embedded (call by call) vs cpu (one SDFG) vs NumPy, odd and even step counts.
#include "component_util.h"
#include "corpus.h"

using namespace weir;
using namespace weir::test::orchestration;

TEST_CASE("orchestration component: diffusion granule on the triangular mesh", "[orchestration][component]") {
  runtime::FieldViewProgram p = runtime::load_field_view_program(granule_path(), "diffusion_granule");
  for (auto [steps, apply] : {std::pair<std::int64_t, bool>{3, true}, {2, false}}) {
    INFO("steps = " << steps << ", apply_theta = " << apply);
    runtime::Arguments args = granule_args(6, 5, 4, steps, apply);
    auto ref = numpy_reference(
        "granule" + std::to_string(steps), args,
        "STEPS = " + std::to_string(steps) + "\nAPPLY = " + (apply ? "True" : "False") + "\n" + kGranuleNumpy,
        {"vn", "vn_new", "w", "w_new", "theta", "theta_new"});
    check_both_backends(p, args, ref);
  }
}
