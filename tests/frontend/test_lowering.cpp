// Lowering of type-checked field-view programs to SDFGs: the Cartesian examples lower to SDFGs
// that validate and round-trip through save_sdfg/load_sdfg; structure of maps, tasklets and
// memlets; every lowering is a fresh SDFG; unsupported constructs throw located errors.
#include "lowering_test_util.h"

using namespace weir;
using namespace weir::frontend;
using namespace weir::frontend::test;

TEST_CASE("lowering: laplacian example", "[lowering]") {
  auto s = lower_file("cartesian/laplacian.py", "laplacian");
  check_valid_and_round_trip(*s, "laplacian");
  CHECK(s->name == "laplacian");
  CHECK(s->arg_names == std::vector<std::string>{"f", "out"});
  const DataDescriptor& f = s->data("f");
  CHECK_FALSE(f.transient);
  CHECK(f.dtype.base == ScalarType::Float64);
  REQUIRE(f.shape.size() == 3);
  CHECK(f.shape[0].str() == "__f_I_size");
  CHECK(f.shape[2].str() == "__f_K_size");
  CHECK(s->symbols.count("__out_J_size"));
  CHECK(s->all_states().size() == 1);
  auto ms = maps(*s);
  REQUIRE(ms.size() == 1);
  const MapInfo& mi = *ms[0]->map;
  CHECK(mi.params == std::vector<std::string>{"__I", "__J", "__K"});
  CHECK(range_text(mi.range[0]) == "1 .. __out_I_size - 2");
  CHECK(range_text(mi.range[1]) == "1 .. __out_J_size - 2");
  CHECK(range_text(mi.range[2]) == "0 .. __out_K_size - 1");
  auto ts = tasklets(*s);
  REQUIRE(ts.size() == 1);
  CHECK(ts[0]->code.language == Language::Python);
  CHECK(ts[0]->code.code.find("__out = ") != std::string::npos);
  CHECK(ts[0]->code.code.find("(-4.0) * ") != std::string::npos);
  CHECK(ts[0]->in_connectors.size() == 5);
  CHECK(tasklet_reads(*s, "f") == std::vector<std::string>{"__I + 1, __J, __K", "__I - 1, __J, __K",
                                                           "__I, __J + 1, __K", "__I, __J - 1, __K",
                                                           "__I, __J, __K"});
  // The outer memlet of f covers the map range widened by the shifts.
  for (SDFGState* st : s->all_states())
    for (const DataflowEdge* e : st->edges())
      if (st->node(e->src).as<AccessNode>()) {
        CHECK(e->memlet.data == "f");
        CHECK(range_text(e->memlet.subset[0]) == "0 .. __out_I_size - 1");
        CHECK(range_text(e->memlet.subset[2]) == "0 .. __out_K_size - 1");
      }
}

TEST_CASE("lowering: bi-Laplacian inlines the inner call into one map", "[lowering]") {
  auto s = lower_file("cartesian/laplacian.py", "bi_laplacian");
  check_valid_and_round_trip(*s, "bilap");
  auto ms = maps(*s);
  REQUIRE(ms.size() == 1);
  CHECK(range_text(ms[0]->map->range[0]) == "2 .. __out_I_size - 3");
  // lap(lap(f)) reads the 13 points within Manhattan distance 2.
  CHECK(tasklet_reads(*s, "f").size() == 13);
  CHECK(tasklets(*s)[0]->code.code.find("__t") != std::string::npos);
}

TEST_CASE("lowering: hdiff example", "[lowering]") {
  auto s = lower_file("cartesian/hdiff.py", "hdiff_program");
  check_valid_and_round_trip(*s, "hdiff");
  CHECK(s->arg_names == std::vector<std::string>{"u", "coeff", "out"});
  auto ms = maps(*s);
  REQUIRE(ms.size() == 1);
  CHECK(range_text(ms[0]->map->range[1]) == "2 .. __out_J_size - 3");
  auto ts = tasklets(*s);
  REQUIRE(ts.size() == 1);
  CHECK(ts[0]->code.code.find(" if ") != std::string::npos);  // where(...)
  CHECK(ts[0]->code.code.find("> 0.0)") != std::string::npos);
  // The Laplacian is computed once per point it is needed at (5 points), not per use.
  std::size_t laps = 0;
  for (std::size_t p = ts[0]->code.code.find("(4.0 * "); p != std::string::npos;
       p = ts[0]->code.code.find("(4.0 * ", p + 1))
    ++laps;
  CHECK(laps == 5);
  CHECK(tasklet_reads(*s, "coeff") == std::vector<std::string>{"__I, __J, __K"});
  auto u = tasklet_reads(*s, "u");
  CHECK(std::find(u.begin(), u.end(), "__I + 2, __J, __K") != u.end());
  CHECK(std::find(u.begin(), u.end(), "__I - 2, __J, __K") != u.end());
}

