// libFuzzer target: a valid SDFG through simplify, which must leave it valid (the pass
// contract, ADR 0017). Inputs that do not load or do not validate are skipped quietly.
#include "weir/transforms/simplify.h"
#include "fuzz_support.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"

using namespace weir;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::unique_ptr<SDFG> sdfg;
  try {
    sdfg = sdfg_from_json_text(fuzz::as_text(data, size), "fuzz.sdfg");
    if (!validate(*sdfg).empty()) return 0;
  } catch (const Error&) {
    return 0;
  }
  fuzz::expect_located_errors([&] { transforms::simplify(*sdfg); });
  std::vector<Diagnostic> problems = validate(*sdfg);
  fuzz::require(problems.empty(), "simplify made a valid SDFG invalid: " +
                                      (problems.empty() ? std::string() : problems.front().str()));
  return 0;
}
