// Read-after-write overlaps of program calls: a forward walk of the callee's body that follows,
// for every value and every tuple element of it, the offsets at which it reads an output of the
// call and the part of the domain where it is used; then, per output, whether some point of the
// call's domain reads it where another point writes it (docs/adr/0043).
#include "out_hazards.h"

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "weir/frontend/lowering.h"
#include "weir/pycode/source.h"
#include "weir/sdfg/symbolic.h"

namespace weir::frontend {
namespace {

using Sym = std::optional<sym::Expr>;

/// Bounds of one dimension of the points where a value is used: the point is >= every `lo`
/// and <= every `hi` (an intersection keeps all of them: weir cannot always say which is the
/// tighter one).
struct Bounds {
  std::vector<sym::Expr> lo, hi;
};
using Box = std::map<std::string, Bounds>;  // dimension name -> bounds; absent: unbounded

/// A read of output field `field` at (point + offset), needed where the point is in `guard`.
struct Dep {
  std::string field;
  std::map<std::string, std::optional<std::int64_t>> offset;  ///< absent: 0; nullopt: any
  bool anywhere = false;                                      ///< a neighbour's point: any point
  Box guard;
  SourceLocation loc;
};

/// Reads, deduplicated by what decides an overlap.
using Deps = std::map<std::string, Dep>;

std::string key_of(const Dep& d) {
  std::string k = d.field + (d.anywhere ? "|*" : "|");
  if (!d.anywhere) {
    for (const auto& [dim, o] : d.offset) k += dim + "=" + (o ? std::to_string(*o) : "?") + ",";
    k += "|";
    for (const auto& [dim, b] : d.guard) {
      k += dim + "[";
      for (const auto& e : b.lo) k += e.str() + ";";
      k += ":";
      for (const auto& e : b.hi) k += e.str() + ";";
      k += "]";
    }
  }
  return k;
}

/// More reads than this in one value: they are merged into reads of any point (a bound on the
/// work; a value that reads an output at so many offsets overlaps anyway).
constexpr std::size_t kMaxDeps = 256;

void add(Deps& into, Dep d) {
  if (d.anywhere) {
    d.offset.clear();
    d.guard.clear();
  }
  into.emplace(key_of(d), std::move(d));
  if (into.size() <= kMaxDeps) return;
  Deps merged;
  for (auto& [k, x] : into) {
    x.anywhere = true;
    x.offset.clear();
    x.guard.clear();
    merged.emplace(key_of(x), x);
  }
  into = std::move(merged);
}

void add_all(Deps& into, const Deps& from) {
  for (const auto& [k, d] : from) add(into, d);
}

/// An abstract value: a leaf with the reads it depends on, or a tuple of such values.
struct AVal {
  bool tuple = false;
  std::vector<AVal> elems;
  Deps deps;  ///< leaf only
};

void flatten(const AVal& v, Deps& out) {
  if (!v.tuple) return add_all(out, v.deps);
  for (const AVal& e : v.elems) flatten(e, out);
}

AVal leaf(Deps d) {
  AVal v;
  v.deps = std::move(d);
  return v;
}

AVal flat_value(const AVal& v) {
  Deps d;
  flatten(v, d);
  return leaf(std::move(d));
}

/// Either of two values (branches): element-wise where both are tuples of one size.
AVal merge(const AVal& a, const AVal& b) {
  if (a.tuple && b.tuple && a.elems.size() == b.elems.size()) {
    AVal r;
    r.tuple = true;
    for (std::size_t i = 0; i < a.elems.size(); ++i) r.elems.push_back(merge(a.elems[i], b.elems[i]));
    return r;
  }
  if (a.tuple && !b.tuple && b.deps.empty()) return a;
  if (b.tuple && !a.tuple && a.deps.empty()) return b;
  Deps d;
  flatten(a, d);
  flatten(b, d);
  return leaf(std::move(d));
}

/// `v` with `fn` applied to every read of every leaf.
AVal map_deps(const AVal& v, const std::function<void(Dep&)>& fn) {
  AVal r;
  r.tuple = v.tuple;
  if (v.tuple) {
    for (const AVal& e : v.elems) r.elems.push_back(map_deps(e, fn));
    return r;
  }
  for (const auto& [k, d] : v.deps) {
    Dep x = d;
    fn(x);
    add(r.deps, std::move(x));
  }
  return r;
}

/// `v` with `extra` added to every leaf.
AVal with_deps(const AVal& v, const Deps& extra) {
  if (extra.empty()) return v;
  AVal r = v;
  if (r.tuple) {
    for (AVal& e : r.elems) e = with_deps(e, extra);
    return r;
  }
  add_all(r.deps, extra);
  return r;
}

void intersect(Box& into, const Box& b) {
  for (const auto& [dim, x] : b) {
    Bounds& t = into[dim];
    t.lo.insert(t.lo.end(), x.lo.begin(), x.lo.end());
    t.hi.insert(t.hi.end(), x.hi.begin(), x.hi.end());
  }
}

/// Where a domain condition holds and where it does not, as boxes; nullopt: no restriction
/// weir can state (the whole domain).
struct Split {
  std::optional<Box> then, orelse;
};

/// Names of scalar parameters -> their value as a symbolic expression of the program's
/// parameters (nullopt where it is not an integer expression of them).
using SymEnv = std::map<std::string, Sym>;

Sym to_sym(const TExpr& e, const SymEnv* env) {
  try {
    switch (e.kind) {
      case TExprKind::Literal:
        if (e.literal.kind == ConstantValue::Kind::Int) return sym::Expr(e.literal.int_value);
        return std::nullopt;
      case TExprKind::Name:
        if (!env) return sym::Expr::symbol(e.name);
        if (auto it = env->find(e.name); it != env->end()) return it->second;
        return std::nullopt;
      case TExprKind::Unary: {
        Sym a = to_sym(*e.args[0], env);
        if (!a) return std::nullopt;
        if (e.unary_op == UnaryOperator::USub) return -*a;
        if (e.unary_op == UnaryOperator::UAdd) return a;
        return std::nullopt;
      }
      case TExprKind::Binary: {
        Sym a = to_sym(*e.args[0], env), b = to_sym(*e.args[1], env);
        if (!a || !b) return std::nullopt;
        if (e.binary_op == BinaryOperator::Add) return *a + *b;
        if (e.binary_op == BinaryOperator::Sub) return *a - *b;
        if (e.binary_op == BinaryOperator::Mult) return *a * *b;
        return std::nullopt;
      }
      case TExprKind::Builtin:
        // An integer cast of an integer expression (int32(n), astype(n, int64)) keeps its value.
        if (e.args.size() >= 1 && e.type.is_scalar() && is_integral(e.type.dtype) &&
            e.args[0]->type.is_scalar() && is_integral(e.args[0]->type.dtype) &&
            (e.name == "astype" || e.name == "int32" || e.name == "int64"))
          return to_sym(*e.args[0], env);
        return std::nullopt;
      default: return std::nullopt;
    }
  } catch (const std::exception&) {
    return std::nullopt;
  }
}

Split condition(const TExpr& c, const SymEnv& env) {
  Split s;
  if (c.kind == TExprKind::DomainCompare && !c.args.empty()) {
    Sym b = to_sym(*c.args[0], &env);
    if (!b) return s;
    auto box = [&](std::optional<sym::Expr> lo, std::optional<sym::Expr> hi) {
      Box x;
      Bounds& bd = x[c.dim.name];
      if (lo) bd.lo.push_back(*lo);
      if (hi) bd.hi.push_back(*hi);
      return x;
    };
    const sym::Expr one(1);
    switch (c.compare_op) {
      case CompareOperator::Eq: s.then = box(*b, *b); break;
      case CompareOperator::NotEq: s.orelse = box(*b, *b); break;
      case CompareOperator::Lt:
        s.then = box(std::nullopt, *b - one);
        s.orelse = box(*b, std::nullopt);
        break;
      case CompareOperator::LtE:
        s.then = box(std::nullopt, *b);
        s.orelse = box(*b + one, std::nullopt);
        break;
      case CompareOperator::Gt:
        s.then = box(*b + one, std::nullopt);
        s.orelse = box(std::nullopt, *b);
        break;
      case CompareOperator::GtE:
        s.then = box(*b, std::nullopt);
        s.orelse = box(std::nullopt, *b - one);
        break;
      default: break;
    }
    return s;
  }
  auto both = [](const std::optional<Box>& a, const std::optional<Box>& b) -> std::optional<Box> {
    if (!a) return b;
    if (!b) return a;
    Box r = *a;
    intersect(r, *b);
    return r;
  };
  if (c.kind == TExprKind::Binary && c.args.size() == 2 &&
      (c.binary_op == BinaryOperator::BitAnd || c.binary_op == BinaryOperator::BitOr)) {
    Split l = condition(*c.args[0], env), r = condition(*c.args[1], env);
    if (c.binary_op == BinaryOperator::BitAnd)
      s.then = both(l.then, r.then);  // a & b holds inside both; fails anywhere: no box
    else
      s.orelse = both(l.orelse, r.orelse);
    return s;
  }
  if (c.kind == TExprKind::Unary && !c.args.empty() &&
      (c.unary_op == UnaryOperator::Invert || c.unary_op == UnaryOperator::Not)) {
    Split x = condition(*c.args[0], env);
    s.then = x.orelse;
    s.orelse = x.then;
  }
  return s;
}

bool is_domain_condition(const TExpr& c) {
  if (c.kind == TExprKind::DomainCompare) return true;
  if ((c.kind == TExprKind::Binary || c.kind == TExprKind::Unary) && !c.args.empty()) {
    for (const auto& a : c.args)
      if (!a || !is_domain_condition(*a)) return false;
    return true;
  }
  return false;
}

AVal guarded(const AVal& v, const std::optional<Box>& box) {
  if (!box) return v;
  return map_deps(v, [&](Dep& d) {
    if (!d.anywhere) intersect(d.guard, *box);
  });
}

struct Frame {
  std::map<std::string, AVal> names;
  SymEnv syms;
};

/// Whether `d` reads another point than the one it is evaluated at (maybe).
bool moved(const Dep& d) {
  if (d.anywhere) return true;
  for (const auto& [dim, o] : d.offset)
    if (!o || *o != 0) return true;
  return false;
}

class Walker {
 public:
  AVal expr(const TExpr& e, const Frame& f, int depth) {
    switch (e.kind) {
      case TExprKind::Name: {
        auto it = f.names.find(e.name);
        return it == f.names.end() ? AVal{} : it->second;
      }
      case TExprKind::Literal: return AVal{};
      case TExprKind::Tuple: {
        AVal r;
        r.tuple = true;
        for (const auto& a : e.args) r.elems.push_back(a ? expr(*a, f, depth) : AVal{});
        return r;
      }
      case TExprKind::TupleGet: {
        AVal t = expr(*e.args[0], f, depth);
        if (t.tuple) return e.index < t.elems.size() ? t.elems[e.index] : AVal{};
        return t;
      }
      case TExprKind::Shift: return shift(e, f, depth);
      case TExprKind::LocalIndex: return expr(*e.args[0], f, depth);
      case TExprKind::Ternary: {
        Deps c;
        flatten(expr(*e.args[0], f, depth), c);
        return with_deps(merge(expr(*e.args[1], f, depth), expr(*e.args[2], f, depth)), c);
      }
      case TExprKind::Builtin: return builtin(e, f, depth);
      case TExprKind::Call: return call(e, f, depth);
      default: {
        // Unary, Binary, Compare, DomainCompare: a leaf reading what its operands read.
        Deps d;
        for (const auto& a : e.args)
          if (a) flatten(expr(*a, f, depth), d);
        return leaf(std::move(d));
      }
    }
  }

