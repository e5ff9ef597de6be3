// Fresh stages: exporting a field-view program's SDFG (as `weir sdfg` does) and compiling the
// program for the cpu backend in the same process give the binary that compiling alone gives,
// and changing an exported SDFG never changes what is compiled.
#include "runtime_test_util.h"
#include "weir/frontend/lowering.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/gpu_backend.h"
#include "weir/sdfg/nodes.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/auto_optimize.h"

using namespace weir;
using namespace weir::runtime;

namespace {

FieldViewProgram laplacian() {
  return load_field_view_program(std::string(WEIR_SOURCE_DIR) + "/examples/cartesian/laplacian.py",
                                 "laplacian");
}

// Replaces the code of every tasklet of `sdfg` (a change that gives a different library).
int mutate(SDFG& sdfg) {
  int n = 0;
  for (SDFGState* s : sdfg.all_states())
    for (Node* node : s->nodes())
      if (auto* t = dynamic_cast<Tasklet*>(node)) {
        t->code.code += " * 2.0";
        ++n;
      }
  return n;
}

}  // namespace

TEST_CASE("fresh stages: export then compile gives the fingerprint of compiling alone", "[runtime][fresh]") {
  auto dir = weir::test::fresh_cache("fresh-stages");
  auto backend = make_cpu_backend();

  // Compiling alone, in a process that exported nothing.
  CompilationArtifact alone = compile(*backend, laplacian());
  REQUIRE_FALSE(alone.fingerprint.empty());

  // `weir sdfg`: lower, validate, save; then compile the same program (one loaded program).
  FieldViewProgram program = laplacian();
  std::unique_ptr<SDFG> exported = frontend::lower_to_sdfg(*program.definition);
  validate_or_throw(*exported);
  save_sdfg(*exported, dir / "laplacian.sdfg");
  CompilationArtifact after_export = compile(*backend, program);
  CHECK(after_export.fingerprint == alone.fingerprint);

  // Changing the exported SDFG, and the SDFG lower() gave, changes nothing that is compiled.
  REQUIRE(mutate(*exported) > 0);
  CompilableProgram lowered = lower(program);
  REQUIRE(mutate(const_cast<SDFG&>(*lowered.sdfg)) > 0);  // a caller that ignores const
  CompilationArtifact after_changes = compile(*backend, program);
  CHECK(after_changes.fingerprint == alone.fingerprint);

  // The changed SDFG itself is a different program: the fingerprint tells them apart.
  CompilableProgram changed;
  changed.sdfg = std::shared_ptr<const SDFG>(std::move(exported));
  CompilationArtifact other = compile(*backend, changed);
  CHECK(other.fingerprint != alone.fingerprint);

  // A saved-and-reloaded export, optimized as the toolchain optimizes lowered programs
  // (auto_optimize for the CPU), compiles to the same library as the program.
  std::unique_ptr<SDFG> loaded = load_sdfg(dir / "laplacian.sdfg");
  transforms::auto_optimize(*loaded, DeviceType::CPU);
  CompilableProgram reloaded;
  reloaded.sdfg = std::shared_ptr<const SDFG>(std::move(loaded));
  CHECK(compile(*backend, reloaded).fingerprint == alone.fingerprint);
}

// Exporting for the GPU (the gpu backend's CUDA of a CPU stage, as `weir compile --backend gpu
// --emit-cpp` does for a cached stage) places a copy: the CPU stage, and what the cpu backend
// compiles from it, stay as they were.
TEST_CASE("fresh stages: generating the GPU program of a CPU stage never changes that stage",
          "[runtime][fresh]") {
  weir::test::fresh_cache("fresh-stages-gpu");
  auto backend = make_cpu_backend();
  FieldViewProgram program = laplacian();
  CompilableProgram cpu_stage = lower(program);
  const std::string before = sdfg_to_json_text(*cpu_stage.sdfg);
  CompilationArtifact cpu_before = compile(*backend, cpu_stage);

  std::shared_ptr<const SDFG> placed;
  codegen::GeneratedCode cuda = generate_gpu_program(cpu_stage, &placed);
  CHECK_THAT(cuda.source, Catch::Contains("__global__"));
  REQUIRE(placed != nullptr);
  CHECK(placed.get() != cpu_stage.sdfg.get());
  CHECK(sdfg_to_json_text(*cpu_stage.sdfg) == before);
  CHECK(sdfg_difference(*placed, *cpu_stage.sdfg) != "");

  // The cpu backend compiles the CPU stage, and the program, as before the export.
  CHECK(compile(*backend, cpu_stage).fingerprint == cpu_before.fingerprint);
  CHECK(compile(*backend, program).fingerprint == cpu_before.fingerprint);
}
