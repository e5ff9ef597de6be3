// Signature: the parameters of a program in call order (SDFG::arglist()), with the dtype and
// symbolic shape of each, as argument binding and the generated program's ABI need them.
#pragma once

#include <string>
#include <vector>

#include "weir/sdfg/symbolic.h"
#include "weir/sdfg/types.h"

namespace weir {
class SDFG;
}

namespace weir::runtime {

/// One entry of a program's argument list.
struct Parameter {
  enum class Kind { Array, Scalar, Symbol };
  std::string name;
  Kind kind = Kind::Array;
  /// Element type (symbols: their declared type; at the ABI they are always int64).
  ScalarType dtype = ScalarType::Float64;
  /// Arrays: extent per dimension and strides, in elements, symbolic in the program's free
  /// symbols. Empty for scalars and symbols, and when the signature came from a library alone.
  std::vector<sym::Expr> shape;
  std::vector<sym::Expr> strides;
  /// Whether the program writes this container (some access node of it has an incoming edge):
  /// these are the program's outputs (`weir run --out`).
  bool written = false;
  /// Whether this is a return value of the program (a non-transient `__return`, `__return_0`,
  /// ... as DaCe names them): DaCe allocates these itself, and so does argument binding when
  /// the caller does not give them.
  bool returned = false;
  /// Whether shape/strides are known (false when only the library's weir_arglist() was seen).
  bool has_shape = false;

  /// "float64 array of shape (N, N)", "int32 scalar", "symbol".
  std::string describe() const;
};

/// "array", "scalar" or "symbol".
const char* to_string(Parameter::Kind k);

/// A program's name and parameters in ABI order (program_abi.h).
struct Signature {
  std::string program_name;
  std::vector<Parameter> params;

  /// From an SDFG: SDFG::arglist() order; containers from SDFG::arrays (Scalar descriptors are
  /// scalars, every other descriptor an array), other names symbols. Throws ArgumentError for
  /// a container of a type the ABI cannot pass (void, unmodelled types, Streams).
  static Signature from_sdfg(const SDFG& sdfg);
  /// From a generated library's weir_arglist() JSON ([{"name","kind","dtype"}...]); no shapes.
  /// Throws LoadError for malformed JSON.
  static Signature from_arglist_json(const std::string& program_name, const std::string& json);

  /// The parameter called `name`, or nullptr.
  const Parameter* find(const std::string& name) const;
  /// "A, B, N".
  std::string names() const;
};

}  // namespace weir::runtime