  AVal shift(const TExpr& e, const Frame& f, int depth) {
    AVal v = expr(*e.args[0], f, depth);
    Deps index_reads;  // as_offset's index field is read at the point itself
    // v'(x) = v(x + s): Cartesian steps add up, in any order.
    for (const ShiftStep& s : e.shifts) {
      if (s.index_field) flatten(expr(*s.index_field, f, depth), index_reads);
      const bool same_dim = !s.offset.targets.empty() && s.offset.targets[0] == s.offset.source;
      v = map_deps(v, [&](Dep& d) {
        if (d.anywhere) return;
        // The read is located at the shift that first moves it away from the point.
        if (!moved(d)) d.loc = e.loc;
        if (s.kind == ShiftStep::Kind::Cartesian && same_dim) {
          const std::string& dim = s.offset.source.name;
          auto o = d.offset.find(dim);  // absent: 0
          if (o == d.offset.end())
            d.offset.emplace(dim, s.amount);
          else if (o->second)
            o->second = *o->second + s.amount;
          // The value at x is used where x + amount is in the guard.
          if (auto g = d.guard.find(dim); g != d.guard.end()) {
            for (auto& lo : g->second.lo) lo = lo - sym::Expr(s.amount);
            for (auto& hi : g->second.hi) hi = hi - sym::Expr(s.amount);
          }
          return;
        }
        if (s.kind == ShiftStep::Kind::Dynamic && same_dim) {
          d.offset[s.offset.source.name] = std::nullopt;
          d.guard.erase(s.offset.source.name);
          return;
        }
        d.anywhere = true;
      });
    }
    return with_deps(v, index_reads);
  }

