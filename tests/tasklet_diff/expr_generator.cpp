// Random well-typed tasklet expressions (expr_generator.h).
#include "expr_generator.h"

#include <algorithm>
#include <vector>

namespace weir::tasklet_diff {

const char* type_name(ExprType t) {
  switch (t) {
    case ExprType::Float: return "float64";
    case ExprType::Int: return "int64";
    case ExprType::Bool: return "bool";
  }
  return "?";
}

namespace {

/// A generated subexpression: its text (parenthesized unless atomic), type and, for ints, a
/// bound on its magnitude at run time (constants beyond int64 count as 1: weir refuses them
/// before anything runs).
struct Node {
  std::string text;
  ExprType type = ExprType::Float;
  double bound = 1.0;
};

constexpr double kIntLimit = 4.0e18;  // below 2**62

class Generator {
 public:
  explicit Generator(std::uint64_t seed) : rng_(seed) {}

  Node gen(ExprType t, int depth) {
    if (depth <= 0 || chance(0.25)) return leaf(t);
    switch (t) {
      case ExprType::Float: return gen_float(depth);
      case ExprType::Int: return gen_int(depth);
      case ExprType::Bool: return gen_bool(depth);
    }
    return leaf(t);
  }

  ExprType any_type() { return static_cast<ExprType>(pick(3)); }

 private:
  std::mt19937_64 rng_;

  int pick(int n) { return static_cast<int>(std::uniform_int_distribution<int>(0, n - 1)(rng_)); }
  bool chance(double p) { return std::uniform_real_distribution<double>(0.0, 1.0)(rng_) < p; }
  template <class T>
  const T& one_of(const std::vector<T>& v) {
    return v[static_cast<std::size_t>(pick(static_cast<int>(v.size())))];
  }

  static Node paren(const std::string& s, ExprType t, double bound = 1.0) {
    return {"(" + s + ")", t, bound};
  }

  Node leaf(ExprType t) {
    switch (t) {
      case ExprType::Float:
        if (chance(0.6)) return {chance(0.5) ? "x" : "y", t, 1.0};
        return {one_of<std::string>({"0.0", "1.5", "0.1", "2.0", "-0.5", "1e300", "3.25e-5", "7.0", "1e-320",
                                     "1_000.5", "0.0e0"}),
                t, 1.0};
      case ExprType::Int: {
        if (chance(0.55)) return {chance(0.5) ? "i" : "j", t, 9.0};
        if (chance(0.75)) {
          int v = pick(12);
          return {std::to_string(v), t, static_cast<double>(v)};
        }
        // Literals and constant expressions beyond the small ones: exact folding or refusal.
        struct Big {
          const char* text;
          double bound;
        };
        static const std::vector<Big> big = {{"9223372036854775807", 9.3e18},
                                             {"(2 ** 62)", 4.7e18},
                                             {"(2 ** 70)", 1.0},
                                             {"(2 ** 63)", 1.0},
                                             {"(2 ** 64 + 4)", 1.0},
                                             {"(10 ** 18)", 1e18},
                                             {"(3 ** 39)", 4.1e18},
                                             {"(-2 ** 63)", 1.0},
                                             {"(2 ** 100 // 2 ** 90)", 1.0},
                                             {"0x7fff_ffff", 2.2e9},
                                             {"0o17", 15.0},
                                             {"0b1010", 10.0},
                                             {"1_000_000", 1e6},
                                             {"(7 // 0)", 1.0},
                                             {"(1 << 62)", 4.7e18},
                                             {"(1 << 63)", 1.0},
                                             {"(-7 % 3)", 2.0},
                                             {"(-(-9223372036854775807 - 1))", 1.0}};
        const Big& b = one_of(big);
        return {b.text, t, b.bound};
      }
      case ExprType::Bool:
        if (chance(0.6)) return {chance(0.5) ? "p" : "q", t, 1.0};
        return {chance(0.5) ? "True" : "False", t, 1.0};
    }
    return {"0", t, 0.0};
  }

