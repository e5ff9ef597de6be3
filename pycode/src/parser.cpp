// Recursive-descent parser with Python's precedence, plus token-level skipping of the module
// statements weir does not need.
#include "weir/pycode/parser.h"

#include <algorithm>
#include <array>

#include "weir/pycode/lexer.h"
#include "weir/pycode/literals.h"

namespace weir::pycode {

namespace {

constexpr std::array<std::string_view, 35> kKeywords = {
    "False", "None",     "True",  "and",    "as",   "assert", "async",  "await",    "break",
    "class", "continue", "def",   "del",    "elif", "else",   "except", "finally",  "for",
    "from",  "global",   "if",    "import", "in",   "is",     "lambda", "nonlocal", "not",
    "or",    "pass",     "raise", "return", "try",  "while",  "with",   "yield"};

bool is_keyword(std::string_view word) {
  return std::find(kKeywords.begin(), kKeywords.end(), word) != kKeywords.end();
}

// Keywords that start a compound statement weir does not parse.
bool is_unsupported_compound(std::string_view word) {
  return word == "for" || word == "while" || word == "try" || word == "with" || word == "async" ||
         word == "else" || word == "elif" || word == "except" || word == "finally";
}

// Keywords that start a simple statement weir does not parse.
bool is_unsupported_simple(std::string_view word) {
  return word == "del" || word == "global" || word == "nonlocal" || word == "assert" || word == "raise" ||
         word == "break" || word == "continue" || word == "yield";
}

struct AugOp {
  std::string_view text;
  BinaryOperator op;
};
constexpr std::array<AugOp, 13> kAugOps = {{{"+=", BinaryOperator::Add},
                                            {"-=", BinaryOperator::Sub},
                                            {"*=", BinaryOperator::Mult},
                                            {"@=", BinaryOperator::MatMult},
                                            {"/=", BinaryOperator::Div},
                                            {"//=", BinaryOperator::FloorDiv},
                                            {"%=", BinaryOperator::Mod},
                                            {"**=", BinaryOperator::Pow},
                                            {"<<=", BinaryOperator::LShift},
                                            {">>=", BinaryOperator::RShift},
                                            {"|=", BinaryOperator::BitOr},
                                            {"^=", BinaryOperator::BitXor},
                                            {"&=", BinaryOperator::BitAnd}}};

const AugOp* find_aug_op(const Token& t) {
  if (t.kind != TokenKind::Op) return nullptr;
  for (const AugOp& a : kAugOps)
    if (a.text == t.text) return &a;
  return nullptr;
}

enum class Mode { Strict, Lenient };

class Parser {
 public:
  Parser(SourceFile file, const ParseOptions& options)
      : file_(std::move(file)),
        toks_(tokenize(file_)),
        strict_(options.strict_decorators),
        long_chains_(options.long_chains) {}

  Module module();
  StmtPtr function_with_loops(std::uint32_t line);
  ExprPtr expression_input();
  StmtList statements_input();

 private:
  SourceFile file_;
  std::vector<Token> toks_;
  std::size_t pos_ = 0;
  std::vector<std::string> strict_;
  // Names bound to weir or to a name imported from it (`import weir as w`, `from weir import
  // program`): `@weir.program` is no gt4py decorator, so it does not make a definition strict.
  std::vector<std::string> weir_names_ = {"weir"};
  bool fatal_ = false;        // a strictly decorated definition failed: do not skip, rethrow
  bool loops_ = false;        // for/while/break/continue are statements (orchestration functions)
  bool long_chains_ = false;  // ParseOptions::long_chains
  // Nesting of what is being parsed: parser recursion (brackets, unary operators, blocks) and
  // the length of left-deep chains (`a + a + ...`, `a.b.c`, `f()()`), which is the AST depth
  // later passes recurse over. Bounded by kMaxNestingDepth so no pass overflows the stack.
  std::size_t depth_ = 0;

  // Enters `levels` more levels of nesting; fails at `where` beyond the limit.
  void enter(const SourceLocation& where, std::size_t levels = 1) {
    depth_ += levels;
    if (depth_ > kMaxNestingDepth)
      fail(where, "expression too deeply nested (more than " + std::to_string(kMaxNestingDepth) + " levels)");
  }
  // Restores the nesting depth when a recursive parse function returns (or throws).
  struct Nest {
    Parser& p;
    std::size_t saved;
    explicit Nest(Parser& parser) : p(parser), saved(parser.depth_) {}
    ~Nest() { p.depth_ = saved; }
    Nest(const Nest&) = delete;
    Nest& operator=(const Nest&) = delete;
  };

  // ---- token access
  const Token& peek(std::size_t k = 0) const { return toks_[std::min(pos_ + k, toks_.size() - 1)]; }
  const Token& next() {
    const Token& t = toks_[pos_];
    if (pos_ + 1 < toks_.size()) ++pos_;
    return t;
  }
  bool at(TokenKind kind) const { return peek().kind == kind; }
  // The `const char*` overloads are what string literals pick: the std::string_view or
  // std::string temporary is then made in these small frames, not in the caller's. In the
  // recursive descent the callers' frames stack up once per nesting level, and at -O0 with
  // AddressSanitizer every temporary there keeps its own padded slot (issue 17: the nesting
  // limit must hold on an 8 MiB stack in every build).
  bool at_op(std::string_view op) const { return peek().is_op(op); }
  bool at_op(const char* op) const { return peek().is_op(op); }
  bool at_kw(std::string_view kw) const { return peek().is_name(kw); }
  bool at_kw(const char* kw) const { return peek().is_name(kw); }
  bool accept_op(std::string_view op) {
    if (!at_op(op)) return false;
    next();
    return true;
  }
  bool accept_op(const char* op) { return accept_op(std::string_view(op)); }
  bool accept_kw(std::string_view kw) {
    if (!at_kw(kw)) return false;
    next();
    return true;
  }
  bool accept_kw(const char* kw) { return accept_kw(std::string_view(kw)); }
  [[noreturn]] void fail(const Token& t, const std::string& message) const {
    throw SourceError(t.loc, message);
  }
  [[noreturn]] void fail(const Token& t, const char* message) const { fail(t, std::string(message)); }
  [[noreturn]] void fail(const SourceLocation& loc, const std::string& message) const {
    throw SourceError(loc, message);
  }
  [[noreturn]] void fail(const SourceLocation& loc, const char* message) const {
    fail(loc, std::string(message));
  }
  [[noreturn]] void fail_expected(const std::string& what) const {
    fail(peek(), "expected " + what + ", found " + peek().describe());
  }
  [[noreturn]] void fail_expected(const char* what) const { fail_expected(std::string(what)); }
  const Token& expect_op(std::string_view op) {
    if (!at_op(op)) fail_expected("'" + std::string(op) + "'");
    return next();
  }
  const Token& expect_op(const char* op) { return expect_op(std::string_view(op)); }
  const Token& expect_name(const char* what) {
    if (!at(TokenKind::Name) || is_keyword(peek().text)) fail_expected(what);
    return next();
  }
  void expect_newline() {
    if (!at(TokenKind::Newline)) fail_expected("end of line");
    next();
  }
  bool starts_expression(const Token& t) const;