  AVal builtin(const TExpr& e, const Frame& f, int depth) {
    const bool concat = e.name == "concat_where", where = e.name == "where";
    if ((concat || where) && e.args.size() == 3) {
      const TExpr& c = *e.args[0];
      AVal a = expr(*e.args[1], f, depth), b = expr(*e.args[2], f, depth);
      if (is_domain_condition(c)) {
        Split s = condition(c, f.syms);
        return merge(guarded(a, s.then), guarded(b, s.orelse));
      }
      Deps cd;
      flatten(expr(c, f, depth), cd);
      return with_deps(merge(a, b), cd);
    }
    // Element-wise over a tuple (astype((a, b), float64)): each element reads what its own
    // element reads, plus the other arguments.
    if (e.type.is_tuple() && !e.args.empty()) {
      AVal first = expr(*e.args[0], f, depth);
      Deps rest;
      for (std::size_t i = 1; i < e.args.size(); ++i)
        if (e.args[i]) flatten(expr(*e.args[i], f, depth), rest);
      if (first.tuple && first.elems.size() == e.type.elements.size()) return with_deps(first, rest);
      add_all(rest, [&] {
        Deps d;
        flatten(first, d);
        return d;
      }());
      return shaped(e.type, rest);
    }
    Deps d;
    for (const auto& a : e.args)
      if (a) flatten(expr(*a, f, depth), d);
    return leaf(std::move(d));
  }

