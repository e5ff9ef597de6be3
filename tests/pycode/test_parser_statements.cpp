// Statements: tasklet code via parse_statements, definitions, and module-level skipping.
#include "pycode_test_util.h"

using namespace weir::pycode;
using weir::pycode::test::parse_text;

namespace {

std::string dump_stmts(const std::string& text) {
  std::string out;
  for (const StmtPtr& s : parse_statements(text)) out += dump(*s, DumpOptions{false});
  return out;
}

// "Kind line" for each top-level statement of a module.
std::string outline(const Module& m) {
  std::string out;
  for (const StmtPtr& s : m.body) {
    out += std::string(to_string(s->kind)) + " " + std::to_string(s->loc.line);
    if (auto* u = dyn_cast<Unparsed>(s.get())) out += " " + u->first_token;
    if (auto* f = dyn_cast<FunctionDef>(s.get())) out += " " + f->name + (f->body_skipped ? " skipped" : "");
    if (auto* c = dyn_cast<ClassDef>(s.get())) out += " " + c->name;
    out += "\n";
  }
  return out;
}

}  // namespace

TEST_CASE("parse_statements: tasklet code", "[parser][stmt]") {
  CHECK(dump_stmts("__out = (__in1 + __in2)") ==
        "Assign\n"
        "  target: Name __out\n"
        "  value: BinOp +\n"
        "    Name __in1\n"
        "    Name __in2\n");
  CHECK(dump_stmts("b = math.sqrt(a) if a > 0 else -a") ==
        "Assign\n"
        "  target: Name b\n"
        "  value: IfExp\n"
        "    body: Call\n"
        "      func: Attribute .sqrt\n"
        "        Name math\n"
        "      arg: Name a\n"
        "    test: Compare >\n"
        "      Name a\n"
        "      Constant int 0\n"
        "    orelse: UnaryOp -\n"
        "      Name a\n");
  CHECK(dump_stmts("f = lambda a, b: a + b") ==
        "Assign\n"
        "  target: Name f\n"
        "  value: Lambda\n"
        "    param a (normal)\n"
        "    param b (normal)\n"
        "    body: BinOp +\n"
        "      Name a\n"
        "      Name b\n");
  // Several statements on lines and separated by ';'.
  StmtList s = parse_statements("a = 1; b = 2;\nc += a * b\n\nd[0] = e.f = c\n");
  REQUIRE(s.size() == 4);
  CHECK(s[2]->kind == StmtKind::AugAssign);
  CHECK(s[2]->loc.line == 2);
  auto* multi = dyn_cast<Assign>(s[3].get());
  REQUIRE(multi);
  CHECK(multi->targets.size() == 2);
  CHECK(multi->targets[0]->kind == ExprKind::Subscript);
  CHECK(multi->targets[1]->kind == ExprKind::Attribute);
  // Uniformly indented code (as DaCe sometimes stores it) is accepted.
  CHECK(parse_statements("    x = 1\n    if x:\n        y = 2\n").size() == 2);
  CHECK(parse_statements("").empty());
  CHECK(parse_statements("# only a comment\n").empty());
}

