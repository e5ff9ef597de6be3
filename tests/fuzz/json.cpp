// libFuzzer target: the small JSON files weir reads besides SDFGs. `--set-json` files (checked
// by json_limit_problem, then parsed: weir run's reader) and compose descriptions
// (transforms::compose_sdfgs, stages relative to ../shared/corpus/dace/laplace2d, or
// WEIR_FUZZ_COMPOSE_DIR). The property: json_limit_problem is the only gate needed before
// nlohmann's parser (no deep recursion, no number overflow past it), and compose (which checks
// the limits itself, as `weir compose` reads any file) fails only with located errors and
// returns valid SDFGs.
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "fuzz_support.h"
#include "weir/sdfg/json_limits.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/compose.h"

using namespace weir;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string text(fuzz::as_text(data, size));
  if (!json_limit_problem(text)) (void)nlohmann::json::parse(text, nullptr, false);
  const char* dir = std::getenv("WEIR_FUZZ_COMPOSE_DIR");
  std::string base = dir ? dir : WEIR_SOURCE_DIR "/../shared/corpus/dace/laplace2d";
  fuzz::expect_located_errors([&] {
    std::unique_ptr<SDFG> sdfg = transforms::compose_sdfgs(text, base);
    std::vector<Diagnostic> problems = validate(*sdfg);
    fuzz::require(problems.empty(), "a composed SDFG does not validate: " +
                                        (problems.empty() ? std::string() : problems.front().str()));
  });
  return 0;
}
