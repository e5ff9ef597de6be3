// A test-only pass that keeps the SDFG valid but changes what it computes, for the tests of
// `weir tune`'s output check (the CLI's weir_with_test_passes binary); never in the shipped
// registry.
#pragma once

#include "weir/sdfg/nodes.h"
#include "weir/sdfg/state.h"
#include "weir/transforms/pipeline.h"

namespace weir::test {

/// "break-results": every Python tasklet of the first state adds 1 to its first output
/// (`o = o + 1`, a statement appended to its code). Returns the number of tasklets changed.
class BreakResults final : public transforms::Pass {
 public:
  BreakResults() : Pass("break-results", "test only: every tasklet's first output is 1 too large") {}

 protected:
  std::size_t run_pass(SDFG& sdfg, transforms::Transaction& tx) override {
    auto states = sdfg.all_states();
    if (states.empty()) return 0;
    SDFGState& st = *states.front();
    std::size_t changed = 0;
    tx.modify_state(st, [&] {
      for (Node* n : st.nodes()) {
        auto* t = dynamic_cast<Tasklet*>(n);
        if (!t || t->code.language != Language::Python || t->out_connectors.empty()) continue;
        const std::string& o = t->out_connectors.begin()->first;
        t->code = CodeBlock(t->code.code + "\n" + o + " = " + o + " + 1", Language::Python);
        ++changed;
      }
    });
    return changed;
  }
};

}  // namespace weir::test