  // ---- expressions
  ExprPtr expression();
  ExprPtr disjunction();
  ExprPtr conjunction();
  ExprPtr inversion();
  ExprPtr comparison();
  ExprPtr bitwise_or() { return binary(0); }
  ExprPtr factor();
  ExprPtr power();
  ExprPtr primary();
  ExprPtr atom();
  ExprPtr strings();
  ExprPtr paren_atom();
  ExprPtr list_atom();
  ExprPtr brace_atom();
  ExprPtr lambda_expr();
  ExprPtr star_expression();
  ExprPtr star_expressions();
  ExprPtr slices();
  ExprPtr slice_item();
  void call_arguments(ExprList& args, std::vector<Keyword>& keywords);
  std::vector<Parameter> parameters(bool lambda, std::string_view closing);
  void no_comprehension() const {
    if (at_kw("for") || at_kw("async"))
      fail(peek(), "comprehensions and generator expressions are not supported");
  }
  // Binary operators from `|` (level 0) to `* / // % @` (level 5) by precedence climbing: one
  // frame per precedence change instead of one per level, so that each bracket nesting costs
  // few frames and the nesting limit fits the default stack in every build.
  ExprPtr binary(int min_level);
  // The rest of a construct once its first token or operand is known. The functions above, on
  // the path every nesting level goes through (expression ... atom, paren_atom), keep only that
  // path and call these for the work around it, so that their frames stay small in every build
  // (at -O0 with AddressSanitizer each local and temporary has its own padded slot).
  ExprPtr conditional_rest(ExprPtr body);
  ExprPtr bool_op_rest(ExprPtr first, BoolOperator op);
  ExprPtr not_expression();
  bool at_compare_operator() const;
  ExprPtr compare_rest(ExprPtr left);
  const struct BinaryLevelOp* binary_operator_at(int min_level) const;
  ExprPtr binary_rest(ExprPtr left, const BinaryLevelOp& op);
  ExprPtr unary_expression();
  ExprPtr power_rest(ExprPtr base);
  ExprPtr trailer(ExprPtr e);
  ExprPtr call_trailer(ExprPtr e);
  ExprPtr subscript_trailer(ExprPtr e);
  ExprPtr attribute_trailer(ExprPtr e);
  void positional_argument(ExprList& args, bool seen_keyword, bool seen_double_star);
  void unpacking_or_keyword_argument(ExprList& args, std::vector<Keyword>& keywords, bool& seen_keyword,
                                     bool& seen_double_star);
  ExprPtr name_atom();
  ExprPtr number_atom();
  ExprPtr other_atom();
  ExprPtr paren_rest(const Token& open, ExprPtr first);

  // ---- statements (strict)
  StmtList statement();
  StmtList simple_statements();
  StmtPtr simple_statement();
  StmtPtr if_statement();
  StmtPtr loop_statement();
  StmtPtr function_def(ExprList decorators, Mode mode);
  StmtPtr class_def(ExprList decorators, Mode mode);
  StmtPtr decorated(Mode mode);
  StmtPtr import_statement();
  StmtPtr import_from_statement();
  StmtList block(const std::string& what, std::uint32_t line, Mode mode);
  void validate_target(const Expr& e, bool in_sequence) const;
  bool is_match_statement(std::size_t p) const;
  bool is_type_alias_statement(std::size_t p) const;

