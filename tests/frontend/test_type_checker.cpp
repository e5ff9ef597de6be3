// The examples under examples/ load and type-check with the expected signatures; positive
// cases of the type rules.
#include "typecheck_test_util.h"

using namespace weir::frontend;
using namespace weir::frontend::test;

namespace {

std::vector<std::string> signatures(const std::string& file, std::vector<std::string> path = {}) {
  ModuleLoader loader(LoaderOptions{std::move(path), false});
  const LoadedModule& m = loader.load_file(file);
  TypeChecker checker;
  std::vector<std::string> out;
  for (const TypedDefinition* d : checker.check_module(m)) out.push_back(signature(*d));
  return out;
}

const std::string F3 = "Field[[I, J, K], float64]";

}  // namespace

TEST_CASE("examples: cartesian laplacian", "[typecheck][examples]") {
  auto s = signatures(example_path("cartesian/laplacian.py"));
  REQUIRE(s.size() == 4);
  CHECK(s[0] == "field_operator lap(f: " + F3 + ") -> " + F3);
  CHECK(s[1] == "field_operator lap_lap(f: " + F3 + ") -> " + F3);
  CHECK(s[2] == "program laplacian(f: " + F3 + ", out: " + F3 + ")");
  CHECK(s[3] == "program bi_laplacian(f: " + F3 + ", out: " + F3 + ")");
}

TEST_CASE("examples: cartesian hdiff", "[typecheck][examples]") {
  auto s = signatures(example_path("cartesian/hdiff.py"));
  REQUIRE(s.size() == 5);
  CHECK(s[1] == "field_operator flux_i(u: " + F3 + ", lap: " + F3 + ") -> " + F3);
  CHECK(s[3] == "field_operator hdiff(u: " + F3 + ", coeff: " + F3 + ") -> " + F3);
  CHECK(s[4] == "program hdiff_program(u: " + F3 + ", coeff: " + F3 + ", out: " + F3 + ")");
}

TEST_CASE("examples: vertical tridiagonal solver", "[typecheck][examples]") {
  auto s = signatures(example_path("cartesian/vertical_solver.py"));
  REQUIRE(s.size() == 4);
  CHECK(s[0] ==
        "scan_operator thomas_forward[axis=K, forward=True](carry: tuple[float64, float64], "
        "a: float64, b: float64, c: float64, d: float64) -> tuple[float64, float64]");
  CHECK(s[1] ==
        "scan_operator thomas_backward[axis=K, forward=False](x_above: float64, c_mod: "
        "float64, d_mod: float64) -> float64");
  CHECK(s[2] == "field_operator tridiagonal_solve(a: " + F3 + ", b: " + F3 + ", c: " + F3 + ", d: " + F3 +
                    ") -> " + F3);
  CHECK(s[3] == "program vertical_solver(a: " + F3 + ", b: " + F3 + ", c: " + F3 + ", d: " + F3 +
                    ", x: " + F3 + ", nk: int32)");
}

TEST_CASE("examples: unstructured nabla", "[typecheck][examples]") {
  auto s = signatures(example_path("unstructured/nabla.py"));
  REQUIRE(s.size() == 2);
  CHECK(s[0] ==
        "field_operator nabla(pp: Field[[Vertex, K], float64], S_MXX: Field[[Edge], float64], "
        "S_MYY: Field[[Edge], float64], sign: Field[[Vertex, V2E], float64], vol: "
        "Field[[Vertex], float64]) -> tuple[Field[[Vertex, K], float64], Field[[Vertex, K], float64]]");
}

TEST_CASE("examples: multi-module model", "[typecheck][examples]") {
  std::string root = example_path("multimodule");
  auto ops = signatures(example_path("multimodule/mymodel/ops.py"), {root});
  REQUIRE(ops.size() == 3);
  CHECK(ops[0] ==
        "field_operator cell_average(e: Field[[Edge, K], float64], weights: Field[[Cell, "
        "C2E], float64]) -> Field[[Cell, K], float64]");
  CHECK(ops[2] ==
        "field_operator potential(height: Field[[Cell, K], float64], area: Field[[Cell], "
        "float64]) -> Field[[Cell, K], float64]");
  auto prog = signatures(example_path("multimodule/mymodel/program.py"), {root});
  REQUIRE(prog.size() == 3);
  CHECK(prog[0] ==
        "field_operator smoothed_cell_average(e: Field[[Edge, K], float64], weights: "
        "Field[[Cell, C2E], float64]) -> Field[[Cell, K], float64]");
  CHECK(prog[1] ==
        "program smooth(e: Field[[Edge, K], float64], weights: Field[[Cell, C2E], "
        "float64], out: Field[[Cell, K], float64], n_cells: int32, n_levels: int32)");
}

