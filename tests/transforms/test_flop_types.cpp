// Static FLOPs count floating-point operations only (user31's G19): the operators of a tasklet
// whose result is an integer (an unstructured stencil's clamps `max(idx, 0)` of int32 table
// entries, index arithmetic, integer values) count 0. Every expected value is a hand count,
// stated next to it.
#include <catch2/catch.hpp>

#include <map>
#include <string>

#include "support/builders.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/type_checker.h"
#include "weir/sdfg/instrumented.h"
#include "weir/transforms/static_costs.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;

namespace {

// user31's nabla4 (/tmp/user31/min/g19_nabla4.py): vlap through E2V and V2E (6 edges per
// vertex), applied twice, and a cell mean through C2E and E2C.
const char* const kUnstructured = R"(
import gt4py.next as gtx
from gt4py.next import Dims, Field, float64, neighbor_sum

Vertex = gtx.Dimension("Vertex")
Edge = gtx.Dimension("Edge")
Cell = gtx.Dimension("Cell")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
E2VDim = gtx.Dimension("E2V", kind=gtx.DimensionKind.LOCAL)
V2EDim = gtx.Dimension("V2E", kind=gtx.DimensionKind.LOCAL)
C2EDim = gtx.Dimension("C2E", kind=gtx.DimensionKind.LOCAL)
E2CDim = gtx.Dimension("E2C", kind=gtx.DimensionKind.LOCAL)
E2V = gtx.FieldOffset("E2V", source=Vertex, target=(Edge, E2VDim))
V2E = gtx.FieldOffset("V2E", source=Edge, target=(Vertex, V2EDim))
C2E = gtx.FieldOffset("C2E", source=Edge, target=(Cell, C2EDim))
E2C = gtx.FieldOffset("E2C", source=Cell, target=(Edge, E2CDim))

VK = Field[Dims[Vertex, K], float64]
EK = Field[Dims[Edge, K], float64]


@gtx.field_operator
def vlap(p: VK, sign: Field[Dims[Vertex, V2EDim], float64], inv_len: Field[Dims[Edge], float64]) -> VK:
    grad = (p(E2V[1]) - p(E2V[0])) * inv_len
    return neighbor_sum(grad(V2E) * sign, axis=V2EDim)


@gtx.field_operator
def nabla4(p: VK, sign: Field[Dims[Vertex, V2EDim], float64], inv_len: Field[Dims[Edge], float64], nu: float64) -> VK:
    return p - nu * vlap(vlap(p, sign, inv_len), sign, inv_len)


@gtx.field_operator
def cell_mean_grad(p: VK, inv_len: Field[Dims[Edge], float64]) -> EK:
    grad = (p(E2V[1]) - p(E2V[0])) * inv_len
    cm = neighbor_sum(grad(C2E), axis=C2EDim) / 3.0
    return 0.5 * (cm(E2C[0]) + cm(E2C[1]))


@gtx.program(grid_type=gtx.GridType.UNSTRUCTURED)
def nabla4_program(p: VK, sign: Field[Dims[Vertex, V2EDim], float64], inv_len: Field[Dims[Edge], float64],
                   nu: float64, out: VK, egrad: EK):
    nabla4(p, sign, inv_len, nu, out=out)
    cell_mean_grad(p, inv_len, out=egrad)
)";

std::unique_ptr<SDFG> lower_unstructured() {
  frontend::ModuleLoader loader(frontend::LoaderOptions{{}, false});
  const frontend::LoadedModule& m = loader.load_source(frontend::SourceFile("nabla4.py", kUnstructured));
  frontend::TypeChecker tc;
  for (const auto& d : m.definitions)
    if (d->name == "nabla4_program") return frontend::lower_to_sdfg(tc.check(*d));
  FAIL("no program nabla4_program");
  return nullptr;
}

/// Tasklet label -> its typed FLOPs, over `sdfg` and the SDFGs nested in it.
void typed_flops(const SDFG& sdfg, std::map<std::string, long long>& out) {
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* n : st->nodes()) {
      if (auto* t = n->as<Tasklet>()) out[t->label] = tasklet_flops(*t, tasklet_name_types(sdfg, *st, *t));
      if (auto* nested = n->as<NestedSDFGNode>(); nested && nested->sdfg) typed_flops(*nested->sdfg, out);
    }
}

}  // namespace

