// The half-level granule of examples/orchestration/half_level_granule.py (docs/adr/0049): w on
// nlev + 1 half levels, theta and vn on nlev full levels, domains given as arguments, casts in
// calls, local temporaries, unannotated field parameters. Five ways give the same numbers: the
// embedded backend, the cpu backend's one SDFG (auto_optimize'd), the lowered SDFG compiled as
// it is, the programs called one by one on the cpu backend, and NumPy written independently.
#include <algorithm>
#include <array>

#include "../../examples/orchestration/granule_inputs.h"
#include "orchestration_run_util.h"
#include "weir/frontend/orchestration.h"
#include "weir/mesh/triangular_mesh.h"
#include "weir/runtime/errors.h"
#include "weir/sdfg/validate.h"

using namespace weir;
using namespace weir::test::orchestration;

namespace {

std::string half_level_path() {
  return std::string(WEIR_SOURCE_DIR) + "/examples/orchestration/half_level_granule.py";
}

// On weir's 4 x 3 triangular mesh (24 cells, 36 edges) with `nlev` full levels: the inputs of
// examples/orchestration/granule_inputs.h, w_new on `w_new_levels` levels.
runtime::Arguments half_level_args(std::int64_t nlev, std::int64_t substeps, std::int64_t start,
                                   std::int64_t end, std::int64_t w_new_levels) {
  mesh::TriangularMesh m = mesh::make_triangular_mesh(4, 3);
  runtime::Arguments a = examples::half_level_granule_args(m, nlev, substeps, start, end);
  a.arrays.at("w_new") = make({m.num_cells, w_new_levels}, [](std::int64_t) { return 7.0; });
  return a;
}

// The granule in NumPy, from the stencils' definitions (S, E, NLEV, NSUB set before it).
const std::string kHalfLevelNumpy = R"(
C2E = inp["C2E"].astype(np.int64)
w, w_new, theta, vn, gdiv, w_full = (inp[n] for n in ("w", "w_new", "theta", "vn", "geofac_div", "w_full"))
wgt, dtime = 0.6, 0.3
nc = theta.shape[0]
theta_ic = np.zeros((nc, NLEV + 1))
theta_ic[S:E, 0] = theta[S:E, 0]
theta_ic[S:E, 1:NLEV] = wgt * theta[S:E, 1:] + (1.0 - wgt) * theta[S:E, :-1]
theta_ic[S:E, NLEV] = theta[S:E, NLEV - 1]
div = np.zeros((nc, NLEV))
acc = None
for k in range(3):
    t = vn[C2E[S:E, k]] * gdiv[S:E, k, None]
    acc = t if acc is None else acc + t
div[S:E] = acc
dt = dtime / float(NSUB)
a, b = w, w_new
for _ in range(NSUB):
    b[S:E, 1:NLEV] = a[S:E, 1:NLEV] + dt * theta_ic[S:E, 1:NLEV] * (div[S:E, :NLEV - 1] - div[S:E, 1:])
    b[S:E, 0] = 0.0 * a[S:E, 0]
    b[S:E, NLEV] = 0.0 * a[S:E, NLEV]
    a, b = b, a
w_full[S:E] = 0.5 * (a[S:E, :NLEV] + a[S:E, 1:])
out["w"], out["w_new"], out["w_full"] = w, w_new, w_full
)";

void check_fields(const runtime::Arguments& got, const std::map<std::string, runtime::Field>& ref) {
  for (const auto& [k, want] : ref) {
    INFO("field " << k);
    CHECK(max_rel_diff(got.arrays.at(k), want) <= 1e-12);
  }
}

}  // namespace

