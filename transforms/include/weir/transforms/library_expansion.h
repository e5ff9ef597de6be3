// LibraryExpansion: library nodes become ordinary SDFG constructs (DaCe's ExpandTransformation
// and SDFG.expand_library_nodes), so that the code generator only sees maps, tasklets, memlets
// and nested SDFGs, and the expanded form is visible in `weir view` and open to the map
// transformations (docs/adr/0036-library-expansion.md).
#pragma once

#include <set>
#include <string>

#include "weir/transforms/pipeline.h"

namespace weir::transforms {

/// Pass "library-expansion". In every state of the SDFG and of the SDFGs nested in it, each
/// library node of a class the pass owns (library_expansion_classes()) is replaced by a nested
/// SDFG node with the same connectors, edges and label, whose SDFG does what the node did:
///  * Reduce (DaCe's pure expansion): a state writing the identity (when the node has one) over
///    the output elements, as a map with one tasklet, then a state with a map over the input's
///    non-unit dimensions whose tasklet writes each input element into its output element
///    through the node's `wcr`. Reduced `axes` (all when absent) are left out of the output
///    index; the kept input dimensions of size != 1 map in order onto the output's dimensions of
///    size != 1. The maps are Sequential, as the loops the code generator wrote for the node.
///  * Einsum (`einsum_str` with NumPy's semantics, an implicit output being the indices that
///    occur once in alphabetical order; operands on the input connectors in sorted order, their
///    unit dimensions squeezed; `alpha`, `beta` and the scalar connectors `_alpha`/`_beta` that
///    multiply them): a map over the output indices (Default: parallel where the node is not in
///    a parallel scope), and per output element a Register scalar `__acc` set to 0, a Sequential
///    map over the contracted indices whose tasklet adds the operands' product into it (WCR),
///    and a tasklet writing alpha * __acc (+ beta * out). Without contracted indices one tasklet
///    writes alpha * product (+ beta * out).
///  * Dot, Gemv, Ger, Transpose (DaCe's BLAS nodes; docs/adr/0040-blas-expansion.md): the same
///    contraction, its map parameters __b<index>: Dot `_result` = sum_k `_x`[k] * `_y`[k] (one
///    Sequential map into `__acc`, no outer map); Gemv `_y`[i] = alpha * sum_k op(`_A`)[i, k] *
///    `_x`[k] (+ beta * the input `_y`, connector `__y_in` of the nested SDFG), op the transpose
///    with `transA`; Ger `_res`[i, j] = alpha * `_x`[i] * `_y`[j] + `_A`[i, j]; Transpose
///    `_out`[i, j] = `_inp`[j, i] (one tasklet per element).
///  * Cholesky, Solve, Inv (DaCe's linalg) and Getrf, Getrs, Getri, Potrf (its lapack nodes):
///    one C++ tasklet weir writes (no --trust-code needed), LAPACK's algorithm as loops or, for
///    implementation OpenBLAS, MKL, LAPACKE or LAPACK, one LAPACKE call, on a row-major scratch
///    copy; its fault (info != 0: singular, not positive definite; no scratch memory) declared
///    on the tasklet (weir/sdfg/tasklet_fault.h) and raised after the state, naming the node.
/// The nested SDFG's containers are the node's memlets' subsets (their sizes as shape, the outer
/// container's strides times the subset's steps as strides); the symbols they use map to
/// themselves. Throws TransformError (naming the node) for a node the expansion cannot express:
/// an edge from or to a code node; for Reduce several inputs or outputs, axes out of range, an
/// output shape that does not match the kept dimensions, an unsupported identity; for Einsum no
/// `einsum_str`, an ellipsis, operands that do not match the terms, a non-numeric alpha or beta;
/// for the BLAS nodes a missing connector, an operand or output of the wrong rank (the code
/// generator's messages).
/// Returns the number of nodes expanded. Idempotent: an expanded SDFG has nothing left to
/// expand.
class LibraryExpansion final : public Pass {
 public:
  LibraryExpansion();

 protected:
  std::size_t run_pass(SDFG& sdfg, Transaction& tx) override;
};

/// The library node classes (LibraryNode::class_name()) that library-expansion expands whatever
/// their `implementation`, and the code generator therefore never sees; one exception: a Dot
/// whose implementation is OpenBLAS, MKL or cBLAS outside every map, with float32/float64
/// vectors CBLAS takes, stays for the code generator's one cblas_?dot call.
const std::set<std::string>& library_expansion_classes();

/// The classes library-expansion expands only where their `implementation` is "pure" (DaCe's
/// pure expansion, as maps open to the map transformations). With the default implementation
/// (empty) the code generator computes them with its hand-scheduled loops, with OpenBLAS, MKL
/// or cBLAS with one CBLAS call (docs/adr/0040-blas-expansion.md).
const std::set<std::string>& pure_expansion_classes();

/// Whether `sdfg` (or an SDFG nested in it) has a library node that library-expansion expands:
/// the compile path (runtime) runs the pass on a copy only then.
bool has_expandable_library_nodes(const SDFG& sdfg);

}  // namespace weir::transforms
