// CodeBlock's cached syntax tree: parsed once and shared by copies, parsed again after its text
// changed, re-printed only by a rewrite that changed something (unchanged code round-trips byte
// for byte through JSON); invalid Python in a file is a located diagnostic, never a crash.
#include <catch2/catch.hpp>

#include "weir/pycode/code.h"
#include "weir/pycode/source.h"
#include "weir/sdfg/code_rewrite.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"

using namespace weir;

namespace {

std::unique_ptr<SDFG> one_tasklet(const std::string& code) {
  auto s = std::make_unique<SDFG>("k");
  s->add_scalar("a", ScalarType::Float64);
  s->add_scalar("b", ScalarType::Float64);
  auto& st = s->add_state("main", true);
  auto& r = st.add_access("a");
  auto& w = st.add_access("b");
  auto& t = st.add_tasklet("t", CodeBlock{code, Language::Python}, {"__in"}, {"__out"});
  st.add_edge(r.id(), "", t.id(), "__in", Memlet::simple("a", Subset::parse("0")));
  st.add_edge(t.id(), "__out", w.id(), "", Memlet::simple("b", Subset::parse("0")));
  return s;
}

Tasklet& tasklet_of(SDFG& s) {
  for (SDFGState* st : s.all_states())
    for (Node* n : st->nodes())
      if (auto* t = n->as<Tasklet>()) return *t;
  FAIL("no tasklet");
  throw;
}

}  // namespace

TEST_CASE("CodeBlock: the tree is parsed once, shared by copies, stale after new text", "[sdfg][code]") {
  CodeBlock c{"__out = __in + 1", Language::Python};
  auto t1 = c.parsed();
  REQUIRE(t1);
  CHECK(c.parsed().get() == t1.get());
  CodeBlock copy = c;
  CHECK(copy.parsed().get() == t1.get());
  CHECK(copy == c);
  copy.code = "__out = __in * 2";  // the text is a public field: the cached tree is now stale
  CHECK(copy.parsed().get() != t1.get());
  CHECK(copy.parsed()->text() == "__out = __in * 2");
  CHECK_FALSE(CodeBlock("std::sqrt(x);", Language::CPP).parsed());
  CHECK_THROWS_AS(CodeBlock("__out = (__in +", Language::Python).parsed(), pycode::SourceError);
}

TEST_CASE("CodeBlock: rewrites re-print only what they changed", "[sdfg][code]") {
  CodeBlock c{"__out = x*2   # twice x\n", Language::Python};
  CHECK_FALSE(rename_in_code(c, {{"y", "z"}}));
  CHECK(c.code == "__out = x*2   # twice x\n");
  CHECK(substitute_in_code(c, {{"x", "i + 1"}}));
  CHECK(c.code == "__out = (i + 1) * 2");
  CHECK(rename_in_code(c, {{"i", "j"}}));
  CHECK(c.code == "__out = (j + 1) * 2");
  CHECK(c.parsed()->text() == c.code);
  // Strings, attributes and keyword names are not names.
  CodeBlock s{"__out = f('i', i=i.i)", Language::Python};
  CHECK(rename_in_code(s, {{"i", "k"}}));
  CHECK(s.code == "__out = f('i', i=k.i)");
  // C++ is text: never rewritten; its names are its identifiers outside comments and literals.
  CodeBlock cpp{"out = std::max(a, N); // i \"j\"", Language::CPP};
  CHECK_FALSE(rename_in_code(cpp, {{"a", "b"}}));
  CHECK(code_names(cpp).reads == std::set<std::string>{"out", "std", "max", "a", "N"});
  // An interstate assignment's value is an expression block: the same operations apply.
  CodeBlock value{"N - i"};
  CHECK(substitute_in_code(value, {{"i", "k + 1"}}));
  CHECK(value.code == "N - (k + 1)");
  CodeBlock unchanged{"N  -  1"};
  CHECK_FALSE(substitute_in_code(unchanged, {{"i", "k"}}));
  CHECK(unchanged.code == "N  -  1");
}

TEST_CASE("CodeBlock: a move takes the text and the tree, copying and parsing nothing", "[sdfg][code]") {
  // Longer than any small-string buffer, so a copy would allocate new characters.
  CodeBlock a{"__out = first_input + second_input * 2", Language::Python};
  auto tree = a.parsed();
  const char* chars = a.code.data();
  CodeBlock b(std::move(a));
  CHECK(b.code.data() == chars);
  CHECK(b.parsed() == tree);
  CodeBlock c;
  c = std::move(b);
  CHECK(c.code.data() == chars);
  CHECK(c.parsed() == tree);
  // A copy shares the tree (parsed once) but owns its text.
  CodeBlock d = c;
  CHECK(d.parsed() == tree);
  CHECK(d.code.data() != chars);
}

TEST_CASE("CodeBlock: interstate assignment values are parsed once and shared by copies", "[sdfg][code]") {
  InterstateEdge e;
  e.assignments = {{"i", "i + 1"}, {"n", "N - 1"}};
  auto tree = e.assignments[0].second.parsed();
  REQUIRE(tree->expression() != nullptr);
  InterstateEdge copy = e;
  CHECK(copy.assignments[0].second.parsed() == tree);
  CHECK(code_names(copy.assignments[1].second).reads == std::set<std::string>{"N"});
  // A rewrite re-prints the value it changed and leaves the original's tree alone.
  CHECK(substitute_in_code(copy.assignments[0].second, {{"i", "2"}}));
  CHECK(copy.assignments[0].second.code == "(2) + 1");  // substitutions keep their parentheses
  CHECK(e.assignments[0].second.parsed() == tree);
}

TEST_CASE("CodeBlock: code round-trips through JSON byte for byte", "[sdfg][code][serialize]") {
  const std::string code = "__out = __in+1  # keep me\n";
  auto s = one_tasklet(code);
  REQUIRE(validate(*s).empty());
  auto back = sdfg_from_json_text(sdfg_to_json_text(*s));
  CHECK(tasklet_of(*back).code.code == code);
  CHECK(tasklet_of(*back).code.parsed()->text() == code);
}

TEST_CASE("CodeBlock: invalid Python from a file is a located diagnostic", "[sdfg][code][validate]") {
  auto s = one_tasklet("__out = __in");
  tasklet_of(*s).code.code = "__out = (__in +";
  auto loaded = sdfg_from_json_text(sdfg_to_json_text(*s), "bad.sdfg");
  std::vector<Diagnostic> d;
  REQUIRE_NOTHROW(d = validate(*loaded));
  REQUIRE(d.size() == 1);
  CHECK(d[0].code == "tasklet-syntax");
  CHECK(d[0].where.sdfg == "k");
  CHECK(d[0].where.block_path == "main");
  CHECK(d[0].where.node_label == "t");
  CHECK_THAT(d[0].str(), Catch::Contains("`__out = (__in +` does not parse as Python"));
  // Free symbols skip what does not parse rather than throw.
  CHECK_NOTHROW(loaded->free_symbols());
}