TEST_CASE("orchestration: the half-level granule as one SDFG, call by call and in NumPy",
          "[orchestration][component]") {
  runtime::FieldViewProgram p = runtime::load_field_view_program(half_level_path(), "half_level_granule");
  // Sizes of their own: w on half levels, theta on full ones, the local theta_ic as its
  // gtx.zeros says.
  std::unique_ptr<SDFG> lowered = frontend::lower_orchestration(*p.orchestration);
  CHECK(lowered->data("w").shape[1].str() == "__w_K_size");
  CHECK(lowered->data("theta").shape[1].str() == "__theta_K_size");
  bool half_level_local = false;
  for (const auto& [name, d] : lowered->arrays)
    half_level_local =
        half_level_local || (d.transient && d.shape.size() == 2 && d.shape[1].str() == "nlev + 1");
  CHECK(half_level_local);

  // auto_optimize drops the zero-fill of theta_ic and div: the calls right after it overwrite
  // every point the loop reads (DeadDataflowElimination, docs/adr/0052).
  runtime::CompilableProgram optimized = runtime::lower(p);
  std::size_t zero_fills = 0;
  for (const SDFGState* st : optimized.sdfg->all_states())
    for (const Node* n : st->nodes())
      if (const auto* me = n->as<MapEntry>()) zero_fills += me->map->label.rfind("zeros_", 0) == 0 ? 1 : 0;
  CHECK(zero_fills == 0);
  CHECK(validate(*optimized.sdfg).empty());

  static const std::string cache = weir::test::shared_cache_dir("orchestration").string();
  ::setenv("WEIR_CACHE_DIR", cache.c_str(), 1);
  std::unique_ptr<runtime::Backend> cpu = runtime::make_backend("cpu");
  runtime::CompilableProgram as_lowered;
  as_lowered.sdfg = std::move(lowered);
  as_lowered.origin = "half_level_granule (lowered, not optimized)";
  std::map<std::string, std::shared_ptr<runtime::Program>> ways{
      {"embedded", runtime::prepare(*runtime::make_backend("embedded"), p)},
      {"cpu", runtime::prepare(*cpu, p)},
      {"cpu, not optimized", runtime::prepare(*cpu, as_lowered)},
      {"cpu, call by call", runtime::prepare_call_by_call(*cpu, p)}};
  // An odd and an even number of swaps; the range of cells leaves some out at both ends.
  for (auto [nlev, substeps, start, end] :
       std::vector<std::array<std::int64_t, 4>>{{5, 3, 2, 20}, {4, 2, 0, 24}}) {
    INFO("nlev = " << nlev << ", substeps = " << substeps << ", cells [" << start << ", " << end << ")");
    runtime::Arguments args = half_level_args(nlev, substeps, start, end, nlev + 1);
    auto ref =
        numpy_reference("half-level" + std::to_string(substeps), args,
                        "S, E, NLEV, NSUB = " + std::to_string(start) + ", " + std::to_string(end) + ", " +
                            std::to_string(nlev) + ", " + std::to_string(substeps) + "\n" + kHalfLevelNumpy,
                        {"w", "w_new", "w_full"});
    for (const auto& [way, program] : ways) {
      INFO(way);
      runtime::Arguments a = clone(args);
      program->run(a);
      check_fields(a, ref);
    }
  }
}

TEST_CASE("orchestration: the half-level granule given a full-level w_new is refused at the call",
          "[orchestration][component]") {
  // zero_w writes the surface half level, K: [nlev, nlev + 1), past a w_new of nlev levels.
  runtime::FieldViewProgram p = runtime::load_field_view_program(half_level_path(), "half_level_granule");
  static const std::string cache = weir::test::shared_cache_dir("orchestration").string();
  ::setenv("WEIR_CACHE_DIR", cache.c_str(), 1);
  const std::string call = half_level_path() + ":86:9: in the call of ";
  for (const char* backend : {"embedded", "cpu"}) {
    INFO(backend);
    runtime::Arguments a = half_level_args(5, 1, 2, 20, 5);
    std::string message = program_error(backend, p, a);
    if (std::string(backend) == "embedded")
      // The field operator's name, not that of the program of one call that wraps it, and the
      // fields by the names the call gives them (`zero_w(w, out=w_new, ...)`), not 'f0', 'f1'.
      CHECK_THAT(message, Catch::StartsWith(call + "'zero_w': ") &&
                              Catch::Contains(
                                  "domain= gives K: [5, 6), outside the output field 'w_new' (K: [0, 5))"));
    else
      CHECK_THAT(message, Catch::Contains("'w_new' is written over K: [5, 6), outside its domain K: [0, 5)"));
  }
}
