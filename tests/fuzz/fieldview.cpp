// libFuzzer target: a field-view source through the whole frontend. The input is a module's
// text; it is lexed, parsed and loaded (ModuleLoader, no imports from disk: the search path is
// empty and WEIR_PATH unused), every definition is type-checked, the first few are lowered to
// SDFGs, and each SDFG must validate (the lowering never builds an invalid SDFG).
#include "fuzz_support.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/type_checker.h"
#include "weir/sdfg/validate.h"

using namespace weir;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(fuzz::as_text(data, size));
  fuzz::expect_located_errors([&] {
    frontend::LoaderOptions lo;
    lo.use_environment = false;
    frontend::ModuleLoader loader(lo);
    const frontend::LoadedModule& m = loader.load_source(pycode::SourceFile("/nonexistent/fuzz.py", text));
    frontend::TypeChecker checker;
    std::size_t lowered = 0;
    for (const auto& def : m.definitions) {
      const frontend::TypedDefinition* typed = nullptr;
      fuzz::expect_located_errors([&] { typed = &checker.check(*def); });
      if (!typed || lowered++ >= 4) continue;
      fuzz::expect_located_errors([&] {
        std::unique_ptr<SDFG> sdfg = frontend::lower_to_sdfg(*typed);
        std::vector<Diagnostic> problems = validate(*sdfg);
        fuzz::require(problems.empty(), "the lowering of '" + def->name + "' does not validate: " +
                                            (problems.empty() ? "" : problems.front().str()));
      });
    }
  });
  return 0;
}
