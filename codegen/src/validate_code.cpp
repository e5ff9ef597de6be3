// validate_for_codegen: validate() (which parses every Python code block since the sdfg layer
// reads code with pycode).
#include "weir/codegen/validate_code.h"

namespace weir::codegen {

std::vector<Diagnostic> validate_for_codegen(const SDFG& sdfg) { return validate(sdfg); }

void validate_for_codegen_or_throw(const SDFG& sdfg) { validate_or_throw(sdfg); }

}  // namespace weir::codegen
