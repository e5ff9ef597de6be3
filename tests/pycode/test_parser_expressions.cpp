// Expressions: Python precedence and associativity, literals, calls, subscripts, displays.
#include "pycode_test_util.h"

using namespace weir::pycode;
using weir::pycode::test::dump_expr;

TEST_CASE("parser: unary minus binds looser than **", "[parser][expr]") {
  CHECK(dump_expr("-a**b") ==
        "UnaryOp -\n"
        "  BinOp **\n"
        "    Name a\n"
        "    Name b\n");
  // ** is right-associative and its right operand may be a unary expression.
  CHECK(dump_expr("a ** -b ** c") ==
        "BinOp **\n"
        "  Name a\n"
        "  UnaryOp -\n"
        "    BinOp **\n"
        "      Name b\n"
        "      Name c\n");
  CHECK(dump_expr("(-a) ** b") ==
        "BinOp **\n"
        "  UnaryOp -\n"
        "    Name a\n"
        "  Name b\n");
}

TEST_CASE("parser: arithmetic precedence and left associativity", "[parser][expr]") {
  CHECK(dump_expr("a - b - c * d / e") ==
        "BinOp -\n"
        "  BinOp -\n"
        "    Name a\n"
        "    Name b\n"
        "  BinOp /\n"
        "    BinOp *\n"
        "      Name c\n"
        "      Name d\n"
        "    Name e\n");
  CHECK(dump_expr("a | b ^ c & d << 1 + 2") ==
        "BinOp |\n"
        "  Name a\n"
        "  BinOp ^\n"
        "    Name b\n"
        "    BinOp &\n"
        "      Name c\n"
        "      BinOp <<\n"
        "        Name d\n"
        "        BinOp +\n"
        "          Constant int 1\n"
        "          Constant int 2\n");
  CHECK(dump_expr("a // b % c @ d") ==
        "BinOp @\n"
        "  BinOp %\n"
        "    BinOp //\n"
        "      Name a\n"
        "      Name b\n"
        "    Name c\n"
        "  Name d\n");
  CHECK(dump_expr("~a + +b") ==
        "BinOp +\n"
        "  UnaryOp ~\n"
        "    Name a\n"
        "  UnaryOp +\n"
        "    Name b\n");
}

TEST_CASE("parser: conditional expressions", "[parser][expr]") {
  CHECK(dump_expr("a if b else c") ==
        "IfExp\n"
        "  body: Name a\n"
        "  test: Name b\n"
        "  orelse: Name c\n");
  // Right-nested: a if b else (c if d else e); the test binds tighter than `if`.
  CHECK(dump_expr("a if b or x else c if d else e") ==
        "IfExp\n"
        "  body: Name a\n"
        "  test: BoolOp or\n"
        "    Name b\n"
        "    Name x\n"
        "  orelse: IfExp\n"
        "    body: Name c\n"
        "    test: Name d\n"
        "    orelse: Name e\n");
  CHECK(dump_expr("math.sqrt(a) if a > 0 else -a") ==
        "IfExp\n"
        "  body: Call\n"
        "    func: Attribute .sqrt\n"
        "      Name math\n"
        "    arg: Name a\n"
        "  test: Compare >\n"
        "    Name a\n"
        "    Constant int 0\n"
        "  orelse: UnaryOp -\n"
        "    Name a\n");
}

