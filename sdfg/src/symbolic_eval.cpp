// Exact evaluation of weir::sym::Expr. Values are int64 rationals so that an intermediate
// N/2 is exact; only the final result must be an integer. Overflow is an error.
#include <climits>
#include <numeric>
#include <string>

#include "weir/sdfg/symbolic.h"

namespace weir::sym {
namespace {

__extension__ typedef unsigned __int128 u128;  // exact products of two int64 magnitudes

struct Rat {
  long long n = 0, d = 1;  // d > 0, gcd(n, d) == 1
};

class Evaluator {
 public:
  explicit Evaluator(const std::map<std::string, long long>& values) : values_(values) {}

  // Returns false on failure with the reason in error(): try_evaluate() need not throw.
  bool eval(const Expr& e, Rat& out) {
    const auto& a = e.args();
    switch (e.kind()) {
      case Kind::Integer:
      case Kind::Boolean: out = {e.value(), 1}; return true;
      case Kind::Symbol: {
        auto it = values_.find(e.name());
        if (it == values_.end()) return fail("unbound symbol '" + e.name() + "'");
        out = {it->second, 1};
        return true;
      }
      case Kind::Add:
      case Kind::Mul: {
        Rat acc{e.kind() == Kind::Add ? 0 : 1, 1}, x;
        for (const Expr& t : a) {
          if (!eval(t, x)) return false;
          if (!(e.kind() == Kind::Add ? add(acc, x, acc) : mul(acc, x, acc))) return false;
        }
        out = acc;
        return true;
      }
      case Kind::Pow: return eval_pow(a[0], a[1], out);
      case Kind::Div:
      case Kind::FloorDiv:
      case Kind::CeilDiv:
      case Kind::Mod: {
        Rat x, y, q;
        if (!eval(a[0], x) || !eval(a[1], y)) return false;
        if (y.n == 0) return fail("division by zero");
        if (!div(x, y, q)) return false;
        if (e.kind() == Kind::Div) {
          out = q;
          return true;
        }
        long long f = floor_of(q);
        if (e.kind() == Kind::FloorDiv) {
          out = {f, 1};
          return true;
        }
        if (e.kind() == Kind::CeilDiv) {
          out = {q.d == 1 ? f : f + 1, 1};  // f < LLONG_MAX when q is not an integer
          return true;
        }
        Rat fy;  // Python: x % y == x - y*floor(x/y)
        if (!mul(y, Rat{f, 1}, fy)) return false;
        return sub(x, fy, out);
      }
      case Kind::Min:
      case Kind::Max: {
        Rat best, x;
        for (std::size_t i = 0; i < a.size(); ++i) {
          if (!eval(a[i], x)) return false;
          if (i == 0 || (e.kind() == Kind::Min ? less(x, best) : less(best, x))) best = x;
        }
        out = best;
        return true;
      }
      case Kind::Compare: {
        Rat x, y;
        if (!eval(a[0], x) || !eval(a[1], y)) return false;
        bool lt = less(x, y), eq = x.n == y.n && x.d == y.d, r = false;
        const std::string& op = e.name();
        if (op == "<")
          r = lt;
        else if (op == "<=")
          r = lt || eq;
        else if (op == "==")
          r = eq;
        else if (op == "!=")
          r = !eq;
        else if (op == ">")
          r = !lt && !eq;
        else if (op == ">=")
          r = !lt;
        out = {r ? 1 : 0, 1};
        return true;
      }
      case Kind::Not:
      case Kind::And:
      case Kind::Or: {
        Rat x;
        bool r = e.kind() == Kind::And;
        for (const Expr& t : a) {
          if (!eval(t, x)) return false;
          bool v = x.n != 0;
          if (e.kind() == Kind::Not)
            r = !v;
          else if (e.kind() == Kind::And)
            r = r && v;
          else
            r = r || v;
        }
        out = {r ? 1 : 0, 1};
        return true;
      }
      case Kind::Call:
        if (e.name() == "Abs" && a.size() == 1) {
          if (!eval(a[0], out)) return false;
          if (out.n < 0) {
            if (out.n == LLONG_MIN) return overflow();
            out.n = -out.n;
          }
          return true;
        }
        return fail("cannot evaluate function '" + e.name() + "'");
    }
    return fail("cannot evaluate expression");
  }

  const std::string& error() const { return error_; }

 private:
  bool fail(std::string message) {
    error_ = std::move(message);
    return false;
  }
  bool overflow() { return fail("integer overflow while evaluating"); }

