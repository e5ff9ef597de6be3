// The compile path's last SDFG step before code generation: library nodes the code generator
// does not lower become nested SDFGs (the library-expansion pass, docs/adr/0036-library-expansion.md).
#pragma once

#include <memory>

#include "weir/sdfg/sdfg.h"

namespace weir::runtime::detail {

/// `sdfg` itself when it has no library node that library-expansion expands, else a copy with
/// them expanded (the caller's SDFG is never changed).
std::shared_ptr<const SDFG> expanded_for_codegen(const std::shared_ptr<const SDFG>& sdfg);

}  // namespace weir::runtime::detail