  // ---- module level (lenient)
  void lenient_statement(StmtList& out);
  void lenient_line(StmtList& out);
  bool decorator_is_strict(std::size_t p) const;
  bool body_has_strict_decorator(std::size_t p) const;
  bool line_opens_block(std::size_t p) const;
  void skip_logical_line();
  void skip_indented_block();
  StmtPtr skip_statement(const std::string& reason);
  StmtPtr make_unparsed(std::size_t begin, std::size_t end, const std::string& reason) const;
};

// =============================================================================================
// Expressions

bool Parser::starts_expression(const Token& t) const {
  switch (t.kind) {
    case TokenKind::Number:
    case TokenKind::String:
    case TokenKind::FString: return true;
    case TokenKind::Name:
      return !is_keyword(t.text) || t.text == "True" || t.text == "False" || t.text == "None" ||
             t.text == "not" || t.text == "lambda" || t.text == "await" || t.text == "yield";
    case TokenKind::Op:
      return t.text == "(" || t.text == "[" || t.text == "{" || t.text == "-" || t.text == "+" ||
             t.text == "~" || t.text == "*" || t.text == "...";
    default: return false;
  }
}

ExprPtr Parser::expression() {
  Nest nest(*this);
  enter(peek().loc);
  if (at_kw("lambda")) return lambda_expr();
  ExprPtr e = disjunction();
  if (at_kw("if")) return conditional_rest(std::move(e));
  if (at_op(":=")) fail(peek(), "assignment expressions (':=') are not supported");
  return e;
}

// After `body`, at `if`: `body if test else orelse`.
ExprPtr Parser::conditional_rest(ExprPtr body) {
  next();
  auto n = std::make_unique<IfExp>(body->loc);
  n->body = std::move(body);
  n->test = disjunction();
  if (!accept_kw("else")) fail_expected("'else' in conditional expression");
  n->orelse = expression();
  if (at_op(":=")) fail(peek(), "assignment expressions (':=') are not supported");
  return n;
}

ExprPtr Parser::lambda_expr() {
  const Token& kw = next();
  auto n = std::make_unique<Lambda>(kw.loc);
  n->params = parameters(true, ":");
  expect_op(":");
  n->body = expression();
  return n;
}

ExprPtr Parser::disjunction() {
  ExprPtr first = conjunction();
  if (!at_kw("or")) return first;
  return bool_op_rest(std::move(first), BoolOperator::Or);
}

ExprPtr Parser::conjunction() {
  ExprPtr first = inversion();
  if (!at_kw("and")) return first;
  return bool_op_rest(std::move(first), BoolOperator::And);
}

// After the first operand, at `or` (`and`): the rest of the chain, one BoolOp.
ExprPtr Parser::bool_op_rest(ExprPtr first, BoolOperator op) {
  const char* word = op == BoolOperator::Or ? "or" : "and";
  auto n = std::make_unique<BoolOp>(first->loc);
  n->op = op;
  n->values.push_back(std::move(first));
  while (accept_kw(word)) n->values.push_back(op == BoolOperator::Or ? conjunction() : inversion());
  return n;
}

ExprPtr Parser::inversion() {
  if (at_kw("not")) return not_expression();
  return comparison();
}

ExprPtr Parser::not_expression() {
  Nest nest(*this);
  enter(peek().loc);
  const Token& t = next();
  auto n = std::make_unique<UnaryOp>(t.loc);
  n->op = UnaryOperator::Not;
  n->operand = inversion();
  return n;
}

ExprPtr Parser::comparison() {
  ExprPtr left = bitwise_or();
  if (!at_compare_operator()) return left;
  return compare_rest(std::move(left));
}

bool Parser::at_compare_operator() const {
  const Token& t = peek();
  return t.is_op("==") || t.is_op("!=") || t.is_op("<") || t.is_op("<=") || t.is_op(">") || t.is_op(">=") ||
         t.is_name("in") || (t.is_name("not") && peek(1).is_name("in")) || t.is_name("is");
}

// After the left operand, at a comparison operator: the rest of the chain, one Compare.
ExprPtr Parser::compare_rest(ExprPtr left) {
  std::unique_ptr<Compare> cmp;
  while (true) {
    const Token& t = peek();
    CompareOperator op;
    std::size_t width = 1;
    if (t.is_op("=="))
      op = CompareOperator::Eq;
    else if (t.is_op("!="))
      op = CompareOperator::NotEq;
    else if (t.is_op("<"))
      op = CompareOperator::Lt;
    else if (t.is_op("<="))
      op = CompareOperator::LtE;
    else if (t.is_op(">"))
      op = CompareOperator::Gt;
    else if (t.is_op(">="))
      op = CompareOperator::GtE;
    else if (t.is_name("in"))
      op = CompareOperator::In;
    else if (t.is_name("not") && peek(1).is_name("in"))
      op = CompareOperator::NotIn, width = 2;
    else if (t.is_name("is") && peek(1).is_name("not"))
      op = CompareOperator::IsNot, width = 2;
    else if (t.is_name("is"))
      op = CompareOperator::Is;
    else
      break;
    SourceLocation op_loc = t.loc;
    pos_ += width;
    if (!cmp) cmp = std::make_unique<Compare>(left->loc);
    cmp->ops.push_back(op);
    cmp->op_locs.push_back(op_loc);
    cmp->comparators.push_back(bitwise_or());
  }
  if (!cmp) return left;
  cmp->left = std::move(left);
  return cmp;
}

struct BinaryLevelOp {
  std::string_view text;
  BinaryOperator op;
  int level;  // higher binds tighter (Python's grammar: bitwise_or ... term)
};

constexpr BinaryLevelOp kBinaryOps[] = {
    {"|", BinaryOperator::BitOr, 0},     {"^", BinaryOperator::BitXor, 1},  {"&", BinaryOperator::BitAnd, 2},
    {"<<", BinaryOperator::LShift, 3},   {">>", BinaryOperator::RShift, 3}, {"+", BinaryOperator::Add, 4},
    {"-", BinaryOperator::Sub, 4},       {"*", BinaryOperator::Mult, 5},    {"/", BinaryOperator::Div, 5},
    {"//", BinaryOperator::FloorDiv, 5}, {"%", BinaryOperator::Mod, 5},     {"@", BinaryOperator::MatMult, 5},
};

ExprPtr Parser::binary(int min_level) {
  // Left-associative at every level: the operand after an operator of level L takes only
  // operators above L; a following operator of level >= min_level extends the left-deep chain.
  Nest nest(*this);
  ExprPtr left = factor();
  std::size_t length = 0;
  while (const BinaryLevelOp* found = binary_operator_at(min_level)) {
    // Each operator makes the left-deep tree one level deeper (ParseOptions::long_chains: the
    // chain counts once).
    if (!long_chains_)
      enter(peek().loc);
    else if (++length == 1)
      enter(peek().loc);
    else if (length > kMaxChainLength)
      fail(peek().loc, "chain of operators too long (more than " + std::to_string(kMaxChainLength) + ")");
    left = binary_rest(std::move(left), *found);
  }
  return left;
}

// The binary operator at the current token with a level of at least `min_level`, or null.
const BinaryLevelOp* Parser::binary_operator_at(int min_level) const {
  const BinaryLevelOp* found = nullptr;
  for (const auto& op : kBinaryOps)
    if (op.level >= min_level && at_op(op.text)) found = &op;
  return found;
}

// At operator `op` after `left`: `left op right`, one level deeper in the left-deep chain.
ExprPtr Parser::binary_rest(ExprPtr left, const BinaryLevelOp& op) {
  const Token& t = next();
  auto n = std::make_unique<BinOp>(left->loc);
  n->op = op.op;
  n->op_loc = t.loc;
  n->left = std::move(left);
  n->right = op.level == 5 ? factor() : binary(op.level + 1);
  return n;
}

ExprPtr Parser::factor() {
  const Token& t = peek();
  if (t.is_op("+") || t.is_op("-") || t.is_op("~")) return unary_expression();
  return power();
}

// At `+`, `-` or `~`.
ExprPtr Parser::unary_expression() {
  const Token& t = peek();
  UnaryOperator op = t.is_op("+")   ? UnaryOperator::UAdd
                     : t.is_op("-") ? UnaryOperator::USub
                                    : UnaryOperator::Invert;
  Nest nest(*this);
  enter(t.loc);
  next();
  auto n = std::make_unique<UnaryOp>(t.loc);
  n->op = op;
  n->operand = factor();
  return n;
}

ExprPtr Parser::power() {
  if (at_kw("await")) fail(peek(), "'await' is not supported");
  ExprPtr base = primary();
  if (!at_op("**")) return base;
  return power_rest(std::move(base));
}

// After the base, at `**`.
ExprPtr Parser::power_rest(ExprPtr base) {
  Nest nest(*this);
  enter(peek().loc);
  const Token& t = next();
  auto n = std::make_unique<BinOp>(base->loc);
  n->op = BinaryOperator::Pow;
  n->op_loc = t.loc;
  n->left = std::move(base);
  n->right = factor();  // right-associative, binds looser than a unary minus on the right
  return n;
}

ExprPtr Parser::primary() {
  Nest nest(*this);
  ExprPtr e = atom();
  while (at_op(".") || at_op("(") || at_op("[")) e = trailer(std::move(e));
  return e;
}

// At `.`, `(` or `[` after `e`: one attribute, call or subscript, one level deeper in the
// left-deep chain.
ExprPtr Parser::trailer(ExprPtr e) {
  enter(peek().loc);
  if (at_op("(")) return call_trailer(std::move(e));
  if (at_op("[")) return subscript_trailer(std::move(e));
  return attribute_trailer(std::move(e));
}

ExprPtr Parser::call_trailer(ExprPtr e) {
  next();  // '('
  auto n = std::make_unique<Call>(e->loc);
  n->func = std::move(e);
  call_arguments(n->args, n->keywords);
  return n;
}

ExprPtr Parser::subscript_trailer(ExprPtr e) {
  next();  // '['
  auto n = std::make_unique<Subscript>(e->loc);
  n->value = std::move(e);
  n->index = slices();
  expect_op("]");
  return n;
}

ExprPtr Parser::attribute_trailer(ExprPtr e) {
  next();  // '.'
  if (!at(TokenKind::Name) || is_keyword(peek().text)) fail_expected("attribute name after '.'");
  const Token& name = next();
  auto n = std::make_unique<Attribute>(e->loc);
  n->value = std::move(e);
  n->attr = std::string(name.text);
  n->attr_loc = name.loc;
  return n;
}

// After '('; consumes the closing ')'.
void Parser::call_arguments(ExprList& args, std::vector<Keyword>& keywords) {
  bool seen_keyword = false, seen_double_star = false;
  while (!at_op(")")) {
    if (at_op("*") || at_op("**") || (at(TokenKind::Name) && peek(1).is_op("=")))
      unpacking_or_keyword_argument(args, keywords, seen_keyword, seen_double_star);
    else
      positional_argument(args, seen_keyword, seen_double_star);
    if (!accept_op(",")) break;
  }
  if (!at_op(")")) fail_expected("',' or ')'");
  next();
}

void Parser::positional_argument(ExprList& args, bool seen_keyword, bool seen_double_star) {
  const Token& t = peek();
  if (!starts_expression(t)) fail_expected("argument or ')'");
  args.push_back(expression());
  if (seen_double_star) fail(t, "positional argument follows keyword argument unpacking");
  if (seen_keyword) fail(t, "positional argument follows keyword argument");
  no_comprehension();
}

// At `*`, `**` or `name =` in a call's arguments.
void Parser::unpacking_or_keyword_argument(ExprList& args, std::vector<Keyword>& keywords, bool& seen_keyword,
                                           bool& seen_double_star) {
  const Token& t = peek();
  if (t.is_op("*")) {
    next();
    if (seen_double_star) fail(t, "iterable argument unpacking follows keyword argument unpacking");
    auto s = std::make_unique<Starred>(t.loc);
    s->value = expression();
    args.push_back(std::move(s));
  } else if (t.is_op("**")) {
    next();
    keywords.push_back(Keyword{"", expression(), t.loc});
    seen_double_star = true;
  } else {
    if (is_keyword(t.text)) fail(t, "expected argument name, found '" + std::string(t.text) + "'");
    next();
    next();
    for (const Keyword& k : keywords)
      if (k.arg == t.text) fail(t, "keyword argument repeated: " + std::string(t.text));
    keywords.push_back(Keyword{std::string(t.text), expression(), t.loc});
    seen_keyword = true;
  }
}

ExprPtr Parser::slices() {
  ExprPtr first = slice_item();
  if (!at_op(",")) return first;
  auto t = std::make_unique<Tuple>(first->loc);
  t->elts.push_back(std::move(first));
  while (accept_op(",")) {
    if (at_op("]")) break;
    t->elts.push_back(slice_item());
  }
  return t;
}

ExprPtr Parser::slice_item() {
  if (at_op("*")) return star_expression();
  SourceLocation loc = peek().loc;
  ExprPtr lower;
  if (!at_op(":")) {
    lower = expression();
    if (!at_op(":")) return lower;
  }
  next();  // ':'
  auto s = std::make_unique<Slice>(lower ? lower->loc : loc);
  s->lower = std::move(lower);
  if (!at_op(":") && !at_op(",") && !at_op("]")) s->upper = expression();
  if (accept_op(":")) {
    if (!at_op(",") && !at_op("]")) s->step = expression();
  }
  return s;
}

ExprPtr Parser::star_expression() {
  if (at_op("*")) {
    const Token& t = next();
    auto s = std::make_unique<Starred>(t.loc);
    s->value = bitwise_or();
    return s;
  }
  return expression();
}

ExprPtr Parser::star_expressions() {
  ExprPtr first = star_expression();
  if (!at_op(",")) {
    if (isa<Starred>(first.get())) fail(first->loc, "cannot use starred expression here");
    return first;
  }
  auto t = std::make_unique<Tuple>(first->loc);
  t->elts.push_back(std::move(first));
  while (accept_op(",")) {
    if (!starts_expression(peek())) break;
    t->elts.push_back(star_expression());
  }
  return t;
}

ExprPtr Parser::atom() {
  switch (peek().kind) {
    case TokenKind::Name: return name_atom();
    case TokenKind::Number: return number_atom();
    case TokenKind::String:
    case TokenKind::FString: return strings();
    default: break;
  }
  if (at_op("(")) return paren_atom();
  if (at_op("[")) return list_atom();
  if (at_op("{")) return brace_atom();
  return other_atom();
}

ExprPtr Parser::name_atom() {
  const Token& t = peek();
  if (t.text == "True" || t.text == "False" || t.text == "None") {
    next();
    auto c = std::make_unique<Constant>(t.loc);
    c->value_kind = t.text == "None" ? ConstantKind::None : ConstantKind::Bool;
    c->bool_value = t.text == "True";
    c->text = std::string(t.text);
    return c;
  }
  if (t.text == "yield") fail(t, "'yield' is not supported");
  if (is_keyword(t.text)) fail_expected("expression");
  next();
  return std::make_unique<Name>(t.loc, std::string(t.text));
}

ExprPtr Parser::number_atom() {
  const Token& t = peek();
  next();
  NumberLiteral v = decode_number(t);
  auto c = std::make_unique<Constant>(t.loc);
  c->text = std::string(t.text);
  switch (v.kind) {
    case NumberLiteral::Kind::Int:
      c->value_kind = ConstantKind::Int;
      c->int_value = v.int_value;
      break;
    case NumberLiteral::Kind::Float:
      c->value_kind = ConstantKind::Float;
      c->float_value = v.float_value;
      break;
    case NumberLiteral::Kind::Imaginary:
      c->value_kind = ConstantKind::Imaginary;
      c->float_value = v.float_value;
      break;
  }
  return c;
}

// `...`, or the error for any other token where an expression must start.
ExprPtr Parser::other_atom() {
  const Token& t = peek();
  if (t.is_op("...")) {
    next();
    auto c = std::make_unique<Constant>(t.loc);
    c->value_kind = ConstantKind::Ellipsis;
    c->text = "...";
    return c;
  }
  if (t.is_op("*")) fail(t, "cannot use starred expression here");
  fail_expected("expression");
}

ExprPtr Parser::strings() {
  const Token& first = peek();
  auto c = std::make_unique<Constant>(first.loc);
  std::size_t end = first.end;
  bool has_bytes = false, has_str = false;
  while (at(TokenKind::String) || at(TokenKind::FString)) {
    const Token& t = next();
    if (t.kind == TokenKind::FString) fail(t, "f-strings are not supported");
    StringLiteral s = decode_string(t);
    (s.bytes ? has_bytes : has_str) = true;
    if (has_bytes && has_str) fail(t, "cannot mix bytes and nonbytes literals");
    c->str_value += s.value;
    end = t.end;
  }
  c->value_kind = has_bytes ? ConstantKind::Bytes : ConstantKind::String;
  c->text = file_.text().substr(first.begin, end - first.begin);
  return c;
}

ExprPtr Parser::paren_atom() {
  const Token& open = next();
  if (at_op(")") || at_kw("yield")) return paren_rest(open, nullptr);
  return paren_rest(open, star_expression());
}

// After `(` and the first item (null: none yet): `()`, a parenthesized expression or a tuple.
ExprPtr Parser::paren_rest(const Token& open, ExprPtr first) {
  if (!first) {
    if (at_kw("yield")) fail(peek(), "'yield' is not supported");
    next();  // ')'
    auto t = std::make_unique<Tuple>(open.loc);
    t->parenthesized = true;
    return t;
  }
  no_comprehension();
  if (accept_op(")")) {
    if (isa<Starred>(first.get())) fail(first->loc, "cannot use starred expression here");
    if (auto* tuple = dyn_cast<Tuple>(first.get())) tuple->parenthesized = true;
    return first;
  }
  if (!at_op(",")) fail_expected("',' or ')'");
  auto t = std::make_unique<Tuple>(open.loc);
  t->parenthesized = true;
  t->elts.push_back(std::move(first));
  while (accept_op(",")) {
    if (at_op(")")) break;
    t->elts.push_back(star_expression());
  }
  if (!at_op(")")) fail_expected("',' or ')'");
  next();
  return t;
}

ExprPtr Parser::list_atom() {
  const Token& open = next();
  auto l = std::make_unique<List>(open.loc);
  while (!at_op("]")) {
    l->elts.push_back(star_expression());
    if (l->elts.size() == 1) no_comprehension();
    if (!accept_op(",")) break;
  }
  if (!at_op("]")) fail_expected("',' or ']'");
  next();
  return l;
}

ExprPtr Parser::brace_atom() {
  const Token& open = next();
  if (accept_op("}")) return std::make_unique<Dict>(open.loc);
  // The first item decides: `k: v` or `**d` makes a dict, anything else a set.
  ExprPtr first;
  bool is_dict = at_op("**");
  if (!is_dict) {
    first = star_expression();
    is_dict = at_op(":") && !isa<Starred>(first.get());
  }
  if (is_dict) {
    auto d = std::make_unique<Dict>(open.loc);
    while (!at_op("}")) {
      if (!first && accept_op("**")) {
        d->keys.push_back(nullptr);
        d->values.push_back(bitwise_or());
      } else {
        d->keys.push_back(first ? std::move(first) : expression());
        first.reset();
        expect_op(":");
        d->values.push_back(expression());
      }
      if (d->values.size() == 1) no_comprehension();
      if (!accept_op(",")) break;
    }
    if (!at_op("}")) fail_expected("',' or '}'");
    next();
    return d;
  }
  auto s = std::make_unique<Set>(open.loc);
  s->elts.push_back(std::move(first));
  no_comprehension();
  while (accept_op(",") && !at_op("}")) s->elts.push_back(star_expression());
  if (!at_op("}")) fail_expected("',' or '}'");
  next();
  return s;
}

// Parameters up to (not including) `closing`: ")" for def, ":" for lambda.
std::vector<Parameter> Parser::parameters(bool lambda, std::string_view closing) {
  std::vector<Parameter> params;
  bool seen_slash = false, seen_star = false, seen_default = false, seen_kwargs = false;
  const Token* bare_star = nullptr;
  auto check_duplicate = [&](const Token& name) {
    for (const Parameter& p : params)
      if (p.name == name.text)
        fail(name, "duplicate argument '" + std::string(name.text) + "' in function definition");
  };
  auto annotation = [&]() -> ExprPtr {
    if (!lambda && accept_op(":")) return expression();
    return nullptr;
  };
  while (!at_op(closing)) {
    const Token& t = peek();
    if (seen_kwargs) fail(t, "arguments cannot follow var-keyword argument");
    if (t.is_op("/")) {
      if (seen_slash) fail(t, "/ may appear only once");
      if (seen_star) fail(t, "/ must be ahead of *");
      if (params.empty()) fail(t, "at least one argument must precede /");
      next();
      for (Parameter& p : params) p.kind = ParamKind::PositionalOnly;
      seen_slash = true;
    } else if (t.is_op("*")) {
      next();
      if (seen_star) fail(t, "* argument may appear only once");
      seen_star = true;
      if (at_op(",") || at_op(closing)) {
        bare_star = &t;
      } else {
        const Token& name = expect_name("parameter name");
        check_duplicate(name);
        Parameter p{std::string(name.text), ParamKind::VarArgs, annotation(), nullptr, name.loc};
        if (at_op("=")) fail(peek(), "var-positional argument cannot have default value");
        params.push_back(std::move(p));
      }
    } else if (t.is_op("**")) {
      next();
      const Token& name = expect_name("parameter name");
      check_duplicate(name);
      Parameter p{std::string(name.text), ParamKind::VarKeywords, annotation(), nullptr, name.loc};
      if (at_op("=")) fail(peek(), "var-keyword argument cannot have default value");
      params.push_back(std::move(p));
      seen_kwargs = true;
    } else {
      const Token& name = expect_name("parameter name");
      check_duplicate(name);
      Parameter p{std::string(name.text), seen_star ? ParamKind::KeywordOnly : ParamKind::Normal,
                  annotation(), nullptr, name.loc};
      if (accept_op("=")) p.default_value = expression();
      if (p.kind == ParamKind::Normal) {
        if (p.default_value)
          seen_default = true;
        else if (seen_default)
          fail(name, "parameter without a default follows parameter with a default");
      }
      params.push_back(std::move(p));
    }
    if (!accept_op(",")) break;
  }
  if (!at_op(closing)) fail_expected("',' or '" + std::string(closing) + "'");
  if (bare_star) {
    bool has_kwonly = std::any_of(params.begin(), params.end(),
                                  [](const Parameter& p) { return p.kind == ParamKind::KeywordOnly; });
    if (!has_kwonly) fail(*bare_star, "named arguments must follow bare *");
  }
  return params;
}

// =============================================================================================
// Statements (strict)

bool Parser::is_match_statement(std::size_t p) const {
  if (!toks_[p].is_name("match")) return false;
  const Token* n = &toks_[p + 1];
  if (n->kind == TokenKind::Op && n->text != "(" && n->text != "[" && n->text != "{" && n->text != "-" &&
      n->text != "*")
    return false;
  return line_opens_block(p);
}

bool Parser::is_type_alias_statement(std::size_t p) const {
  return toks_[p].is_name("type") && toks_[p + 1].kind == TokenKind::Name;
}

StmtList Parser::statement() {
  const Token& t = peek();
  StmtList out;
  if (t.kind == TokenKind::Indent) fail(t, "unexpected indent");
  if (t.kind == TokenKind::Dedent) fail(t, "unexpected unindent");
  if (t.is_name("if")) {
    out.push_back(if_statement());
  } else if (loops_ && (t.is_name("for") || t.is_name("while"))) {
    out.push_back(loop_statement());
  } else if (t.is_name("def")) {
    out.push_back(function_def({}, Mode::Strict));
  } else if (t.is_name("class")) {
    out.push_back(class_def({}, Mode::Strict));
  } else if (t.is_op("@")) {
    out.push_back(decorated(Mode::Strict));
  } else if (t.kind == TokenKind::Name && is_unsupported_compound(t.text)) {
    if (t.text == "else" || t.text == "elif" || t.text == "except" || t.text == "finally")
      fail(t, "unexpected '" + std::string(t.text) + "'");
    fail(t, "unsupported statement '" + std::string(t.text) + "'");
  } else if (is_match_statement(pos_)) {
    fail(t, "unsupported statement 'match'");
  } else if (is_type_alias_statement(pos_)) {
    fail(t, "unsupported statement 'type'");
  } else {
    out = simple_statements();
  }
  return out;
}

StmtList Parser::simple_statements() {
  StmtList out;
  while (true) {
    out.push_back(simple_statement());
    if (!accept_op(";")) break;
    if (at(TokenKind::Newline)) break;
  }
  expect_newline();
  return out;
}

void Parser::validate_target(const Expr& e, bool in_sequence) const {
  switch (e.kind) {
    case ExprKind::Name:
    case ExprKind::Attribute:
    case ExprKind::Subscript: return;
    case ExprKind::Starred:
      if (!in_sequence) fail(e.loc, "starred assignment target must be in a list or tuple");
      validate_target(*static_cast<const Starred&>(e).value, false);
      return;
    case ExprKind::Tuple:
    case ExprKind::List: {
      const ExprList& elts =
          e.kind == ExprKind::Tuple ? static_cast<const Tuple&>(e).elts : static_cast<const List&>(e).elts;
      int starred = 0;
      for (const ExprPtr& x : elts) {
        if (isa<Starred>(x.get()) && ++starred > 1)
          fail(x->loc, "multiple starred expressions in assignment");
        validate_target(*x, true);
      }
      return;
    }
    default: break;
  }
  std::string what = "expression";
  if (auto* c = dyn_cast<Constant>(&e)) {
    what = c->value_kind == ConstantKind::None       ? "None"
           : c->value_kind == ConstantKind::Bool     ? (c->bool_value ? "True" : "False")
           : c->value_kind == ConstantKind::Ellipsis ? "ellipsis"
                                                     : "literal";
  } else if (e.kind == ExprKind::Call) {
    what = "function call";
  } else if (e.kind == ExprKind::Compare) {
    what = "comparison";
  } else if (e.kind == ExprKind::Lambda) {
    what = "lambda";
  } else if (e.kind == ExprKind::IfExp) {
    what = "conditional expression";
  } else if (e.kind == ExprKind::Dict) {
    what = "dict literal";
  } else if (e.kind == ExprKind::Set) {
    what = "set display";
  }
  fail(e.loc, "cannot assign to " + what);
}

StmtPtr Parser::simple_statement() {
  const Token& t = peek();
  if (t.is_name("pass")) {
    next();
    return std::make_unique<Pass>(t.loc);
  }
  if (t.is_name("return")) {
    next();
    auto r = std::make_unique<Return>(t.loc);
    if (starts_expression(peek())) r->value = star_expressions();
    return r;
  }
  if (t.is_name("import")) return import_statement();
  if (t.is_name("from")) return import_from_statement();
  if (loops_ && t.is_name("break")) return std::make_unique<Break>(next().loc);
  if (loops_ && t.is_name("continue")) return std::make_unique<Continue>(next().loc);
  if (t.kind == TokenKind::Name && is_unsupported_simple(t.text))
    fail(t, "unsupported statement '" + std::string(t.text) + "'");
  if (!starts_expression(t)) fail_expected("statement");

  ExprPtr first = star_expressions();
  if (at_op(":")) {
    if (first->kind == ExprKind::Tuple) fail(first->loc, "only single target (not tuple) can be annotated");
    if (first->kind == ExprKind::List) fail(first->loc, "only single target (not list) can be annotated");
    validate_target(*first, false);
    next();
    auto a = std::make_unique<AnnAssign>(first->loc);
    a->target = std::move(first);
    a->annotation = expression();
    if (accept_op("=")) a->value = star_expressions();
    return a;
  }
  if (const AugOp* aug = find_aug_op(peek())) {
    if (first->kind != ExprKind::Name && first->kind != ExprKind::Attribute &&
        first->kind != ExprKind::Subscript) {
      std::string what = first->kind == ExprKind::Tuple  ? "'tuple'"
                         : first->kind == ExprKind::List ? "'list'"
                                                         : "expression";
      fail(first->loc, what + " is an illegal expression for augmented assignment");
    }
    next();
    auto a = std::make_unique<AugAssign>(first->loc);
    a->op = aug->op;
    a->target = std::move(first);
    a->value = star_expressions();
    return a;
  }
  if (at_op("=")) {
    auto a = std::make_unique<Assign>(first->loc);
    ExprPtr value = std::move(first);
    while (accept_op("=")) {
      validate_target(*value, false);
      a->targets.push_back(std::move(value));
      if (at_kw("yield")) fail(peek(), "'yield' is not supported");
      value = star_expressions();
    }
    a->value = std::move(value);
    return a;
  }
  auto s = std::make_unique<ExprStmt>(first->loc);
  s->value = std::move(first);
  return s;
}

// `for TARGETS in EXPRS: BLOCK [else: BLOCK]` or `while EXPR: BLOCK [else: BLOCK]`.
StmtPtr Parser::loop_statement() {
  const Token& kw = next();
  StmtList* orelse = nullptr;
  StmtPtr out;
  std::string what = "'" + std::string(kw.text) + "' statement";
  if (kw.text == "for") {
    auto f = std::make_unique<For>(kw.loc);
    // The target list stops before `in` (a comparison would swallow it).
    f->target = bitwise_or();
    if (at_op(",")) {
      auto t = std::make_unique<Tuple>(f->target->loc);
      t->elts.push_back(std::move(f->target));
      while (accept_op(",") && !at_kw("in")) t->elts.push_back(bitwise_or());
      f->target = std::move(t);
    }
    validate_target(*f->target, false);
    if (!accept_kw("in")) fail_expected("'in'");
    f->iter = star_expressions();
    expect_op(":");
    f->body = block(what, kw.loc.line, Mode::Strict);
    orelse = &f->orelse;
    out = std::move(f);
  } else {
    auto w = std::make_unique<While>(kw.loc);
    w->test = expression();
    expect_op(":");
    w->body = block(what, kw.loc.line, Mode::Strict);
    orelse = &w->orelse;
    out = std::move(w);
  }
  if (at_kw("else")) {
    const Token& e = next();
    expect_op(":");
    *orelse = block("'else' statement", e.loc.line, Mode::Strict);
  }
  return out;
}

StmtPtr Parser::if_statement() {
  const Token& kw = next();  // 'if' or 'elif'
  auto n = std::make_unique<If>(kw.loc);
  n->is_elif = kw.text == "elif";
  n->test = expression();
  expect_op(":");
  n->body = block("'" + std::string(kw.text) + "' statement", kw.loc.line, Mode::Strict);
  if (at_kw("elif")) {
    n->orelse.push_back(if_statement());
  } else if (at_kw("else")) {
    const Token& e = next();
    expect_op(":");
    n->orelse = block("'else' statement", e.loc.line, Mode::Strict);
  }
  return n;
}

// The body after a ':' — an indented block or simple statements on the same line. In
// lenient mode (class bodies) each statement is handled like a module-level one.
StmtList Parser::block(const std::string& what, std::uint32_t line, Mode mode) {
  Nest nest(*this);
  enter(peek().loc);
  StmtList out;
  if (at(TokenKind::Newline)) {
    next();
    if (!at(TokenKind::Indent))
      fail(peek(), "expected an indented block after " + what + " on line " + std::to_string(line));
    next();
    while (!at(TokenKind::Dedent) && !at(TokenKind::EndOfFile)) {
      if (mode == Mode::Lenient) {
        lenient_statement(out);
      } else {
        for (StmtPtr& s : statement()) out.push_back(std::move(s));
      }
    }
    if (at(TokenKind::Dedent)) next();
    return out;
  }
  if (mode == Mode::Lenient) {
    lenient_line(out);
    return out;
  }
  return simple_statements();
}

StmtPtr Parser::function_def(ExprList decorators, Mode mode) {
  const Token& kw = peek();
  if (kw.is_name("async")) fail(kw, "unsupported statement 'async'");
  if (!kw.is_name("def")) fail_expected("'def'");
  next();
  auto f = std::make_unique<FunctionDef>(kw.loc);
  f->decorators = std::move(decorators);
  f->name = std::string(expect_name("function name").text);
  if (at_op("[")) fail(peek(), "type parameter lists are not supported");
  expect_op("(");
  f->params = parameters(false, ")");
  expect_op(")");
  if (accept_op("->")) f->returns = expression();
  expect_op(":");
  if (mode == Mode::Strict) {
    f->body = block("function definition", kw.loc.line, Mode::Strict);
    return f;
  }
  std::size_t body_start = pos_;
  try {
    f->body = block("function definition", kw.loc.line, Mode::Strict);
  } catch (const SourceError& e) {
    if (fatal_) throw;
    pos_ = body_start;
    // A body that defines field-view definitions (gt4py's tests define programs inside test
    // functions) is handled statement by statement, like a class body, to keep them.
    if (body_has_strict_decorator(body_start)) {
      pos_ = body_start;
      f->body = block("function definition", kw.loc.line, Mode::Lenient);
      f->body_skipped = true;
      return f;
    }
    pos_ = body_start;
    std::size_t begin = pos_;
    if (at(TokenKind::Newline)) {
      next();
      if (!at(TokenKind::Indent)) throw;  // no body at all: not valid Python
      begin = pos_ + 1;
      skip_indented_block();
    } else {
      skip_logical_line();
    }
    f->body.clear();
    f->body.push_back(make_unparsed(begin, pos_, e.message()));
    f->body_skipped = true;
  }
  return f;
}

StmtPtr Parser::class_def(ExprList decorators, Mode mode) {
  const Token& kw = next();  // 'class'
  auto c = std::make_unique<ClassDef>(kw.loc);
  c->decorators = std::move(decorators);
  c->name = std::string(expect_name("class name").text);
  if (at_op("[")) fail(peek(), "type parameter lists are not supported");
  if (accept_op("(")) call_arguments(c->bases, c->keywords);
  expect_op(":");
  c->body = block("class definition", kw.loc.line, mode);
  return c;
}

StmtPtr Parser::decorated(Mode mode) {
  ExprList decorators;
  while (at_op("@")) {
    next();
    decorators.push_back(expression());
    expect_newline();
  }
  if (at_kw("def") || at_kw("async")) return function_def(std::move(decorators), mode);
  if (at_kw("class")) return class_def(std::move(decorators), mode);
  fail_expected("'def' or 'class' after decorator");
}

StmtPtr Parser::import_statement() {
  const Token& kw = next();
  auto imp = std::make_unique<Import>(kw.loc);
  do {
    const Token& first = expect_name("module name");
    Alias a{std::string(first.text), {}, first.loc};
    while (accept_op(".")) a.name += "." + std::string(expect_name("module name").text);
    if (accept_kw("as")) a.asname = std::string(expect_name("name after 'as'").text);
    if (a.name == "weir" && !a.asname.empty()) weir_names_.push_back(a.asname);
    imp->names.push_back(std::move(a));
  } while (accept_op(","));
  return imp;
}

StmtPtr Parser::import_from_statement() {
  const Token& kw = next();
  auto imp = std::make_unique<ImportFrom>(kw.loc);
  while (at_op(".") || at_op("...")) imp->level += next().text.size() == 3 ? 3 : 1;
  // `from import x` names no module: Python's "invalid syntax" (level 0 needs a module).
  if (!at_kw("import") || imp->level == 0) {
    imp->module = std::string(expect_name("module name").text);
    while (accept_op(".")) imp->module += "." + std::string(expect_name("module name").text);
  }
  if (!accept_kw("import")) fail_expected("'import'");
  if (at_op("*")) {
    const Token& star = next();
    imp->names.push_back(Alias{"*", {}, star.loc});
    return imp;
  }
  bool paren = accept_op("(");
  do {
    if (paren && at_op(")") && !imp->names.empty()) break;  // a trailing comma
    const Token& name = expect_name("name to import");
    Alias a{std::string(name.text), {}, name.loc};
    if (accept_kw("as")) a.asname = std::string(expect_name("name after 'as'").text);
    // `from gt4py.next import field_operator as fo` makes `@fo` strict too.
    if (!a.asname.empty() && std::find(strict_.begin(), strict_.end(), a.name) != strict_.end())
      strict_.push_back(a.asname);
    if (imp->level == 0 && imp->module == "weir") weir_names_.push_back(a.asname.empty() ? a.name : a.asname);
    imp->names.push_back(std::move(a));
  } while (accept_op(","));
  if (paren) expect_op(")");
  if (imp->names.empty()) fail_expected("name to import");
  return imp;
}

// =============================================================================================
// Module level: parse what weir needs, skip the rest at the token level.

bool Parser::decorator_is_strict(std::size_t p) const {
  while (toks_[p].is_op("@")) {
    ++p;
    std::string_view first = toks_[p].kind == TokenKind::Name ? toks_[p].text : std::string_view();
    std::string_view last;
    while (toks_[p].kind == TokenKind::Name) {
      last = toks_[p].text;
      if (!toks_[p + 1].is_op(".")) break;
      p += 2;
    }
    // `@weir.program(...)` above an orchestration function: its body is parsed as an undecorated
    // function's is (loops are read when the orchestration is lowered).
    bool from_weir = std::find(weir_names_.begin(), weir_names_.end(), first) != weir_names_.end();
    if (!from_weir && std::find(strict_.begin(), strict_.end(), last) != strict_.end()) return true;
    while (toks_[p].kind != TokenKind::Newline && toks_[p].kind != TokenKind::EndOfFile) ++p;
    if (toks_[p].kind == TokenKind::EndOfFile) return false;
    ++p;
  }
  return false;
}

// Whether the indented block after the ':' at token p has a gt4py-decorated definition at
// the start of one of its lines.
bool Parser::body_has_strict_decorator(std::size_t p) const {
  if (toks_[p].kind != TokenKind::Newline || toks_[p + 1].kind != TokenKind::Indent) return false;
  int depth = 0;
  for (std::size_t i = p + 1; i < toks_.size() && toks_[i].kind != TokenKind::EndOfFile; ++i) {
    const Token& t = toks_[i];
    if (t.kind == TokenKind::Indent) ++depth;
    if (t.kind == TokenKind::Dedent && --depth == 0) return false;
    bool line_start = toks_[i - 1].kind == TokenKind::Newline || toks_[i - 1].kind == TokenKind::Indent ||
                      toks_[i - 1].kind == TokenKind::Dedent;
    if (t.is_op("@") && line_start && decorator_is_strict(i)) return true;
  }
  return false;
}

// Whether the logical line starting at token p is followed by an indented block.
bool Parser::line_opens_block(std::size_t p) const {
  while (toks_[p].kind != TokenKind::Newline && toks_[p].kind != TokenKind::EndOfFile) ++p;
  return toks_[p].kind == TokenKind::Newline && p > 0 && toks_[p - 1].is_op(":") &&
         toks_[p + 1].kind == TokenKind::Indent;
}

void Parser::skip_logical_line() {
  while (!at(TokenKind::Newline) && !at(TokenKind::EndOfFile)) next();
  if (at(TokenKind::Newline)) next();
}

void Parser::skip_indented_block() {
  if (!at(TokenKind::Indent)) return;
  int depth = 0;
  while (!at(TokenKind::EndOfFile)) {
    const Token& t = next();
    if (t.kind == TokenKind::Indent) ++depth;
    if (t.kind == TokenKind::Dedent && --depth == 0) return;
  }
}

StmtPtr Parser::skip_statement(const std::string& reason) {
  std::size_t begin = pos_;
  while (at_op("@")) skip_logical_line();
  skip_logical_line();
  skip_indented_block();
  while (at_kw("elif") || at_kw("else") || at_kw("except") || at_kw("finally")) {
    skip_logical_line();
    skip_indented_block();
  }
  return make_unparsed(begin, pos_, reason);
}

// An Unparsed statement covering tokens [begin, end) (structural tokens at the end ignored).
StmtPtr Parser::make_unparsed(std::size_t begin, std::size_t end, const std::string& reason) const {
  while (end > begin &&
         (toks_[end - 1].kind == TokenKind::Newline || toks_[end - 1].kind == TokenKind::Indent ||
          toks_[end - 1].kind == TokenKind::Dedent || toks_[end - 1].kind == TokenKind::EndOfFile))
    --end;
  const Token& first = toks_[begin];
  auto u = std::make_unique<Unparsed>(first.loc);
  bool literal = first.kind == TokenKind::String || first.kind == TokenKind::FString;
  u->first_token = literal ? std::string("<string>") : std::string(first.text);
  u->reason = reason;
  if (end > begin) {
    u->text = file_.text().substr(first.begin, toks_[end - 1].end - first.begin);
  }
  u->end_line = first.loc.line + static_cast<std::uint32_t>(std::count(u->text.begin(), u->text.end(), '\n'));
  return u;
}

void Parser::lenient_statement(StmtList& out) {
  const Token& t = peek();
  std::size_t start = pos_;
  if (t.kind == TokenKind::Indent) fail(t, "unexpected indent");
  if (t.is_op("@")) {
    if (decorator_is_strict(pos_)) {
      try {
        out.push_back(decorated(Mode::Strict));
      } catch (const SourceError&) {
        fatal_ = true;
        throw;
      }
      return;
    }
    try {
      out.push_back(decorated(Mode::Lenient));
    } catch (const SourceError& e) {
      if (fatal_) throw;
      pos_ = start;
      out.push_back(skip_statement(e.message()));
    }
    return;
  }
  if (t.is_name("def") || t.is_name("class")) {
    try {
      out.push_back(t.is_name("def") ? function_def({}, Mode::Lenient) : class_def({}, Mode::Lenient));
    } catch (const SourceError& e) {
      if (fatal_) throw;
      pos_ = start;
      out.push_back(skip_statement(e.message()));
    }
    return;
  }
  if ((t.kind == TokenKind::Name && (is_unsupported_compound(t.text) || t.text == "if")) ||
      line_opens_block(pos_)) {
    out.push_back(skip_statement(""));
    return;
  }
  lenient_line(out);
}

// One logical line of simple statements separated by ';': imports and assignments are
// parsed (and skipped when they fail), anything else is skipped unparsed.
void Parser::lenient_line(StmtList& out) {
  while (true) {
    std::size_t begin = pos_;
    std::size_t end = pos_;
    int depth = 0;
    bool assigns = false;
    for (;; ++end) {
      const Token& t = toks_[end];
      if (t.kind == TokenKind::Newline || t.kind == TokenKind::EndOfFile) break;
      if (t.kind != TokenKind::Op) continue;
      if (t.text == ";" && depth == 0) break;
      if (t.text == "(" || t.text == "[" || t.text == "{") ++depth;
      if (t.text == ")" || t.text == "]" || t.text == "}") --depth;
      if (depth == 0 && (t.text == "=" || t.text == ":" || find_aug_op(t))) assigns = true;
    }
    const Token& first = toks_[begin];
    bool is_import = first.is_name("import") || first.is_name("from");
    if (is_import || (assigns && !is_type_alias_statement(begin))) {
      try {
        StmtPtr s = simple_statement();
        if (!at_op(";") && !at(TokenKind::Newline) && !at(TokenKind::EndOfFile)) fail_expected("end of line");
        StmtKind k = s->kind;
        if (k == StmtKind::Import || k == StmtKind::ImportFrom || k == StmtKind::Assign ||
            k == StmtKind::AnnAssign || k == StmtKind::AugAssign)
          out.push_back(std::move(s));
        else
          out.push_back(make_unparsed(begin, end, ""));
      } catch (const SourceError& e) {
        // A malformed import is a syntax error in Python too: report it, never skip it.
        if (is_import) throw;
        out.push_back(make_unparsed(begin, end, e.message()));
      }
    } else {
      out.push_back(make_unparsed(begin, end, ""));
    }
    pos_ = end;
    if (accept_op(";") && !at(TokenKind::Newline) && !at(TokenKind::EndOfFile)) continue;
    break;
  }
  if (at(TokenKind::Newline)) next();
}

StmtPtr Parser::function_with_loops(std::uint32_t line) {
  loops_ = true;
  while (!at(TokenKind::EndOfFile) && !(at_kw("def") && peek().loc.line == line)) next();
  if (!at_kw("def")) fail(peek(), "no function definition starts on line " + std::to_string(line));
  return function_def({}, Mode::Strict);
}

Module Parser::module() {
  Module m;
  m.file = file_;
  while (!at(TokenKind::EndOfFile)) lenient_statement(m.body);
  return m;
}

ExprPtr Parser::expression_input() {
  bool indented = at(TokenKind::Indent);
  if (indented) next();
  ExprPtr e = star_expressions();
  if (at(TokenKind::Newline)) next();
  while (at(TokenKind::Dedent)) next();
  if (!at(TokenKind::EndOfFile)) fail_expected("end of expression");
  return e;
}

StmtList Parser::statements_input() {
  StmtList out;
  bool indented = at(TokenKind::Indent);
  if (indented) next();
  while (!at(TokenKind::EndOfFile) && !(indented && at(TokenKind::Dedent)))
    for (StmtPtr& s : statement()) out.push_back(std::move(s));
  if (indented && at(TokenKind::Dedent)) {
    next();
    if (!at(TokenKind::EndOfFile)) fail(peek(), "unindent below the first line's indentation");
  }
  return out;
}

}  // namespace

Module parse_module(const SourceFile& file, const ParseOptions& options) {
  return Parser(file, options).module();
}

Module parse_module_file(const std::string& path, const ParseOptions& options) {
  return parse_module(SourceFile::load(path), options);
}

ExprPtr parse_expression(std::string_view text, std::string name) {
  return Parser(SourceFile(std::move(name), text), ParseOptions{}).expression_input();
}

ExprPtr parse_expression(std::string_view text, const std::string& name, const ParseOptions& options) {
  return Parser(SourceFile(name, text), options).expression_input();
}

std::unique_ptr<FunctionDef> parse_function_with_loops(const SourceFile& file, std::uint32_t line) {
  StmtPtr s = Parser(file, ParseOptions{}).function_with_loops(line);
  return std::unique_ptr<FunctionDef>(static_cast<FunctionDef*>(s.release()));
}

StmtList parse_statements(std::string_view text, std::string name) {
  return Parser(SourceFile(std::move(name), text), ParseOptions{}).statements_input();
}

}  // namespace weir::pycode