  /// A value of type `t` whose every leaf reads `d`.
  static AVal shaped(const Type& t, const Deps& d) {
    if (!t.is_tuple()) return leaf(d);
    AVal r;
    r.tuple = true;
    for (const Type& x : t.elements) r.elems.push_back(shaped(x, d));
    return r;
  }

  AVal call(const TExpr& e, const Frame& f, int depth) {
    std::vector<AVal> args;
    std::vector<Sym> syms;
    for (const auto& a : e.args) {
      args.push_back(a ? expr(*a, f, depth) : AVal{});
      syms.push_back(a ? to_sym(*a, &f.syms) : std::nullopt);
    }
    if (!e.callee) return flat_value(merge_all(args));
    return definition(*e.callee, args, syms, depth + 1, /*top=*/false);
  }

  static AVal merge_all(const std::vector<AVal>& v) {
    Deps d;
    for (const AVal& a : v) flatten(a, d);
    return leaf(std::move(d));
  }

  /// The value `d` returns for `args`. A scan operator's result at a level depends on its
  /// arguments at that level (`top`: the call's own callee, whose scan loop writes the
  /// outputs level by level) or, materialized before the call's map, on any level.
  AVal definition(const TypedDefinition& d, const std::vector<AVal>& args, const std::vector<Sym>& syms,
                  int depth, bool top) {
    if (depth > 64) return shaped(d.returns, anywhere(merge_all(args)));  // a bound all the same
    if (d.kind == DefinitionKind::ScanOperator) {
      AVal all = merge_all(args);
      if (!top)
        all = map_deps(all, [&](Dep& x) {
          x.offset[d.axis.name] = std::nullopt;
          x.guard.erase(d.axis.name);
        });
      return shaped(d.returns, all.deps);
    }
    Frame inner;
    for (std::size_t i = 0; i < args.size() && i < d.params.size(); ++i) {
      inner.names[d.params[i].name] = args[i];
      if (d.params[i].type.is_scalar()) inner.syms[d.params[i].name] = syms[i];
    }
    std::optional<AVal> ret;
    stmts(d.body, inner, ret, depth);
    return ret ? *ret : AVal{};
  }

