// libFuzzer target: SDFG JSON text through the loader, the validator and a save/reload round
// trip. Whatever loads must validate or not without crashing, and what loads must save and
// load back as the same SDFG (sdfg_difference empty). What validates also takes the GPU path
// (gpu_path.h): its CUDA source is generated, and within the compile budget the program runs
// on the cpu backend and the CUDA emulation, which must agree, when every access it makes is
// bounds-checked (no nested SDFG, no dynamic memlet: indices the fuzz arguments cannot vouch for).
#include <memory>
#include <string>

#include "fuzz_support.h"
#include "gpu_path.h"
#include "weir/runtime/dispatch.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/validate.h"

using namespace weir;

namespace {

/// Whether the generated code checks every access of `sdfg` against the containers' shapes
/// (CodegenOptions::bounds_checks): no nested SDFG and no dynamic memlet.
bool accesses_checked(const SDFG& sdfg) {
  for (const SDFGState* st : sdfg.all_states()) {
    for (const Node* n : st->nodes())
      if (n->kind() == NodeKind::NestedSDFG) return false;
    for (const DataflowEdge* e : st->edges())
      if (e->memlet.dynamic) return false;
  }
  return true;
}

/// The GPU path of a valid SDFG: CUDA always, both backends within the budget, every symbol 3.
void gpu_path(std::shared_ptr<const SDFG> sdfg) {
  const runtime::CompilableProgram program{std::move(sdfg), {}, "fuzz.sdfg"};
  (void)runtime::generate_gpu_program(program);
  const std::string what = "the SDFG '" + program.sdfg->name + "'";
  if (!accesses_checked(*program.sdfg)) {
    fuzz::note(what + ": CUDA generated, not run (a nested SDFG or a dynamic memlet)");
    return;
  }
  if (!fuzz::cuda_budget().take()) return;
  fuzz::run_cpu_and_cuda(
      [&](const runtime::Backend& b, runtime::Arguments& a) { runtime::run(b, program, a); },
      runtime::Signature::from_sdfg(*program.sdfg), 3, what);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fuzz::expect_located_errors([&] {
    std::unique_ptr<SDFG> sdfg = sdfg_from_json_text(fuzz::as_text(data, size), "fuzz.sdfg");
    const bool valid = validate(*sdfg).empty();
    std::string saved = sdfg_to_json_text(*sdfg);
    std::unique_ptr<SDFG> again;
    try {
      again = sdfg_from_json_text(saved, "saved.sdfg");
    } catch (const Error& e) {
      fuzz::require(false, std::string("the saved SDFG does not load: ") + e.what());
    }
    std::string diff = sdfg_difference(*sdfg, *again);
    fuzz::require(diff.empty(), "the saved SDFG loads as a different one: " + diff);
    if (valid) gpu_path(std::move(sdfg));
  });
  return 0;
}