TEST_CASE("parser: not, and, or, comparisons", "[parser][expr]") {
  CHECK(dump_expr("not a == b") ==
        "UnaryOp not\n"
        "  Compare ==\n"
        "    Name a\n"
        "    Name b\n");
  // Chains are kept as one Compare with several operators.
  CHECK(dump_expr("a < b <= c") ==
        "Compare < <=\n"
        "  Name a\n"
        "  Name b\n"
        "  Name c\n");
  CHECK(dump_expr("a is not b in c not in d != e") ==
        "Compare is not in not in !=\n"
        "  Name a\n"
        "  Name b\n"
        "  Name c\n"
        "  Name d\n"
        "  Name e\n");
  // and binds tighter than or; runs of one operator are flattened.
  CHECK(dump_expr("a or b and c or not d") ==
        "BoolOp or\n"
        "  Name a\n"
        "  BoolOp and\n"
        "    Name b\n"
        "    Name c\n"
        "  UnaryOp not\n"
        "    Name d\n");
  // Comparisons bind looser than bitwise operators (gt4py's `(a > 0) & (b < 1)` idiom).
  CHECK(dump_expr("a > 0 & b") ==
        "Compare >\n"
        "  Name a\n"
        "  BinOp &\n"
        "    Constant int 0\n"
        "    Name b\n");
}

TEST_CASE("parser: subscripts and slices", "[parser][expr]") {
  CHECK(dump_expr("a[1:-1, ::2]") ==
        "Subscript\n"
        "  value: Name a\n"
        "  index: Tuple\n"
        "    Slice\n"
        "      lower: Constant int 1\n"
        "      upper: UnaryOp -\n"
        "        Constant int 1\n"
        "    Slice\n"
        "      step: Constant int 2\n");
  CHECK(dump_expr("a[:]") ==
        "Subscript\n"
        "  value: Name a\n"
        "  index: Slice\n");
  CHECK(dump_expr("a[i, j][k]") ==
        "Subscript\n"
        "  value: Subscript\n"
        "    value: Name a\n"
        "    index: Tuple\n"
        "      Name i\n"
        "      Name j\n"
        "  index: Name k\n");
  CHECK(dump_expr("Field[[IDim], float]") ==
        "Subscript\n"
        "  value: Name Field\n"
        "  index: Tuple\n"
        "    List\n"
        "      Name IDim\n"
        "    Name float\n");
  CHECK(dump_expr("f[E2VDim(0)]") ==
        "Subscript\n"
        "  value: Name f\n"
        "  index: Call\n"
        "    func: Name E2VDim\n"
        "    arg: Constant int 0\n");
}

TEST_CASE("parser: calls, attributes and keyword arguments", "[parser][expr]") {
  CHECK(dump_expr("gtx.Dimension(\"K\", kind=gtx.DimensionKind.VERTICAL)") ==
        "Call\n"
        "  func: Attribute .Dimension\n"
        "    Name gtx\n"
        "  arg: Constant str 'K'\n"
        "  keyword kind: Attribute .VERTICAL\n"
        "    Attribute .DimensionKind\n"
        "      Name gtx\n");
  CHECK(dump_expr("f(a, *b, c=1, *d, **e)") ==
        "Call\n"
        "  func: Name f\n"
        "  arg: Name a\n"
        "  arg: Starred\n"
        "    Name b\n"
        "  arg: Starred\n"
        "    Name d\n"
        "  keyword c: Constant int 1\n"
        "  **: Name e\n");
  CHECK(dump_expr("f()(x,)") ==
        "Call\n"
        "  func: Call\n"
        "    func: Name f\n"
        "  arg: Name x\n");
}