  static Deps anywhere(const AVal& v) {
    Deps out;
    Deps d;
    flatten(v, d);
    for (auto [k, x] : d) {
      x.anywhere = true;
      add(out, x);
    }
    return out;
  }

  void stmts(const std::vector<TStmt>& body, Frame& f, std::optional<AVal>& ret, int depth) {
    for (const TStmt& s : body) {
      switch (s.kind) {
        case TStmt::Kind::Return: {
          AVal v = s.value ? expr(*s.value, f, depth) : AVal{};
          ret = ret ? merge(*ret, v) : v;
          return;
        }
        case TStmt::Kind::Assign: assign(s, f, depth); break;
        case TStmt::Kind::If: {
          Deps cond;
          if (s.value) flatten(expr(*s.value, f, depth), cond);
          Frame a = f, b = f;
          std::optional<AVal> ra, rb;
          stmts(s.body, a, ra, depth);
          stmts(s.orelse, b, rb, depth);
          for (std::optional<AVal>* r : {&ra, &rb})
            if (*r) ret = ret ? merge(*ret, with_deps(**r, cond)) : with_deps(**r, cond);
          // Either branch may run: a name keeps what either binds it to.
          for (Frame* x : {&a, &b})
            for (const auto& [n, v] : x->names) {
              auto it = f.names.find(n);
              f.names[n] = it == f.names.end() ? with_deps(v, cond) : merge(it->second, with_deps(v, cond));
            }
          for (Frame* x : {&a, &b})
            for (const auto& [n, v] : x->syms) {
              auto it = f.syms.find(n);
              if (it == f.syms.end())
                f.syms[n] = std::nullopt;
              else if (!(it->second && v && it->second->str() == v->str()))
                it->second = std::nullopt;
            }
          break;
        }
      }
    }
  }

