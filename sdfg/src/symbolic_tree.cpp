// sym::Expr from pycode's syntax tree (symbolic_tree.h): one case per node kind, each building
// through the canonicalizing constructors. Expr::parse (symbolic_parse.cpp) is pycode's parser
// and this reader.
#include "weir/sdfg/symbolic_tree.h"

#include "weir/pycode/code.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace weir::sym {
namespace {

constexpr int kMaxDepth = 200;  // as Expr::parse: the walks over Expr trees are recursive

class TreeReader {
 public:
  Expr read(const pycode::Expr& e) {
    if (++depth_ > kMaxDepth) fail("expression nested too deeply", e.loc);
    Expr r = node(e);
    --depth_;
    return r;
  }

 private:
  [[noreturn]] static void fail(const std::string& message, const pycode::SourceLocation& loc) {
    std::string_view line = loc.known() && loc.file.valid() ? loc.file.line(loc.line) : std::string_view();
    throw SymbolicError(message, line, loc.known() ? loc.column : 1);
  }

  // Runs a constructor; its errors (division by zero, overflow, arity) get `loc`.
  template <class F>
  static Expr at(const pycode::SourceLocation& loc, F&& f) {
    try {
      return f();
    } catch (const SymbolicError& e) {
      if (e.column() != 0) throw;
      fail(e.message(), loc);
    }
  }

  Expr node(const pycode::Expr& e) {
    using K = pycode::ExprKind;
    switch (e.kind) {
      case K::Name: return at(e.loc, [&] { return Expr::symbol(pycode::dyn_cast<pycode::Name>(&e)->id); });
      case K::Constant: return constant(*pycode::dyn_cast<pycode::Constant>(&e));
      case K::UnaryOp: return unary(*pycode::dyn_cast<pycode::UnaryOp>(&e));
      case K::BinOp: return binary(*pycode::dyn_cast<pycode::BinOp>(&e));
      case K::BoolOp: return boolean(*pycode::dyn_cast<pycode::BoolOp>(&e));
      case K::Compare: return comparison(*pycode::dyn_cast<pycode::Compare>(&e));
      case K::Call: return call(*pycode::dyn_cast<pycode::Call>(&e));
      case K::Tuple: {
        std::vector<Expr> items;
        for (const auto& x : pycode::dyn_cast<pycode::Tuple>(&e)->elts) items.push_back(read(*x));
        return at(e.loc, [&] { return Expr::call("", std::move(items)); });
      }
      default: break;
    }
    fail(std::string("unexpected ") + std::string(pycode::to_string(e.kind)) +
             " (not part of symbolic expressions)",
         e.loc);
  }

  static Expr constant(const pycode::Constant& c) {
    using C = pycode::ConstantKind;
    if (c.value_kind == C::Int) return Expr(static_cast<long long>(c.int_value));
    if (c.value_kind == C::Bool) return Expr::boolean(c.bool_value);
    if (c.value_kind == C::Float)
      fail("floating-point literal '" + c.text + "' is not supported (symbolic expressions are integer)",
           c.loc);
    fail("unexpected " + std::string(pycode::to_string(c.value_kind)) + " literal " + c.text, c.loc);
  }

  Expr unary(const pycode::UnaryOp& u) {
    Expr x = read(*u.operand);
    return at(u.loc, [&] {
      switch (u.op) {
        case pycode::UnaryOperator::UAdd: return Expr() + x;  // +True is 1
        case pycode::UnaryOperator::USub: return -x;
        case pycode::UnaryOperator::Invert: return -x - Expr(1);  // Python ~x == -x - 1
        case pycode::UnaryOperator::Not: break;
      }
      return Expr::logical_not(x);
    });
  }

  // The left-deep chain of operators `ops` that ends at `e` (`a + b - c`: the nodes of `- c` and
  // `+ b`), outermost first; walked with a loop, not recursion: a sum of an SDFG file may have
  // thousands of terms (pycode::ParseOptions::long_chains).
  static std::vector<const pycode::BinOp*> chain(const pycode::BinOp& e,
                                                 std::initializer_list<pycode::BinaryOperator> ops) {
    std::vector<const pycode::BinOp*> nodes;
    for (const pycode::BinOp* b = &e; b; b = pycode::dyn_cast<pycode::BinOp>(b->left.get())) {
      if (std::find(ops.begin(), ops.end(), b->op) == ops.end()) break;
      nodes.push_back(b);
    }
    return nodes;
  }

  // `a + b - c` as one sum of all its terms (repeated + on a long sum would be quadratic).
  void sum_terms(const pycode::BinOp& e, std::vector<Expr>& terms) {
    using O = pycode::BinaryOperator;
    const std::vector<const pycode::BinOp*> nodes = chain(e, {O::Add, O::Sub});
    terms.push_back(read(*nodes.back()->left));
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      Expr t = read(*(*it)->right);
      terms.push_back((*it)->op == O::Sub ? at((*it)->op_loc, [&] { return -t; }) : t);
    }
  }