TEST_CASE("lowering: calls are sequenced one state each", "[lowering]") {
  const std::string src =
      "@gtx.field_operator\n"
      "def inc(f: Field[[I, J], float64]) -> Field[[I, J], float64]:\n"
      "    return f + 1.0\n"
      "@gtx.field_operator\n"
      "def avg(f: Field[[I, J], float64]) -> Field[[I, J], float64]:\n"
      "    return 0.5 * (f(I - 1) + f(I + 1))\n"
      "@gtx.program\n"
      "def p(a: Field[[I, J], float64], tmp: Field[[I, J], float64], b: Field[[I, J], float64]):\n"
      "    inc(a, out=tmp)\n"
      "    avg(tmp, out=b[1:-1, :])\n";
  auto s = lower_text(src, "p");
  check_valid_and_round_trip(*s, "seq");
  REQUIRE(s->num_blocks() == 2);
  REQUIRE(s->edges().size() == 1);
  auto blocks = s->blocks();
  CHECK(s->start_block() == blocks[0]->id());
  CHECK(s->edges()[0]->src == blocks[0]->id());
  CHECK(blocks[0]->label == "call_0_inc");
  CHECK(blocks[1]->label == "call_1_avg");
  auto ms = maps(*s);
  REQUIRE(ms.size() == 2);
  CHECK(range_text(ms[0]->map->range[0]) == "0 .. __tmp_I_size - 1");
  CHECK(range_text(ms[1]->map->range[0]) == "1 .. __b_I_size - 2");
  CHECK(range_text(ms[1]->map->range[1]) == "0 .. __b_J_size - 1");
  CHECK(tasklet_reads(*s, "tmp") == std::vector<std::string>{"__I + 1, __J", "__I - 1, __J"});
}

TEST_CASE("lowering: tuple outputs, astype, comparisons, & and |, if and ternaries", "[lowering]") {
  const std::string src =
      "@gtx.field_operator\n"
      "def two(a: Field[[I], float64], b: Field[[I], float64], s: float64, flag: bool)"
      " -> tuple[Field[[I], float64], Field[[I], float32]]:\n"
      "    m = (a > b) & (a < 2.0) | (b == s)\n"
      "    c = where(m, a, b)\n"
      "    if flag:\n"
      "        d = c * s\n"
      "    else:\n"
      "        d = -c\n"
      "    e = d if flag else d + 1.0\n"
      "    return e, astype(c, float32)\n"
      "@gtx.program\n"
      "def p(a: Field[[I], float64], b: Field[[I], float64], s: float64, flag: bool,"
      " x: Field[[I], float64], y: Field[[I], float32]):\n"
      "    two(a, b, s, flag, out=(x, y))\n";
  auto s = lower_text(src, "p");
  check_valid_and_round_trip(*s, "tuple");
  CHECK(s->data("s").is_scalar());
  CHECK(s->data("flag").dtype.base == ScalarType::Bool);
  CHECK(s->data("y").dtype.base == ScalarType::Float32);
  auto ts = tasklets(*s);
  REQUIRE(ts.size() == 1);
  const std::string& code = ts[0]->code.code;
  INFO(code);
  CHECK(ts[0]->out_connectors.size() == 2);
  CHECK(ts[0]->out_connectors.count("__out_0"));
  CHECK(code.find("= dace.float32(__t") != std::string::npos);
  CHECK(code.find("\n__out_1 = dace.float32(__t1)") != std::string::npos);
  CHECK(code.find(" & ") != std::string::npos);
  CHECK(code.find(" | ") != std::string::npos);
  CHECK(code.find(" == ") != std::string::npos);
  CHECK(code.find(" if __in_flag_0 else ") != std::string::npos);
  CHECK(tasklet_reads(*s, "s") == std::vector<std::string>{"0"});
}

