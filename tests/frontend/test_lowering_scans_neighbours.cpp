// Lowering of scan operators (a LoopRegion over the scan axis per scan, carries in transients),
// unstructured programs (connectivity tables as int32 arguments, neighbour reads through whole-
// field connectors, unrolled reductions that skip -1 entries), local-dimension fields and
// indexing, `if` statements lowered in linear code size, and the located errors of what is not
// lowered. Numbers are checked by the `examples` suite.
#include "lowering_test_util.h"

using namespace weir;
using namespace weir::frontend;
using namespace weir::frontend::test;

namespace {

std::vector<const LoopRegion*> loops(const SDFG& s) {
  std::vector<const LoopRegion*> out;
  for (ControlFlowBlock* b : s.blocks())
    if (auto* l = b->as<LoopRegion>()) out.push_back(l);
  return out;
}

/// Lowering `src` (after the prelude) must throw a FrontendError containing `what` at `line`.
void expect_error(const std::string& src, const std::string& name, const std::string& what, int line) {
  try {
    lower_text(src, name);
    FAIL("expected an error");
  } catch (const FrontendError& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).find(what) != std::string::npos);
    CHECK(e.location().line == static_cast<std::uint32_t>(line));
  }
}

std::string all_code(const SDFG& s) {
  std::string code;
  for (const Tasklet* t : tasklets(s)) code += t->code.code + "\n";
  return code;
}

}  // namespace

TEST_CASE("lowering: the vertical solver's two scans become loops over K", "[lowering][scan]") {
  auto s = lower_file("cartesian/vertical_solver.py", "vertical_solver");
  check_valid_and_round_trip(*s, "vertical_solver");
  auto ls = loops(*s);
  REQUIRE(ls.size() == 2);
  // forward sweep first (it computes the backward sweep's arguments), then the backward one
  CHECK(ls[0]->loop_variable == "__K");
  CHECK(ls[0]->init_statement.code == "__K = 0");
  CHECK(ls[0]->loop_condition.code == "__K <= nk - 1");
  CHECK(ls[0]->update_statement.code == "__K = __K + 1");
  CHECK(ls[1]->init_statement.code == "__K = nk - 1");
  CHECK(ls[1]->loop_condition.code == "__K >= 0");
  CHECK(ls[1]->update_statement.code == "__K = __K - 1");
  // the forward scan's tuple result is materialized; the backward scan writes x directly
  CHECK(s->has_data("__scan1_0"));
  CHECK(s->data("__scan1_0").transient);
  CHECK(s->has_data("__scan1_1"));
  CHECK(tasklet_reads(*s, "__scan1_0") == std::vector<std::string>{"__I, __J, __K"});
  // each level maps over I and J only
  for (const MapEntry* m : maps(*s)) CHECK(m->map->params == std::vector<std::string>{"__I", "__J"});
  // carries: two for the forward sweep (a tuple), one for the backward sweep
  int carries = 0;
  for (const auto& [name, d] : s->arrays) carries += name.rfind("__carry", 0) == 0 && d.transient;
  CHECK(carries == 3);
  CHECK(s->arg_names == std::vector<std::string>{"a", "b", "c", "d", "x", "nk"});
}

TEST_CASE("lowering: a scan reads every argument at its point, also one its body never uses",
          "[lowering][scan]") {
  // gt4py's scan reads every argument at every point of its domain: the level tasklet reads
  // a(I + 1) (x, unused) as it reads b (y), so that the bounds checks refuse an argument that
  // is not defined over the domain, as the embedded backend does. A used argument is read once.
  const std::string src =
      "@gtx.scan_operator(axis=K, forward=True, init=0.0)\n"
      "def acc(c: float64, x: float64, y: float64) -> float64:\n"
      "    return c + y + y\n"
      "@gtx.field_operator\n"
      "def f(a: Field[[I, K], float64], b: Field[[I, K], float64]) -> Field[[I, K], float64]:\n"
      "    return acc(a(I + 1), b)\n";
  auto s = lower_text(src, "f");
  check_valid_and_round_trip(*s, "f");
  CHECK(tasklet_reads(*s, "a") == std::vector<std::string>{"__I + 1, __K"});
  CHECK(tasklet_reads(*s, "b") == std::vector<std::string>{"__I, __K"});
}

