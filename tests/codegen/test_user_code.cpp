// The trust rule (docs/security.md): user-written C++ in an SDFG (CPP tasklets, code_global /
// code_init / code_exit, the SDFG's global_code / init_code / exit_code) is refused unless
// CodegenOptions::trust_code; trusted, every piece is compiled and runs where DaCe runs it.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

using namespace weir;
using namespace weir::codegen;
using E = sym::Expr;

namespace {

std::unique_ptr<SDFG> map_sdfg(const std::string& code, Language lang) {
  return test::map_program(code, lang);
}

Tasklet& tasklet(SDFG& s) {
  for (auto* st : s.all_states())
    for (auto* n : st->nodes())
      if (auto* t = n->as<Tasklet>()) return *t;
  FAIL("no tasklet");
  throw;
}

std::string codegen_error(const SDFG& s, const CodegenOptions& o = {}) {
  try {
    generate_cpu(s, o);
  } catch (const CodegenError& e) {
    return e.what();
  }
  return "no error";
}

CodegenOptions trusted() {
  CodegenOptions o;
  o.trust_code = true;
  return o;
}

const std::string kHow =
    ", which would be compiled and run as it is; an SDFG file is untrusted input, so weir refuses "
    "user-written C++ "
    "unless you trust its author: pass --trust-code (weir run, weir compile) or set "
    "CodegenOptions::trust_code (C++ API)";

}  // namespace

TEST_CASE("user-written C++ is refused without trust_code, naming the element", "[codegen][security]") {
  SECTION("a CPP tasklet") {
    auto s = map_sdfg("b = a; std::system(\"touch /tmp/pwned\");", Language::CPP);
    CHECK(codegen_error(*s) ==
          "codegen: SDFG 'prog', state 'main', node 4 ('t'): the code of tasklet 't' is C++ "
          "written into the SDFG (`b = a; std::system(\"touch /tmp/pwned\");`)" +
              kHow);
    CHECK(codegen_error(*s, trusted()) == "no error");
  }
  SECTION("a long CPP tasklet is quoted in part, on one line") {
    auto s = map_sdfg("b = a;\n" + std::string(100, ' ') + "b += 1;", Language::CPP);
    CHECK_THAT(codegen_error(*s), Catch::Contains("(`b = a; " + std::string(53, ' ') + "...`)"));
  }
  SECTION("the SDFG's global_code, init_code and exit_code") {
    auto s = map_sdfg("b = a", Language::Python);
    s->global_code.code = "#include \"/etc/passwd\"";
    CHECK(codegen_error(*s) ==
          "codegen: SDFG 'prog': the SDFG's global_code is C++ written into the SDFG (`#include "
          "\"/etc/passwd\"`)" +
              kHow);
    s->global_code.code = "  \n";  // blank code is no code
    s->init_code.code = "std::abort();";
    CHECK(codegen_error(*s) ==
          "codegen: SDFG 'prog': the SDFG's init_code is C++ written into the SDFG (`std::abort();`)" + kHow);
    s->init_code.code.clear();
    s->exit_code.code = "std::abort();";
    CHECK(codegen_error(*s) ==
          "codegen: SDFG 'prog': the SDFG's exit_code is C++ written into the SDFG (`std::abort();`)" + kHow);
  }
  SECTION("code_global, code_init and code_exit of a Python tasklet") {
    for (const char* field : {"code_global", "code_init", "code_exit"}) {
      auto s = map_sdfg("b = a", Language::Python);
      Tasklet& t = tasklet(*s);
      CodeBlock& c = std::string(field) == "code_global" ? t.code_global
                     : std::string(field) == "code_init" ? t.code_init
                                                         : t.code_exit;
      c.code = "int x;";
      CHECK(codegen_error(*s) == "codegen: SDFG 'prog', state 'main', node 4 ('t'): the tasklet 't''s " +
                                     std::string(field) + " is C++ written into the SDFG (`int x;`)" + kHow);
      c.language = Language::Python;
      CHECK(codegen_error(*s, trusted()) ==
            "codegen: SDFG 'prog', state 'main', node 4 ('t'): the tasklet 't''s " + std::string(field) +
                " in Python is not supported by the CPU code generator (only C++)");
    }
  }
  SECTION("a CPP tasklet inside a nested SDFG") {
    auto outer = std::make_unique<SDFG>("outer");
    outer->add_array("A", ScalarType::Float64, {E::symbol("N")});
    outer->add_array("B", ScalarType::Float64, {E::symbol("N")});
    auto& st = outer->add_state("s0", true);
    auto inner = map_sdfg("b = a;", Language::CPP);
    auto& ns = st.add_nested_sdfg("inner_call", std::move(inner), {"A"}, {"B"}, {{"N", E::symbol("N")}});
    st.add_edge(st.add_access("A").id(), "", ns.id(), "A", Memlet::simple("A", Subset::parse("0:N")));
    st.add_edge(ns.id(), "B", st.add_access("B").id(), "", Memlet::simple("B", Subset::parse("0:N")));
    CHECK_THAT(codegen_error(*outer),
               Catch::StartsWith(
                   "codegen: SDFG 'outer/prog', state 'main', node 4 ('t'): the code of tasklet 't' is C++"));
    CHECK(codegen_error(*outer, trusted()) == "no error");
  }
}

