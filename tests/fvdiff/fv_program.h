// The model of one randomly generated field-view program of the differential fuzzer: typed
// expression trees over input fields, the output domain it is computed on, and whether gt4py
// leaves its result undefined (then every backend must refuse it). The program generator builds
// it; the gt4py writer and the NumPy writer print it (two independent spellings of one meaning).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace weir::fvdiff {

enum class DType { Float64, Int32, Bool };

/// The Cartesian dimensions I, J (horizontal) and K (vertical); a dimension set is a bit mask.
inline constexpr int kNumDims = 3;
inline constexpr unsigned kAllDims = 7;
const char* dim_name(int d);  ///< "IDim", "JDim", "KDim"

using Index3 = std::array<std::int64_t, kNumDims>;

/// A half-open box [lo, hi) of points; dimensions a value does not have span [0, 1).
struct Box {
  Index3 lo{}, hi{};
  bool empty() const;
  Box shifted(const Index3& by) const;
  Box intersect(const Box& o) const;
  Index3 extent() const;
};

/// A domain condition of concat_where on one dimension: `D op value`, or
/// `(value <= D) & (D < value2)` for op "in".
struct Cond {
  int dim = 0;
  std::string op;
  std::int64_t value = 0, value2 = 0;
};
/// The parts of `box` where `c` is `truth` (at most two boxes, none empty).
std::vector<Box> cond_parts(const Cond& c, const Box& box, bool truth);

struct Node;
using NodeP = std::shared_ptr<const Node>;

/// One expression. `dims` is the union of the dimensions of the fields it reads (scalars have
/// none); `bound` bounds |value| over all points (numeric types), so that integer arithmetic
/// never overflows and float-to-int conversions stay representable.
struct Node {
  enum class Kind { Field, Scalar, Literal, Var, Shift, Unary, Binary, Where, ConcatWhere, AsType, Call };
  Kind kind = Kind::Literal;
  DType dtype = DType::Float64;
  unsigned dims = 0;
  double bound = 0;
  std::string name;  ///< field / scalar / variable name; operator; builtin; target dtype of AsType
  double value = 0;  ///< Literal
  Index3 shift{};    ///< Shift (of a Field or Var child)
  Cond cond;         ///< ConcatWhere
  std::vector<NodeP> args;
  const Node* var = nullptr;  ///< Var: the value of the variable (owned by the SubProgram)
};

/// An input of the generated programs: a field (dims != 0) or a scalar.
struct Input {
  std::string name;
  DType dtype = DType::Float64;
  unsigned dims = 0;
  double lo = -1, hi = 1;  ///< value range
  bool nonzero = false;    ///< integers: never 0 (divisors)
  double scalar = 0;       ///< value of a scalar
};

/// A vertical scan: carries (float64) updated per level from the carries and the arguments.
struct Scan {
  bool forward = true;
  std::vector<double> init;          ///< one per carry
  std::vector<NodeP> args;           ///< field expressions the operator passes
  std::vector<NodeP> body;           ///< new carry values; Scalar leaves "c0".., "x0"..
};

/// One random field operator with its call in the batch's @program.
struct SubProgram {
  std::uint64_t number = 0;  ///< global program number (its seed derives from it)
  std::uint64_t seed = 0;
  std::vector<std::pair<std::string, NodeP>> vars;  ///< local assignments, in order
  std::vector<NodeP> results;                       ///< one, or several (tuple return, tuple out=)
  Scan scan;                                         ///< used when is_scan
  bool is_scan = false;
  unsigned out_dims = kAllDims;
  /// "full" (out=o), "slice" (out=o[a:b, ...]) or "domain" (out=o, domain={...}).
  std::string out_style = "full";
  Box box;                   ///< the points written
  bool expect_error = false; ///< some read leaves the inputs' domain: gt4py leaves it undefined
  std::string why;           ///< why an error is expected
  std::string name() const { return "f" + std::to_string(number); }
  std::string out_name(std::size_t r) const { return "o" + std::to_string(number) + "_" + std::to_string(r); }
};

/// The fixed inputs and extents shared by every generated Cartesian program.
struct Universe {
  Index3 sizes{8, 7, 6};
  std::vector<Input> inputs;
  const Input& input(const std::string& name) const;
};
const Universe& cartesian_universe();

std::string dtype_name(DType t);  ///< "float64", "int32", "bool"

}  // namespace weir::fvdiff
