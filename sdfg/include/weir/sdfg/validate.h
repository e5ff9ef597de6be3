// SDFG validation in the spirit of DaCe's validate_sdfg: structural and semantic checks whose
// failures name the element they concern.
#pragma once

#include <string>
#include <vector>

#include "weir/sdfg/errors.h"
#include "weir/sdfg/sdfg.h"

namespace weir {

/// One problem found by the validator.
struct Diagnostic {
  /// Stable short code, e.g. "scope-unbalanced", "memlet-dims", "undefined-symbol".
  std::string code;
  std::string message;
  ElementRef where;
  /// "SDFG 'x', state 'a/b', node 3 ('lap'): message [code]"
  std::string str() const;
};

/// Thrown by validate_or_throw; carries every diagnostic, what() lists them.
class InvalidSDFGError : public Error {
 public:
  explicit InvalidSDFGError(std::vector<Diagnostic> diagnostics);
  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }

 private:
  std::vector<Diagnostic> diagnostics_;
};

/// All problems of the SDFG and its nested SDFGs (empty if valid). Never throws on a
/// malformed graph; reports it instead.
std::vector<Diagnostic> validate(const SDFG& sdfg);
/// Throws InvalidSDFGError if validate() finds anything.
void validate_or_throw(const SDFG& sdfg);

}  // namespace weir