TEST_CASE("parse_statements: assignments, returns, if/elif/else", "[parser][stmt]") {
  CHECK(dump_stmts("a, *b = c") ==
        "Assign\n"
        "  target: Tuple\n"
        "    Name a\n"
        "    Starred\n"
        "      Name b\n"
        "  value: Name c\n");
  CHECK(dump_stmts("(c_prev, d_prev) = state") ==
        "Assign\n"
        "  target: Tuple\n"
        "    Name c_prev\n"
        "    Name d_prev\n"
        "  value: Name state\n");
  CHECK(dump_stmts("x: float = 1.0\ny: int") ==
        "AnnAssign\n"
        "  target: Name x\n"
        "  annotation: Name float\n"
        "  value: Constant float 1.0\n"
        "AnnAssign\n"
        "  target: Name y\n"
        "  annotation: Name int\n");
  CHECK(dump_stmts("x **= 2\ny //= 3\nz @= w") ==
        "AugAssign **=\n  target: Name x\n  value: Constant int 2\n"
        "AugAssign //=\n  target: Name y\n  value: Constant int 3\n"
        "AugAssign @=\n  target: Name z\n  value: Name w\n");
  CHECK(dump_stmts("return a, b") == "Return\n  Tuple\n    Name a\n    Name b\n");
  CHECK(dump_stmts("return") == "Return\n");
  CHECK(dump_stmts("pass") == "Pass\n");
  CHECK(dump_stmts("if a:\n    x = 1\nelif b:\n    x = 2\nelse:\n    pass\n") ==
        "If\n"
        "  test: Name a\n"
        "  body:\n"
        "    Assign\n"
        "      target: Name x\n"
        "      value: Constant int 1\n"
        "  orelse:\n"
        "    If (elif)\n"
        "      test: Name b\n"
        "      body:\n"
        "        Assign\n"
        "          target: Name x\n"
        "          value: Constant int 2\n"
        "      orelse:\n"
        "        Pass\n");
  CHECK(dump_stmts("if a: x = 1; y = 2\nelse: z = 3") ==
        "If\n"
        "  test: Name a\n"
        "  body:\n"
        "    Assign\n      target: Name x\n      value: Constant int 1\n"
        "    Assign\n      target: Name y\n      value: Constant int 2\n"
        "  orelse:\n"
        "    Assign\n      target: Name z\n      value: Constant int 3\n");
}

TEST_CASE("parse_statements: definitions and imports", "[parser][stmt]") {
  StmtList s = parse_statements(
      "@gtx.field_operator(backend=None)\n"
      "@other\n"
      "def f(a: int, /, b: float = 1.0, *args: int, c, d=2, **kw) -> float:\n"
      "    \"\"\"doc\"\"\"\n"
      "    return a\n"
      "class E(Enum, metaclass=M):\n"
      "    A = 1\n"
      "import a.b as c, d\n"
      "from ...pkg.mod import (x as y, z,)\n"
      "from . import w\n"
      "from m import *\n");
  REQUIRE(s.size() == 6);
  auto* f = dyn_cast<FunctionDef>(s[0].get());
  REQUIRE(f);
  CHECK(f->loc.line == 3);
  CHECK(f->decorators.size() == 2);
  CHECK(dotted_name(dyn_cast<Call>(f->decorators[0].get())->func.get()) == "gtx.field_operator");
  REQUIRE(f->params.size() == 6);
  CHECK(f->params[0].kind == ParamKind::PositionalOnly);
  CHECK(f->params[1].kind == ParamKind::Normal);
  CHECK(f->params[1].default_value);
  CHECK(f->params[2].kind == ParamKind::VarArgs);
  CHECK(f->params[2].annotation);
  CHECK(f->params[3].kind == ParamKind::KeywordOnly);
  CHECK(f->params[4].kind == ParamKind::KeywordOnly);
  CHECK(f->params[5].kind == ParamKind::VarKeywords);
  CHECK(f->returns);
  CHECK(f->body.size() == 2);
  CHECK(f->body[0]->kind == StmtKind::Expr);
  auto* c = dyn_cast<ClassDef>(s[1].get());
  REQUIRE(c);
  CHECK(c->bases.size() == 1);
  CHECK(c->keywords.size() == 1);
  CHECK(c->keywords[0].arg == "metaclass");
  CHECK(dump(*s[2], DumpOptions{false}) == "Import a.b as c, d\n");
  auto* from = dyn_cast<ImportFrom>(s[3].get());
  REQUIRE(from);
  CHECK(from->level == 3);
  CHECK(from->module == "pkg.mod");
  CHECK(from->names.size() == 2);
  CHECK(from->names[0].asname == "y");
  CHECK(dump(*s[4], DumpOptions{false}) == "ImportFrom .: w\n");
  CHECK(dump(*s[5], DumpOptions{false}) == "ImportFrom m: *\n");

  StmtList kwonly = parse_statements("def g(*, k): pass");
  CHECK(dyn_cast<FunctionDef>(kwonly[0].get())->params[0].kind == ParamKind::KeywordOnly);
}

