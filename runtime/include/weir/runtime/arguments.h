// Arguments by name, and binding them to a Signature: checks of dtype and shape, inference of
// size symbols from array shapes, and the pointer array the generated program's ABI takes.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <variant>
#include <vector>

#include "weir/runtime/field.h"
#include "weir/runtime/signature.h"

namespace weir::runtime {

/// A scalar argument or symbol value as given by a caller (JSON number, `--set N=64`).
using Number = std::variant<std::int64_t, double, bool>;
/// "64", "0.5", "true".
std::string to_string(const Number& n);

/// Arguments by name. Arrays are owned here and updated in place by a run: after the call they
/// hold the program's results. Scalars and symbols are in `values`; scalars the program writes
/// are updated there.
struct Arguments {
  std::map<std::string, Field> arrays;
  std::map<std::string, Number> values;
};

/// Arguments bound to a signature: one pointer per parameter in ABI order (arrays: their first
/// element; scalars: a value of the parameter's dtype; symbols: an int64). Holds the storage of
/// scalar and symbol values, so it must outlive every call made with pointers(); movable, not
/// copyable. The arrays stay owned by the Arguments it was bound from, which must outlive it.
class BoundArguments {
 public:
  BoundArguments() = default;
  BoundArguments(BoundArguments&&) = default;
  BoundArguments& operator=(BoundArguments&&) = default;
  BoundArguments(const BoundArguments&) = delete;
  BoundArguments& operator=(const BoundArguments&) = delete;

  /// The `void* const*` argument of weir_init / weir_run.
  void* const* pointers() const { return pointers_.data(); }
  std::size_t size() const { return pointers_.size(); }
  /// The value of every free symbol: given, or inferred from array shapes.
  const std::map<std::string, std::int64_t>& symbols() const { return symbols_; }
  /// Copies scalar parameters the program writes back into `args.values` (after a call).
  void store_written_scalars(const Signature& sig, Arguments& args) const;

  /// Calling again with other arrays of the same dtypes and shapes, and other scalar values,
  /// without binding again (the Python module's repeated calls): points array parameter `i` of
  /// the signature bound at `data`. The caller vouches that the array has the dtype and shape
  /// that was bound (bind_arguments checked those), so nothing is checked here.
  void rebind_array(std::size_t i, void* data) { pointers_.at(i) = data; }
  /// Puts `n` into scalar or symbol parameter `i` of `sig` (the signature bound), converted as
  /// bind_arguments converts it, with its ArgumentError when it does not fit; a symbol's new
  /// value is in symbols() (a CompiledProgram starts again when its symbols change).
  void rebind_value(const Signature& sig, std::size_t i, const Number& n);

 private:
  friend BoundArguments bind_arguments(const Signature&, Arguments&);
  struct Slot {
    alignas(16) unsigned char bytes[16];
  };
  std::vector<Slot> slots_;  // scalar and symbol values, one per parameter
  std::vector<void*> pointers_;
  std::map<std::string, std::int64_t> symbols_;
};

/// Binds `args` to `sig` by name. Symbols not given are inferred from array shapes where a
/// dimension's extent is a single symbol in an affine form (N, I + 4, 2*N - 1): shape
/// [I+4, J+4, K] with an array of shape (20, 20, 8) gives I=16, J=16, K=8. Then every array's
/// dtype and full shape (and its strides, which must be C order) is checked, and scalars are
/// converted to their parameter's dtype (an integer parameter takes only integral numbers).
/// Return values (Parameter::returned) the caller does not give are allocated here, zero-filled
/// with the shape their symbols give, and added to `args` (arrays, or 0 in `values` for
/// scalars): after the run they hold what the program returned, as DaCe's return values.
/// Throws ArgumentError, for example:
///   "unknown argument 'X' (program 'p' takes A, B, N)",
///   "missing argument 'A' (float64 array of shape (64, 64))",
///   "argument 'A': expected float64 array of shape (64, 64), got int64 (64, 64)",
///   "symbol 'N' is 64 from argument 'A' (dimension 0 is N) but 32 from argument 'B' (...)",
///   "missing value of symbol 'N': give it, or an array whose shape determines it".
/// 0-d arrays (NumPy's shape ()): one given for a scalar parameter is its value (moved into
/// `values`, see scalars_from_zero_d_arrays); one given for an array of shape (1,) is that
/// array (DaCe and weir's SDFGs hold a 0-d field as one element).
BoundArguments bind_arguments(const Signature& sig, Arguments& args);

/// The element of a 0-d array as a Number of its kind (int64 exactly; bool as bool).
/// Throws ArgumentError when `f` is not 0-d.
Number zero_d_value(const Field& f);

/// Moves every 0-d array of `args.arrays` that names a scalar parameter of `sig` into
/// `args.values` (gt4py passes a read-only `Field[Dims[()], T]` as a 0-d field; weir takes it as
/// a scalar). A name given both ways is an ArgumentError.
void scalars_from_zero_d_arrays(const Signature& sig, Arguments& args);

}  // namespace weir::runtime
