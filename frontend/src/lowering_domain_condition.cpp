// concat_where conditions in tasklet code: `K == 0`, `(I > 2) & (I < n)`, `~(K < 1)` at a
// point of the output domain, as Python text, as the cuts of the domain they test (collected
// for domain_split.h), and as a constant in a region of the split domain.
#include "lowering_internal.h"

namespace weir::frontend::lowering {

namespace {

KernelBuilder::Decided known(bool v) { return {v ? "True" : "False", v}; }

std::optional<bool> negated(std::optional<bool> v) {
  if (!v) return std::nullopt;
  return !*v;
}

}  // namespace

KernelBuilder::Decided KernelBuilder::domain_condition(const TExpr& c, const EnvPtr& env,
                                                       const Shift& shift) {
  if (c.kind == TExprKind::DomainCompare) {
    std::string op;
    switch (c.compare_op) {
      case CompareOperator::Eq: op = "=="; break;
      case CompareOperator::NotEq: op = "!="; break;
      case CompareOperator::Lt: op = "<"; break;
      case CompareOperator::LtE: op = "<="; break;
      case CompareOperator::Gt: op = ">"; break;
      case CompareOperator::GtE: op = ">="; break;
      default: unsupported(c.loc, "this domain comparison");
    }
    Code bound = eval(*c.args[0], env, shift);
    Decided text{"(" + index_text(c.dim, shift, c.loc) + " " + op + " " + bound.text + ")", std::nullopt};
    // Splittable: the index is a map parameter (not a neighbour's) and the bound an expression
    // of SDFG symbols (not a value the tasklet reads).
    auto param = params_.find(c.dim.name);
    if ((!cuts_ && !region_) || !ctx_ || shift.at.count(c.dim.name) || param == params_.end()) return text;
    std::optional<sym::Expr> b;
    try {
      b = sym::Expr::parse(bound.text);
    } catch (const std::exception&) {
      return text;
    }
    for (const std::string& s : b->free_symbols())
      if (!ctx_->is_symbol(s)) return text;
    auto s = shift.off.find(c.dim.name);
    const sym::Expr at = *b - sym::Expr(s == shift.off.end() ? 0 : s->second);
    // index OP bound, with index = param + off: in cuts `param < at` and `param < at + 1`.
    const DomainCut lt{param->second, at}, le{param->second, at + sym::Expr(1)};
    const bool uses_lt = c.compare_op != CompareOperator::LtE && c.compare_op != CompareOperator::Gt;
    const bool uses_le = c.compare_op != CompareOperator::Lt && c.compare_op != CompareOperator::GtE;
    if (cuts_) {
      if (uses_lt) cuts_->push_back(lt);
      if (uses_le) cuts_->push_back(le);
      return text;
    }
    auto below = [&](const DomainCut& k) -> std::optional<bool> {
      auto it = region_->below.find(k.key());
      if (it == region_->below.end()) return std::nullopt;
      return it->second;
    };
    std::optional<bool> v;
    switch (c.compare_op) {
      case CompareOperator::Lt: v = below(lt); break;
      case CompareOperator::LtE: v = below(le); break;
      case CompareOperator::Gt: v = negated(below(le)); break;
      case CompareOperator::GtE: v = negated(below(lt)); break;
      default: {
        std::optional<bool> l = below(lt), e = below(le);
        if (l && e) v = (!*l && *e) == (c.compare_op == CompareOperator::Eq);
      }
    }
    return v ? known(*v) : text;
  }
  if (c.kind == TExprKind::Binary &&
      (c.binary_op == BinaryOperator::BitAnd || c.binary_op == BinaryOperator::BitOr)) {
    const bool conj = c.binary_op == BinaryOperator::BitAnd;
    Decided l = domain_condition(*c.args[0], env, shift), r = domain_condition(*c.args[1], env, shift);
    // false & x is false, true | x is true, whatever x is.
    if ((l.value && *l.value != conj) || (r.value && *r.value != conj)) return known(!conj);
    if (l.value && r.value) return known(conj);
    if (l.value) return r;
    if (r.value) return l;
    return {"(" + l.text + (conj ? " and " : " or ") + r.text + ")", std::nullopt};
  }
  if (c.kind == TExprKind::Unary &&
      (c.unary_op == UnaryOperator::Invert || c.unary_op == UnaryOperator::Not)) {
    Decided x = domain_condition(*c.args[0], env, shift);
    if (x.value) return known(!*x.value);
    return {"(not " + x.text + ")", std::nullopt};
  }
  unsupported(c.loc, "this concat_where condition");
}

}  // namespace weir::frontend::lowering
