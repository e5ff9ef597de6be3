#include "program_generator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <stdexcept>

namespace weir::fvdiff {

namespace {

// Integers stay below this magnitude everywhere, so int32 arithmetic never overflows (C++ UB,
// NumPy wraps) and the comparison is about the meaning, not about overflow.
constexpr double kIntLimit = 1 << 28;
// Floats stay below this (and so finite); float-to-int32 conversions need a smaller bound.
constexpr double kFloatLimit = 1e12;
constexpr double kToIntLimit = 1e6;

class Generator : Dice {
 public:
  Generator(std::uint64_t seed, const GeneratorOptions& o) : Dice(seed), opt_(o), u_(cartesian_universe()) {}

  SubProgram program(std::uint64_t number, std::uint64_t seed);

 private:
  const GeneratorOptions& opt_;
  const Universe& u_;
  // Variables of the program being generated (name, value), which later expressions may read.
  std::vector<std::pair<std::string, NodeP>> vars_;
  // Scan bodies read only their parameters (Scalar leaves) and literals.
  bool scan_body_ = false;
  int scan_params_ = 0;

  template <class T>
  const T& pick(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(uniform(0, static_cast<int>(v.size()) - 1))];
  }

  NodeP leaf(DType t);
  NodeP field_leaf(DType t);
  NodeP literal(DType t, double v);
  NodeP shifted(NodeP of);
  NodeP expr(DType t, int depth);
  NodeP float_expr(int depth);
  NodeP int_expr(int depth);
  NodeP bool_expr(int depth);
  NodeP binary(const std::string& op, NodeP a, NodeP b, DType t, double bound);
  NodeP unary(const std::string& op, NodeP a, double bound);
  NodeP call(const std::string& f, std::vector<NodeP> args, double bound);
  NodeP where(NodeP m, NodeP a, NodeP b);
  NodeP concat_where(DType t, int depth);
  NodeP astype(NodeP a, DType to);
  NodeP float_divisor();
  NodeP int_divisor();
  NodeP lift(NodeP n, unsigned dims);
  Cond cond_on(int dim);
  void choose_domain(SubProgram& sp, bool want_error);
  void scan_program(SubProgram& sp);
  bool alias_output(SubProgram& sp);
  bool negative_power(SubProgram& sp);
};

NodeP Generator::literal(DType t, double v) {
  Node n;
  n.kind = Node::Kind::Literal;
  n.dtype = t;
  n.value = v;
  n.bound = std::abs(v);
  return make_node(n);
}

NodeP Generator::field_leaf(DType t) {
  std::vector<const Input*> c;
  for (const Input& i : u_.inputs)
    if (i.dtype == t && i.dims != 0) c.push_back(&i);
  const Input& in = *pick(c);
  Node n;
  n.kind = Node::Kind::Field;
  n.dtype = t;
  n.name = in.name;
  n.dims = in.dims;
  n.bound = std::max(std::abs(in.lo), std::abs(in.hi));
  return make_node(n);
}

NodeP Generator::shifted(NodeP of) {
  std::vector<int> dims;
  for (int d = 0; d < kNumDims; ++d)
    if (of->dims & (1u << d)) dims.push_back(d);
  if (dims.empty()) return of;
  Node n;
  n.kind = Node::Kind::Shift;
  n.dtype = of->dtype;
  n.dims = of->dims;
  n.bound = of->bound;
  int count = chance(0.25) && dims.size() > 1 ? 2 : 1;
  std::shuffle(dims.begin(), dims.end(), rng_);
  for (int k = 0; k < count; ++k) {
    int by = chance(0.7) ? 1 : uniform(2, 3);
    n.shift[static_cast<std::size_t>(dims[static_cast<std::size_t>(k)])] = chance(0.5) ? by : -by;
  }
  n.args = {std::move(of)};
  return make_node(n);
}

NodeP Generator::leaf(DType t) {
  if (scan_body_) {
    if (t == DType::Float64 && chance(0.75)) {
      Node n;
      n.kind = Node::Kind::Scalar;
      n.dtype = t;
      n.name = "x" + std::to_string(uniform(0, scan_params_ - 1));
      n.bound = 2;
      return make_node(n);
    }
    if (t == DType::Bool) return bool_expr(1);
    return literal(t, t == DType::Float64 ? uniform(-8, 8) / 4.0 : uniform(-5, 5));
  }
  int r = uniform(0, 99);
  // A variable of this type, maybe shifted.
  std::vector<const std::pair<std::string, NodeP>*> vs;
  for (const auto& v : vars_)
    if (v.second->dtype == t) vs.push_back(&v);
  if (!vs.empty() && r < 25) {
    const auto& v = *pick(vs);
    Node n;
    n.kind = Node::Kind::Var;
    n.dtype = t;
    n.name = v.first;
    n.dims = v.second->dims;
    n.bound = v.second->bound;
    n.var = v.second.get();
    NodeP ref = make_node(n);
    return chance(0.5) ? shifted(ref) : ref;
  }
  if (t == DType::Bool) {
    NodeP f = field_leaf(t);
    return chance(0.3) ? shifted(f) : f;
  }
  if (r < 35) {
    std::vector<const Input*> c;
    for (const Input& i : u_.inputs)
      if (i.dtype == t && i.dims == 0) c.push_back(&i);
    const Input& in = *pick(c);
    Node n;
    n.kind = Node::Kind::Scalar;
    n.dtype = t;
    n.name = in.name;
    n.bound = std::abs(in.scalar);
    return make_node(n);
  }
  if (r < 45) return literal(t, t == DType::Float64 ? uniform(-8, 8) / 4.0 : uniform(-5, 5));
  NodeP f = field_leaf(t);
  return chance(0.45) ? shifted(f) : f;
}

NodeP Generator::binary(const std::string& op, NodeP a, NodeP b, DType t, double bound) {
  Node n;
  n.kind = Node::Kind::Binary;
  n.dtype = t;
  n.name = op;
  n.dims = a->dims | b->dims;
  n.bound = bound;
  n.args = {std::move(a), std::move(b)};
  return make_node(n);
}

NodeP Generator::unary(const std::string& op, NodeP a, double bound) {
  Node n;
  n.kind = Node::Kind::Unary;
  n.dtype = a->dtype;
  n.name = op;
  n.dims = a->dims;
  n.bound = bound;
  n.args = {std::move(a)};
  return make_node(n);
}

NodeP Generator::call(const std::string& f, std::vector<NodeP> args, double bound) {
  Node n;
  n.kind = Node::Kind::Call;
  n.dtype = args[0]->dtype;
  n.name = f;
  for (const NodeP& a : args) n.dims |= a->dims;
  n.bound = bound;
  n.args = std::move(args);
  return make_node(n);
}

NodeP Generator::where(NodeP m, NodeP a, NodeP b) {
  Node n;
  n.kind = Node::Kind::Where;
  n.dtype = a->dtype;
  n.dims = m->dims | a->dims | b->dims;
  n.bound = std::max(a->bound, b->bound);
  n.args = {std::move(m), std::move(a), std::move(b)};
  return make_node(n);
}

NodeP Generator::astype(NodeP a, DType to) {
  Node n;
  n.kind = Node::Kind::AsType;
  n.dtype = to;
  n.dims = a->dims;
  n.bound = to == DType::Bool ? 1 : (a->dtype == DType::Bool ? 1 : a->bound);
  n.name = dtype_name(to);
  n.args = {std::move(a)};
  return make_node(n);
}

// Makes `n` a field over `dims` (a superset of its own) without changing its values.
NodeP Generator::lift(NodeP n, unsigned dims) {
  if ((n->dims & dims) == dims) return n;
  Node m;
  m.kind = Node::Kind::Field;
  m.dtype = DType::Bool;
  m.name = "m0";
  m.dims = kAllDims;
  return where(make_node(m), n, n);
}

Cond Generator::cond_on(int dim) {
  static const std::vector<std::string> ops = {"==", "<", "<=", ">", ">=", "in"};
  Cond c;
  c.dim = dim;
  c.op = pick(ops);
  const int n = static_cast<int>(u_.sizes[static_cast<std::size_t>(dim)]);
  c.value = uniform(chance(0.1) ? -1 : 0, chance(0.1) ? n : n - 1);
  if (c.op == "in") {
    c.value = uniform(0, n - 1);
    c.value2 = uniform(static_cast<int>(c.value), n);
  }
  return c;
}

NodeP Generator::concat_where(DType t, int depth) {
  Node n;
  n.kind = Node::Kind::ConcatWhere;
  n.dtype = t;
  NodeP a, b;
  if (opt_.guarded_boundary_reads && !scan_body_ && chance(0.5)) {
    // The pattern of vertical and horizontal boundaries: the branch taken away from the
    // boundary reads a neighbour that does not exist at the boundary.
    int dim = uniform(0, kNumDims - 1);
    int m = chance(0.75) ? 1 : 2;
    bool low = chance(0.5);
    const std::int64_t size = u_.sizes[static_cast<std::size_t>(dim)];
    n.cond.dim = dim;
    if (low)
      n.cond.op = m == 1 && chance(0.5) ? "==" : "<", n.cond.value = n.cond.op == "==" ? 0 : m;
    else
      n.cond.op = m == 1 && chance(0.5) ? "==" : ">=", n.cond.value = n.cond.op == "==" ? size - 1 : size - m;
    // Inputs over all of I, J, K of this type.
    NodeP f = field_leaf(t);
    while (f->dims != kAllDims) f = field_leaf(t);
    Node s;
    s.kind = Node::Kind::Shift;
    s.dtype = t;
    s.dims = f->dims;
    s.bound = f->bound;
    s.shift[static_cast<std::size_t>(dim)] = low ? -m : m;
    s.args = {f};
    NodeP far = make_node(s);
    if (t == DType::Bool)
      b = binary("^", far, f, t, 1);
    else
      b = binary("-", f, far, t, 2 * f->bound);
    a = chance(0.5) ? literal(t, t == DType::Float64 ? 0.0 : 0) : expr(t, 0);
    if (t == DType::Bool) a = leaf(t);
  } else {
    a = expr(t, depth - 1);
    b = expr(t, depth - 1);
    unsigned dims = a->dims | b->dims;
    if (dims == 0) {
      b = field_leaf(t);
      dims = b->dims;
    }
    std::vector<int> ds;
    for (int d = 0; d < kNumDims; ++d)
      if (dims & (1u << d)) ds.push_back(d);
    n.cond = cond_on(pick(ds));
  }
  n.dims = a->dims | b->dims | (1u << n.cond.dim);
  n.bound = std::max(a->bound, b->bound);
  n.args = {a, b};
  return make_node(n);
}

NodeP Generator::float_divisor() {
  int r = uniform(0, 2);
  if (r == 0 && !scan_body_) {
    Node n;
    n.kind = Node::Kind::Field;
    n.dtype = DType::Float64;
    n.name = "p";
    n.dims = kAllDims;
    n.bound = 2;
    NodeP p = make_node(n);
    return chance(0.4) ? shifted(p) : p;
  }
  if (r == 1 && !scan_body_) {
    Node n;
    n.kind = Node::Kind::Scalar;
    n.dtype = DType::Float64;
    n.name = "alpha";
    n.bound = 0.75;
    return make_node(n);
  }
  int k = uniform(1, 8) * (chance(0.5) ? 1 : -1);
  return literal(DType::Float64, k / 4.0);
}

NodeP Generator::int_divisor() {
  if (opt_.zero_divisors && !scan_body_ && chance(0.2)) {
    // An int32 field with zeros: x // 0 and x % 0 are 0 (NumPy's value, docs/adr/0014).
    NodeP f = field_leaf(DType::Int32);
    return chance(0.4) ? shifted(f) : f;
  }
  int r = uniform(0, 2);
  if (r == 0 && !scan_body_) {
    Node n;
    n.kind = Node::Kind::Field;
    n.dtype = DType::Int32;
    n.name = "nz";
    n.dims = kAllDims;
    n.bound = 7;
    NodeP p = make_node(n);
    return chance(0.4) ? shifted(p) : p;
  }
  if (r == 1 && !scan_body_) {
    Node n;
    n.kind = Node::Kind::Scalar;
    n.dtype = DType::Int32;
    n.name = "ni";
    n.bound = 3;
    return make_node(n);
  }
  return literal(DType::Int32, uniform(1, 6) * (chance(0.5) ? 1 : -1));
}

NodeP Generator::float_expr(int depth) {
  for (;;) {
    int r = uniform(0, 99);
    if (r < 40) {
      static const std::vector<std::string> ops = {"+", "-", "*"};
      const std::string& op = pick(ops);
      NodeP a = expr(DType::Float64, depth - 1), b = expr(DType::Float64, depth - 1);
      double bound = op == "*" ? a->bound * b->bound : a->bound + b->bound;
      if (bound < kFloatLimit) return binary(op, a, b, DType::Float64, bound);
    } else if (r < 48) {
      NodeP a = expr(DType::Float64, depth - 1), b = float_divisor();
      double mag =
          b->kind == Node::Kind::Field ? 0.5 : std::abs(b->kind == Node::Kind::Scalar ? 0.75 : b->value);
      if (a->bound / mag < kFloatLimit) return binary("/", a, b, DType::Float64, a->bound / mag);
    } else if (r < 56) {
      // Powers: int literal or int32 scalar exponents (any base; negative ones of a positive
      // base), float exponents of a positive base.
      int k = uniform(0, 3);
      if (k <= 1 && opt_.int_powers) {
        NodeP base = expr(DType::Float64, depth - 1);
        int e = k == 0 ? uniform(0, 3) : 2;
        NodeP ex;
        if (k == 0)
          ex = literal(DType::Int32, e);
        else if (scan_body_)
          continue;
        else {
          Node s;
          s.kind = Node::Kind::Scalar;
          s.dtype = DType::Int32;
          s.name = "e2";
          s.bound = 2;
          ex = make_node(s);
        }
        double bound = std::pow(std::max(base->bound, 1.0), e);
        if (bound < kFloatLimit) return binary("**", base, ex, DType::Float64, bound);
      } else if (k == 2 && opt_.int_powers && !scan_body_) {
        NodeP base = float_divisor();
        if (base->kind != Node::Kind::Field) continue;
        return binary("**", base, literal(DType::Int32, -uniform(1, 2)), DType::Float64, 4);
      } else {
        static const std::vector<double> exps = {0.5, 1.5, 2.0, -0.5, 3.0};
        double e = pick(exps);
        NodeP base = e == 2.0 || e == 3.0 ? expr(DType::Float64, depth - 1) : float_divisor();
        if (base->kind == Node::Kind::Literal && base->value < 0 && e != 2.0 && e != 3.0) continue;
        if (base->kind == Node::Kind::Scalar && e != 2.0 && e != 3.0) continue;
        double bound = std::pow(std::max(base->bound, 2.0), std::abs(e));
        if (bound < kFloatLimit) return binary("**", base, literal(DType::Float64, e), DType::Float64, bound);
      }
    } else if (r < 62) {
      NodeP a = expr(DType::Float64, depth - 1);
      return unary("-", a, a->bound);
    } else if (r < 68) {
      NodeP a = expr(DType::Float64, depth - 1);
      if (chance(0.5)) return call("abs", {a}, a->bound);
      NodeP b = expr(DType::Float64, depth - 1);
      return call(chance(0.5) ? "minimum" : "maximum", {a, b}, std::max(a->bound, b->bound));
    } else if (r < 78) {
      return where(bool_expr(depth - 1), expr(DType::Float64, depth - 1), expr(DType::Float64, depth - 1));
    } else if (r < 86) {
      if (scan_body_) continue;
      return concat_where(DType::Float64, depth);
    } else if (r < 92) {
      return astype(chance(0.6) ? int_expr(depth - 1) : bool_expr(depth - 1), DType::Float64);
    } else {
      return leaf(DType::Float64);
    }
  }
}

NodeP Generator::int_expr(int depth) {
  for (;;) {
    int r = uniform(0, 99);
    if (r < 35) {
      static const std::vector<std::string> ops = {"+", "-", "*"};
      const std::string& op = pick(ops);
      NodeP a = expr(DType::Int32, depth - 1), b = expr(DType::Int32, depth - 1);
      double bound = op == "*" ? a->bound * b->bound : a->bound + b->bound;
      if (bound < kIntLimit) return binary(op, a, b, DType::Int32, bound);
    } else if (r < 50) {
      // Python's floor division and modulo (rounding towards -inf, remainder with the
      // divisor's sign).
      NodeP a = expr(DType::Int32, depth - 1), b = int_divisor();
      bool div = chance(0.5);
      return binary(div ? "//" : "%", a, b, DType::Int32, div ? a->bound : b->bound);
    } else if (r < 55) {
      NodeP a = expr(DType::Int32, depth - 1);
      int e = uniform(0, 3);
      double bound = std::pow(std::max(a->bound, 1.0), e);
      if (bound < kIntLimit) return binary("**", a, literal(DType::Int32, e), DType::Int32, bound);
    } else if (r < 62) {
      NodeP a = expr(DType::Int32, depth - 1);
      return unary("-", a, a->bound);
    } else if (r < 68) {
      NodeP a = expr(DType::Int32, depth - 1);
      if (chance(0.4)) return call("abs", {a}, a->bound);
      NodeP b = expr(DType::Int32, depth - 1);
      return call(chance(0.5) ? "minimum" : "maximum", {a, b}, std::max(a->bound, b->bound));
    } else if (r < 76) {
      return where(bool_expr(depth - 1), expr(DType::Int32, depth - 1), expr(DType::Int32, depth - 1));
    } else if (r < 82) {
      if (scan_body_) continue;
      return concat_where(DType::Int32, depth);
    } else if (r < 90) {
      if (chance(0.3)) return astype(bool_expr(depth - 1), DType::Int32);
      NodeP a = expr(DType::Float64, depth - 1);
      if (a->bound < kToIntLimit) return astype(a, DType::Int32);
    } else {
      return leaf(DType::Int32);
    }
  }
}

NodeP Generator::bool_expr(int depth) {
  if (depth <= 0)
    return scan_body_ ? binary("<", leaf(DType::Float64), leaf(DType::Float64), DType::Bool, 1)
                      : leaf(DType::Bool);
  int r = uniform(0, 99);
  if (r < 40) {
    static const std::vector<std::string> ops = {"<", "<=", ">", ">=", "==", "!="};
    DType t = chance(0.6) ? DType::Float64 : DType::Int32;
    return binary(pick(ops), expr(t, depth - 1), expr(t, depth - 1), DType::Bool, 1);
  }
  if (r < 60) {
    static const std::vector<std::string> ops = {"&", "|", "^"};
    return binary(pick(ops), bool_expr(depth - 1), bool_expr(depth - 1), DType::Bool, 1);
  }
  if (r < 70) return unary("~", bool_expr(depth - 1), 1);
  if (r < 75) return where(bool_expr(depth - 1), bool_expr(depth - 1), bool_expr(depth - 1));
  if (r < 80 && !scan_body_) return concat_where(DType::Bool, depth);
  if (r < 85) return astype(int_expr(depth - 1), DType::Bool);
  return scan_body_ ? bool_expr(0) : leaf(DType::Bool);
}

NodeP Generator::expr(DType t, int depth) {
  if (depth <= 0) return t == DType::Bool ? bool_expr(0) : leaf(t);
  switch (t) {
    case DType::Float64: return float_expr(depth);
    case DType::Int32: return int_expr(depth);
    case DType::Bool: return bool_expr(depth);
  }
  throw std::logic_error("dtype");
}

// Conservative read extents: the smallest and largest total shift along each dimension of
// any read of a field (ignoring that concat_where evaluates each branch only where taken).
void extents(const Node& n, Index3 acc, Index3& lo, Index3& hi) {
  switch (n.kind) {
    case Node::Kind::Field:
      for (int d = 0; d < kNumDims; ++d)
        if (n.dims & (1u << d)) lo[d] = std::min(lo[d], acc[d]), hi[d] = std::max(hi[d], acc[d]);
      return;
    case Node::Kind::Var: extents(*n.var, acc, lo, hi); return;
    case Node::Kind::Shift:
      for (int d = 0; d < kNumDims; ++d) acc[d] += n.shift[d];
      break;
    default: break;
  }
  for (const NodeP& a : n.args) extents(*a, acc, lo, hi);
}

void Generator::choose_domain(SubProgram& sp, bool want_error) {
  Index3 lo{}, hi{};
  for (const NodeP& r : sp.results) extents(*r, {}, lo, hi);
  for (const NodeP& r : sp.scan.args) extents(*r, {}, lo, hi);
  Box full, safe;
  for (int d = 0; d < kNumDims; ++d) {
    bool has = sp.out_dims & (1u << d);
    full.lo[d] = 0;
    full.hi[d] = has ? u_.sizes[d] : 1;
    safe.lo[d] = has ? std::max<std::int64_t>(0, -lo[d]) : 0;
    safe.hi[d] = has ? u_.sizes[d] - std::max<std::int64_t>(0, hi[d]) : 1;
  }
  auto valid = [&](const Box& b, std::string* why) {
    // Without guarded boundary reads, a box counts as valid only where every branch of every
    // concat_where could be read on all of it.
    if (!opt_.guarded_boundary_reads && !want_error)
      for (int d = 0; d < kNumDims; ++d)
        if (b.lo[d] < safe.lo[d] || b.hi[d] > safe.hi[d]) return false;
    for (const NodeP& r : sp.results)
      if (!reads_in_bounds(*r, b, u_, why)) return false;
    for (const NodeP& r : sp.scan.args)
      if (!reads_in_bounds(*r, b, u_, why)) return false;
    return true;
  };
  if (want_error) {
    // A box inside the output field that some read leaves the inputs with; else a domain
    // beyond the output field.
    for (int attempt = 0; attempt < 8; ++attempt) {
      Box b = safe;
      int d = uniform(0, kNumDims - 1);
      if (!(sp.out_dims & (1u << d))) continue;
      if (chance(0.5))
        b.lo[d] = std::max<std::int64_t>(0, b.lo[d] - uniform(1, 2));
      else
        b.hi[d] = std::min(u_.sizes[d], b.hi[d] + uniform(1, 2));
      if (b.empty() || valid(b, &sp.why)) continue;
      sp.box = b;
      sp.out_style = b.lo == full.lo && b.hi == full.hi ? "full" : "domain";
      sp.expect_error = true;
      return;
    }
    Box b = safe.empty() ? full : safe;
    int d = 0;
    while (!(sp.out_dims & (1u << d))) ++d;
    b.hi[d] = u_.sizes[d] + 1;
    sp.box = b;
    sp.out_style = "domain";
    sp.expect_error = true;
    sp.why = "the domain leaves the output field along " + std::string(u_.dim_names.at(d));
    return;
  }
  std::string why;
  if (valid(full, &why) && chance(0.7)) {
    sp.box = full;
    sp.out_style = chance(0.8) ? "full" : (chance(0.5) ? "slice" : "domain");
    return;
  }
  Box b = safe;
  for (int d = 0; d < kNumDims; ++d)
    if (sp.out_dims & (1u << d)) {
      if (chance(0.3)) b.lo[d] += 1;
      if (chance(0.3)) b.hi[d] -= 1;
    }
  if (b.empty()) b = safe;
  sp.box = b;
  sp.out_style = chance(0.5) ? "slice" : "domain";
}

void Generator::scan_program(SubProgram& sp) {
  sp.is_scan = true;
  Scan& s = sp.scan;
  s.forward = chance(0.5);
  int carries = uniform(1, 2);
  int params = uniform(1, 2);
  for (int i = 0; i < params; ++i) {
    NodeP a = expr(DType::Float64, uniform(0, 2));
    // Scan arguments stay within [-2, 2] so that the carries stay bounded (below).
    while (a->bound > 2) a = leaf(DType::Float64);
    s.args.push_back(lift(a, kAllDims));
  }
  for (int c = 0; c < carries; ++c) s.init.push_back(uniform(-4, 4) / 2.0);
  scan_body_ = true;
  scan_params_ = params;
  for (int c = 0; c < carries; ++c) {
    // new carry = a * c0 (+ b * c1) + g(x): |a| + |b| <= 3/4 keeps the carries bounded.
    NodeP g = expr(DType::Float64, uniform(1, 2));
    while (g->bound > 8) g = leaf(DType::Float64);
    NodeP sum = g;
    for (int k = 0; k < carries; ++k) {
      Node cr;
      cr.kind = Node::Kind::Scalar;
      cr.dtype = DType::Float64;
      cr.name = "c" + std::to_string(k);
      cr.bound = 32;
      NodeP term =
          binary("*", literal(DType::Float64, uniform(-3, 3) / 8.0), make_node(cr), DType::Float64, 12);
      sum = chance(0.5) ? binary("+", term, sum, DType::Float64, 40)
                        : binary("+", sum, term, DType::Float64, 40);
    }
    s.body.push_back(sum);
  }
  scan_body_ = false;
  sp.out_dims = kAllDims;
  sp.results.clear();
}

SubProgram Generator::program(std::uint64_t number, std::uint64_t seed) {
  SubProgram sp;
  sp.number = number;
  sp.seed = seed;
  bool want_error = chance(opt_.error_rate);
  if (opt_.scans && chance(0.12)) {
    scan_program(sp);
    choose_domain(sp, want_error);
    return sp;
  }
  int nvars = uniform(0, 2);
  for (int v = 0; v < nvars; ++v) {
    DType t = chance(0.7) ? DType::Float64 : (chance(0.5) ? DType::Int32 : DType::Bool);
    NodeP e = expr(t, uniform(1, 2));
    if (e->dims == 0) continue;  // only fields can be shifted; scalars add nothing here
    std::string name = "t" + std::to_string(vars_.size());
    vars_.emplace_back(name, e);
  }
  int nres = opt_.tuples && chance(0.2) ? 2 : 1;
  for (int r = 0; r < nres; ++r) {
    DType t = chance(0.6) ? DType::Float64 : (chance(0.6) ? DType::Int32 : DType::Bool);
    NodeP e = expr(t, uniform(1, opt_.max_depth));
    if (e->dims == 0) e = binary(t == DType::Bool ? "&" : "+", e, field_leaf(t), t, e->bound + 20);
    sp.results.push_back(e);
  }
  unsigned dims = 0;
  for (const NodeP& e : sp.results) dims |= e->dims;
  for (NodeP& e : sp.results) e = lift(e, dims);
  sp.out_dims = dims;
  sp.vars = vars_;
  if (want_error && opt_.aliased_outputs && chance(0.3) && alias_output(sp)) return sp;
  if (want_error && opt_.negative_int_powers && chance(0.2) && negative_power(sp)) return sp;
  choose_domain(sp, want_error);
  return sp;
}

// An integer to a negative integer power at every point (`n1 ** (n0 - 21)`, n0 <= 20): NumPy
// raises, so every backend must refuse it, wherever the domain is.
bool Generator::negative_power(SubProgram& sp) {
  Node n;
  n.kind = Node::Kind::Field;
  n.dtype = DType::Int32;
  n.dims = kAllDims;
  n.bound = 20;
  n.name = "n0";
  NodeP n0 = make_node(n);
  n.name = "n1";
  NodeP n1 = make_node(n);
  NodeP e = binary("-", n0, literal(DType::Int32, 21), DType::Int32, 41);
  NodeP p = binary("**", n1, e, DType::Int32, 1);
  const NodeP& first = sp.results[0];
  if (first->dtype == DType::Float64 ? first->bound >= kToIntLimit : first->bound > kIntLimit / 2)
    return false;
  NodeP r = first->dtype == DType::Int32 ? first : astype(first, DType::Int32);
  sp.results = {lift(binary("+", r, p, DType::Int32, r->bound + 1), kAllDims)};
  sp.out_dims = kAllDims;
  choose_domain(sp, false);
  sp.expect_error = true;
  sp.why = "n1 ** (n0 - 21): an integer to a negative integer power";
  return true;
}

// `f(a, out=a)` where f reads `a` at an offset: gt4py evaluates the whole right-hand side before
// writing (docs/adr/0043), which the NumPy meaning does too (it stores the result computed from
// the inputs into the input's box). A valid program, run alone: it changes an input others read.
bool Generator::alias_output(SubProgram& sp) {
  if (sp.results.size() != 1 || sp.out_dims != kAllDims) return false;
  std::function<const Node*(const Node&)> shifted_input = [&](const Node& n) -> const Node* {
    if (n.kind == Node::Kind::Shift && n.args[0]->kind == Node::Kind::Field && n.args[0]->dims == kAllDims &&
        n.args[0]->dtype == sp.results[0]->dtype)
      return n.args[0].get();
    if (n.kind == Node::Kind::Var) return shifted_input(*n.var);
    for (const NodeP& a : n.args)
      if (const Node* f = shifted_input(*a)) return f;
    return nullptr;
  };
  const Node* f = shifted_input(*sp.results[0]);
  if (!f) return false;
  // A box on which every read is inside, so that the aliasing is the only fault.
  Index3 lo{}, hi{};
  extents(*sp.results[0], {}, lo, hi);
  for (int d = 0; d < kNumDims; ++d) {
    sp.box.lo[d] = std::max<std::int64_t>(0, -lo[d]);
    sp.box.hi[d] = u_.sizes[d] - std::max<std::int64_t>(0, hi[d]);
  }
  if (sp.box.empty()) return false;
  sp.out_alias = f->name;
  sp.out_style = "domain";
  sp.why = "out= is the input '" + f->name + "', which the operator reads at an offset";
  return true;
}

}  // namespace