  /// An int operand of bounded magnitude (regenerated a few times, else a small input).
  Node bounded_int(int depth, double limit) {
    for (int k = 0; k < 4; ++k) {
      Node n = gen(ExprType::Int, depth);
      if (n.bound <= limit) return n;
    }
    return {"i", ExprType::Int, 9.0};
  }

  Node numeric(int depth) {
    return gen(chance(0.7) ? ExprType::Float : (chance(0.8) ? ExprType::Int : ExprType::Bool), depth);
  }

  Node gen_float(int depth) {
    const int d = depth - 1;
    switch (pick(9)) {
      case 0:
      case 1: {  // arithmetic with at least one float operand
        static const std::vector<std::string> ops = {"+", "-", "*", "/", "//", "%", "**"};
        const std::string& op = one_of(ops);
        Node a = gen(ExprType::Float, d), b = numeric(d);
        if (chance(0.5)) std::swap(a, b);
        return paren(a.text + " " + op + " " + b.text, ExprType::Float);
      }
      case 2: {  // int / int and int ** negative int: float results of ints
        Node a = bounded_int(d, 1e15), b = bounded_int(d, 1e15);
        if (chance(0.7)) return paren(a.text + " / " + b.text, ExprType::Float);
        return paren(a.text + " ** -" + std::to_string(1 + pick(3)), ExprType::Float);
      }
      case 3: return paren("-" + gen(ExprType::Float, d).text, ExprType::Float);
      case 4: {  // and/or of mixed operands: Python returns an operand
        Node a = numeric(d), b = gen(ExprType::Float, d);
        if (chance(0.5)) std::swap(a, b);
        return paren(a.text + (chance(0.5) ? " or " : " and ") + b.text, ExprType::Float);
      }
      case 5: {
        Node c = gen(ExprType::Bool, d), a = gen(ExprType::Float, d), b = numeric(d);
        return paren(a.text + " if " + c.text + " else " + b.text, ExprType::Float);
      }
      case 6: {
        static const std::vector<std::string> fns = {"min", "max"};
        Node a = gen(ExprType::Float, d), b = numeric(d);
        if (chance(0.5)) std::swap(a, b);
        if (chance(0.3)) return {"abs(" + gen(ExprType::Float, d).text + ")", ExprType::Float, 1.0};
        return {one_of(fns) + "(" + a.text + ", " + b.text + ")", ExprType::Float, 1.0};
      }
      case 7: {
        static const std::vector<std::string> fns = {"sqrt", "exp", "log", "sin", "cos", "tanh"};
        if (chance(0.2))
          return {"math." + std::string(chance(0.5) ? "atan2" : "hypot") + "(" + numeric(d).text + ", " +
                      numeric(d).text + ")",
                  ExprType::Float, 1.0};
        return {"math." + one_of(fns) + "(" + numeric(d).text + ")", ExprType::Float, 1.0};
      }
      default: return {"float(" + bounded_int(d, kIntLimit).text + ")", ExprType::Float, 1.0};
    }
  }