TEST_CASE("parse_module: skips what weir does not need, token by token", "[parser][module]") {
  Module m = parse_text(
      "import gt4py.next as gtx\n"     // 1 kept
      "x = 1; print(x); y: int = 2\n"  // 2 kept, skipped, kept
      "match x:\n"                     // 3 skipped with its block
      "    case 1:\n"
      "        z = 1\n"
      "type Alias = int\n"    // 6
      "for i in range(3):\n"  // 7 with else clause
      "    pass\n"
      "else:\n"
      "    pass\n"
      "try:\n"  // 11 with except/finally
      "    import cupy\n"
      "except ImportError:\n"
      "    cupy = None\n"
      "finally:\n"
      "    pass\n"
      "async def f():\n"  // 17
      "    await g()\n"
      "with open(p) as fh: data = fh.read()\n"  // 19 inline body
      "squares = [i * i for i in range(3)]\n"   // 20 parse fails: skipped
      "match = 3\n"                             // 21 soft keyword as a name
      "class C:\n"                              // 22
      "    A = 1\n"
      "    for j in range(2): pass\n"
      "    def m(self):\n"
      "        while True:\n"
      "            break\n"
      "N = 2\n");  // 28
  CHECK(outline(m) ==
        "Import 1\n"
        "Assign 2\n"
        "Unparsed 2 print\n"
        "AnnAssign 2\n"
        "Unparsed 3 match\n"
        "Unparsed 6 type\n"
        "Unparsed 7 for\n"
        "Unparsed 11 try\n"
        "Unparsed 17 async\n"
        "Unparsed 19 with\n"
        "Unparsed 20 squares\n"
        "Assign 21\n"
        "ClassDef 22 C\n"
        "Assign 28\n");
  auto* u = dyn_cast<Unparsed>(m.body[4].get());
  REQUIRE(u);
  CHECK(u->end_line == 5);
  CHECK(u->text == "match x:\n    case 1:\n        z = 1");
  CHECK(u->reason.empty());
  auto* comp = dyn_cast<Unparsed>(m.body[10].get());
  CHECK(comp->reason == "comprehensions and generator expressions are not supported");
  auto* c = dyn_cast<ClassDef>(m.body[12].get());
  REQUIRE(c->body.size() == 3);
  CHECK(c->body[0]->kind == StmtKind::Assign);
  CHECK(c->body[1]->kind == StmtKind::Unparsed);
  auto* method = dyn_cast<FunctionDef>(c->body[2].get());
  REQUIRE(method);
  CHECK(method->body_skipped);
  REQUIRE(method->body.size() == 1);
  auto* body = dyn_cast<Unparsed>(method->body[0].get());
  CHECK(body->first_token == "while");
  CHECK(body->loc.line == 26);
  CHECK(body->end_line == 27);
  CHECK(body->reason == "unsupported statement 'while'");
}

TEST_CASE("parse_module: helper functions and other decorators are lenient", "[parser][module]") {
  Module m = parse_text(
      "def helper(xs):\n"
      "    return [x for x in xs]\n"
      "def generic[T](x: T) -> T:\n"
      "    return x\n"
      "@pytest.mark.parametrize('n', [1, 2])\n"
      "def test_n(n):\n"
      "    assert n\n"
      "@functools.cache\n"
      "def cached(n):\n"
      "    return n\n"
      "@decorator[0].x\n"
      "def weird(): pass\n"
      "def inline(): return 1\n");
  CHECK(outline(m) ==
        "FunctionDef 1 helper skipped\n"
        "Unparsed 3 def\n"
        "FunctionDef 6 test_n skipped\n"
        "FunctionDef 9 cached\n"
        "FunctionDef 12 weird\n"
        "FunctionDef 13 inline\n");
  auto* generic = dyn_cast<Unparsed>(m.body[1].get());
  CHECK(generic->reason == "type parameter lists are not supported");
  CHECK(generic->end_line == 4);
}

