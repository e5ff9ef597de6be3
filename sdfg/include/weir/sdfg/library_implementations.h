// The implementation names DaCe's library nodes accept, and how weir writes its own choice so
// that DaCe can expand every node weir writes (issue 37: a MatMul written with "OpenBLAS" made
// DaCe fail with "Unknown implementation for node MatMul: OpenBLAS").
#pragma once

#include <optional>
#include <set>
#include <string>

namespace weir {

/// DaCe's class path of its Reduce library node (a library node's `classpath`; DaCe writes every
/// library node with type "LibraryNode" and finds its class by this path).
inline constexpr const char* kDaceReduceClasspath = "dace.libraries.standard.nodes.reduce.Reduce";

/// The implementation names DaCe 2.0 registers for library node class `class_name` (the
/// last component of its classpath: "MatMul", "Gemm", "Solve", "Reduce", ...), as its
/// `implementations` dictionaries in dace/libraries/{blas,lapack,linalg,standard}/nodes; nullptr
/// for a class DaCe's libraries do not have (weir keeps such nodes opaque).
const std::set<std::string>* dace_implementations(const std::string& class_name);

/// What weir writes as the `implementation` of a node of `class_name` whose implementation in
/// weir is `implementation` (empty: none chosen): the same name when DaCe accepts it for that
/// class (or the class is not DaCe's); otherwise the DaCe name with the same meaning ("OpenBLAS"
/// for weir's CBLAS/LAPACKE spellings "cblas", "lapacke", "lapack" where the class has it),
/// else DaCe's default: "specialize" for MatMul and Einsum (DaCe specializes them to Gemm,
/// Gemv, Dot, ... whose BLAS DaCe then chooses), none (JSON null) for the others. nullopt: write
/// no implementation. The caller keeps weir's own name in `weir_implementation` when they differ.
std::optional<std::string> dace_implementation_name(const std::string& class_name,
                                                    const std::string& implementation);

}  // namespace weir