TEST_CASE("typed IR: program calls, domains and slices", "[typecheck]") {
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m = loader.load_file(example_path("cartesian/vertical_solver.py"));
  TypeChecker checker;
  auto defs = checker.check_module(m);
  const TypedDefinition& prog = *defs[3];
  REQUIRE(prog.calls.size() == 1);
  const ProgramCall& call = prog.calls[0];
  CHECK(call.callee == defs[2]);
  CHECK(call.args.size() == 4);
  REQUIRE(call.outs.size() == 1);
  CHECK(call.outs[0].name == "x");
  REQUIRE(call.domain.size() == 1);
  CHECK(call.domain[0].dim.name == "K");
  CHECK(call.domain[0].hi->kind == TExprKind::Name);
  // the scan's init and the field operator's body
  CHECK(to_string(defs[0]->init->type) == "tuple[float64, float64]");
  const TypedDefinition& solve = *defs[2];
  REQUIRE(solve.body.size() == 2);
  CHECK(solve.body[0].targets == std::vector<std::string>{"c_mod", "d_mod"});
  CHECK(solve.body[1].value->kind == TExprKind::Call);

  ModuleLoader l2(LoaderOptions{{}, false});
  const LoadedModule& lap = l2.load_file(example_path("cartesian/laplacian.py"));
  TypeChecker c2;
  auto ldefs = c2.check_module(lap);
  const ProgramCall& lc = ldefs[2]->calls[0];
  REQUIRE(lc.outs[0].slices.size() == 2);
  CHECK(lc.outs[0].slices[0].first == 1);
  CHECK(lc.outs[0].slices[0].second == -1);
  const TExpr& ret = *ldefs[0]->body[0].value;
  CHECK(ret.kind == TExprKind::Binary);
  CHECK(ret.args[1]->kind == TExprKind::Shift);
  CHECK(ret.args[1]->shifts[0].amount == -1);
}

TEST_CASE("type rules: accepted constructs", "[typecheck]") {
  auto ok = [](const std::string& body) {
    INFO(body);
    std::string sig;
    CHECK_NOTHROW(sig = check_text(kPrelude + body));
    return sig;
  };
  // literals: ints are int32, floats float64; dims union in canonical order
  CHECK(ok("@gtx.field_operator\ndef f(a: Field[[K], int32], b: Field[[I], int32]) -> Field[[I, K], int32]:\n"
           "    return a + b * 2\n") ==
        "field_operator f(a: Field[[K], int32], b: Field[[I], int32]) -> Field[[I, K], int32]\n");
  // canonical order of annotations (vertical last)
  CHECK(ok("@gtx.field_operator\ndef f(a: Field[[K, I], float64]) -> Field[[I, K], float64]:\n"
           "    return a\n") == "field_operator f(a: Field[[I, K], float64]) -> Field[[I, K], float64]\n");
  // if/else on scalar bool, annotated assignment, tuple unpacking with star
  ok("@gtx.field_operator\ndef f(a: Field[[I], float64], c: bool) -> Field[[I], float64]:\n"
     "    x: Field[[I], float64] = a\n"
     "    if c:\n        y = x + 1.0\n    else:\n        y = x - 1.0\n"
     "    p, *q = (y, a, a)\n"
     "    return y + q[1] if c else p\n");
  // shifts of every form, neighbour reductions, local indexing
  ok("@gtx.field_operator\ndef f(a: Field[[V, K], float64], o: Field[[E, K], int32]) -> Field[[E, K], "
     "float64]:\n"
     "    b = a(E2V[0]) + a(E2V)[E2VDim(1)]\n"
     "    c = neighbor_sum(a(E2V), axis=E2VDim) + gtx.max_over(a(E2V), axis=E2VDim)\n"
     "    return b + c + b(Koff[1]) + b(K - 1) + b(gtx.as_offset(Koff, o))\n");
  // builtins
  ok("@gtx.field_operator\ndef f(a: Field[[I, K], float64], s: float32) -> Field[[I, K], float32]:\n"
     "    m = where(a > 0.0, a, -a)\n"
     "    z = gtx.concat_where((1 <= K) & (K < 10), m, gtx.sqrt(gtx.abs(m)))\n"
     "    w = broadcast(s, (I, K))\n"
     "    return astype(gtx.maximum(z, gtx.minimum(z, float64('1.0'))), float32) + w\n");
  // scan with scalar carry and a call of a scan from a field operator
  CHECK(ok("@gtx.scan_operator(axis=K, forward=True, init=0.0)\n"
           "def acc(s: float64, x: float64) -> float64:\n    return s + x\n"
           "@gtx.field_operator\ndef g(a: Field[[I, K], float64]) -> Field[[I, K], float64]:\n"
           "    return acc(a)\n")
            .find("field_operator g(a: Field[[I, K], float64]) -> Field[[I, K], float64]") !=
        std::string::npos);
  // programs: tuple outputs, keyword arguments, domain arithmetic, module constants and enums
  ok("from enum import Enum\nclass Mode(Enum):\n    A = 1\n    B = 2\nN = 4 * 2 + 1\n"
     "@gtx.field_operator\ndef two(a: Field[[I], float64]) -> tuple[Field[[I], float64], Field[[I], "
     "float64]]:\n"
     "    return a, a * float64(N)\n"
     "@gtx.field_operator\ndef m(a: Field[[I], int32]) -> Field[[I], int32]:\n"
     "    return a * Mode.B + N\n"
     "@gtx.program\ndef p(a: Field[[I], float64], b: Field[[I], float64], c: Field[[I], float64], n: "
     "int32):\n"
     "    two(a=a, out=(b, c), domain={I: (1, n - 1)})\n");
}
