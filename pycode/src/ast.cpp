// AST node names, operator spellings, deep copy and small helpers.
#include "weir/pycode/ast.h"

namespace weir::pycode {

Expr::~Expr() = default;
Stmt::~Stmt() = default;

std::string_view to_string(UnaryOperator op) {
  switch (op) {
    case UnaryOperator::UAdd: return "+";
    case UnaryOperator::USub: return "-";
    case UnaryOperator::Not: return "not";
    case UnaryOperator::Invert: return "~";
  }
  return "?";
}

std::string_view to_string(BinaryOperator op) {
  switch (op) {
    case BinaryOperator::Add: return "+";
    case BinaryOperator::Sub: return "-";
    case BinaryOperator::Mult: return "*";
    case BinaryOperator::MatMult: return "@";
    case BinaryOperator::Div: return "/";
    case BinaryOperator::FloorDiv: return "//";
    case BinaryOperator::Mod: return "%";
    case BinaryOperator::Pow: return "**";
    case BinaryOperator::LShift: return "<<";
    case BinaryOperator::RShift: return ">>";
    case BinaryOperator::BitOr: return "|";
    case BinaryOperator::BitXor: return "^";
    case BinaryOperator::BitAnd: return "&";
  }
  return "?";
}

std::string_view to_string(BoolOperator op) { return op == BoolOperator::And ? "and" : "or"; }

std::string_view to_string(CompareOperator op) {
  switch (op) {
    case CompareOperator::Eq: return "==";
    case CompareOperator::NotEq: return "!=";
    case CompareOperator::Lt: return "<";
    case CompareOperator::LtE: return "<=";
    case CompareOperator::Gt: return ">";
    case CompareOperator::GtE: return ">=";
    case CompareOperator::Is: return "is";
    case CompareOperator::IsNot: return "is not";
    case CompareOperator::In: return "in";
    case CompareOperator::NotIn: return "not in";
  }
  return "?";
}

std::string_view to_string(ExprKind kind) {
  switch (kind) {
    case ExprKind::Name: return "Name";
    case ExprKind::Constant: return "Constant";
    case ExprKind::Attribute: return "Attribute";
    case ExprKind::Subscript: return "Subscript";
    case ExprKind::Slice: return "Slice";
    case ExprKind::Call: return "Call";
    case ExprKind::UnaryOp: return "UnaryOp";
    case ExprKind::BinOp: return "BinOp";
    case ExprKind::BoolOp: return "BoolOp";
    case ExprKind::Compare: return "Compare";
    case ExprKind::IfExp: return "IfExp";
    case ExprKind::Tuple: return "Tuple";
    case ExprKind::List: return "List";
    case ExprKind::Dict: return "Dict";
    case ExprKind::Set: return "Set";
    case ExprKind::Lambda: return "Lambda";
    case ExprKind::Starred: return "Starred";
  }
  return "Expr";
}

std::string_view to_string(ConstantKind kind) {
  switch (kind) {
    case ConstantKind::Int: return "int";
    case ConstantKind::Float: return "float";
    case ConstantKind::Imaginary: return "complex";
    case ConstantKind::String: return "str";
    case ConstantKind::Bytes: return "bytes";
    case ConstantKind::Bool: return "bool";
    case ConstantKind::None: return "None";
    case ConstantKind::Ellipsis: return "Ellipsis";
  }
  return "?";
}

std::string_view to_string(ParamKind kind) {
  switch (kind) {
    case ParamKind::PositionalOnly: return "positional-only";
    case ParamKind::Normal: return "normal";
    case ParamKind::VarArgs: return "*args";
    case ParamKind::KeywordOnly: return "keyword-only";
    case ParamKind::VarKeywords: return "**kwargs";
  }
  return "?";
}

std::string_view to_string(StmtKind kind) {
  switch (kind) {
    case StmtKind::Assign: return "Assign";
    case StmtKind::AnnAssign: return "AnnAssign";
    case StmtKind::AugAssign: return "AugAssign";
    case StmtKind::Return: return "Return";
    case StmtKind::Pass: return "Pass";
    case StmtKind::Expr: return "Expr";
    case StmtKind::If: return "If";
    case StmtKind::FunctionDef: return "FunctionDef";
    case StmtKind::ClassDef: return "ClassDef";
    case StmtKind::For: return "For";
    case StmtKind::While: return "While";
    case StmtKind::Break: return "Break";
    case StmtKind::Continue: return "Continue";
    case StmtKind::Import: return "Import";
    case StmtKind::ImportFrom: return "ImportFrom";
    case StmtKind::Unparsed: return "Unparsed";
  }
  return "Stmt";
}

namespace {

ExprList clone_all(const ExprList& list) {
  ExprList out;
  out.reserve(list.size());
  for (const ExprPtr& e : list) out.push_back(clone(e.get()));
  return out;
}

std::vector<Parameter> clone_params(const std::vector<Parameter>& params) {
  std::vector<Parameter> out;
  for (const Parameter& p : params)
    out.push_back(Parameter{p.name, p.kind, clone(p.annotation.get()), clone(p.default_value.get()), p.loc});
  return out;
}

std::vector<Keyword> clone_keywords(const std::vector<Keyword>& list) {
  std::vector<Keyword> out;
  for (const Keyword& k : list) out.push_back(Keyword{k.arg, clone(k.value.get()), k.loc});
  return out;
}

}  // namespace

ExprPtr clone(const Expr* expr) {
  if (!expr) return nullptr;
  const SourceLocation& l = expr->loc;
  switch (expr->kind) {
    case ExprKind::Name: return std::make_unique<Name>(l, static_cast<const Name*>(expr)->id);
    case ExprKind::Constant: {
      auto* c = static_cast<const Constant*>(expr);
      auto n = std::make_unique<Constant>(l);
      n->value_kind = c->value_kind;
      n->int_value = c->int_value;
      n->float_value = c->float_value;
      n->str_value = c->str_value;
      n->bool_value = c->bool_value;
      n->text = c->text;
      return n;
    }
    case ExprKind::Attribute: {
      auto* a = static_cast<const Attribute*>(expr);
      auto n = std::make_unique<Attribute>(l);
      n->value = clone(a->value.get());
      n->attr = a->attr;
      n->attr_loc = a->attr_loc;
      return n;
    }
    case ExprKind::Subscript: {
      auto* s = static_cast<const Subscript*>(expr);
      auto n = std::make_unique<Subscript>(l);
      n->value = clone(s->value.get());
      n->index = clone(s->index.get());
      return n;
    }
    case ExprKind::Slice: {
      auto* s = static_cast<const Slice*>(expr);
      auto n = std::make_unique<Slice>(l);
      n->lower = clone(s->lower.get());
      n->upper = clone(s->upper.get());
      n->step = clone(s->step.get());
      return n;
    }
    case ExprKind::Call: {
      auto* c = static_cast<const Call*>(expr);
      auto n = std::make_unique<Call>(l);
      n->func = clone(c->func.get());
      n->args = clone_all(c->args);
      n->keywords = clone_keywords(c->keywords);
      return n;
    }
    case ExprKind::UnaryOp: {
      auto* u = static_cast<const UnaryOp*>(expr);
      auto n = std::make_unique<UnaryOp>(l);
      n->op = u->op;
      n->operand = clone(u->operand.get());
      return n;
    }
    case ExprKind::BinOp: {
      auto* b = static_cast<const BinOp*>(expr);
      auto n = std::make_unique<BinOp>(l);
      n->op = b->op;
      n->left = clone(b->left.get());
      n->right = clone(b->right.get());
      n->op_loc = b->op_loc;
      return n;
    }
    case ExprKind::BoolOp: {
      auto* b = static_cast<const BoolOp*>(expr);
      auto n = std::make_unique<BoolOp>(l);
      n->op = b->op;
      n->values = clone_all(b->values);
      return n;
    }
    case ExprKind::Compare: {
      auto* c = static_cast<const Compare*>(expr);
      auto n = std::make_unique<Compare>(l);
      n->left = clone(c->left.get());
      n->ops = c->ops;
      n->comparators = clone_all(c->comparators);
      n->op_locs = c->op_locs;
      return n;
    }
    case ExprKind::IfExp: {
      auto* i = static_cast<const IfExp*>(expr);
      auto n = std::make_unique<IfExp>(l);
      n->test = clone(i->test.get());
      n->body = clone(i->body.get());
      n->orelse = clone(i->orelse.get());
      return n;
    }
    case ExprKind::Tuple: {
      auto* t = static_cast<const Tuple*>(expr);
      auto n = std::make_unique<Tuple>(l);
      n->elts = clone_all(t->elts);
      n->parenthesized = t->parenthesized;
      return n;
    }
    case ExprKind::List: {
      auto n = std::make_unique<List>(l);
      n->elts = clone_all(static_cast<const List*>(expr)->elts);
      return n;
    }
    case ExprKind::Dict: {
      auto* d = static_cast<const Dict*>(expr);
      auto n = std::make_unique<Dict>(l);
      n->keys = clone_all(d->keys);
      n->values = clone_all(d->values);
      return n;
    }
    case ExprKind::Set: {
      auto n = std::make_unique<Set>(l);
      n->elts = clone_all(static_cast<const Set*>(expr)->elts);
      return n;
    }
    case ExprKind::Lambda: {
      auto* f = static_cast<const Lambda*>(expr);
      auto n = std::make_unique<Lambda>(l);
      n->params = clone_params(f->params);
      n->body = clone(f->body.get());
      return n;
    }
    case ExprKind::Starred: {
      auto n = std::make_unique<Starred>(l);
      n->value = clone(static_cast<const Starred*>(expr)->value.get());
      return n;
    }
  }
  return nullptr;
}

StmtPtr clone(const Stmt* stmt) {
  if (!stmt) return nullptr;
  const SourceLocation& l = stmt->loc;
  switch (stmt->kind) {
    case StmtKind::Assign: {
      auto* a = static_cast<const Assign*>(stmt);
      auto n = std::make_unique<Assign>(l);
      n->targets = clone_all(a->targets);
      n->value = clone(a->value.get());
      return n;
    }
    case StmtKind::AnnAssign: {
      auto* a = static_cast<const AnnAssign*>(stmt);
      auto n = std::make_unique<AnnAssign>(l);
      n->target = clone(a->target.get());
      n->annotation = clone(a->annotation.get());
      n->value = clone(a->value.get());
      return n;
    }
    case StmtKind::AugAssign: {
      auto* a = static_cast<const AugAssign*>(stmt);
      auto n = std::make_unique<AugAssign>(l);
      n->target = clone(a->target.get());
      n->op = a->op;
      n->value = clone(a->value.get());
      return n;
    }
    case StmtKind::Return: {
      auto n = std::make_unique<Return>(l);
      n->value = clone(static_cast<const Return*>(stmt)->value.get());
      return n;
    }
    case StmtKind::Pass: return std::make_unique<Pass>(l);
    case StmtKind::Expr: {
      auto n = std::make_unique<ExprStmt>(l);
      n->value = clone(static_cast<const ExprStmt*>(stmt)->value.get());
      return n;
    }
    case StmtKind::If: {
      auto* i = static_cast<const If*>(stmt);
      auto n = std::make_unique<If>(l);
      n->test = clone(i->test.get());
      n->body = clone(i->body);
      n->orelse = clone(i->orelse);
      n->is_elif = i->is_elif;
      return n;
    }
    case StmtKind::FunctionDef: {
      auto* f = static_cast<const FunctionDef*>(stmt);
      auto n = std::make_unique<FunctionDef>(l);
      n->name = f->name;
      n->decorators = clone_all(f->decorators);
      n->params = clone_params(f->params);
      n->returns = clone(f->returns.get());
      n->body = clone(f->body);
      n->body_skipped = f->body_skipped;
      return n;
    }
    case StmtKind::ClassDef: {
      auto* c = static_cast<const ClassDef*>(stmt);
      auto n = std::make_unique<ClassDef>(l);
      n->name = c->name;
      n->decorators = clone_all(c->decorators);
      n->bases = clone_all(c->bases);
      n->keywords = clone_keywords(c->keywords);
      n->body = clone(c->body);
      return n;
    }
    case StmtKind::For: {
      auto* f = static_cast<const For*>(stmt);
      auto n = std::make_unique<For>(l);
      n->target = clone(f->target.get());
      n->iter = clone(f->iter.get());
      n->body = clone(f->body);
      n->orelse = clone(f->orelse);
      return n;
    }
    case StmtKind::While: {
      auto* w = static_cast<const While*>(stmt);
      auto n = std::make_unique<While>(l);
      n->test = clone(w->test.get());
      n->body = clone(w->body);
      n->orelse = clone(w->orelse);
      return n;
    }
    case StmtKind::Break: return std::make_unique<Break>(l);
    case StmtKind::Continue: return std::make_unique<Continue>(l);
    case StmtKind::Import: {
      auto n = std::make_unique<Import>(l);
      n->names = static_cast<const Import*>(stmt)->names;
      return n;
    }
    case StmtKind::ImportFrom: {
      auto* i = static_cast<const ImportFrom*>(stmt);
      auto n = std::make_unique<ImportFrom>(l);
      n->module = i->module;
      n->level = i->level;
      n->names = i->names;
      return n;
    }
    case StmtKind::Unparsed: {
      auto* u = static_cast<const Unparsed*>(stmt);
      auto n = std::make_unique<Unparsed>(l);
      n->text = u->text;
      n->first_token = u->first_token;
      n->reason = u->reason;
      n->end_line = u->end_line;
      return n;
    }
  }
  return nullptr;
}

StmtList clone(const StmtList& body) {
  StmtList out;
  out.reserve(body.size());
  for (const StmtPtr& s : body) out.push_back(clone(s.get()));
  return out;
}

std::string dotted_name(const Expr* expr) {
  if (const auto* name = dyn_cast<Name>(expr)) return name->id;
  if (const auto* attr = dyn_cast<Attribute>(expr)) {
    std::string base = dotted_name(attr->value.get());
    return base.empty() ? std::string() : base + "." + attr->attr;
  }
  return {};
}

}  // namespace weir::pycode
