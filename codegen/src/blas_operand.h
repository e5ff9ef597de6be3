// The operands of a library node as the code generator sees them (the MPI nodes'),
// and the refusal of an unexpanded node.
#pragma once

#include <string>
#include <vector>

#include "state_codegen.h"

namespace weir::codegen::detail {

/// One operand: a connector's location with its non-unit dimensions (the memlet's subset
/// squeezed, as DaCe's expansions see it).
struct BlasOperand {
  Location loc;
  std::vector<std::size_t> dims;
  bool present = false;
  std::size_t rank() const { return dims.size(); }
  sym::Expr extent(std::size_t k) const { return loc.subset[dims[k]].size(); }
  /// The element stride of non-unit dimension k (the container's stride times the subset's step).
  sym::Expr stride(std::size_t k) const {
    return loc.binding->desc->strides[dims[k]] * loc.subset[dims[k]].step;
  }
  /// The element at `vars` (one loop variable per non-unit dimension).
  std::string at(const std::vector<std::string>& vars) const {
    if (loc.data.empty()) return loc.var;
    if (loc.binding->scalar) return loc.binding->cpp;
    std::vector<sym::Expr> idx = loc.start();
    for (std::size_t k = 0; k < dims.size(); ++k)
      idx[dims[k]] = loc.subset[dims[k]].start + sym::Expr::symbol(vars[k]) * loc.subset[dims[k]].step;
    return loc.binding->cpp + "[" + linear_offset(*loc.binding->desc, idx) + "]";
  }
};

/// A library node attribute that DaCe leaves out at its default (alpha 1, beta 0, trans False):
/// the C++ literal of a number (a JSON number or a string of one), or "true"/"false"; `dflt`
/// when absent or null. Throws CodegenError at `where` for anything else.
std::string numeric_attribute(const LibraryNode& n, const std::string& key, const std::string& dflt,
                              const ElementRef& where);

/// The error for a library node of a class the library-expansion pass owns (or of an
/// implementation it owns: "pure" MatMul, Gemm, Gemv), given to the code generator unexpanded.
std::string unexpanded_message(const LibraryNode& n);

}  // namespace weir::codegen::detail
