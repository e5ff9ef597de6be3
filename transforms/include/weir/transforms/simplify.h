// The `simplify` pipeline: cleanup passes run to a fixed point (DaCe's SimplifyPass, reduced to
// the cleanups weir has). It is an ordinary Pipeline: print it with str_passes(), change its
// pass list, or write your own variant as a pipeline text.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "weir/transforms/pipeline.h"

namespace weir::transforms {

/// The pass names of simplify, in order: dead-state-elimination, dead-assignment-elimination
/// (so that state-fusion meets edges without dead assignments), state-fusion,
/// dead-dataflow-elimination, redundant-array-removal, trivial-map-elimination.
std::vector<std::string> simplify_pass_names();
/// A fresh fixed-point pipeline named "simplify" made of those passes.
std::unique_ptr<Pipeline> make_simplify_pipeline();
/// Runs simplify on `sdfg`; returns the number of changes.
std::size_t simplify(SDFG& sdfg);

}  // namespace weir::transforms
