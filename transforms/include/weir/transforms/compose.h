// Composition of existing SDFGs into one (`weir compose`, docs/compose.md): stages from SDFG
// files, called in a sequence (with for-loops) on arrays of the composed SDFG, each call a state
// with the stage as a nested SDFG, so that precompiled or DaCe-written stages can be
// orchestrated like field-view programs (ADR 0019).
#pragma once

#include <memory>
#include <string>

#include "weir/sdfg/sdfg.h"

namespace weir::transforms {

/// Builds the SDFG a composition description gives (JSON text; stage files are read relative to
/// `base_dir`). The description:
///   {"name": "pipeline",
///    "arrays": {"u": {"dtype": "float64", "shape": ["N", 8]}, "t": {..., "transient": true}},
///    "scalars": {"alpha": "float64"},            (optional; non-transient Scalar containers)
///    "stages": {"step": "step.sdfg"},
///    "sequence": [{"call": "step", "bind": {"A": "u", "B": "t"}, "symbols": {"M": "N - 1"}},
///                 {"for": "i", "range": [0, "T"], "body": [ ... ]}]}
/// Every non-transient container of a stage must be bound to an array (or scalar) of the same
/// dtype and number of dimensions; a stage's free symbol not in "symbols" maps to the symbol of
/// the same name, which the composed SDFG then takes as an argument. Arguments of the result: the
/// non-transient arrays and scalars in the order given. Throws weir::Error naming the JSON path
/// ("/sequence/1/bind/B: stage 'step' has no container 'B'") for anything malformed, a missing
/// file, or a stage that does not load; the result is validated. Text that is not JSON throws
/// InvalidJsonError "<origin>:<line>:<column>: invalid JSON: ...".
std::unique_ptr<SDFG> compose_sdfgs(const std::string& json_text, const std::string& base_dir,
                                    const std::string& origin = "composition description");

}  // namespace weir::transforms
