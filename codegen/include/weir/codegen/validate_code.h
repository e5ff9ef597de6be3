// Validation for code generation: validate() (sdfg/validate.h), which also parses the Python code
// the code generator translates. An SDFG that passes is one the code generator reads without
// finding a defect of the SDFG (it may still use a feature the CPU code generator does not
// support, a CodegenError). `weir validate` and the compile step both run it, so that "valid"
// means "generates".
#pragma once

#include <vector>

#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/validate.h"

namespace weir::codegen {

/// validate(sdfg), which ends by parsing every Python code block of the SDFG and its nested
/// SDFGs with pycode's parser: tasklet code as statements ("tasklet-syntax"), interstate
/// conditions and assignment values, branch conditions and loop conditions as expressions, loop
/// init / update statements as statements ("code-syntax"). Interstate conditions, branch
/// conditions and loop statements must be Python ("code-language"). Kept for the callers that
/// name it; never throws on a malformed graph.
std::vector<Diagnostic> validate_for_codegen(const SDFG& sdfg);

/// Throws InvalidSDFGError listing validate_for_codegen()'s diagnostics, if any.
void validate_for_codegen_or_throw(const SDFG& sdfg);

}  // namespace weir::codegen
