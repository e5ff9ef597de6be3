// Nested calls and imports are bounded (issue 35, kind 5): the type checker, the lowering (which
// inlines every call) and the module loader recurse once per level, so 2,000 chained field
// operators or an import chain of 2,500 modules overflowed the stack. Each is now refused at the
// call or import that goes one level too deep, and the deepest accepted chain still type-checks
// and lowers on the default 8 MiB stack.
#include <string>

#include "lowering_test_util.h"
#include "on_stack.h"
#include "typecheck_test_util.h"
#include "weir/frontend/type_checker.h"

using namespace weir::frontend;
using namespace weir::frontend::test;
using weir::test::kDefaultStack;
using weir::test::on_stack_of;

namespace {

// op0(a) = a + 1; op<k>(a) = op<k-1>(a) + 1, then a program calling op<n-1>: a chain of n + 1
// definitions.
std::string chain(int n) {
  std::string ops =
      "@gtx.field_operator\ndef op0(a: Field[[I], float64]) -> Field[[I], float64]:\n    return a + 1.0\n";
  for (int k = 1; k < n; ++k)
    ops += "@gtx.field_operator\ndef op" + std::to_string(k) +
           "(a: Field[[I], float64]) -> Field[[I], float64]:\n    return op" + std::to_string(k - 1) +
           "(a) + 1.0\n";
  return ops + "@gtx.program\ndef prog(a: Field[[I], float64], out: Field[[I], float64]):\n    op" +
         std::to_string(n - 1) + "(a, out=out)\n";
}

/// "file:line:col: message" of the FrontendError `fn` throws, or "no error".
std::string error_of(const std::function<void()>& fn) {
  try {
    fn();
  } catch (const FrontendError& e) {
    return e.location().str() + ": " + e.message();
  }
  return "no error";
}

}  // namespace

TEST_CASE("calls nested at the limit type-check and lower on the default stack", "[typecheck][security]") {
  // The program calls op62, which calls ... op0: 64 levels, kMaxCallDepth.
  static_assert(kMaxCallDepth == 64);
  on_stack_of(kDefaultStack, [&] {
    auto s = lower_text(chain(63), "prog");
    check_valid_and_round_trip(*s, "call_chain_limit");
  });
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m = loader.load_source(weir::pycode::SourceFile("test.py", kPrelude + chain(63)));
  TypeChecker tc;
  CHECK(find_def(tc, m, "op0").call_depth == 1);
  CHECK(find_def(tc, m, "op62").call_depth == 63);
  CHECK(find_def(tc, m, "prog").call_depth == 64);
}

TEST_CASE("calls nested beyond the limit are a located error, in either checking order",
          "[typecheck][errors][security]") {
  for (int n : {64, 2000}) {
    INFO(n << " operators");
    const std::string text = kPrelude + chain(n);
    // Checking the program first checks the whole chain recursively, nothing cached yet: refused
    // at the call in op<n-63> of op<n-64>, the 65th level, naming the chain's ends.
    std::string what;
    on_stack_of(kDefaultStack, [&] { what = error_of([&] { lower_text(chain(n), "prog"); }); });
    CHECK_THAT(
        what, Catch::Contains("calls nested more than 64 levels deep ('prog' -> 'op" + std::to_string(n - 1) +
                              "' -> 'op" + std::to_string(n - 2) + "' -> ... -> 'op" +
                              std::to_string(n - 61) + "' -> 'op" + std::to_string(n - 62) + "' -> 'op" +
                              std::to_string(n - 63) + "' -> 'op" + std::to_string(n - 64) + "')"));
    // Source order checks every operator before its caller: only the cached depths tell. The
    // first definition whose chain has 65 levels is refused at its call.
    on_stack_of(kDefaultStack, [&] {
      what = error_of([&] {
        ModuleLoader loader(LoaderOptions{{}, false});
        TypeChecker tc;
        tc.check_module(loader.load_source(weir::pycode::SourceFile("test.py", text)));
      });
    });
    CHECK_THAT(what, Catch::Contains(n == 64 ? "('prog' -> 'op63', which calls operators 63 levels deep)"
                                             : "('op64' -> 'op63', which calls operators 63 levels deep)"));
  }
}

TEST_CASE("imports nested beyond 100 modules are a located error, up to 100 load",
          "[loader][imports][security]") {
  TempDir d("import_chain");
  // m<k> imports m<k+1> with `from ... import *`; the last defines an operator.
  auto write_chain = [&](int n) {
    for (int k = 0; k + 1 < n; ++k)
      d.write("c" + std::to_string(n) + "/m" + std::to_string(k) + ".py",
              "# module " + std::to_string(k) + "\nfrom m" + std::to_string(k + 1) + " import *\n");
    d.write("c" + std::to_string(n) + "/m" + std::to_string(n - 1) + ".py",
            kPrelude +
                "@gtx.field_operator\ndef op(a: Field[[I], float64]) -> Field[[I], float64]:\n"
                "    return a + 1.0\n");
  };
  write_chain(100);
  write_chain(2500);
  on_stack_of(kDefaultStack, [&] {
    ModuleLoader loader(LoaderOptions{{d.str("c100")}, false});
    const LoadedModule& m = loader.load_file(d.str("c100/m0.py"));
    // `op`, bound in m0 through 99 star imports, type-checks.
    auto op = m.names.find("op");
    REQUIRE(op != m.names.end());
    REQUIRE(op->second.kind == ValueKind::Definition);
    TypeChecker tc;
    CHECK(tc.check(*op->second.definition).call_depth == 1);
    CHECK(loader.modules().size() >= 100);
  });
  std::string what;
  on_stack_of(kDefaultStack, [&] {
    what = error_of([&] {
      ModuleLoader loader(LoaderOptions{{d.str("c2500")}, false});
      loader.load_file(d.str("c2500/m0.py"));
    });
  });
  // m99 is the 100th module loaded; its import of m100 (line 2) is one too many.
  CHECK_THAT(what, Catch::Contains("m99.py:2:") &&
                       Catch::Contains(
                           "imports nested more than 100 modules deep ('m0' -> ... -> 'm99' -> 'm100')"));
}
