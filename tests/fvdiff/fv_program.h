// The model of one randomly generated field-view program of the differential fuzzer: typed
// expression trees over input fields, the output domain it is computed on, and whether gt4py
// leaves its result undefined (then every backend must refuse it). The program generator builds
// it; the gt4py writer and the NumPy writer print it (two independent spellings of one meaning).
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace weir::fvdiff {

enum class DType { Float64, Int32, Bool };

/// Three dimensions, a dimension set is a bit mask: Cartesian programs have I, J (horizontal)
/// and K (vertical); unstructured ones Vertex, Edge (horizontal, a field has one of them) and K.
inline constexpr int kNumDims = 3;
inline constexpr unsigned kAllDims = 7;

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
  /// Neighbor: `x(E2V[value])`; Reduce: `name(x(V2E) [* w], axis=V2EDim)` (args x [, w]).
  enum class Kind {
    Field,
    Scalar,
    Literal,
    Var,
    Shift,
    Unary,
    Binary,
    Where,
    ConcatWhere,
    AsType,
    Call,
    Neighbor,
    Reduce
  };
  Kind kind = Kind::Literal;
  DType dtype = DType::Float64;
  unsigned dims = 0;
  double bound = 0;
  std::string name;    ///< field / scalar / variable name; operator; builtin; target dtype of AsType
  double value = 0;    ///< Literal
  Index3 shift{};      ///< Shift (of a Field or Var child)
  Cond cond;           ///< ConcatWhere
  std::string offset;  ///< Neighbor, Reduce: the connectivity
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
  std::string local;       ///< a local dimension the field also has (neighbour weights)
};

/// A vertical scan: carries (float64) updated per level from the carries and the arguments.
struct Scan {
  bool forward = true;
  std::vector<double> init;  ///< one per carry
  std::vector<NodeP> args;   ///< field expressions the operator passes
  std::vector<NodeP> body;   ///< new carry values; Scalar leaves "c0".., "x0"..
};

/// A connectivity table: rows along dimension `from`, entries along `to`, -1 for none.
struct Table {
  std::string name, local;  ///< "E2V", its local dimension "E2VDim"
  int from = 0, to = 0;     ///< dimension indices
  std::int64_t rows = 0, cols = 0;
  std::vector<std::int32_t> data;
  std::int32_t at(std::int64_t r, std::int64_t c) const {
    return data[static_cast<std::size_t>(r * cols + c)];
  }
};

/// The fixed inputs, dimensions and extents shared by the generated programs of one kind.
struct Universe {
  bool unstructured = false;
  std::array<const char*, kNumDims> dim_names{"IDim", "JDim", "KDim"};
  Index3 sizes{8, 7, 6};
  std::vector<Input> inputs;
  std::vector<Table> tables;
  const Input& input(const std::string& name) const;
  const Table& table(const std::string& name) const;
};
const Universe& cartesian_universe();
/// Vertices, edges and levels of weir's periodic triangular mesh (mesh/), with E2V and V2E
/// tables in which some entries are -1 (missing neighbours).
const Universe& mesh_universe();

/// One random field operator with its call in the batch's @program.
struct SubProgram {
  const Universe* universe = &cartesian_universe();
  std::uint64_t number = 0;  ///< global program number (its seed derives from it)
  std::uint64_t seed = 0;
  std::vector<std::pair<std::string, NodeP>> vars;  ///< local assignments, in order
  std::vector<NodeP> results;                       ///< one, or several (tuple return, tuple out=)
  Scan scan;                                        ///< used when is_scan
  bool is_scan = false;
  unsigned out_dims = kAllDims;
  /// "full" (out=o), "slice" (out=o[a:b, ...]) or "domain" (out=o, domain={...}).
  std::string out_style = "full";
  Box box;                    ///< the points written
  bool expect_error = false;  ///< some read leaves the inputs' domain: gt4py leaves it undefined
  std::string out_alias;      ///< out= is this input (not an own output field)
  bool int64_tables = false;  ///< its connectivity tables are passed as int64
  std::string why;            ///< why an error is expected
  std::string name() const { return "f" + std::to_string(number); }
  std::string out_name(std::size_t r) const {
    return out_alias.empty() ? "o" + std::to_string(number) + "_" + std::to_string(r) : out_alias;
  }
};

std::string dtype_name(DType t);

/// The random choices of a generator.
class Dice {
 public:
  explicit Dice(std::uint64_t seed) : rng_(seed) {}

 protected:
  std::mt19937_64 rng_;
  int uniform(int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng_); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0, 1)(rng_) < p; }
};

inline NodeP make_node(Node n) { return std::make_shared<const Node>(std::move(n)); }

/// The seed of the random stream of program `number` of a run seeded `seed` (SplitMix64 of
/// seed * mul + number + add; each generator has its own mul, add): streams are independent, so
/// a program does not depend on what else the run generates.
std::uint64_t program_stream(std::uint64_t seed, std::uint64_t number, std::uint64_t mul,
                             std::uint64_t add);  ///< "float64", "int32", "bool"

}  // namespace weir::fvdiff
