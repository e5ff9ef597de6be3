#include "expand_for_codegen.h"

#include "weir/transforms/library_expansion.h"

namespace weir::runtime::detail {

std::shared_ptr<const SDFG> expanded_for_codegen(const std::shared_ptr<const SDFG>& sdfg) {
  if (!transforms::has_expandable_library_nodes(*sdfg)) return sdfg;
  std::shared_ptr<SDFG> copy = sdfg->clone_sdfg();
  transforms::parse_pipeline("library-expansion")->run(*copy);
  return copy;
}

}  // namespace weir::runtime::detail
