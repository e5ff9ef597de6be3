// The simplify pipeline.
#include "weir/transforms/simplify.h"

#include "weir/transforms/registry.h"

namespace weir::transforms {

std::vector<std::string> simplify_pass_names() {
  return {"dead-state-elimination",    "dead-assignment-elimination", "state-fusion",
          "dead-dataflow-elimination", "redundant-array-removal",     "trivial-map-elimination"};
}

std::unique_ptr<Pipeline> make_simplify_pipeline() {
  std::vector<std::unique_ptr<Pass>> passes;
  for (const auto& n : simplify_pass_names()) passes.push_back(make_pass(n));
  return std::make_unique<Pipeline>(
      "simplify", std::move(passes), true, "Cleanup passes to a fixed point: " + [] {
        std::string s;
        for (const auto& n : simplify_pass_names()) s += (s.empty() ? "" : ",") + n;
        return s;
      }());
}

std::size_t simplify(SDFG& sdfg) { return make_simplify_pipeline()->run(sdfg); }

}  // namespace weir::transforms
