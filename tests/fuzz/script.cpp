// libFuzzer target: transformation scripts (JSON, docs/transformation-scripts.md) and pipeline
// texts ("simplify,MapTiling{tile_sizes=[4]}") applied to a lowered field-view program
// (examples/cartesian/laplacian.py, lowered once). An input starting with '[' or '{' is a
// script, anything else a pipeline text. Whatever applies must leave the SDFG valid.
#include "weir/transforms/script.h"
#include "fuzz_support.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/type_checker.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/pipeline.h"

using namespace weir;

namespace {

std::string base_sdfg;  // JSON text of the lowered program

}  // namespace

extern "C" int LLVMFuzzerInitialize(int*, char***) {
  frontend::LoaderOptions lo;
  lo.use_environment = false;
  frontend::ModuleLoader loader(lo);
  const frontend::LoadedModule& m = loader.load_file(WEIR_SOURCE_DIR "/examples/cartesian/laplacian.py");
  frontend::TypeChecker checker;
  for (const auto& def : m.definitions)
    if (def->name == "laplacian")
      base_sdfg = sdfg_to_json_text(*frontend::lower_to_sdfg(checker.check(*def)));
  fuzz::require(!base_sdfg.empty(), "examples/cartesian/laplacian.py has no program 'laplacian'");
  return 0;
}

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(fuzz::as_text(data, size));
  std::unique_ptr<SDFG> sdfg = sdfg_from_json_text(base_sdfg, "laplacian.sdfg");
  bool applied = false;
  fuzz::expect_located_errors([&] {
    std::size_t first = text.find_first_not_of(" \t\r\n");
    if (first != std::string::npos && (text[first] == '[' || text[first] == '{')) {
      std::vector<transforms::ScriptStep> steps = transforms::parse_script(text, "fuzz.json");
      applied = true;
      transforms::apply_script(*sdfg, steps, "fuzz.json");
    } else {
      std::unique_ptr<transforms::Pipeline> p = transforms::parse_pipeline(text);
      applied = true;
      p->run(*sdfg);
    }
  });
  if (!applied) return 0;
  // A failed step may leave the SDFG partly transformed, but never invalid (transactions).
  std::vector<Diagnostic> problems = validate(*sdfg);
  fuzz::require(problems.empty(), "the transformed SDFG does not validate: " +
                                      (problems.empty() ? std::string() : problems.front().str()));
  return 0;
}