TEST_CASE("static FLOPs of an unstructured stencil leave out the integer clamps of table entries",
          "[transforms][profile]") {
  std::unique_ptr<SDFG> sdfg = lower_unstructured();
  std::map<std::string, long long> flops;
  typed_flops(*sdfg, flops);
  INFO("tasklets: " << flops.size());
  // vlap at a vertex: per edge of V2E (6), (p[E2V 1] - p[E2V 0]) * inv_len * sign = 3, then 5
  // adds: 6 x 3 + 5 = 23 (the untyped count added one `max(e, 0)` per table entry read).
  REQUIRE(flops.count("vlap"));
  CHECK(flops["vlap"] == 23);
  // nabla4: vlap of the stored vlap (23), nu * (1), p - (1): 25.
  REQUIRE(flops.count("nabla4"));
  CHECK(flops["nabla4"] == 25);
  // cell_mean_grad at an edge: per cell of E2C (2), the cell's mean of C2E (3) gradients
  // (3 x 2 + 2 adds + 1 divide = 9): 2 x 9, their sum and 0.5 * = 20.
  REQUIRE(flops.count("cell_mean_grad"));
  CHECK(flops["cell_mean_grad"] == 20);
}

TEST_CASE("static FLOPs of a Cartesian stencil leave out integer arithmetic in an index and in a value",
          "[transforms][profile]") {
  // B[i] = a[i + 1] * (2 * i + 1) + a[i - 1] * w + c * 3 + n // 2 over i in 1:N-1, where a is a
  // pointer connector to A (float64), c a value of C (int32), w a float64 scalar W and n the
  // int64 symbol N: the float operations are the two multiplies by float64 values and the
  // two adds that reach a float64 result -- a[i+1] * (...), a[i-1] * w, their sum and the sum
  // with the integer term: 4. Integer: i + 1, 2 * i, + 1, i - 1, c * 3, n // 2, their +: 7, 0.
  auto g = std::make_unique<SDFG>("cart");
  g->add_symbol("N");
  g->add_array("A", ScalarType::Float64, {E("N")});
  g->add_array("B", ScalarType::Float64, {E("N")});
  g->add_array("C", ScalarType::Int32, {E("N")});
  g->add_array("W", ScalarType::Float64, {E("1")});
  SDFGState& st = g->add_state("main", true);
  auto& a = st.add_access("A");
  auto& c = st.add_access("C");
  auto& w = st.add_access("W");
  auto& b = st.add_access("B");
  auto& m = st.add_map("stencil", {"i"}, S("1:N - 1"));
  auto& t = st.add_tasklet(
      "t", {"k = c * 3 + N // 2\nb = a[i + 1] * (2 * i + 1) + a[i - 1] * w + k", Language::Python},
      {"a", "c", "w"}, {"b"});
  path_in(st, a.id(), {m.id()}, t.id(), "a", {M("A", "0:N"), M("A", "0:N")});
  path_in(st, c.id(), {m.id()}, t.id(), "c", {M("C", "1:N - 1"), M("C", "i")});
  path_in(st, w.id(), {m.id()}, t.id(), "w", {M("W", "0"), M("W", "0")});
  path_out(st, t.id(), "b", {m.exit}, b.id(), {M("B", "i"), M("B", "1:N - 1")});
  require_valid(*g);

  const TaskletNameTypes types = tasklet_name_types(*g, st, t);
  CHECK(types.at("c") == ScalarType::Int32);
  CHECK(types.at("a") == ScalarType::Float64);
  CHECK(types.at("i") == ScalarType::Int64);
  CHECK(tasklet_flops(t, types) == 4);
  CHECK(tasklet_flops(t) == 11);  // untyped (every name a float): every operator counts

  auto map_element = [&](NodeId entry) {
    TimedElement e;
    e.kind = TimedKind::Map;
    e.sdfg = g.get();
    e.state = &st;
    e.node = entry;
    return e;
  };
  // N = 10: 8 points x 4.
  CHECK(evaluate(static_cost(map_element(m.id())), {{"N", 10}}).flops == Approx(32.0));

  // A write-conflict update of an integer container is no FLOP: H[c] += 1 counts 0.
  g->add_array("H", ScalarType::Int64, {E("N")});
  auto& h = st.add_access("H");
  auto& hm = st.add_map("hist", {"j"}, S("0:N"));
  auto& ht = st.add_tasklet("count", {"o = 1", Language::Python}, {}, {"o"});
  st.add_edge(hm.id(), "", ht.id(), "", Memlet());
  Memlet inner = M("H", "0:N"), outer = M("H", "0:N");
  inner.wcr = outer.wcr = "(lambda x, y: (x + y))";
  path_out(st, ht.id(), "o", {hm.exit}, h.id(), {inner, outer});
  CHECK(evaluate(static_cost(map_element(hm.id())), {{"N", 10}}).flops == Approx(0.0));
}
