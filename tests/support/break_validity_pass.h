// A test-only pass that leaves the SDFG invalid, for the tests of verify-each (the transforms
// suite and the CLI's weir_with_test_passes binary); never in the shipped registry.
#pragma once

#include "weir/sdfg/state.h"
#include "weir/transforms/pipeline.h"

namespace weir::test {

/// "break-validity": points the first memlet of the first state at a container named
/// "nowhere", which does not exist. Returns 1 (0 if the first state has no edges).
class BreakValidity final : public transforms::Pass {
 public:
  BreakValidity()
      : Pass("break-validity", "test only: leaves the SDFG invalid (a memlet names no container)") {}

 protected:
  std::size_t run_pass(SDFG& sdfg, transforms::Transaction& tx) override {
    auto states = sdfg.all_states();
    if (states.empty() || states.front()->edges().empty()) return 0;
    SDFGState& st = *states.front();
    tx.modify_state(st, [&] { st.edge(st.edges().front()->id).memlet.data = "nowhere"; });
    return 1;
  }
};

}  // namespace weir::test
