// Local storage for accumulations (DaCe's AccumulateTransient / OutLocalStorage): a sum that
// an inner map accumulates into one element per iteration of the enclosing map goes to a
// zero-initialised register scalar, written out once per outer iteration.
#pragma once

#include "weir/transforms/pipeline.h"

namespace weir::transforms {

/// Pass "local-storage". Pattern, in every state: the exit of map I, directly followed by the
/// exit of the map O that encloses it, joined by an edge whose memlet is a single element with
/// the sum conflict resolution (`lambda a, b: a + b`) and no parameter of I in its subset; I is
/// not parallel (CPU_Multicore/GPU). Result: an access node of a new Register scalar `<data>_acc`
/// (scope lifetime, zero-initialised where O's body is entered) sits between the two exits: the
/// body of I accumulates into it and it is added to the original element once per iteration
/// of O. Returns the number of accumulations rewritten.
class LocalStorage final : public Pass {
 public:
  LocalStorage();

 protected:
  std::size_t run_pass(SDFG& sdfg, Transaction& tx) override;
};

}  // namespace weir::transforms
