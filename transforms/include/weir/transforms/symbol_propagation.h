// SymbolPropagation: constant symbols assigned on interstate edges are substituted into their
// uses and dead assignments removed (DaCe's SymbolPropagation + ConstantPropagation, reduced
// to integer constants).
#pragma once

#include "weir/transforms/pipeline.h"

namespace weir::transforms {

/// Per SDFG (nested SDFGs separately), repeated until nothing changes:
///  * a symbol assigned exactly once in the SDFG, on an interstate edge, to a constant integer
///    expression (possibly after earlier substitutions: `a = 3` then `b = a + 1`), that is not a
///    loop variable, an argument or a container, is replaced by its value everywhere the SDFG
///    reads symbols (memlets, map ranges, tasklet code, nested symbol mappings, interstate
///    conditions and assignments, loop statements, branch conditions, descriptor shapes), and
///    the assignment is removed (a valid SDFG reads a symbol only after it was assigned, and
///    a single constant assignment gives every read the same value);
///  * an assignment to a symbol nothing reads is removed (when its value has no side effect:
///    every interstate assignment is a plain expression).
/// The symbol is dropped from the SDFG's `symbols` when it is no longer used. run() returns the
/// number of substitutions plus removed assignments.
class SymbolPropagation final : public Pass {
 public:
  SymbolPropagation();

 protected:
  std::size_t run_pass(SDFG& sdfg, Transaction& tx) override;
};

}  // namespace weir::transforms