TEST_CASE("lowering: domain bounds make scalar parameters symbols", "[lowering]") {
  const std::string src =
      "@gtx.field_operator\n"
      "def up(f: Field[[I, K], float64], w: float64) -> Field[[I, K], float64]:\n"
      "    return w * f(K + 1) + f(Koff[-1])\n"
      "@gtx.program\n"
      "def p(f: Field[[I, K], float64], out: Field[[I, K], float64], w: float64, n: int32):\n"
      "    up(f, w, out=out, domain={I: (0, n), K: (1, n - 1)})\n";
  auto s = lower_text(src, "p");
  check_valid_and_round_trip(*s, "domain");
  CHECK(s->arg_names == std::vector<std::string>{"f", "out", "w", "n"});
  CHECK(s->symbols.count("n"));
  CHECK_FALSE(s->has_data("n"));
  CHECK(s->has_data("w"));
  auto ms = maps(*s);
  REQUIRE(ms.size() == 1);
  CHECK(range_text(ms[0]->map->range[0]) == "0 .. n - 1");
  CHECK(range_text(ms[0]->map->range[1]) == "1 .. n - 2");
  CHECK(tasklet_reads(*s, "f") == std::vector<std::string>{"__I, __K + 1", "__I, __K - 1"});
}

TEST_CASE("lowering: a field operator called directly writes __out", "[lowering]") {
  const std::string src =
      "@gtx.field_operator\n"
      "def g(f: Field[[I, J], float64]) -> Field[[I, J], float64]:\n"
      "    return sqrt(f) + maximum(f, 0.0)\n";
  auto s = lower_text("from gt4py.next import sqrt, maximum\n" + src, "g");
  check_valid_and_round_trip(*s, "direct");
  CHECK(s->arg_names == std::vector<std::string>{"f", "__out"});
  auto code = tasklets(*s)[0]->code.code;
  // NumPy's maximum (NaN propagates, of equal values the second), not Python's max, written
  // without `np.`, which DaCe's C++ lacks.
  CHECK(code ==
        "__result = (math.sqrt(__in_f_0) + (__in_f_0 if (__in_f_0 > 0.0 or __in_f_0 != __in_f_0) else 0.0))");
  auto ms = maps(*s);
  CHECK(range_text(ms[0]->map->range[0]) == "0 .. __out_I_size - 1");
}

TEST_CASE("lowering: every lowering builds a fresh SDFG", "[lowering]") {
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m = loader.load_file(example_path("cartesian/hdiff.py"));
  TypeChecker tc;
  const TypedDefinition& def = find_def(tc, m, "hdiff_program");
  auto first = lower_to_sdfg(def);
  std::string saved = sdfg_to_json_text(*first);
  // Mutate the returned SDFG: rename the map, change the tasklet, remove the state.
  for (SDFGState* st : first->all_states())
    for (Node* n : st->nodes()) {
      if (auto* me = n->as<MapEntry>()) me->map->label = "renamed";
      if (auto* t = n->as<Tasklet>()) t->code.code = "__out = 0.0";
    }
  first->arg_names.push_back("extra");
  first->remove_block(first->blocks()[0]->id());
  auto second = lower_to_sdfg(def);
  auto reference = sdfg_from_json_text(saved);
  CHECK(sdfg_difference(*second, *reference) == "");
  CHECK(diagnostics(*second) == "");
  CHECK(sdfg_difference(*second, *first) != "");
}

TEST_CASE("lowering: broadcast without reads and concat_where on the map index", "[lowering]") {
  const std::string src =
      "from gt4py.next.experimental import concat_where\n"
      "@gtx.field_operator\n"
      "def fill(s: float64) -> Field[[I, K], float64]:\n"
      "    return broadcast(s, (I, K))\n"
      "@gtx.field_operator\n"
      "def const() -> Field[[I, K], float64]:\n"
      "    return broadcast(1.0, (I, K))\n"
      "@gtx.field_operator\n"
      "def top(f: Field[[I, K], float64], n: int32) -> Field[[I, K], float64]:\n"
      "    return concat_where((K > 0) & (K < n), f(K - 1), f)\n"
      "@gtx.program\n"
      "def p(f: Field[[I, K], float64], g: Field[[I, K], float64], s: float64, n: int32):\n"
      "    const(out=g)\n"
      "    fill(s, out=g)\n"
      "    top(f, n, out=g, domain={I: (0, 4), K: (0, n)})\n";
  auto s = lower_text(src, "p");
  check_valid_and_round_trip(*s, "concat");
  auto ts = tasklets(*s);
  REQUIRE(ts.size() == 4);
  CHECK(ts[0]->code.code == "__out = 1.0");
  CHECK(ts[0]->in_connectors.empty());
  CHECK(ts[1]->code.code == "__out = __in_s_0");
  // The domain is split at the condition's cuts (test_lowering_concat_where.cpp): K = 0 takes
  // f, 1 .. n - 1 takes f(K - 1); neither map computes the other branch (ADR 0014).
  auto ms = maps(*s);
  REQUIRE(ms.size() == 4);
  CHECK(range_text(ms[2]->map->range[1]) == "0 .. Min(n - 1, 0)");
  CHECK(range_text(ms[3]->map->range[1]) == "1 .. n - 1");
  CHECK(ts[2]->code.code == "__out = __in_f_0");
  CHECK(ts[3]->code.code == "__out = __in_f_0");
  CHECK(tasklet_reads(*s, "f") == std::vector<std::string>{"__I, __K", "__I, __K - 1"});
}