  void assign(const TStmt& s, Frame& f, int depth) {
    AVal v = s.value ? expr(*s.value, f, depth) : AVal{};
    Sym sv = s.value && s.targets.size() == 1 && !s.tuple_target ? to_sym(*s.value, &f.syms) : std::nullopt;
    if (!s.tuple_target) {
      for (const auto& t : s.targets) {
        f.names[t] = v;
        f.syms[t] = sv;
      }
      return;
    }
    const std::size_t n = s.targets.size();
    for (std::size_t i = 0; i < n; ++i) {
      AVal x;
      if (!v.tuple) {
        x = v;
      } else if (s.starred < 0) {
        x = i < v.elems.size() ? v.elems[i] : AVal{};
      } else {
        // a, *rest, z = (...): rest takes the elements between.
        const std::size_t star = static_cast<std::size_t>(s.starred), after = n - 1 - star;
        if (i < star) {
          x = i < v.elems.size() ? v.elems[i] : AVal{};
        } else if (i == star) {
          x.tuple = true;
          for (std::size_t j = star; j + after < v.elems.size(); ++j) x.elems.push_back(v.elems[j]);
        } else {
          std::size_t j = v.elems.size() - (n - i);
          x = j < v.elems.size() ? v.elems[j] : AVal{};
        }
      }
      f.names[s.targets[i]] = x;
      f.syms[s.targets[i]] = std::nullopt;
    }
  }
};

/// Whether a > b for every value of the symbols (decided on the canonical difference).
bool provably_greater(const sym::Expr& a, const sym::Expr& b) {
  try {
    auto d = (a - b).as_integer();
    return d && *d > 0;
  } catch (const std::exception&) {
    return false;
  }
}

/// An inclusive range per dimension; nullopt bounds: unknown.
struct Interval {
  Sym lo, hi;
};
using Region = std::map<std::string, Interval>;

/// The points output `i` of `call` is written at.
Region written(const ProgramCall& call, std::size_t i) {
  const ProgramCall::Out& o = call.outs[i];
  Region r;
  const auto& domain = call.domain_of(i);
  for (std::size_t j = 0; j < o.type.dims.size(); ++j) {
    const Dimension& d = o.type.dims[j];
    sym::Expr size = sym::Expr::symbol("__" + o.name + "_" + d.name + "_size");
    Sym lo = sym::Expr(0), hi = size;
    bool from_domain = false;
    for (const ProgramCall::Range& rg : domain)
      if (rg.dim == d) {
        lo = to_sym(*rg.lo, nullptr);
        hi = to_sym(*rg.hi, nullptr);
        from_domain = true;
      }
    if (!from_domain && j < o.slices.size()) {
      const auto& [sl, sh] = o.slices[j];
      if (sl) lo = *sl < 0 ? size + sym::Expr(*sl) : sym::Expr(*sl);
      if (sh) hi = *sh < 0 ? size + sym::Expr(*sh) : sym::Expr(*sh);
    }
    if (hi) hi = *hi - sym::Expr(1);
    r[d.name] = {lo, hi};
  }
  return r;
}

/// Whether two domain= lists give the same bounds for the same dimensions (as the lowering
/// compares them).
bool same_domain(const std::vector<ProgramCall::Range>& a, const std::vector<ProgramCall::Range>& b) {
  if (&a == &b) return true;
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!(a[i].dim == b[i].dim)) return false;
    Sym al = to_sym(*a[i].lo, nullptr), ah = to_sym(*a[i].hi, nullptr), bl = to_sym(*b[i].lo, nullptr),
        bh = to_sym(*b[i].hi, nullptr);
    if (!al || !ah || !bl || !bh || al->str() != bl->str() || ah->str() != bh->str()) return false;
  }
  return true;
}

/// Whether some point p of `map` (within the dep's guard) reads `d.field` at p + offset inside
/// `target`; with `moved_only`, a read at p itself does not count.
bool overlaps(const Dep& d, const Region& map, const Region& target, bool moved_only) {
  if (moved_only && !moved(d)) return false;
  // The reading points along each dimension: the map's range and the guard's bounds.
  std::map<std::string, Bounds> reading;
  for (const auto& [dim, x] : map) {
    if (x.lo) reading[dim].lo.push_back(*x.lo);
    if (x.hi) reading[dim].hi.push_back(*x.hi);
  }
  if (!d.anywhere) intersect(reading, d.guard);
  for (const auto& [dim, b] : reading)
    for (const auto& l : b.lo)
      for (const auto& h : b.hi)
        if (provably_greater(l, h)) return false;  // no point reads at all
  if (d.anywhere) return true;
  for (const auto& [dim, w] : target) {
    std::optional<std::int64_t> o = 0;
    if (auto it = d.offset.find(dim); it != d.offset.end()) o = it->second;
    if (!o) continue;
    auto rb = reading.find(dim);
    if (rb == reading.end()) continue;
    const sym::Expr off(*o);
    if (w.hi)
      for (const auto& l : rb->second.lo)
        if (provably_greater(l + off, *w.hi)) return false;
    if (w.lo)
      for (const auto& h : rb->second.hi)
        if (provably_greater(*w.lo, h + off)) return false;
  }
  return true;
}

}  // namespace

