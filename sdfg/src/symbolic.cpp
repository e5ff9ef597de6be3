// Core of weir::sym: the expression node and the canonicalizing constructors. Printing,
// parsing, evaluation and sign analysis live in symbolic_*.cpp and use only the public API.
//
// Canonical form: polynomials over atoms with int64 coefficients. Arithmetic converts operands
// to a flat Poly (a constant plus sorted monomials), combines, and converts back, so that equal
// polynomials get the same tree.
#include "weir/sdfg/symbolic.h"

#include <algorithm>
#include <climits>
#include <functional>
#include <ostream>
#include <utility>

#include "weir/sdfg/names.h"

namespace weir::sym {

SymbolicError::SymbolicError(const std::string& message) : weir::Error(message), message_(message) {}

SymbolicError::SymbolicError(const std::string& message, std::string_view text, std::size_t column)
    : weir::Error(message + " at column " + std::to_string(column) + " in '" + std::string(text) + "'"),
      message_(message),
      text_(text),
      column_(column) {}

namespace detail {

struct Node {
  Kind kind = Kind::Integer;
  bool integer_valued = true;  // an integer whenever all symbols are
  bool factor_pow = false;     // Pow(atom, k >= 2): a monomial factor rather than an atom
  long long value = 0;         // Integer, Boolean
  std::string name;            // Symbol, Call, Compare
  std::vector<Expr> args;
  std::size_t hash = 0;
};

struct Access {
  static const Node& node(const Expr& e) { return *e.node_; }
  static Expr make(Kind kind, long long value, std::string name, std::vector<Expr> args);
};

}  // namespace detail

namespace {

using detail::Access;
using detail::Node;

const Node& nd(const Expr& e) { return Access::node(e); }

Expr make(Kind kind, std::vector<Expr> args) { return Access::make(kind, 0, std::string(), std::move(args)); }

bool is_num(const Node& n) { return n.kind == Kind::Integer || n.kind == Kind::Boolean; }

// Booleans act as 0/1 in arithmetic (Python semantics).
Expr unbool(const Expr& e) { return nd(e).kind == Kind::Boolean ? Expr(nd(e).value) : e; }

bool is_atom(const Expr& e) {
  const Node& n = nd(e);
  return !(n.kind == Kind::Integer || n.kind == Kind::Boolean || n.kind == Kind::Add || n.kind == Kind::Mul ||
           n.factor_pow);
}

bool is_boolean_valued(const Expr& e) {
  switch (nd(e).kind) {
    case Kind::Boolean:
    case Kind::Compare:
    case Kind::Not:
    case Kind::And:
    case Kind::Or: return true;
    default: return false;
  }
}

// ---- checked int64 arithmetic: overflow is an error, never silent wrap-around ----

[[noreturn]] void overflow() { throw SymbolicError("integer overflow: the value does not fit in 64 bits"); }
long long add_ll(long long a, long long b) {
  long long r;
  if (__builtin_add_overflow(a, b, &r)) overflow();
  return r;
}
long long mul_ll(long long a, long long b) {
  long long r;
  if (__builtin_mul_overflow(a, b, &r)) overflow();
  return r;
}
long long neg_ll(long long a) {
  if (a == LLONG_MIN) overflow();
  return -a;
}
// Python // and % on integers (b != 0).
long long fdiv_ll(long long a, long long b) {
  if (a == LLONG_MIN && b == -1) overflow();
  long long q = a / b;
  if (a % b != 0 && ((a < 0) != (b < 0))) --q;
  return q;
}
long long fmod_ll(long long a, long long b) {
  if (b == -1) return 0;
  long long r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}
long long ipow_ll(long long base, long long k) {  // k >= 0
  if (base == 0) return k == 0 ? 1 : 0;
  if (base == 1) return 1;
  if (base == -1) return (k & 1) ? -1 : 1;
  long long r = 1;
  while (k > 0) {  // |base| >= 2: overflows (and stops) after a few squarings
    if (k & 1) r = mul_ll(r, base);
    k >>= 1;
    if (k > 0) base = mul_ll(base, base);
  }
  return r;
}
unsigned long long mag(long long a) {
  return a < 0 ? 0ULL - static_cast<unsigned long long>(a) : static_cast<unsigned long long>(a);
}
unsigned long long gcd_u(unsigned long long a, unsigned long long b) {
  while (b != 0) {
    a %= b;
    std::swap(a, b);
  }
  return a;
}
// A gcd as a positive divisor to reduce by; 1 (no reduction) in the 2**63 corner case.
long long gcd_divisor(unsigned long long g) {
  return (g == 0 || g > static_cast<unsigned long long>(LLONG_MAX)) ? 1 : static_cast<long long>(g);
}

void mix(std::size_t& h, std::size_t v) { h ^= v + 0x9e3779b97f4a7c15ULL + (h << 6) + (h >> 2); }

}  // namespace

Expr detail::Access::make(Kind kind, long long value, std::string name, std::vector<Expr> args) {
  auto n = std::make_shared<Node>();
  n->kind = kind;
  n->value = value;
  n->name = std::move(name);
  n->args = std::move(args);
  std::size_t h = static_cast<std::size_t>(kind) * 0x100000001b3ULL;
  mix(h, std::hash<long long>{}(value));
  if (!n->name.empty()) mix(h, std::hash<std::string>{}(n->name));
  for (const Expr& a : n->args) mix(h, a.hash());
  n->hash = h;
  auto all_int = [&] {
    return std::all_of(n->args.begin(), n->args.end(), [](const Expr& a) { return nd(a).integer_valued; });
  };
  switch (kind) {
    case Kind::Add:
    case Kind::Mul:
    case Kind::Mod:
    case Kind::Min:
    case Kind::Max: n->integer_valued = all_int(); break;
    case Kind::Pow: {
      const Node& e = nd(n->args[1]);
      n->factor_pow = e.kind == Kind::Integer && e.value >= 2 && is_atom(n->args[0]);
      n->integer_valued = e.kind == Kind::Integer && e.value >= 0 && nd(n->args[0]).integer_valued;
      break;
    }
    case Kind::Div: n->integer_valued = false; break;
    case Kind::Call: n->integer_valued = n->name == "Abs" && all_int(); break;
    default:  // Integer, Boolean, Symbol, FloorDiv, CeilDiv, Compare, Not, And, Or
      n->integer_valued = true;
  }
  return Expr(std::shared_ptr<const Node>(std::move(n)));
}

Expr::Expr(std::shared_ptr<const detail::Node> node) : node_(std::move(node)) {}

namespace {

Expr int_expr(long long v) {
  constexpr long long lo = -16, hi = 256;  // small constants are shared, not reallocated
  static const std::vector<Expr> cache = [] {
    std::vector<Expr> c;
    for (long long i = lo; i <= hi; ++i) c.push_back(Access::make(Kind::Integer, i, {}, {}));
    return c;
  }();
  if (v >= lo && v <= hi) return cache[static_cast<std::size_t>(v - lo)];
  return Access::make(Kind::Integer, v, {}, {});
}

// ---- polynomial view ----

struct Factor {
  Expr base;      // an atom
  long long exp;  // >= 1
};
struct Mono {
  long long coef = 1;
  long long degree = 0;   // sum of exponents
  std::vector<Factor> f;  // sorted by base (Expr::compare_order), distinct bases
};
struct Poly {
  long long c = 0;      // constant term
  std::vector<Mono> m;  // non-constant monomials in canonical order, nonzero coefficients
};

// Canonical monomial order: higher degree first, then lexicographic on the factor sequence
// with exponents expanded (so M**2 < M*N < N**2, as sympy prints them).
int cmp_mono(const Mono& a, const Mono& b) {
  if (a.degree != b.degree) return a.degree > b.degree ? -1 : 1;
  std::size_t i = 0, j = 0;
  long long ra = a.f.empty() ? 0 : a.f[0].exp, rb = b.f.empty() ? 0 : b.f[0].exp;
  while (i < a.f.size() && j < b.f.size()) {
    if (int c = Expr::compare_order(a.f[i].base, b.f[j].base); c != 0) return c;
    long long t = std::min(ra, rb);
    ra -= t;
    rb -= t;
    if (ra == 0 && ++i < a.f.size()) ra = a.f[i].exp;
    if (rb == 0 && ++j < b.f.size()) rb = b.f[j].exp;
  }
  return 0;
}

Factor factor_of(const Expr& x) {
  const Node& n = nd(x);
  if (n.factor_pow) return {n.args[0], nd(n.args[1]).value};
  return {x, 1};
}

Mono mono_of(const Expr& t) {
  Mono m;
  const Node& n = nd(t);
  if (n.kind == Kind::Mul) {
    std::size_t i = 0;
    if (nd(n.args[0]).kind == Kind::Integer) {
      m.coef = nd(n.args[0]).value;
      i = 1;
    }
    m.f.reserve(n.args.size() - i);
    for (; i < n.args.size(); ++i) m.f.push_back(factor_of(n.args[i]));
  } else {
    m.f.push_back(factor_of(t));
  }
  for (const Factor& f : m.f) m.degree = add_ll(m.degree, f.exp);
  return m;
}

Poly decompose(const Expr& e) {
  Poly p;
  const Node& n = nd(e);
  if (is_num(n)) {
    p.c = n.value;
  } else if (n.kind == Kind::Add) {
    p.m.reserve(n.args.size());
    for (const Expr& a : n.args) {
      if (nd(a).kind == Kind::Integer)
        p.c = nd(a).value;
      else
        p.m.push_back(mono_of(a));
    }
  } else {
    p.m.push_back(mono_of(e));
  }
  return p;
}

Expr mono_expr(const Mono& m) {
  std::vector<Expr> items;
  items.reserve(m.f.size() + 1);
  if (m.coef != 1) items.push_back(Expr(m.coef));
  for (const Factor& f : m.f) items.push_back(f.exp == 1 ? f.base : make(Kind::Pow, {f.base, Expr(f.exp)}));
  if (items.size() == 1) return items[0];
  return make(Kind::Mul, std::move(items));
}

Expr compose(const Poly& p) {
  if (p.m.empty()) return Expr(p.c);
  if (p.m.size() == 1 && p.c == 0) return mono_expr(p.m[0]);
  std::vector<Expr> args;
  args.reserve(p.m.size() + 1);
  for (const Mono& m : p.m) args.push_back(mono_expr(m));
  if (p.c != 0) args.push_back(Expr(p.c));
  return make(Kind::Add, std::move(args));
}

// Sorts and combines monomials (constant monomials go into c).
Poly collect(std::vector<Mono> v, long long c) {
  std::sort(v.begin(), v.end(), [](const Mono& a, const Mono& b) { return cmp_mono(a, b) < 0; });
  Poly p;
  p.c = c;
  p.m.reserve(v.size());
  for (Mono& mo : v) {
    if (mo.coef == 0) continue;
    if (mo.f.empty()) {
      p.c = add_ll(p.c, mo.coef);
    } else if (!p.m.empty() && cmp_mono(p.m.back(), mo) == 0) {
      p.m.back().coef = add_ll(p.m.back().coef, mo.coef);
      if (p.m.back().coef == 0) p.m.pop_back();
    } else {
      p.m.push_back(std::move(mo));
    }
  }
  return p;
}

Poly add_poly(const Poly& a, const Poly& b, long long sb) {  // a + sb*b, sb = +-1
  Poly r;
  r.c = add_ll(a.c, mul_ll(sb, b.c));
  r.m.reserve(a.m.size() + b.m.size());
  std::size_t i = 0, j = 0;
  while (i < a.m.size() || j < b.m.size()) {
    int c = i == a.m.size() ? 1 : j == b.m.size() ? -1 : cmp_mono(a.m[i], b.m[j]);
    if (c < 0) {
      r.m.push_back(a.m[i++]);
    } else if (c > 0) {
      r.m.push_back(b.m[j++]);
      r.m.back().coef = mul_ll(sb, r.m.back().coef);
    } else {
      long long k = add_ll(a.m[i].coef, mul_ll(sb, b.m[j].coef));
      if (k != 0) {
        r.m.push_back(a.m[i]);
        r.m.back().coef = k;
      }
      ++i;
      ++j;
    }
  }
  return r;
}

Poly scale(Poly p, long long k) {
  if (k == 0) return Poly{};
  p.c = mul_ll(p.c, k);
  for (Mono& m : p.m) m.coef = mul_ll(m.coef, k);
  return p;
}

Poly scale_div(Poly p, long long g) {  // exact division of every coefficient by g
  if (g == 1) return p;
  p.c = fdiv_ll(p.c, g);
  for (Mono& m : p.m) m.coef = fdiv_ll(m.coef, g);
  return p;
}

Mono mul_mono(const Mono& a, const Mono& b) {
  Mono r;
  r.coef = mul_ll(a.coef, b.coef);
  r.degree = add_ll(a.degree, b.degree);
  r.f.reserve(a.f.size() + b.f.size());
  std::size_t i = 0, j = 0;
  while (i < a.f.size() || j < b.f.size()) {
    int c = i == a.f.size() ? 1 : j == b.f.size() ? -1 : Expr::compare_order(a.f[i].base, b.f[j].base);
    if (c < 0)
      r.f.push_back(a.f[i++]);
    else if (c > 0)
      r.f.push_back(b.f[j++]);
    else {
      r.f.push_back({a.f[i].base, add_ll(a.f[i].exp, b.f[j].exp)});
      ++i;
      ++j;
    }
  }
  return r;
}

Poly mul_poly(const Poly& a, const Poly& b) {
  if (a.m.empty()) return scale(b, a.c);
  if (b.m.empty()) return scale(a, b.c);
  std::vector<Mono> out;
  out.reserve((a.m.size() + 1) * (b.m.size() + 1));
  long long c = mul_ll(a.c, b.c);
  for (const Mono& x : a.m) {
    for (const Mono& y : b.m) out.push_back(mul_mono(x, y));
    if (b.c != 0) {
      out.push_back(x);
      out.back().coef = mul_ll(x.coef, b.c);
    }
  }
  if (a.c != 0)
    for (const Mono& y : b.m) {
      out.push_back(y);
      out.back().coef = mul_ll(y.coef, a.c);
    }
  return collect(std::move(out), c);
}

bool mono_integer_valued(const Mono& m) {
  return std::all_of(m.f.begin(), m.f.end(), [](const Factor& f) { return nd(f.base).integer_valued; });
}

unsigned long long content(const Poly& p) {
  unsigned long long g = mag(p.c);
  for (const Mono& m : p.m) g = gcd_u(g, mag(m.coef));
  return g;
}

// The Div node if e is exactly one Div atom.
const Node* div_node(const Expr& e) { return nd(e).kind == Kind::Div ? &nd(e) : nullptr; }

// Splits the integer-valued monomials of a by c > 0: coef = q*c + r with 0 <= r < c.
// Non-integer monomials stay whole in r (floor((c*q + r)/c) == q + floor(r/c) needs integer q).
struct Split {
  Poly q, r;
  bool integer = true;  // r has only integer-valued monomials
};
Split split_by(const Poly& a, long long c) {
  Split s;
  for (const Mono& mo : a.m) {
    if (!mono_integer_valued(mo)) {
      s.r.m.push_back(mo);
      s.integer = false;
      continue;
    }
    long long qc = fdiv_ll(mo.coef, c), rc = fmod_ll(mo.coef, c);
    if (qc != 0) {
      s.q.m.push_back(mo);
      s.q.m.back().coef = qc;
    }
    if (rc != 0) {
      s.r.m.push_back(mo);
      s.r.m.back().coef = rc;
    }
  }
  s.q.c = fdiv_ll(a.c, c);
  s.r.c = fmod_ll(a.c, c);
  return s;
}

// gcd of c and the non-constant coefficients of r.
long long gcd_with_monos(const Poly& r, long long c) {
  unsigned long long g = mag(c);
  for (const Mono& m : r.m) g = gcd_u(g, mag(m.coef));
  return gcd_divisor(g);
}

// For an integer-valued r with coefficients in [0, c): r = g*Y + s with 0 <= s < g, where g
// divides c and every non-constant coefficient. Y's constant is floor(r.c / g).
struct Reduced1 {
  Poly y;
  long long g, s;
};
Reduced1 reduce_by_gcd(const Poly& r, long long c) {
  long long g = gcd_with_monos(r, c);
  Poly y = r;
  for (Mono& m : y.m) m.coef /= g;
  y.c = r.c / g;
  return {std::move(y), g, r.c % g};
}

// Common reduction for a symbolic divisor: divide both by the gcd of all coefficients, make
// the divisor's leading coefficient positive, and find the exact quotient by a monomial.
struct Reduced {
  Expr num, den;
  long long g = 1;  // a == g*num, b == g*den
  std::optional<Expr> exact;
};
std::optional<Mono> divide_mono(const Mono& m, const Mono& d) {
  if (m.coef % d.coef != 0) return std::nullopt;
  Mono q;
  q.coef = m.coef / d.coef;
  q.degree = m.degree - d.degree;
  std::size_t j = 0;
  for (const Factor& f : m.f) {
    if (j < d.f.size() && Expr::compare_order(f.base, d.f[j].base) == 0) {
      if (f.exp < d.f[j].exp) return std::nullopt;
      if (f.exp > d.f[j].exp) q.f.push_back({f.base, f.exp - d.f[j].exp});
      ++j;
    } else {
      q.f.push_back(f);
    }
  }
  if (j != d.f.size()) return std::nullopt;
  return q;
}
Reduced reduce_pair(const Expr& a, const Expr& b) {
  Poly pa = decompose(a), pb = decompose(b);
  long long g = gcd_divisor(gcd_u(content(pa), content(pb)));
  long long lead = pb.m.empty() ? pb.c : pb.m.front().coef;
  if (lead < 0) g = -g;
  pa = scale_div(std::move(pa), g);
  pb = scale_div(std::move(pb), g);
  Reduced r{compose(pa), compose(pb), g, std::nullopt};
  if (pb.c == 0 && pb.m.size() == 1 && pa.c == 0) {
    std::vector<Mono> q;
    for (const Mono& mo : pa.m) {
      auto t = divide_mono(mo, pb.m[0]);
      if (!t) return r;
      q.push_back(std::move(*t));
    }
    r.exact = compose(collect(std::move(q), 0));
    return r;
  }
  // a == k*b for an integer k: (2*N + 2)/(N + 1) == 2.
  if (!pb.m.empty() && pa.m.size() == pb.m.size() && pa.m[0].coef % pb.m[0].coef == 0) {
    try {
      long long k = pa.m[0].coef / pb.m[0].coef;
      Poly t = add_poly(pa, scale(pb, k), -1);
      if (t.m.empty() && t.c == 0) r.exact = Expr(k);
    } catch (const SymbolicError&) {  // overflow: not a multiple we can represent
    }
  }
  return r;
}

[[noreturn]] void division_by_zero(const char* what) {
  throw SymbolicError(std::string("division by zero in ") + what);
}

// floor(a / c) for an integer c > 0.
Expr floordiv_int(const Expr& a, long long c) {
  Split s = split_by(decompose(a), c);
  Expr rest;
  if (s.r.m.empty()) {
    rest = Expr(0);  // 0 <= r.c < c
  } else if (s.integer) {
    // floor((g*Y + s)/(g*c')) == floor(Y/c') for integer Y and 0 <= s < g.
    Reduced1 red = reduce_by_gcd(s.r, c);
    rest = make(Kind::FloorDiv, {compose(red.y), Expr(c / red.g)});
  } else {
    Expr r = compose(s.r);
    if (const Node* d = div_node(r)) {
      rest = Expr::floordiv(d->args[0], d->args[1] * Expr(c));  // floor((x/y)/c) == floor(x/(y*c))
    } else {
      long long g = gcd_divisor(gcd_u(content(s.r), mag(c)));
      rest = make(Kind::FloorDiv, {compose(scale_div(s.r, g)), Expr(c / g)});
    }
  }
  return compose(add_poly(s.q, decompose(rest), 1));
}

Expr minmax(Kind k, std::vector<Expr> in) {
  const bool is_min = k == Kind::Min;
  if (in.empty()) throw SymbolicError(std::string(is_min ? "Min" : "Max") + "() needs an argument");
  std::vector<Expr> args;
  std::optional<long long> best;
  auto take = [&](Expr x) {
    if (auto v = x.as_integer())
      best = !best ? *v : is_min ? std::min(*best, *v) : std::max(*best, *v);
    else
      args.push_back(std::move(x));
  };
  for (Expr& x0 : in) {
    Expr x = nd(x0).kind == Kind::Boolean ? unbool(x0) : std::move(x0);  // `in` is ours: moved from
    if (nd(x).kind == k) {
      for (const Expr& a : nd(x).args) take(a);
    } else {
      take(std::move(x));
    }
  }
  std::sort(args.begin(), args.end(),
            [](const Expr& a, const Expr& b) { return Expr::compare_order(a, b) < 0; });
  args.erase(std::unique(args.begin(), args.end()), args.end());
  if (best) args.push_back(Expr(*best));  // the constant last: Min(N, 32)
  // An argument that differs from another by a constant is decided: drop the dominated one.
  std::vector<bool> dead(args.size(), false);
  for (std::size_t i = 0; i < args.size(); ++i) {
    for (std::size_t j = i + 1; j < args.size() && !dead[i]; ++j) {
      if (dead[j]) continue;
      std::optional<long long> d;
      try {
        d = (args[i] - args[j]).as_integer();
      } catch (const SymbolicError&) {  // overflow: not comparable, keep both
      }
      if (!d) continue;
      bool drop_i = is_min ? *d >= 0 : *d <= 0;
      (drop_i ? dead[i] : dead[j]) = true;
    }
  }
  std::vector<Expr> kept;
  for (std::size_t i = 0; i < args.size(); ++i)
    if (!dead[i]) kept.push_back(args[i]);
  if (kept.size() == 1) return kept[0];
  return make(k, std::move(kept));
}

Expr logic(Kind k, std::vector<Expr> in) {
  const bool is_and = k == Kind::And;
  std::vector<Expr> args;
  bool absorbed = false;
  auto take = [&](Expr x) {
    const Node& n = nd(x);
    if (is_num(n)) {
      if ((n.value != 0) != is_and) absorbed = true;  // False in `and`, True in `or`
    } else {
      args.push_back(std::move(x));
    }
  };
  for (Expr& x : in) {
    if (nd(x).kind == k) {
      for (const Expr& a : nd(x).args) take(a);
    } else {
      take(std::move(x));  // `in` is ours: moved from
    }
  }
  if (absorbed) return Expr::boolean(!is_and);
  std::sort(args.begin(), args.end(),
            [](const Expr& a, const Expr& b) { return Expr::compare_order(a, b) < 0; });
  args.erase(std::unique(args.begin(), args.end()), args.end());
  if (args.empty()) return Expr::boolean(is_and);
  if (args.size() == 1) return args[0];
  return make(k, std::move(args));
}

// Poly raised to k >= 2 by repeated multiplication; nullopt when it would be large.
std::optional<Poly> expand_pow(const Poly& p, long long k) {
  constexpr long long max_exponent = 64;
  constexpr std::size_t max_terms = 1024;
  if (k > max_exponent) return std::nullopt;
  try {
    Poly r = p;
    for (long long i = 1; i < k; ++i) {
      r = mul_poly(r, p);
      if (r.m.size() > max_terms) return std::nullopt;
    }
    return r;
  } catch (const SymbolicError&) {  // coefficient overflow: keep the power opaque
    return std::nullopt;
  }
}

// One spelling per relation (a - b is not constant): an integer operand goes on the right
// ("N > 0", "i < 5"); otherwise order relations use < or <= and == / != order their operands.
Expr make_compare(std::string op, Expr a, Expr b) {
  bool swap;
  if (a.is_integer() != b.is_integer())
    swap = a.is_integer();
  else if (op == "==" || op == "!=")
    swap = Expr::compare_order(a, b) > 0;
  else
    swap = op == ">" || op == ">=";
  if (swap) {
    std::swap(a, b);
    if (op[0] == '<')
      op[0] = '>';
    else if (op[0] == '>')
      op[0] = '<';
  }
  return Access::make(Kind::Compare, 0, std::move(op), {std::move(a), std::move(b)});
}

Expr abs_of(Expr x) {
  x = unbool(x);
  if (auto v = x.as_integer()) return Expr(*v < 0 ? neg_ll(*v) : *v);
  if (nd(x).kind == Kind::Call && nd(x).name == "Abs") return x;
  Poly p = decompose(x);
  if (!p.m.empty() && p.m.front().coef < 0) x = -x;  // Abs(-x) == Abs(x)
  return Access::make(Kind::Call, 0, "Abs", {x});
}

void collect_symbols(const Expr& e, std::set<std::string>& out) {
  const Node& n = nd(e);
  if (n.kind == Kind::Symbol) out.insert(n.name);
  for (const Expr& a : n.args) collect_symbols(a, out);
}

// Re-applies the canonicalizing constructor of e's kind to new arguments.
Expr rebuild(const Expr& e, std::vector<Expr> args) {
  const Node& n = nd(e);
  switch (n.kind) {
    case Kind::Add: return Expr::sum(args);
    case Kind::Mul: {
      Expr r = args[0];
      for (std::size_t i = 1; i < args.size(); ++i) r = r * args[i];
      return r;
    }
    case Kind::Pow: return Expr::pow(args[0], args[1]);
    case Kind::Div: return Expr::div(args[0], args[1]);
    case Kind::FloorDiv: return Expr::floordiv(args[0], args[1]);
    case Kind::CeilDiv: return Expr::ceildiv(args[0], args[1]);
    case Kind::Mod: return Expr::mod(args[0], args[1]);
    case Kind::Min: return minmax(Kind::Min, std::move(args));
    case Kind::Max: return minmax(Kind::Max, std::move(args));
    case Kind::Call: return Expr::call(n.name, std::move(args));
    case Kind::Compare: return Expr::compare(n.name, args[0], args[1]);
    case Kind::Not: return Expr::logical_not(args[0]);
    case Kind::And:
    case Kind::Or: return logic(n.kind, std::move(args));
    default: return e;
  }
}

Expr subs_rec(const Expr& e, const std::map<std::string, Expr>& m) {
  const Node& n = nd(e);
  if (n.kind == Kind::Symbol) {
    auto it = m.find(n.name);
    return it == m.end() ? e : it->second;
  }
  if (n.args.empty()) return e;
  std::vector<Expr> args;
  args.reserve(n.args.size());
  bool changed = false;
  for (const Expr& a : n.args) {
    args.push_back(subs_rec(a, m));
    changed = changed || &nd(args.back()) != &nd(a);
  }
  return changed ? rebuild(e, std::move(args)) : e;
}

}  // namespace

// ---- construction ----

Expr::Expr() : node_(int_expr(0).node_) {}
Expr::Expr(long long value) : node_(int_expr(value).node_) {}

Expr Expr::symbol(std::string name) {
  if (!is_ascii_identifier(name)) throw SymbolicError("invalid symbol name '" + name + "'");
  if (is_python_keyword(name)) throw SymbolicError("'" + name + "' is a Python keyword, not a symbol name");
  return Access::make(Kind::Symbol, 0, std::move(name), {});
}

Expr Expr::boolean(bool value) {
  static const Expr t = Access::make(Kind::Boolean, 1, {}, {});
  static const Expr f = Access::make(Kind::Boolean, 0, {}, {});
  return value ? t : f;
}

Expr operator+(const Expr& a, const Expr& b) {
  const Node &x = nd(a), &y = nd(b);
  if (is_num(x) && is_num(y)) return Expr(add_ll(x.value, y.value));
  if (is_num(y) && y.value == 0) return a;
  if (is_num(x) && x.value == 0) return b;
  return compose(add_poly(decompose(a), decompose(b), 1));
}

Expr operator-(const Expr& a, const Expr& b) {
  const Node &x = nd(a), &y = nd(b);
  if (is_num(x) && is_num(y)) {
    long long r;
    if (__builtin_sub_overflow(x.value, y.value, &r)) overflow();
    return Expr(r);
  }
  if (is_num(y) && y.value == 0) return a;
  return compose(add_poly(decompose(a), decompose(b), -1));
}

Expr operator*(const Expr& a, const Expr& b) {
  const Node &x = nd(a), &y = nd(b);
  if (is_num(x) && is_num(y)) return Expr(mul_ll(x.value, y.value));
  if (is_num(y) && y.value == 1) return a;
  if (is_num(x) && x.value == 1) return b;
  return compose(mul_poly(decompose(a), decompose(b)));
}

Expr Expr::operator-() const {
  if (is_num(*node_)) return Expr(neg_ll(node_->value));
  return compose(scale(decompose(*this), -1));
}

Expr Expr::sum(const std::vector<Expr>& terms) {
  std::vector<Mono> monos;
  long long c = 0;
  for (const Expr& t : terms) {
    Poly p = decompose(t);
    c = add_ll(c, p.c);
    for (Mono& m : p.m) monos.push_back(std::move(m));
  }
  return compose(collect(std::move(monos), c));
}

Expr Expr::floordiv(Expr a, Expr b) {
  a = unbool(a);
  b = unbool(b);
  if (auto c = b.as_integer()) {
    if (*c == 0) division_by_zero("floor division");
    if (*c < 0) return floordiv(-a, Expr(neg_ll(*c)));  // floor(a/b) == floor(-a/-b)
    return floordiv_int(a, *c);
  }
  Reduced r = reduce_pair(a, b);
  if (r.exact) return floordiv_int(*r.exact, 1);
  if (r.num == r.den) return Expr(1);
  if (const Node* d = div_node(r.num)) return floordiv(d->args[0], d->args[1] * r.den);
  return make(Kind::FloorDiv, {r.num, r.den});
}

Expr Expr::ceildiv(Expr a, Expr b) {
  a = unbool(a);
  b = unbool(b);
  if (auto c = b.as_integer()) {
    if (*c == 0) division_by_zero("ceiling division");
    if (*c < 0) return ceildiv(-a, Expr(neg_ll(*c)));
    // ceiling(a/c) == (a + c - 1)//c on integers: one canonical form for both spellings.
    if (a.is_integer_valued()) return floordiv_int(a + Expr(*c - 1), *c);
    if (const Node* d = div_node(a)) return ceildiv(d->args[0], d->args[1] * Expr(*c));
    Split s = split_by(decompose(a), *c);  // ceiling((c*q + r)/c) == q + ceiling(r/c)
    Expr r = compose(s.r), rest;
    if (const Node* d = div_node(r)) {
      rest = ceildiv(d->args[0], d->args[1] * Expr(*c));
    } else {
      long long g = gcd_divisor(gcd_u(content(s.r), mag(*c)));
      rest = make(Kind::CeilDiv, {compose(scale_div(s.r, g)), Expr(*c / g)});
    }
    return compose(s.q) + rest;
  }
  Reduced r = reduce_pair(a, b);
  if (r.exact) return ceildiv(*r.exact, Expr(1));
  if (r.num == r.den) return Expr(1);
  if (const Node* d = div_node(r.num)) return ceildiv(d->args[0], d->args[1] * r.den);
  return make(Kind::CeilDiv, {r.num, r.den});
}

Expr Expr::mod(Expr a, Expr b) {
  a = unbool(a);
  b = unbool(b);
  if (auto c = b.as_integer()) {
    if (*c == 0) division_by_zero("modulo");
    if (*c < 0) return -mod(-a, Expr(neg_ll(*c)));  // a % b == -((-a) % -b)
    Split s = split_by(decompose(a), *c);           // multiples of c vanish
    if (s.r.m.empty()) return Expr(s.r.c);
    if (s.integer) {
      // (g*Y + s) % (g*c') == g*(Y % c') + s for 0 <= s < g.
      Reduced1 red = reduce_by_gcd(s.r, *c);
      Expr m = make(Kind::Mod, {compose(red.y), Expr(*c / red.g)});
      return Expr(red.g) * m + Expr(red.s);
    }
    long long g = gcd_divisor(gcd_u(content(s.r), mag(*c)));
    return Expr(g) * make(Kind::Mod, {compose(scale_div(s.r, g)), Expr(*c / g)});
  }
  Reduced r = reduce_pair(a, b);
  if (r.exact && r.exact->is_integer_valued()) return Expr(0);
  if (r.num == r.den) return Expr(0);
  return Expr(r.g) * make(Kind::Mod, {r.num, r.den});  // (g*x) % (g*y) == g*(x % y)
}

Expr Expr::div(Expr a, Expr b) {
  a = unbool(a);
  b = unbool(b);
  if (auto c = b.as_integer()) {
    if (*c == 0) division_by_zero("division");
    if (*c < 0) return div(-a, Expr(neg_ll(*c)));
    if (*c == 1) return a;
    Poly p = decompose(a);
    unsigned long long g = gcd_u(content(p), mag(*c));
    if (g == mag(*c)) return compose(scale_div(std::move(p), *c));  // exact
    if (const Node* d = div_node(a)) return div(d->args[0], d->args[1] * Expr(*c));
    long long gd = gcd_divisor(g);
    return make(Kind::Div, {compose(scale_div(std::move(p), gd)), Expr(*c / gd)});
  }
  Reduced r = reduce_pair(a, b);
  if (r.exact) return *r.exact;
  if (r.num == r.den) return Expr(1);
  if (const Node* d = div_node(r.num)) return div(d->args[0], d->args[1] * r.den);
  return make(Kind::Div, {r.num, r.den});
}

Expr Expr::pow(Expr a, Expr b) {
  a = unbool(a);
  b = unbool(b);
  if (auto k = b.as_integer()) {
    if (*k == 0) return Expr(1);
    if (*k == 1) return a;
    if (*k < 0) return div(Expr(1), pow(a, Expr(neg_ll(*k))));
    Poly p = decompose(a);
    if (p.m.empty()) return Expr(ipow_ll(p.c, *k));
    if (p.c == 0 && p.m.size() == 1) {  // monomial: multiply exponents
      Mono m = p.m[0];
      m.coef = ipow_ll(m.coef, *k);
      m.degree = mul_ll(m.degree, *k);
      for (Factor& f : m.f) f.exp = mul_ll(f.exp, *k);
      return mono_expr(m);
    }
    if (auto e = expand_pow(p, *k)) return compose(*e);
    return make(Kind::Pow, {a, b});
  }
  if (auto v = a.as_integer(); v && *v == 1) return Expr(1);
  return make(Kind::Pow, {a, b});
}

Expr Expr::min(Expr a, Expr b) { return minmax(Kind::Min, {std::move(a), std::move(b)}); }
Expr Expr::max(Expr a, Expr b) { return minmax(Kind::Max, {std::move(a), std::move(b)}); }
Expr Expr::min(std::vector<Expr> args) { return minmax(Kind::Min, std::move(args)); }
Expr Expr::max(std::vector<Expr> args) { return minmax(Kind::Max, std::move(args)); }

Expr Expr::call(std::string fn, std::vector<Expr> args) {
  auto arity = [&](std::size_t n) {
    if (args.size() != n)
      throw SymbolicError(fn + "() takes " + std::to_string(n) + (n == 1 ? " argument" : " arguments") +
                          ", got " + std::to_string(args.size()));
  };
  if (fn == "Min" || fn == "min") return minmax(Kind::Min, std::move(args));
  if (fn == "Max" || fn == "max") return minmax(Kind::Max, std::move(args));
  if (fn == "ceiling") {
    arity(1);
    return ceildiv(args[0], Expr(1));
  }
  if (fn == "floor") {
    arity(1);
    return floordiv(args[0], Expr(1));
  }
  if (fn == "int_floor") {
    arity(2);
    return floordiv(args[0], args[1]);
  }
  if (fn == "int_ceil") {
    arity(2);
    return ceildiv(args[0], args[1]);
  }
  if (fn == "Mod") {
    arity(2);
    return mod(args[0], args[1]);
  }
  if (fn == "Pow") {
    arity(2);
    return pow(args[0], args[1]);
  }
  if (fn == "Abs" || fn == "abs") {
    arity(1);
    return abs_of(args[0]);
  }
  // DaCe's SymExpr(exact, approximation) (its MapTiling writes `SymExpr(Min(N - 3, t + 15), t +
  // 15)` into memlets): the exact expression; the approximation only bounds it for DaCe's volumes.
  if (fn == "SymExpr") {
    if (args.empty() || args.size() > 2)
      throw SymbolicError("SymExpr() takes 1 or 2 arguments (exact, approximation), got " +
                          std::to_string(args.size()));
    return args[0];
  }
  if (!fn.empty() && !is_identifier(fn)) throw SymbolicError("invalid function name '" + fn + "'");
  return Access::make(Kind::Call, 0, std::move(fn), std::move(args));
}

Expr Expr::compare(const std::string& op, Expr a, Expr b) {
  a = unbool(a);
  b = unbool(b);
  bool (*test)(long long) = nullptr;
  if (op == "<")
    test = [](long long d) { return d < 0; };
  else if (op == "<=")
    test = [](long long d) { return d <= 0; };
  else if (op == ">")
    test = [](long long d) { return d > 0; };
  else if (op == ">=")
    test = [](long long d) { return d >= 0; };
  else if (op == "==")
    test = [](long long d) { return d == 0; };
  else if (op == "!=")
    test = [](long long d) { return d != 0; };
  else
    throw SymbolicError("unknown comparison operator '" + op + "'");
  try {
    if (auto d = (a - b).as_integer()) return boolean(test(*d));
  } catch (const SymbolicError&) {  // overflow: undecided, keep the comparison
  }
  return make_compare(op, std::move(a), std::move(b));
}

Expr Expr::logical_and(Expr a, Expr b) { return logic(Kind::And, {std::move(a), std::move(b)}); }
Expr Expr::logical_or(Expr a, Expr b) { return logic(Kind::Or, {std::move(a), std::move(b)}); }

Expr Expr::logical_not(Expr a) {
  const Node& n = nd(a);
  if (is_num(n)) return boolean(n.value == 0);
  if (n.kind == Kind::Not && is_boolean_valued(n.args[0])) return n.args[0];
  if (n.kind == Kind::Compare) {  // integers are totally ordered: not (a < b) is a >= b
    static const std::map<std::string, std::string> inverse = {{"<", ">="}, {"<=", ">"},  {">", "<="},
                                                               {">=", "<"}, {"==", "!="}, {"!=", "=="}};
    return make_compare(inverse.at(n.name), n.args[0], n.args[1]);
  }
  return make(Kind::Not, {std::move(a)});
}

// ---- queries ----

bool Expr::is_integer() const { return node_->kind == Kind::Integer; }
std::optional<long long> Expr::as_integer() const {
  if (node_->kind == Kind::Integer) return node_->value;
  return std::nullopt;
}
bool Expr::is_boolean() const { return node_->kind == Kind::Boolean; }
bool Expr::is_symbol() const { return node_->kind == Kind::Symbol; }
const std::string& Expr::symbol_name() const { return node_->name; }
bool Expr::is_integer_valued() const { return node_->integer_valued; }
Kind Expr::kind() const { return node_->kind; }
long long Expr::value() const { return node_->value; }
const std::string& Expr::name() const { return node_->name; }
const std::vector<Expr>& Expr::args() const { return node_->args; }

std::set<std::string> Expr::free_symbols() const {
  std::set<std::string> out;
  collect_symbols(*this, out);
  return out;
}

Expr Expr::subs(const std::map<std::string, Expr>& m) const {
  if (m.empty()) return *this;
  return subs_rec(*this, m);
}

bool Expr::operator==(const Expr& o) const {
  if (node_ == o.node_) return true;
  if (node_->hash != o.node_->hash) return false;
  return compare_order(*this, o) == 0;
}

std::size_t Expr::hash() const { return node_->hash; }

int Expr::compare_order(const Expr& a, const Expr& b) {
  const Node &x = *a.node_, &y = *b.node_;
  if (&x == &y) return 0;
  if (x.kind != y.kind) return x.kind < y.kind ? -1 : 1;
  if (x.value != y.value) return x.value < y.value ? -1 : 1;
  if (int c = x.name.compare(y.name); c != 0) return c < 0 ? -1 : 1;
  if (x.args.size() != y.args.size()) return x.args.size() < y.args.size() ? -1 : 1;
  for (std::size_t i = 0; i < x.args.size(); ++i)
    if (int c = compare_order(x.args[i], y.args[i]); c != 0) return c;
  return 0;
}

std::ostream& operator<<(std::ostream& os, const Expr& e) { return os << e.str(); }

}  // namespace weir::sym