TEST_CASE("lowering: a scan called by a program, with an expression argument", "[lowering][scan]") {
  const std::string src =
      "@gtx.scan_operator(axis=K, forward=True, init=0.0)\n"
      "def cumsum(acc: float64, x: float64) -> float64:\n"
      "    return acc + x\n"
      "@gtx.field_operator\n"
      "def twice_cumsum(f: Field[[I, K], float64]) -> Field[[I, K], float64]:\n"
      "    return 2.0 * cumsum(f + 1.0)\n"
      "@gtx.program\n"
      "def p(f: Field[[I, K], float64], out: Field[[I, K], float64]):\n"
      "    cumsum(f, out=out)\n"
      "@gtx.program\n"
      "def q(f: Field[[I, K], float64], out: Field[[I, K], float64]):\n"
      "    twice_cumsum(f, out=out)\n";
  auto p = lower_text(src, "p");
  check_valid_and_round_trip(*p, "scan_direct");
  CHECK(loops(*p).size() == 1);
  CHECK(tasklet_reads(*p, "f") == std::vector<std::string>{"__I, __K"});
  auto q = lower_text(src, "q");
  check_valid_and_round_trip(*q, "scan_in_operator");
  REQUIRE(loops(*q).size() == 1);
  // the scan result feeds the final map, which runs after the loop
  const auto blocks = q->blocks();
  CHECK(blocks.back()->kind() == BlockKind::State);
  CHECK(all_code(*q).find("(__in_f_0 + 1.0)") != std::string::npos);
}

TEST_CASE("lowering: nabla reads connectivities and reduces over V2E", "[lowering][unstructured]") {
  auto s = lower_file("unstructured/nabla.py", "nabla_program");
  check_valid_and_round_trip(*s, "nabla");
  CHECK(s->arg_names ==
        std::vector<std::string>{"pp", "S_MXX", "S_MYY", "sign", "vol", "out_x", "out_y", "E2V", "V2E"});
  const DataDescriptor& e2v = s->data("E2V");
  CHECK(e2v.dtype == DataType::scalar(ScalarType::Int32));
  CHECK(!e2v.transient);
  REQUIRE(e2v.shape.size() == 2);
  CHECK(e2v.shape[0].str() == "__E2V_rows");
  CHECK(e2v.shape[1].str() == "2");
  CHECK(s->data("V2E").shape[1].str() == "6");
  CHECK(s->data("sign").shape[1].str() == "6");  // the local dimension V2EDim
  // sign is read at every local entry of the map point
  auto sign = tasklet_reads(*s, "sign");
  CHECK(sign.size() == 6);
  CHECK(std::find(sign.begin(), sign.end(), "__Vertex, 5") != sign.end());
  // pp is read at neighbours of neighbours: one dynamic connector over the whole field
  std::string code = all_code(*s);
  CHECK(code.find("__all_pp[") != std::string::npos);
  CHECK(code.find("!= -1 else 0.0") != std::string::npos);
  for (SDFGState* st : s->all_states())
    for (const DataflowEdge* e : st->edges())
      if (e->memlet.data == "pp" && st->node(e->dst).as<Tasklet>()) {
        CHECK(e->memlet.dynamic);
        CHECK(e->memlet.subset.str() == "0:__pp_Vertex_size, 0:__pp_K_size");
        // DaCe's volume of a dynamic read: at most one element per subscript, 6 V2E x 2 E2V
        // neighbours per run of the tasklet (not the field's size).
        CHECK(e->memlet.volume == sym::Expr(12));
      }
  // Outside the map, DaCe's propagation: the inner volume times the map's iterations.
  for (SDFGState* st : s->all_states())
    for (const DataflowEdge* e : st->edges())
      if (const auto* me = st->node(e->dst).as<MapEntry>(); me && e->memlet.data == "pp") {
        sym::Expr iterations(1);
        for (const Range& r : me->map->range.ranges()) iterations = iterations * r.size();
        CHECK(e->memlet.dynamic);
        CHECK(e->memlet.volume == sym::Expr(12) * iterations);
        CHECK(e->memlet.volume.str() == "12*__out_x_K_size*__out_x_Vertex_size");
      }
}