  Expr binary(const pycode::BinOp& b) {
    using O = pycode::BinaryOperator;
    if (b.op == O::Add || b.op == O::Sub) {
      std::vector<Expr> terms;
      sum_terms(b, terms);
      return at(b.loc, [&] { return Expr::sum(terms); });
    }
    if (b.op == O::Pow) {
      Expr base = read(*b.left);
      Expr exp = exponent(*b.right);
      return at(b.op_loc, [&] { return Expr::pow(base, exp); });
    }
    if (b.op != O::Mult && b.op != O::Div && b.op != O::FloorDiv && b.op != O::Mod)
      fail("unexpected operator '" + std::string(pycode::to_string(b.op)) +
               "' (not part of symbolic expressions)",
           b.op_loc);
    // `a * b / c`: left to right over the chain, as Python evaluates it.
    const std::vector<const pycode::BinOp*> nodes = chain(b, {O::Mult, O::Div, O::FloorDiv, O::Mod});
    Expr l = read(*nodes.back()->left);
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      const pycode::BinOp& n = **it;
      Expr r = read(*n.right);
      l = at(n.op_loc, [&] {
        if (n.op == O::Mult) return times(l, r);
        if (n.op == O::Div) return Expr::div(l, r);
        if (n.op == O::FloorDiv) return Expr::floordiv(l, r);
        return Expr::mod(l, r);
      });
    }
    return l;
  }

  // An exponent: an integral float literal (DaCe's `i**2.0`, possibly negated) is the integer.
  Expr exponent(const pycode::Expr& e) {
    const pycode::Expr* lit = &e;
    bool negative = false;
    if (const auto* u = pycode::dyn_cast<pycode::UnaryOp>(&e); u && u->op == pycode::UnaryOperator::USub) {
      lit = u->operand.get();
      negative = true;
    }
    const auto* c = pycode::dyn_cast<pycode::Constant>(lit);
    if (c && c->value_kind == pycode::ConstantKind::Float && std::isfinite(c->float_value) &&
        c->float_value == std::floor(c->float_value) && std::fabs(c->float_value) < 9.2e18) {
      const Expr v(static_cast<long long>(c->float_value));
      return negative ? -v : v;
    }
    return read(e);
  }

  // a * b, where a true quotient by an integer takes the other factor into its numerator (as
  // Expr::parse: DaCe prints sympy's N/3 as `1/3*$N`).
  static Expr times(const Expr& a, const Expr& b) {
    if (a.kind() == Kind::Div && a.args()[1].is_integer()) return Expr::div(a.args()[0] * b, a.args()[1]);
    if (b.kind() == Kind::Div && b.args()[1].is_integer()) return Expr::div(a * b.args()[0], b.args()[1]);
    return a * b;
  }

  Expr boolean(const pycode::BoolOp& b) {
    Expr e = read(*b.values.front());
    for (std::size_t i = 1; i < b.values.size(); ++i) {
      Expr r = read(*b.values[i]);
      e = at(b.loc, [&] {
        return b.op == pycode::BoolOperator::And ? Expr::logical_and(e, r) : Expr::logical_or(e, r);
      });
    }
    return e;
  }

  Expr comparison(const pycode::Compare& c) {
    Expr left = read(*c.left);
    std::optional<Expr> result;
    for (std::size_t i = 0; i < c.ops.size(); ++i) {
      const pycode::SourceLocation& loc = i < c.op_locs.size() ? c.op_locs[i] : c.loc;
      const std::string_view op = pycode::to_string(c.ops[i]);
      using O = pycode::CompareOperator;
      if (c.ops[i] == O::Is || c.ops[i] == O::IsNot || c.ops[i] == O::In || c.ops[i] == O::NotIn)
        fail("unexpected operator '" + std::string(op) + "' (not part of symbolic expressions)", loc);
      Expr right = read(*c.comparators[i]);
      Expr one = at(loc, [&] { return Expr::compare(std::string(op), left, right); });
      result = result ? at(loc, [&] { return Expr::logical_and(*result, one); }) : one;
      left = right;
    }
    return *result;
  }

  Expr call(const pycode::Call& c) {
    const auto* fn = pycode::dyn_cast<pycode::Name>(c.func.get());
    if (!fn) fail("unexpected call of an expression (only names are called)", c.loc);
    for (const auto& k : c.keywords)
      if (fn->id != "symbol")
        fail("keyword argument '" + k.arg + "' is only supported in symbol(...)", k.loc);
    std::vector<Expr> args;
    for (const auto& a : c.args) args.push_back(read(*a));
    if (fn->id == "symbol") {
      // dtype= and assumptions do not change the symbol: their values are not read.
      if (args.size() != 1 || !args[0].is_symbol())
        fail("symbol(...) expects one symbol name, e.g. symbol($N, dtype=dace.int64)", c.loc);
      return args[0];
    }
    return at(c.loc, [&] { return Expr::call(fn->id, std::move(args)); });
  }

  int depth_ = 0;
};

}  // namespace

Expr from_tree(const pycode::Expr& tree) { return TreeReader().read(tree); }

Expr from_code(const CodeBlock& code) {
  // C++ conditions (`i < N`) have no tree; their text reads as it always did.
  if (code.language != Language::Python) return Expr::parse(code.code);
  std::shared_ptr<const pycode::Code> tree = code.parsed();
  const pycode::Expr* e = tree ? tree->expression() : nullptr;
  if (!e) throw SymbolicError("not one Python expression", code.code, 1);
  return from_tree(*e);
}

}  // namespace weir::sym