  bool normalize(long long n, long long d, Rat& out) {
    if (d < 0) {
      if (n == LLONG_MIN || d == LLONG_MIN) return overflow();
      n = -n;
      d = -d;
    }
    unsigned long long un =
        n < 0 ? 0ULL - static_cast<unsigned long long>(n) : static_cast<unsigned long long>(n);
    auto g = static_cast<long long>(std::gcd(un, static_cast<unsigned long long>(d)));  // <= d
    if (g > 1) {
      n /= g;
      d /= g;
    }
    out = {n, d};
    return true;
  }
  bool add(const Rat& x, const Rat& y, Rat& out) { return combine(x, y, false, out); }
  bool sub(const Rat& x, const Rat& y, Rat& out) { return combine(x, y, true, out); }
  bool combine(const Rat& x, const Rat& y, bool minus, Rat& out) {
    long long a, b, n, d;
    if (x.d == 1 && y.d == 1) {
      if (minus ? __builtin_sub_overflow(x.n, y.n, &n) : __builtin_add_overflow(x.n, y.n, &n))
        return overflow();
      out = {n, 1};
      return true;
    }
    if (__builtin_mul_overflow(x.n, y.d, &a) || __builtin_mul_overflow(y.n, x.d, &b) ||
        __builtin_mul_overflow(x.d, y.d, &d) ||
        (minus ? __builtin_sub_overflow(a, b, &n) : __builtin_add_overflow(a, b, &n)))
      return overflow();
    return normalize(n, d, out);
  }
  bool mul(const Rat& x, const Rat& y, Rat& out) {
    long long n, d;
    if (__builtin_mul_overflow(x.n, y.n, &n) || __builtin_mul_overflow(x.d, y.d, &d)) return overflow();
    return normalize(n, d, out);
  }
  bool div(const Rat& x, const Rat& y, Rat& out) {  // y != 0
    long long n, d;
    if (__builtin_mul_overflow(x.n, y.d, &n) || __builtin_mul_overflow(x.d, y.n, &d)) return overflow();
    return normalize(n, d, out);
  }
  static bool less(const Rat& x, const Rat& y) {
    // Compare x.n/x.d with y.n/y.d without overflow: integer parts first, then remainders.
    long long fx = floor_of(x), fy = floor_of(y);
    if (fx != fy) return fx < fy;
    // Same floor: compare fractional parts rx/x.d < ry/y.d (both in [0, 1)).
    return u128(remainder(x)) * u128(y.d) < u128(remainder(y)) * u128(x.d);
  }
  static long long remainder(const Rat& q) {  // q.n mod q.d, in [0, q.d)
    long long r = q.n % q.d;
    return r < 0 ? r + q.d : r;
  }
  static long long floor_of(const Rat& q) {
    long long f = q.n / q.d;
    if (q.n % q.d != 0 && q.n < 0) --f;
    return f;
  }
  bool eval_pow(const Expr& base, const Expr& exp, Rat& out) {
    Rat b, k;
    if (!eval(base, b) || !eval(exp, k)) return false;
    if (k.d != 1) return fail("non-integer exponent");
    long long n = k.n;
    bool invert = n < 0;
    if (invert) {
      if (b.n == 0) return fail("division by zero (zero to a negative power)");
      if (n == LLONG_MIN) return overflow();
      n = -n;
    }
    Rat r{1, 1};
    while (n > 0) {
      if (n & 1)
        if (!mul(r, b, r)) return false;
      n >>= 1;
      if (n > 0 && !(b.d == 1 && (b.n == 0 || b.n == 1)))
        if (!mul(b, b, b)) return false;
    }
    if (invert) return div(Rat{1, 1}, r, out);
    out = r;
    return true;
  }

  const std::map<std::string, long long>& values_;
  std::string error_;
};

}  // namespace

long long Expr::evaluate(const std::map<std::string, long long>& values) const {
  Evaluator ev(values);
  Rat r;
  if (!ev.eval(*this, r)) throw SymbolicError(ev.error() + " in '" + str() + "'");
  if (r.d != 1)
    throw SymbolicError("non-integer result " + std::to_string(r.n) + "/" + std::to_string(r.d) + " of '" +
                        str() + "'");
  return r.n;
}

std::optional<long long> Expr::try_evaluate(const std::map<std::string, long long>& values) const {
  Evaluator ev(values);
  Rat r;
  if (!ev.eval(*this, r) || r.d != 1) return std::nullopt;
  return r.n;
}

}  // namespace weir::sym