TEST_CASE("lowering: neighbour reads, local indexing and reductions in snippets",
          "[lowering][unstructured]") {
  const std::string src =
      "from gt4py.next import max_over, min_over\n"  // line 11
      "@gtx.field_operator\n"
      "def ends(f: Field[[V, K], float64], w: Field[[E, E2VDim], float64]) -> Field[[E, K], float64]:\n"
      "    lo = min_over(f(E2V), axis=E2VDim)\n"
      "    hi = max_over(f(E2V), axis=E2VDim)\n"
      "    return (hi - lo) * w[E2VDim(1)] + f(E2V[0])\n"
      "@gtx.program\n"
      "def p(f: Field[[V, K], float64], w: Field[[E, E2VDim], float64], out: Field[[E, K], float64]):\n"
      "    ends(f, w, out=out)\n";
  auto s = lower_text(src, "p");
  check_valid_and_round_trip(*s, "ends");
  CHECK(s->arg_names.back() == "E2V");
  CHECK(tasklet_reads(*s, "w") == std::vector<std::string>{"__E, 1"});
  CHECK(tasklet_reads(*s, "E2V") == std::vector<std::string>{"__E, 0", "__E, 1"});
  std::string code = all_code(*s);
  // The neutral elements as Python's infinity literal, which DaCe's cppunparse compiles.
  CHECK(code.find("(-1e309)") != std::string::npos);
  CHECK(code.find("1e309") != std::string::npos);
  CHECK(code.find("math.inf") == std::string::npos);
  // NumPy's maximum and minimum as conditionals of temporaries (DaCe's C++ has no `np.`).
  CHECK(code.find("np.") == std::string::npos);
  CHECK(code.find(" > ") != std::string::npos);
  CHECK(code.find(" < ") != std::string::npos);
}

TEST_CASE("lowering: a NaN constant is the bare name nan, never a symbol of the program", "[lowering]") {
  // DaCe compiles `nan` in a Python tasklet (its free-symbol scan skips it, cppunparse writes C's
  // NAN); `math.nan` it turns into dace::math::nan, a typeless struct with few operators.
  const std::string src =
      "BAD = float(\"nan\")\n"
      "@gtx.field_operator\n"
      "def f(a: Field[[I], float64]) -> Field[[I], float64]:\n"
      "    return a + BAD\n"
      "@gtx.program\n"
      "def p(a: Field[[I], float64], out: Field[[I], float64]):\n"
      "    f(a, out=out)\n";
  auto s = lower_text(src, "p");
  check_valid_and_round_trip(*s, "nan");
  std::string code = all_code(*s);
  CHECK(code.find("+ nan)") != std::string::npos);
  CHECK(code.find("math.nan") == std::string::npos);
  CHECK(s->free_symbols().count("nan") == 0);
  for (const std::string& a : s->arglist()) CHECK(a != "nan");
}

TEST_CASE("lowering: unknown neighbour counts come from the options", "[lowering][unstructured]") {
  const std::string src =
      "W = gtx.Dimension(\"W\")\n"
      "V2WDim = gtx.Dimension(\"V2WDim\", kind=gtx.DimensionKind.LOCAL)\n"
      "V2W = gtx.FieldOffset(\"V2W\", source=W, target=(V, V2WDim))\n"
      "@gtx.field_operator\n"
      "def gather(f: Field[[W], float64]) -> Field[[V], float64]:\n"
      "    return neighbor_sum(f(V2W), axis=V2WDim)\n"  // line 16
      "@gtx.program\n"
      "def p(f: Field[[W], float64], out: Field[[V], float64]):\n"
      "    gather(f, out=out)\n";
  expect_error(src, "p", "the number of neighbours of 'V2W' is not known", 16);
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m = loader.load_source(SourceFile("test.py", kPrelude + src));
  TypeChecker tc;
  LoweringOptions opts;
  opts.max_neighbors["V2W"] = 5;
  auto s = lower_to_sdfg(find_def(tc, m, "p"), opts);
  check_valid_and_round_trip(*s, "v2w");
  CHECK(s->data("V2W").shape[1].str() == "5");
  CHECK(all_code(*s).find("!= -1 else 0.0") != std::string::npos);
}

TEST_CASE("lowering: what is not lowered gives located errors", "[lowering]") {
  // a neighbour field that is never reduced
  expect_error(
      "@gtx.field_operator\n"
      "def bad(f: Field[[V], float64]) -> Field[[E, E2VDim], float64]:\n"
      "    return f(E2V)\n"
      "@gtx.program\n"
      "def p(f: Field[[V], float64], out: Field[[E, E2VDim], float64]):\n"
      "    bad(f, out=out)\n",
      "p", "outputs with a local dimension", 16);
  // a shifted scan result: located at the shift x(I + 1) (line 17), not at the scan call
  expect_error(
      "@gtx.scan_operator(axis=K, forward=True, init=0.0)\n"
      "def cumsum(acc: float64, x: float64) -> float64:\n"
      "    return acc + x\n"
      "@gtx.field_operator\n"
      "def shifted(f: Field[[I, K], float64]) -> Field[[I, K], float64]:\n"
      "    x = cumsum(f)\n"
      "    return x(I + 1)\n"
      "@gtx.program\n"
      "def p(f: Field[[I, K], float64], out: Field[[I, K], float64]):\n"
      "    shifted(f, out=out)\n",
      "p", "a shifted use of the result of scan operator 'cumsum'", 17);
  // a neighbour beyond the table
  expect_error(
      "@gtx.field_operator\n"
      "def third(f: Field[[V], float64]) -> Field[[E], float64]:\n"
      "    return f(E2V[2])\n"
      "@gtx.program\n"
      "def p(f: Field[[V], float64], out: Field[[E], float64]):\n"
      "    third(f, out=out)\n",
      "p", "neighbour 2 of 'E2V', which has 2 neighbours", 13);
}