TEST_CASE("parser: literals and displays", "[parser][expr]") {
  auto constant = [](const std::string& text) {
    static ExprPtr keep;
    keep = parse_expression(text);
    const auto* c = dyn_cast<Constant>(keep.get());
    REQUIRE(c != nullptr);
    return c;
  };
  CHECK(constant("0x_1F")->int_value == 31);
  CHECK(constant("0x_1F")->text == "0x_1F");
  CHECK(constant("0o17")->int_value == 15);
  CHECK(constant("0b1010")->int_value == 10);
  CHECK(constant("1_000_000")->int_value == 1000000);
  CHECK(constant("9223372036854775807")->int_value == 9223372036854775807LL);
  CHECK(constant("1.5e-3")->value_kind == ConstantKind::Float);
  CHECK(constant("1.5e-3")->float_value == 1.5e-3);
  CHECK(constant("1.")->float_value == 1.0);
  CHECK(constant(".5")->float_value == 0.5);
  CHECK(constant("2j")->value_kind == ConstantKind::Imaginary);
  CHECK(constant("2j")->float_value == 2.0);
  CHECK(constant("True")->bool_value);
  CHECK(constant("None")->value_kind == ConstantKind::None);
  CHECK(constant("...")->value_kind == ConstantKind::Ellipsis);
  CHECK(constant("'a' \"b\" '''c'''")->str_value == "abc");
  CHECK(constant("'a' \"b\"")->text == "'a' \"b\"");
  CHECK(constant("'\\n\\t\\\\\\'\\x41\\101\\u00e9'")->str_value == "\n\t\\'AA\xC3\xA9");
  CHECK(constant("r'\\n\\''")->str_value == "\\n\\'");
  CHECK(constant("b'\\x00a'")->value_kind == ConstantKind::Bytes);
  CHECK(constant("b'\\x00a'")->str_value == std::string("\0a", 2));
  CHECK(constant("'a\\\nb'")->str_value == "ab");

  CHECK(dump_expr("(1,)") == "Tuple\n  Constant int 1\n");
  CHECK(dump_expr("()") == "Tuple\n");
  CHECK(dump_expr("(a)") == "Name a\n");
  CHECK(dump_expr("a, *b") == "Tuple\n  Name a\n  Starred\n    Name b\n");
  CHECK(dump_expr("[1, [2]]") == "List\n  Constant int 1\n  List\n    Constant int 2\n");
  CHECK(dump_expr("{}") == "Dict\n");
  CHECK(dump_expr("{IDim: (lo, hi), **d}") ==
        "Dict\n"
        "  key: Name IDim\n"
        "  value: Tuple\n"
        "    Name lo\n"
        "    Name hi\n"
        "  **: Name d\n");
  CHECK(dump_expr("{1, 2}") == "Set\n  Constant int 1\n  Constant int 2\n");
}

TEST_CASE("parser: lambdas", "[parser][expr]") {
  CHECK(dump_expr("lambda a, b: a + b") ==
        "Lambda\n"
        "  param a (normal)\n"
        "  param b (normal)\n"
        "  body: BinOp +\n"
        "    Name a\n"
        "    Name b\n");
  CHECK(dump_expr("lambda: 0") == "Lambda\n  body: Constant int 0\n");
  CHECK(dump_expr("lambda a, /, b=1, *, c: c") ==
        "Lambda\n"
        "  param a (positional-only)\n"
        "  param b (normal)\n"
        "    default: Constant int 1\n"
        "  param c (keyword-only)\n"
        "  body: Name c\n");
}

TEST_CASE("parser: expression locations", "[parser][expr]") {
  ExprPtr e = parse_expression("a + f(b)[1:]", "tasklet");
  auto* bin = dyn_cast<BinOp>(e.get());
  REQUIRE(bin);
  CHECK(bin->loc.str() == "tasklet:1:1");
  CHECK(bin->op_loc.column == 3);
  auto* sub = dyn_cast<Subscript>(bin->right.get());
  REQUIRE(sub);
  CHECK(sub->loc.column == 5);
  auto* slice = dyn_cast<Slice>(sub->index.get());
  REQUIRE(slice);
  CHECK(slice->loc.column == 10);
  auto* call = dyn_cast<Call>(sub->value.get());
  REQUIRE(call);
  CHECK(call->args[0]->loc.column == 7);
  auto* attr_expr = parse_expression("gtx.Field").release();
  ExprPtr attr(attr_expr);
  CHECK(dyn_cast<Attribute>(attr.get())->attr_loc.column == 5);
  CHECK(dotted_name(attr.get()) == "gtx.Field");
  ExprPtr copy = clone(attr.get());
  CHECK(dump(*copy) == dump(*attr));
}