  Node gen_int(int depth) {
    const int d = depth - 1;
    switch (pick(8)) {
      case 0:
      case 1: {
        static const std::vector<std::string> ops = {"+", "-", "*", "//", "%"};
        const std::string& op = one_of(ops);
        Node a = gen(chance(0.85) ? ExprType::Int : ExprType::Bool, d);
        Node b = gen(chance(0.85) ? ExprType::Int : ExprType::Bool, d);
        if (a.type == ExprType::Bool) a.bound = 1.0;
        if (b.type == ExprType::Bool) b.bound = 1.0;
        double bound = op == "*" ? a.bound * b.bound : op == "+" || op == "-" ? a.bound + b.bound : a.bound;
        if (op == "%") bound = std::max(a.bound, b.bound);
        if (bound > kIntLimit) return bounded_int(d, 1e6);
        return paren(a.text + " " + op + " " + b.text, ExprType::Int, bound);
      }
      case 2: {  // a power with a literal exponent
        int k = pick(4);
        Node a = bounded_int(d, 1e4);
        double bound = 1.0;
        for (int n = 0; n < k; ++n) bound *= std::max(1.0, a.bound);
        return paren(a.text + " ** " + std::to_string(k), ExprType::Int, bound);
      }
      case 3: {
        Node a = gen(ExprType::Int, d);
        return paren("-" + a.text, ExprType::Int, a.bound);
      }
      case 4: {
        Node a = bounded_int(d, kIntLimit), b = gen(chance(0.8) ? ExprType::Int : ExprType::Bool, d);
        double bound = std::max(a.bound, b.type == ExprType::Bool ? 1.0 : b.bound);
        if (bound > kIntLimit) return a;
        return paren(a.text + (chance(0.5) ? " or " : " and ") + b.text, ExprType::Int, bound);
      }
      case 5: {
        Node c = gen(ExprType::Bool, d), a = gen(ExprType::Int, d), b = gen(ExprType::Int, d);
        return paren(a.text + " if " + c.text + " else " + b.text, ExprType::Int, std::max(a.bound, b.bound));
      }
      case 6: {
        Node a = gen(ExprType::Int, d), b = gen(ExprType::Int, d);
        const int f = pick(3);
        if (f == 0) return {"abs(" + a.text + ")", ExprType::Int, a.bound};
        return {std::string(f == 1 ? "min" : "max") + "(" + a.text + ", " + b.text + ")", ExprType::Int,
                std::max(a.bound, b.bound)};
      }
      default: {  // shifts and bit operations of small values
        Node a = bounded_int(d, 1e6);
        if (chance(0.5))
          return paren(a.text + (chance(0.5) ? " << " : " >> ") + std::to_string(pick(8)), ExprType::Int,
                       a.bound * 128);
        Node b = bounded_int(d, 1e6);
        return paren(a.text + one_of<std::string>({" & ", " | ", " ^ "}) + b.text, ExprType::Int,
                     2 * std::max(a.bound, b.bound));
      }
    }
  }

  Node gen_bool(int depth) {
    const int d = depth - 1;
    static const std::vector<std::string> cmp = {"<", "<=", ">", ">=", "==", "!="};
    switch (pick(6)) {
      case 0:
      case 1: {
        Node a = numeric(d), b = numeric(d);
        if (chance(0.2))
          return paren(a.text + " " + one_of(cmp) + " " + b.text + " " + one_of(cmp) + " " + numeric(d).text,
                       ExprType::Bool);
        return paren(a.text + " " + one_of(cmp) + " " + b.text, ExprType::Bool);
      }
      case 2:
        return paren("not " + gen(chance(0.6) ? ExprType::Bool : ExprType::Float, d).text, ExprType::Bool);
      case 3: {
        Node a = gen(ExprType::Bool, d), b = gen(ExprType::Bool, d);
        return paren(a.text + one_of<std::string>({" and ", " or ", " & ", " | ", " ^ "}) + b.text,
                     ExprType::Bool);
      }
      case 4: return {"bool(" + numeric(d).text + ")", ExprType::Bool, 1.0};
      default: {
        Node c = gen(ExprType::Bool, d), a = gen(ExprType::Bool, d), b = gen(ExprType::Bool, d);
        return paren(a.text + " if " + c.text + " else " + b.text, ExprType::Bool);
      }
    }
  }
};

}  // namespace

GeneratedExpr generate_expression(std::uint64_t seed, std::uint64_t index, int max_depth) {
  Generator g(seed * 0x9E3779B97F4A7C15ULL + index * 0xBF58476D1CE4E5B9ULL + 1);
  ExprType t = g.any_type();
  Node n = g.gen(t, 1 + static_cast<int>(index % static_cast<std::uint64_t>(max_depth)));
  std::string text = n.text;
  if (text.size() > 2 && text.front() == '(' && text.back() == ')') {
    // Drop the outermost parentheses when they enclose the whole expression.
    int depth = 0;
    bool whole = true;
    for (std::size_t k = 0; k < text.size(); ++k) {
      if (text[k] == '(') ++depth;
      if (text[k] == ')') --depth;
      if (depth == 0 && k + 1 < text.size()) whole = false;
    }
    if (whole) text = text.substr(1, text.size() - 2);
  }
  return {text, t};
}

}  // namespace weir::tasklet_diff