TEST_CASE("lowering: `if` statements give code of linear size", "[lowering][if]") {
  auto program = [](int n) {
    std::string src =
        "@gtx.field_operator\n"
        "def chain(f: Field[[I], float64], c: bool) -> Field[[I], float64]:\n"
        "    x = f\n";
    for (int k = 0; k < n; ++k)
      src += "    if c:\n        x = x * 2.0 + " + std::to_string(k) + ".0\n    else:\n        x = x - 1.0\n";
    src +=
        "    return x\n"
        "@gtx.program\n"
        "def p(f: Field[[I], float64], c: bool, out: Field[[I], float64]):\n"
        "    chain(f, c, out=out)\n";
    return src;
  };
  auto s10 = lower_text(program(10), "p");
  auto s20 = lower_text(program(20), "p");
  check_valid_and_round_trip(*s20, "ifs20");
  std::size_t n10 = all_code(*s10).size(), n20 = all_code(*s20).size();
  INFO(all_code(*s20));
  // twice the ifs, about twice the code (an exponential lowering would be ~1000 times larger)
  CHECK(n20 < 2 * n10 + 400);
  CHECK(n20 > n10);
  CHECK(n20 < 3000);
}

TEST_CASE("lowering: an `if` that returns in one branch", "[lowering][if]") {
  const std::string src =
      "@gtx.field_operator\n"
      "def clip(f: Field[[I], float64], c: bool, d: bool) -> Field[[I], float64]:\n"
      "    if c:\n"
      "        return f\n"
      "    y = f * 2.0\n"
      "    if d:\n"
      "        y = y + 1.0\n"
      "    return y\n"
      "@gtx.program\n"
      "def p(f: Field[[I], float64], c: bool, d: bool, out: Field[[I], float64]):\n"
      "    clip(f, c, d, out=out)\n";
  auto s = lower_text(src, "p");
  check_valid_and_round_trip(*s, "partial_return");
  std::string code = all_code(*s);
  INFO(code);
  // f if c, else 2f + 1 if d, else 2f
  CHECK(code.find("if __in_c_0 else") != std::string::npos);
  CHECK(code.find("if __in_d_0 else") != std::string::npos);
}

TEST_CASE("lowering: two calls of one operator with different arguments stay apart", "[lowering]") {
  // The memo of a call's body is keyed by its scope: a freed scope's address reused by the
  // next call once made dbl(a + b) read as dbl(a).
  const std::string src =
      "@gtx.field_operator\n"
      "def dbl(f: Field[[I], float64]) -> Field[[I], float64]:\n"
      "    g = f * 2.0\n"
      "    return g + 1.0\n"
      "@gtx.field_operator\n"
      "def both(a: Field[[I], float64], b: Field[[I], float64]) -> Field[[I], float64]:\n"
      "    return dbl(a) + dbl(b) + dbl(a + b)\n"
      "@gtx.program\n"
      "def p(a: Field[[I], float64], b: Field[[I], float64], out: Field[[I], float64]):\n"
      "    both(a, b, out=out)\n";
  auto s = lower_text(src, "p");
  check_valid_and_round_trip(*s, "two_calls");
  std::string code = all_code(*s);
  INFO(code);
  CHECK(code.find("(__in_a_0 * 2.0)") != std::string::npos);
  CHECK(code.find("(__in_b_0 * 2.0)") != std::string::npos);
  CHECK(code.find("(__in_a_0 + __in_b_0)") != std::string::npos);
  std::size_t n = 0;
  for (std::size_t pos = code.find(" + 1.0)"); pos != std::string::npos; pos = code.find(" + 1.0)", pos + 1))
    ++n;
  CHECK(n == 3);
}
