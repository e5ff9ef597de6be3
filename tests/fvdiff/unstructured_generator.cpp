#include "unstructured_generator.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <set>

namespace weir::fvdiff {

namespace {

constexpr unsigned kK = 4;  // the K bit
constexpr double kFloatLimit = 1e12;

class MeshGenerator : Dice {
 public:
  MeshGenerator(std::uint64_t seed, const GeneratorOptions& o) : Dice(seed), opt_(o), u_(mesh_universe()) {}
  SubProgram program(std::uint64_t number, std::uint64_t seed);

 private:
  const GeneratorOptions& opt_;
  const Universe& u_;
  std::vector<std::pair<std::string, NodeP>> vars_;

  /// A field or variable at location `loc` (0 vertices, 1 edges), maybe shifted along K.
  NodeP located(int loc, bool allow_shift);
  NodeP expr(int loc, int depth);
  NodeP cmp(int loc, int depth);
  NodeP binary(const std::string& op, NodeP a, NodeP b, DType t, double bound) {
    Node n;
    n.kind = Node::Kind::Binary;
    n.dtype = t;
    n.name = op;
    n.dims = a->dims | b->dims;
    n.bound = bound;
    n.args = {std::move(a), std::move(b)};
    return make_node(n);
  }
  NodeP literal(double v) {
    Node n;
    n.kind = Node::Kind::Literal;
    n.value = v;
    n.bound = std::abs(v);
    return make_node(n);
  }
};

NodeP MeshGenerator::located(int loc, bool allow_shift) {
  const unsigned dims = (1u << loc) | kK;
  std::vector<NodeP> c;
  for (const Input& i : u_.inputs)
    if (i.dims == dims && i.dtype == DType::Float64) {
      Node n;
      n.kind = Node::Kind::Field;
      n.name = i.name;
      n.dims = dims;
      n.bound = 1;
      c.push_back(make_node(n));
    }
  for (const auto& [name, v] : vars_)
    if (v->dims == dims && v->dtype == DType::Float64) {
      Node n;
      n.kind = Node::Kind::Var;
      n.name = name;
      n.dims = dims;
      n.bound = v->bound;
      n.var = v.get();
      c.push_back(make_node(n));
      c.push_back(c.back());  // variables twice as likely: they are where lowering has work
    }
  NodeP f = c[static_cast<std::size_t>(uniform(0, static_cast<int>(c.size()) - 1))];
  if (!allow_shift || !chance(0.3)) return f;
  Node s;
  s.kind = Node::Kind::Shift;
  s.dims = f->dims;
  s.bound = f->bound;
  s.shift[2] = chance(0.5) ? 1 : -1;
  s.args = {f};
  return make_node(s);
}

NodeP MeshGenerator::cmp(int loc, int depth) {
  static const char* ops[] = {"<", "<=", ">", ">=", "!="};
  NodeP a = expr(loc, depth - 1), b = expr(loc, depth - 1);
  return binary(ops[uniform(0, 4)], a, b, DType::Bool, 1);
}

NodeP MeshGenerator::expr(int loc, int depth) {
  if (depth <= 0) {
    int r = uniform(0, 9);
    if (r == 0) return literal(uniform(-8, 8) / 4.0);
    if (r == 1) {
      Node n;
      n.kind = Node::Kind::Scalar;
      n.name = "alpha";
      n.bound = 0.75;
      return make_node(n);
    }
    return located(loc, true);
  }
  for (;;) {
    int r = uniform(0, 99);
    const unsigned dims = (1u << loc) | kK;
    if (r < 30) {
      static const char* ops[] = {"+", "-", "*"};
      const std::string op = ops[uniform(0, 2)];
      NodeP a = expr(loc, depth - 1), b = expr(loc, depth - 1);
      double bound = op == "*" ? a->bound * b->bound : a->bound + b->bound;
      if (bound < kFloatLimit) return binary(op, a, b, DType::Float64, bound);
    } else if (r < 45) {
      // A direct neighbour: the other location's field at neighbour j.
      const Table& t = u_.table(loc == 1 ? "E2V" : "V2E");
      Node n;
      n.kind = Node::Kind::Neighbor;
      n.offset = t.name;
      // Columns with a -1 somewhere (E2V[1], V2E[4], V2E[5]) only when allowed.
      n.value = opt_.direct_shifts_near_missing ? uniform(0, static_cast<int>(t.cols) - 1)
                                                : (loc == 1 ? 0 : uniform(0, 3));
      n.dims = dims;
      NodeP x = located(t.to, false);
      n.bound = x->bound;
      n.args = {x};
      return make_node(n);
    } else if (r < 65) {
      const Table& t = u_.table(loc == 1 ? "E2V" : "V2E");
      static const char* red[] = {"neighbor_sum", "max_over", "min_over"};
      Node n;
      n.kind = Node::Kind::Reduce;
      n.name = red[uniform(0, 2)];
      n.offset = t.name;
      n.dims = dims;
      NodeP x = located(t.to, false);
      n.args = {x};
      if (chance(0.5)) {
        Node w;
        w.kind = Node::Kind::Field;
        w.name = loc == 1 ? "we" : "w";
        w.dims = 1u << loc;
        w.bound = 1;
        n.args.push_back(make_node(w));
      }
      n.bound = x->bound * static_cast<double>(t.cols);
      return make_node(n);
    } else if (r < 75) {
      Node n;
      n.kind = Node::Kind::Where;
      NodeP m = cmp(loc, depth - 1), a = expr(loc, depth - 1), b = expr(loc, depth - 1);
      n.dims = m->dims | a->dims | b->dims;
      n.bound = std::max(a->bound, b->bound);
      n.args = {m, a, b};
      return make_node(n);
    } else if (r < 85) {
      Node n;
      n.kind = Node::Kind::ConcatWhere;
      static const char* ops[] = {"==", "<", ">=", "in"};
      n.cond.dim = 2;
      n.cond.op = ops[uniform(0, 3)];
      n.cond.value = uniform(0, static_cast<int>(u_.sizes[2]) - 1);
      n.cond.value2 = uniform(static_cast<int>(n.cond.value), static_cast<int>(u_.sizes[2]));
      NodeP a = expr(loc, depth - 1), b = expr(loc, depth - 1);
      n.dims = a->dims | b->dims | kK;
      n.bound = std::max(a->bound, b->bound);
      n.args = {a, b};
      return make_node(n);
    } else if (r < 92) {
      Node n;
      n.kind = Node::Kind::Unary;
      n.name = "-";
      NodeP a = expr(loc, depth - 1);
      n.dims = a->dims;
      n.bound = a->bound;
      n.args = {a};
      return make_node(n);
    } else {
      return expr(loc, 0);
    }
  }
}

// The K shifts along every path: smallest and largest.
void k_extent(const Node& n, std::int64_t acc, std::int64_t& lo, std::int64_t& hi) {
  if (n.kind == Node::Kind::Field && (n.dims & kK)) lo = std::min(lo, acc), hi = std::max(hi, acc);
  if (n.kind == Node::Kind::Var) k_extent(*n.var, acc, lo, hi);
  if (n.kind == Node::Kind::Shift) acc += n.shift[2];
  for (const NodeP& a : n.args) k_extent(*a, acc, lo, hi);
}

SubProgram MeshGenerator::program(std::uint64_t number, std::uint64_t seed) {
  for (;;) {
    SubProgram sp;
    sp.universe = &u_;
    sp.number = number;
    sp.seed = seed;
    vars_.clear();
    bool want_error = chance(opt_.error_rate) && opt_.missing_neighbour_shifts;
    sp.int64_tables = opt_.int64_tables && chance(0.3);
    int nvars = uniform(0, 2);
    for (int v = 0; v < nvars; ++v) {
      int loc = uniform(0, 1);
      vars_.emplace_back("t" + std::to_string(v), expr(loc, uniform(1, 2)));
    }
    const int loc = uniform(0, 1);
    NodeP e = expr(loc, uniform(1, opt_.max_depth));
    if (want_error) {
      // A direct shift to a missing neighbour somewhere in the output domain.
      const Table& t = u_.table(loc == 1 ? "E2V" : "V2E");
      Node n;
      n.kind = Node::Kind::Neighbor;
      n.offset = t.name;
      n.value = loc == 1 ? 1 : uniform(4, 5);
      n.dims = (1u << loc) | kK;
      n.args = {located(t.to, false)};
      n.bound = 1;
      e = binary("+", e, make_node(n), DType::Float64, e->bound + 1);
    }
    sp.results = {e};
    if (opt_.tuples && chance(0.2)) sp.results.push_back(expr(loc, uniform(1, 2)));
    for (NodeP& r : sp.results)  // a result over the output's dimensions, not a scalar or K only
      if (r->dims != ((1u << loc) | kK))
        r = binary("+", r, located(loc, false), DType::Float64, r->bound + 1);
    // Every variable, also those no result reads: dead code must not change the program's
    // signature (its tables are arguments on every backend).
    sp.vars = vars_;
    sp.out_dims = (1u << loc) | kK;
    // K range: the shifts' margins (no guarded reads on K here), maybe one level less.
    std::int64_t klo = 0, khi = 0;
    for (const NodeP& r : sp.results) k_extent(*r, 0, klo, khi);
    Box box;
    box.lo = {0, 0, std::max<std::int64_t>(0, -klo)};
    box.hi = {1, 1, u_.sizes[2] - std::max<std::int64_t>(0, khi)};
    if (chance(0.2) && box.hi[2] - box.lo[2] > 1) box.lo[2] += 1;
    if (box.empty()) continue;
    const std::int64_t n = u_.sizes[static_cast<std::size_t>(loc)];
    // Rows: every point where the program is defined alone, the longest such run (or all).
    auto defined = [&](std::int32_t r, std::string* why) {
      for (const NodeP& x : sp.results)
        if (!reads_defined(*x, {r}, box, u_, why)) return false;
      return true;
    };
    std::int64_t best_lo = 0, best_len = 0, cur_lo = 0;
    std::string why;
    for (std::int64_t r = 0; r <= n; ++r) {
      bool ok = r < n && defined(static_cast<std::int32_t>(r), &why);
      if (!ok) {
        if (r - cur_lo > best_len) best_lo = cur_lo, best_len = r - cur_lo;
        cur_lo = r + 1;
      }
    }
    if (want_error) {
      if (best_len == n) continue;  // no missing neighbour reached: try another program
      box.lo[static_cast<std::size_t>(loc)] = 0;
      box.hi[static_cast<std::size_t>(loc)] = n;
      std::vector<std::int32_t> all(static_cast<std::size_t>(n));
      for (std::int64_t r = 0; r < n; ++r) all[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(r);
      reads_defined(*sp.results[0], all, box, u_, &sp.why);
      sp.expect_error = true;
      sp.box = box;
      sp.out_style = chance(0.5) ? "full" : "domain";
      return sp;
    }
    if (best_len == 0) continue;
    if (best_len < n && chance(0.3)) continue;  // prefer programs defined everywhere
    box.lo[static_cast<std::size_t>(loc)] = best_lo;
    box.hi[static_cast<std::size_t>(loc)] = best_lo + best_len;
    sp.box = box;
    const bool whole = best_len == n && box.lo[2] == 0 && box.hi[2] == u_.sizes[2];
    sp.out_style = whole && chance(0.7) ? "full" : (chance(0.5) ? "slice" : "domain");
    return sp;
  }
}

}  // namespace

bool reads_defined(const Node& n, const std::vector<std::int32_t>& rows, const Box& kbox, const Universe& u,
                   std::string* why) {
  if (rows.empty() || kbox.empty()) return true;
  switch (n.kind) {
    case Node::Kind::Field:
      if ((n.dims & kK) && (kbox.lo[2] < 0 || kbox.hi[2] > u.sizes[2])) {
        if (why)
          *why =
              "'" + n.name + "' is read at K " + std::to_string(kbox.lo[2] < 0 ? kbox.lo[2] : kbox.hi[2] - 1);
        return false;
      }
      return true;
    case Node::Kind::Var: return reads_defined(*n.var, rows, kbox, u, why);
    case Node::Kind::Shift: return reads_defined(*n.args[0], rows, kbox.shifted(n.shift), u, why);
    case Node::Kind::Neighbor: {
      const Table& t = u.table(n.offset);
      std::set<std::int32_t> to;
      for (std::int32_t r : rows) {
        std::int32_t x = t.at(r, static_cast<std::int64_t>(n.value));
        if (x < 0) {
          if (why)
            *why = n.offset + "[" + std::to_string(r) + ", " + std::to_string(static_cast<int>(n.value)) +
                   "] is -1 (no neighbour), read by the direct shift " + n.args[0]->name + "(" + n.offset +
                   "[" + std::to_string(static_cast<int>(n.value)) + "])";
          return false;
        }
        to.insert(x);
      }
      return reads_defined(*n.args[0], std::vector<std::int32_t>(to.begin(), to.end()), kbox, u, why);
    }
    case Node::Kind::Reduce: {
      const Table& t = u.table(n.offset);
      std::set<std::int32_t> to;
      for (std::int32_t r : rows)
        for (std::int64_t c = 0; c < t.cols; ++c)
          if (t.at(r, c) >= 0) to.insert(t.at(r, c));
      return reads_defined(*n.args[0], std::vector<std::int32_t>(to.begin(), to.end()), kbox, u, why);
    }
    case Node::Kind::ConcatWhere:
      for (const Box& b : cond_parts(n.cond, kbox, true))
        if (!reads_defined(*n.args[0], rows, b, u, why)) return false;
      for (const Box& b : cond_parts(n.cond, kbox, false))
        if (!reads_defined(*n.args[1], rows, b, u, why)) return false;
      return true;
    default:
      for (const NodeP& a : n.args)
        if (!reads_defined(*a, rows, kbox, u, why)) return false;
      return true;
  }
}

SubProgram generate_unstructured_program(std::uint64_t seed, std::uint64_t number,
                                         const GeneratorOptions& options) {
  const std::uint64_t z = program_stream(seed, number, 0xD1B54A32D192ED03ull, 0x8CB92BA72F3D8DD7ull);
  MeshGenerator g(z, options);
  return g.program(number, seed);
}

}  // namespace weir::fvdiff