TEST_CASE("parse_module: weir.program above an orchestration function with loops is lenient",
          "[parser][module]") {
  // `@weir.program` (under any name weir is bound to) is no gt4py decorator: a body with a time
  // loop is skipped as an undecorated function's is (read with loops when it is lowered), not a
  // syntax error of the module; under gt4py's decorator the same loop is one.
  Module m = parse_text(
      "import weir as w\n"
      "from weir import program as wp\n"
      "@weir.program(backend=weir.backends.cpu)\n"
      "def a(u):\n"
      "    for _ in range(3):\n"
      "        step(u, offset_provider={})\n"
      "@w.program\n"
      "def b(u):\n"
      "    while u:\n"
      "        pass\n"
      "@wp\n"
      "def c(u):\n"
      "    for _ in range(2):\n"
      "        pass\n");
  CHECK(outline(m) ==
        "Import 1\n"
        "ImportFrom 2\n"
        "FunctionDef 4 a skipped\n"
        "FunctionDef 8 b skipped\n"
        "FunctionDef 12 c skipped\n");
  CHECK_THROWS_WITH(
      parse_text("@weir.program\n@gtx.program\ndef p(u):\n    for _ in range(3):\n        pass\n"),
      Catch::Contains("4:5: error: unsupported statement 'for'"));
}

TEST_CASE("parse_module: gt4py definitions are parsed fully", "[parser][module]") {
  Module m = parse_text(
      "from gt4py.next import field_operator as fo, scan_operator\n"
      "@fo\n"
      "def a(x: F) -> F:\n"
      "    return x\n"
      "@scan_operator(axis=K, forward=True, init=(0.0, 0.0))\n"
      "def s(carry: tuple[float, float], x: float) -> tuple[float, float]:\n"
      "    return carry\n"
      "class Holder:\n"
      "    @gtx.program\n"
      "    def p(x: F):\n"
      "        a(x, out=x)\n");
  Module enums = parse_text("class E(Enum): A = 1; B = 2\nclass F(enum.IntEnum):\n    X = auto()\n");
  REQUIRE(enums.body.size() == 2);
  auto* e = dyn_cast<ClassDef>(enums.body[0].get());
  REQUIRE(e);
  CHECK(e->body.size() == 2);
  CHECK(dyn_cast<Assign>(e->body[1].get())->value->kind == ExprKind::Constant);
  CHECK(dotted_name(dyn_cast<ClassDef>(enums.body[1].get())->bases[0].get()) == "enum.IntEnum");

  CHECK(outline(m) ==
        "ImportFrom 1\n"
        "FunctionDef 3 a\n"
        "FunctionDef 6 s\n"
        "ClassDef 8 Holder\n");
}

TEST_CASE("parse_module: a malformed import is a located syntax error, never skipped", "[parser][module]") {
  using weir::pycode::test::expect_error;
  // Python rejects each of these with "invalid syntax"; weir must not skip or crash on them.
  expect_error([] { parse_text("from import x\n"); }, 1, 6, "expected module name");
  expect_error([] { parse_text("x = 1\nfrom\n"); }, 2, 5, "expected module name");
  expect_error([] { parse_text("from .\n"); }, 1, 7, "expected module name");
  expect_error([] { parse_text("import\n"); }, 1, 7, "expected module name");
  expect_error([] { parse_text("import a.\n"); }, 1, 10, "expected module name");
  expect_error([] { parse_text("from x import\n"); }, 1, 14, "expected name to import");
  expect_error([] { parse_text("from x import ()\n"); }, 1, 16, "expected name to import, found ')'");
  expect_error([] { parse_text("from x import (\n"); }, 1, 15, "'(' was never closed");
  expect_error([] { parse_text("from x import a b\n"); }, 1, 17, "expected end of line");
  // Valid relative forms still parse.
  Module m = parse_text("from . import x\nfrom .. import (y, z,)\nfrom .m import *\n");
  CHECK(outline(m) == "ImportFrom 1\nImportFrom 2\nImportFrom 3\n");
}
