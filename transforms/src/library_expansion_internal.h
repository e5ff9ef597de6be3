// Shared by library_expansion.cpp (the pass: finding nodes, replacing one by its nested SDFG) and
// the expansions of each library node class (expand_reduce.cpp, expand_einsum.cpp,
// expand_blas.cpp; the contraction they share in contraction_expansion.cpp).
#pragma once

#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"
#include "weir/transforms/transformation.h"

namespace weir::transforms::detail {

/// One data operand of a library node: its edge and the container the nested SDFG sees.
struct LibraryOperand {
  /// The edge (valid until the state's edges change) and its id.
  const DataflowEdge* edge = nullptr;
  EdgeId edge_id = 0;
  bool incoming = true;
  /// The nested SDFG's container (and the nested SDFG node's connector) for the edge.
  std::string name;
  /// The memlet's subset as the nested SDFG's container: the subset's sizes as shape, the outer
  /// container's strides times the subset's steps as strides; a scalar for a scalar container.
  DataDescriptor desc;
};

/// The node being expanded, where it is, and the errors that name it.
struct ExpansionSite {
  const SDFG& sdfg;
  const SDFGState& st;
  const LibraryNode& node;
  /// A TransformError "SDFG 's', state 't', node 5 ('sum'): <msg>".
  TransformError error(const std::string& msg) const;
  /// The in (or out) edges of the node with a non-empty memlet.
  std::vector<const DataflowEdge*> data_edges(bool incoming) const;
  /// The operand of `e`: its container is named after the node's connector, `fallback` when the
  /// edge has none (DaCe writes Reduce edges without connectors). Throws when the edge's other
  /// end is a code node (tasklet, nested SDFG, library node).
  LibraryOperand operand(const DataflowEdge& e, bool incoming, const std::string& fallback) const;
};

/// The SDFG of an expansion, named after the node, with the operands' containers (not
/// transient) and the symbols their shapes and strides use (typed as in the outer SDFG).
std::unique_ptr<SDFG> expansion_sdfg(const ExpansionSite& site, const std::vector<LibraryOperand>& ops);

/// The non-unit dimensions of an operand (none for a scalar): DaCe's expansions squeeze them.
std::vector<std::size_t> squeezed(const LibraryOperand& op);

/// The subset of `op` at `vars`, one per non-unit dimension in order (index 0 elsewhere).
Subset element(const LibraryOperand& op, const std::vector<sym::Expr>& vars);

/// A node attribute DaCe leaves out at its default (alpha 1, beta 0, transA False): the text of
/// a number (a JSON number or a string of one), or "true"/"false"; `dflt` when absent or null.
/// Throws TransformError naming the node for anything else.
std::string numeric_attribute(const ExpansionSite& site, const std::string& key, const std::string& dflt);

/// out[out] = alpha * (sum over the indices not in `out` of the product of the inputs at their
/// `terms`) (+ beta * addend[out]). Indices are letters; `extent` gives each one's size.
struct Contraction {
  std::string name;                // of the maps and tasklets: "einsum" -> einsum, einsum_sum, einsum_out
  std::string prefix;              // of the map parameters: "__e" -> __ei for index i
  std::vector<std::string> terms;  // per input (ops[0..inputs)): its non-unit dimensions' indices
  std::string out;                 // the output's (ops[inputs]) non-unit dimensions' indices
  std::map<char, sym::Expr> extent;
  std::size_t inputs = 0;
  std::string alpha = "1", beta = "0";  // Python numbers
  /// The scalar connectors "_alpha"/"_beta" present (they multiply alpha and beta).
  std::vector<std::string> coeffs;
  /// The operand read for beta's term, by its index in ops; the output when empty.
  std::optional<std::size_t> addend;
  /// The summand's Python expression in the inputs `__in0`, `__in1`, ... and the map
  /// parameters (prefix + index letter); empty: the product of the inputs.
  std::string summand;
};

/// Builds `c` over `ops` into `st` of `sdfg`: a map over the output's indices (Default schedule;
/// none for a scalar output) and per output element, where indices are contracted, a transient
/// Register scalar `__acc` set to 0 and a Sequential map adding the product into it (WCR), then
/// a tasklet writing the output element; else one tasklet per element.
void build_contraction(SDFG& sdfg, SDFGState& st, const Contraction& c,
                       const std::vector<LibraryOperand>& ops);

/// The expansion SDFG of the node at `site` computing `c` over `ops` (one state). Throws when an
/// operand is named `__acc`, the accumulator's name.
std::unique_ptr<SDFG> contraction_sdfg(const ExpansionSite& site, const Contraction& c,
                                       const std::vector<LibraryOperand>& ops);

/// The expansions (see library_expansion.h): the nested SDFG of the node at `site`; `ops` gets
/// the operands (one per connector of the nested SDFG node).
std::unique_ptr<SDFG> expand_reduce(const ExpansionSite& site, std::vector<LibraryOperand>& ops);
std::unique_ptr<SDFG> expand_einsum(const ExpansionSite& site, std::vector<LibraryOperand>& ops);
std::unique_ptr<SDFG> expand_blas(const ExpansionSite& site, std::vector<LibraryOperand>& ops);
/// A BLAS node at `site` (MatMul, BatchedMatMul, Gemm, Dot, Gemv, Ger, Axpy, Transpose) as a
/// Contraction over `ops` (filled here, operands checked; expand_blas.cpp).
Contraction blas_contraction(const ExpansionSite& site, std::vector<LibraryOperand>& ops);
/// The default expansion of a MatMul, Gemm or Gemv (expand_blas_rows.cpp): blocks of output rows,
/// each summed into a row buffer with k outermost (bit-identical to the pure expansion's dot
/// products); the pure expansion where the node has a batch dimension or a scalar result.
std::unique_ptr<SDFG> expand_blas_rows(const ExpansionSite& site, std::vector<LibraryOperand>& ops);
/// Whether `n`'s implementation is one of DaCe's CBLAS ones: "OpenBLAS", "MKL" or "cBLAS" (any
/// case).
bool wants_cblas(const LibraryNode& n);
/// A Dot, Gemv, Gemm or MatMul at `site` as one CBLAS call (expand_cblas.cpp): the nested SDFG,
/// `ops` its operands; nullptr (`ops` untouched) where CBLAS cannot take the node's operands
/// (another type, a batch dimension, no unit stride, a size that is not a sum of products of
/// symbols, a misshapen node).
std::unique_ptr<SDFG> expand_cblas(const ExpansionSite& site, std::vector<LibraryOperand>& ops);
/// DaCe's linalg Cholesky, Solve and Inv (expand_lapack.cpp) and its lapack Getrf, Getrs, Getri
/// and Potrf (expand_lapack_factor.cpp): one C++ tasklet running LAPACK's algorithm as loops or
/// one LAPACKE call, its fault declared (lapack_call.h).
std::unique_ptr<SDFG> expand_lapack(const ExpansionSite& site, std::vector<LibraryOperand>& ops);
std::unique_ptr<SDFG> expand_lapack_factor(const ExpansionSite& site, std::vector<LibraryOperand>& ops);
/// DaCe's linalg TensorTranspose and TensorDot (expand_tensor_nodes.cpp): NumPy's transpose with
/// `axes` and tensordot.
std::unique_ptr<SDFG> expand_tensor_transpose(const ExpansionSite& site, std::vector<LibraryOperand>& ops);
std::unique_ptr<SDFG> expand_tensor_dot(const ExpansionSite& site, std::vector<LibraryOperand>& ops);
/// DaCe's fft library FFT and IFFT (expand_fft.cpp): the discrete Fourier transform of a vector,
/// times the node's `factor`.
std::unique_ptr<SDFG> expand_fft(const ExpansionSite& site, std::vector<LibraryOperand>& ops);

}  // namespace weir::transforms::detail