void check_out_hazards(ProgramCall& call) {
  if (!call.callee || call.outs.empty()) return;
  std::map<std::string, std::size_t> first;  // output name -> its first index
  for (std::size_t i = 0; i < call.outs.size(); ++i) first.emplace(call.outs[i].name, i);

  bool any = false;
  std::function<AVal(const TExprPtr&)> arg = [&](const TExprPtr& a) -> AVal {
    if (!a) return {};
    if (a->kind == TExprKind::Name && first.count(a->name)) {
      any = true;
      Dep d;
      d.field = a->name;
      d.loc = a->loc;
      AVal v;
      add(v.deps, d);
      return v;
    }
    if (a->kind == TExprKind::Tuple) {
      AVal t;
      t.tuple = true;
      for (const auto& x : a->args) t.elems.push_back(arg(x));
      return t;
    }
    return {};
  };
  std::vector<AVal> args;
  std::vector<Sym> syms;
  for (const auto& a : call.args) {
    args.push_back(arg(a));
    syms.push_back(a ? to_sym(*a, nullptr) : std::nullopt);
  }
  if (!any) return;

  Walker w;
  // A scan operator's first parameter is its carry; its arguments are the rest.
  std::vector<AVal> bound = args;
  std::vector<Sym> bound_syms = syms;
  if (call.callee->kind == DefinitionKind::ScanOperator) {
    bound.insert(bound.begin(), AVal{});
    bound_syms.insert(bound_syms.begin(), std::nullopt);
  }
  AVal res = w.definition(*call.callee, bound, bound_syms, 0, /*top=*/true);
  std::vector<Region> regions;
  for (std::size_t i = 0; i < call.outs.size(); ++i) regions.push_back(written(call, i));
  // As the lowering decides: one map over the first output's domain writes every output at
  // its points, unless the outputs' domain= lists or dimensions differ (then one map each).
  bool per_output = false;
  for (std::size_t i = 1; i < call.outs.size(); ++i)
    per_output = per_output || !same_domain(call.domain_of(i), call.domain_of(0)) ||
                 !(call.outs[i].type.dims == call.outs[0].type.dims);

  std::vector<Deps> leaves;
  std::function<void(const AVal&)> collect = [&](const AVal& v) {
    if (!v.tuple) {
      leaves.push_back(v.deps);
      return;
    }
    for (const AVal& e : v.elems) collect(e);
  };
  collect(res);

  auto mark = [&](const Dep& d) {
    ProgramCall::Out& o = call.outs[first.at(d.field)];
    if (o.copy) return;
    o.copy = true;
    o.copy_reason = d.loc;
  };
  if (!per_output) {
    // One map over the domain writes every output at each point, after reading.
    Deps all;
    for (const Deps& l : leaves) add_all(all, l);
    for (const auto& [k, d] : all)
      if (overlaps(d, regions[0], regions[0], /*moved_only=*/true)) mark(d);
    return;
  }
  // One map per output, in order: map i computes element i only (every element where the
  // result is not a tuple); outputs written by an earlier map are read after they changed.
  Deps every;
  for (const Deps& x : leaves) add_all(every, x);
  for (std::size_t i = 0; i < call.outs.size(); ++i) {
    const Deps& l = leaves.size() == call.outs.size() ? leaves[i] : every;
    for (const auto& [k, d] : l) {
      // j > i is not written yet where the lowering makes one map per output; the check is
      // kept (as for one map) in case the lowering compares the domains differently.
      std::size_t j = first.at(d.field);
      if (overlaps(d, regions[i], regions[j], /*moved_only=*/j >= i)) mark(d);
    }
  }
}

std::vector<std::string> out_copy_notes(const TypedDefinition& def) {
  std::vector<std::string> notes;
  for (const ProgramCall& c : def.calls)
    for (const ProgramCall::Out& o : c.outs)
      if (o.copy)
        notes.push_back("call of '" + (c.callee ? c.callee->name : std::string("?")) + "' at " + c.loc.str() +
                        " computes '" + o.name + "' into a temporary and then copies it to '" + o.name +
                        "': it reads '" + o.name + "' at another point (" + o.copy_reason.str() + ")");
  return notes;
}

}  // namespace weir::frontend