bool reads_in_bounds(const Node& n, const Box& box, const Universe& U, std::string* why) {
  const Index3& sizes = U.sizes;
  if (box.empty()) return true;
  switch (n.kind) {
    case Node::Kind::Field:
      for (int d = 0; d < kNumDims; ++d)
        if ((n.dims & (1u << d)) && (box.lo[d] < 0 || box.hi[d] > sizes[d])) {
          if (why)
            *why = "'" + n.name + "' is read at " + U.dim_names.at(d) + " " +
                   std::to_string(box.lo[d] < 0 ? box.lo[d] : box.hi[d] - 1) + ", outside [0, " +
                   std::to_string(sizes[d]) + ")";
          return false;
        }
      return true;
    case Node::Kind::Var: return reads_in_bounds(*n.var, box, U, why);
    case Node::Kind::Shift: return reads_in_bounds(*n.args[0], box.shifted(n.shift), U, why);
    case Node::Kind::ConcatWhere:
      for (const Box& b : cond_parts(n.cond, box, true))
        if (!reads_in_bounds(*n.args[0], b, U, why)) return false;
      for (const Box& b : cond_parts(n.cond, box, false))
        if (!reads_in_bounds(*n.args[1], b, U, why)) return false;
      return true;
    default:
      for (const NodeP& a : n.args)
        if (!reads_in_bounds(*a, box, U, why)) return false;
      return true;
  }
}

SubProgram generate_program(std::uint64_t seed, std::uint64_t number, const GeneratorOptions& options) {
  const std::uint64_t z = program_stream(seed, number, 0x9E3779B97F4A7C15ull, 0x632BE59BD9B4E019ull);
  Generator g(z, options);
  return g.program(number, seed);
}

}  // namespace weir::fvdiff