TEST_CASE("lowering: expressions at the nesting limit type-check and lower", "[lowering]") {
  // kMaxNestingDepth bounds the AST depth the type checker and the lowering recurse over; at
  // the limit they must still work (the parser tests check that deeper source is rejected).
  std::string sum = "a";
  for (int i = 1; i < 500; ++i) sum += " + a";
  std::string neg = std::string(200, '-') + "(" + std::string(200, '(') + "a" + std::string(201, ')');
  auto s = lower_text(
      "@gtx.field_operator\n"
      "def deep(a: Field[[I], float64]) -> Field[[I], float64]:\n"
      "    return " +
          sum + " + " + neg + "\n",
      "deep");
  check_valid_and_round_trip(*s, "deep");
  auto ts = tasklets(*s);
  REQUIRE(ts.size() == 1);
  // 500 a's, then 200 minus signs (an even number): 501 * a
  CHECK(std::count(ts[0]->code.code.begin(), ts[0]->code.code.end(), '+') >= 499);
}

TEST_CASE("lowering: constant domain bounds out of range are located errors", "[lowering]") {
  const auto prelude_lines = static_cast<std::uint32_t>(std::count(kPrelude.begin(), kPrelude.end(), '\n'));
  auto body = [](const std::string& domain) {
    return "@gtx.field_operator\n"
           "def f(a: Field[[I, J], float64]) -> Field[[I, J], float64]:\n"
           "    return a\n"
           "@gtx.program\n"
           "def p(a: Field[[I, J], float64], o: Field[[I, J], float64]):\n"
           "    f(a, out=o, domain=" +
           domain + ")\n";
  };
  const std::uint32_t line = prelude_lines + 6;
  // column of the bound: "    f(a, out=o, domain={I: (" is 28 characters
  expect_error([&] { lower_text(body("{I: (-5, 3), J: (0, 2)}"), "p"); }, line, 29,
               "domain of 'I' starts at -5, before the first index 0");
  expect_error([&] { lower_text(body("{I: (0, 2), J: (-3, 1)}"), "p"); }, line, 40,
               "domain of 'J' starts at -3, before the first index 0");
  // Empty ranges are fine, also a start past the end (gt4py: UnitRange(5, 2) == UnitRange(0, 0);
  // fuzzer finding seed 9002, program 8037): the map runs no iteration.
  for (const char* empty : {"{I: (2, 2), J: (0, 2)}", "{I: (5, 2), J: (0, 2)}", "{I: (0, 2), J: (1, -1)}"}) {
    INFO(empty);
    auto ok = lower_text(body(empty), "p");
    check_valid_and_round_trip(*ok, "domain_empty");
  }
}

TEST_CASE("lowering: tuple out= elements sliced differently are refused at the call", "[lowering]") {
  const std::string ops =
      "F = Field[[I, J], float64]\n"
      "@gtx.field_operator\n"
      "def f(a: F) -> tuple[F, F]:\n"
      "    return a, a * 2.0\n"
      "@gtx.program\n"
      "def differ(a: F, o1: F, o2: F):\n"
      "    f(a, out=(o1, o2[1:, :]))\n"
      "@gtx.program\n"
      "def alike(a: F, o1: F, o2: F):\n"
      "    f(a, out=(o1[1:, :], o2[1:, :]))\n";
  // Line 17 of the module (the prelude has 10 lines): the call in `differ`.
  CHECK_THROWS_WITH(lower_text(ops, "differ"),
                    Catch::Contains("test.py:17:") &&
                        Catch::Contains("elements of a tuple out= sliced differently ('o1' and 'o2')"));
  auto s = lower_text(ops, "alike");
  check_valid_and_round_trip(*s, "tuple_out_alike");
}