TEST_CASE("trusted C++: global, init, tasklet and exit code all run", "[codegen][security]") {
  // global_code declares a counter; the SDFG's init code and the tasklet's code_init set it up,
  // the CPP tasklet scales by it, code_exit and exit_code record that finalize ran.
  auto s = map_sdfg("b = a * weir_test_scale;", Language::CPP);
  s->global_code.code = "static double weir_test_scale = 0;\nextern \"C\" { int weir_test_exits = 0; }";
  s->init_code.code = "weir_test_scale = 2;";
  Tasklet& t = tasklet(*s);
  t.code_init.code = "weir_test_scale += 1;";  // after the SDFG's init code: 3
  t.code_exit.code = "weir_test_exits += 10;";
  s->exit_code.code = "weir_test_exits += 1;";
  GeneratedCode g = generate_cpu(*s, trusted());
  INFO(g.source);
  test::LoadedProgram p(test::compile_shared(g.source, test::scratch_dir("codegen_trusted_code")));
  std::vector<double> A = {1, 2, 3}, B(3, 0);
  std::int64_t n = 3;
  p.call({A.data(), B.data(), &n});
  CHECK(B == std::vector<double>{3, 6, 9});
  int* exits = static_cast<int*>(p.symbol("weir_test_exits"));
  REQUIRE(exits != nullptr);
  CHECK(*exits == 11);
}

TEST_CASE("names from the SDFG cannot inject C++: labels in comments, non-identifiers refused",
          "[codegen][security]") {
  SECTION("a loop label with a line break and a backslash stays inside its comment") {
    auto s = map_sdfg("b = a", Language::Python);
    BlockId main = s->start_block();
    auto& loop = s->add_loop("l\nstd::abort();\\", "k", "k = 0", "k < 2", "k = k + 1");
    loop.add_state("body", true);
    s->add_edge(main, loop.id());
    GeneratedCode g = generate_cpu(*s);
    INFO(g.source);
    CHECK(g.source.find("// loop 'l?std::abort();?'") != std::string::npos);
    CHECK(g.source.find("\nstd::abort();") == std::string::npos);
  }
  SECTION("a container name that is not an identifier") {
    auto s = map_sdfg("b = a", Language::Python);
    // (add_data refuses such names; a loader or a caller filling `arrays` directly may not.)
    auto node = s->arrays.extract("B");
    node.key() = "B;std::abort()";
    s->arrays.insert(std::move(node));
    for (auto* st : s->all_states())
      for (auto* n : st->nodes())
        if (auto* a = n->as<AccessNode>(); a && a->data == "B") a->data = "B;std::abort()";
    for (auto* st : s->all_states())
      for (auto* e : st->edges())
        if (e->memlet.data == "B") st->edge(e->id).memlet.data = "B;std::abort()";
    CHECK_THAT(codegen_error(*s),
               Catch::Contains("'B;std::abort()' is not a name C++ can use (names in an SDFG must be "
                               "identifiers, [A-Za-z_][A-Za-z0-9_]*; `weir validate` reports where)"));
  }
}
