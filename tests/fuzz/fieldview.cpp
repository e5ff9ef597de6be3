// libFuzzer target: a field-view source through the whole frontend. The input is a module's
// text; it is lexed, parsed and loaded (ModuleLoader, no imports from disk: the search path is
// empty and WEIR_PATH unused), every definition is type-checked, the first few are lowered to
// SDFGs, and each SDFG must validate (the lowering never builds an invalid SDFG). Each lowered
// program also takes the GPU path (gpu_path.h): its CUDA source is generated, and within the
// compile budget the program runs on the cpu backend and the CUDA emulation, which must agree.
#include <memory>
#include <string>

#include "fuzz_support.h"
#include "gpu_path.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/type_checker.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/field_view_program.h"
#include "weir/sdfg/validate.h"

using namespace weir;

namespace {

/// The GPU path of one lowered definition: CUDA for `sdfg` (always), then both backends on the
/// program with every field 4 points along each dimension, within the budget and for one
/// definition per input (`ran`): two compiles per unit stay well inside libFuzzer's 20 s
/// timeout. A scan operator cannot run alone (the programs calling it run it).
void gpu_path(const frontend::TypedDefinition& typed, std::shared_ptr<const SDFG> sdfg, bool& ran) {
  const std::string origin = "fuzz.py::" + typed.name;
  (void)runtime::generate_gpu_program(runtime::CompilableProgram{std::move(sdfg), {}, origin});
  if (ran || typed.kind == frontend::DefinitionKind::ScanOperator || !fuzz::cuda_budget().take()) return;
  ran = true;
  // The checker owns the definition for the whole input: the program only borrows it.
  runtime::FieldViewProgram fv;
  fv.definition = std::shared_ptr<const frontend::TypedDefinition>(std::shared_ptr<void>(), &typed);
  fv.origin = origin;
  fuzz::run_cpu_and_cuda([&](const runtime::Backend& b, runtime::Arguments& a) { runtime::run(b, fv, a); },
                         runtime::field_view_signature(fv), 4, origin);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(fuzz::as_text(data, size));
  fuzz::expect_located_errors([&] {
    frontend::LoaderOptions lo;
    lo.use_environment = false;
    frontend::ModuleLoader loader(lo);
    const frontend::LoadedModule& m = loader.load_source(pycode::SourceFile("/nonexistent/fuzz.py", text));
    frontend::TypeChecker checker;
    std::size_t lowered = 0;
    bool ran = false;
    for (const auto& def : m.definitions) {
      const frontend::TypedDefinition* typed = nullptr;
      fuzz::expect_located_errors([&] { typed = &checker.check(*def); });
      if (!typed || lowered++ >= 4) continue;
      fuzz::expect_located_errors([&] {
        std::unique_ptr<SDFG> sdfg = frontend::lower_to_sdfg(*typed);
        std::vector<Diagnostic> problems = validate(*sdfg);
        fuzz::require(problems.empty(), "the lowering of '" + def->name + "' does not validate: " +
                                            (problems.empty() ? "" : problems.front().str()));
        gpu_path(*typed, std::move(sdfg), ran);
      });
    }
  });
  return 0;
}
