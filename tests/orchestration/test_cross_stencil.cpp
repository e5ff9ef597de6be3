// auto_optimize across stencil boundaries: in a loop body, the maps of different calls fuse into
// one; a local field used as scratch between them disappears, a scratch field the caller passes
// stays (it is an argument); results stay those of running the calls one by one. Every field has
// sizes of its own (docs/adr/0049), so maps over `out=v[1:-1, 1:-1]` and `out=t[1:-1, 1:-1]`
// have different ranges; calls given the same domain (as a model's granules give them) share
// one range and fuse.
#include <functional>

#include "orchestration_run_util.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"

using namespace weir;
using namespace weir::test::orchestration;

namespace {

const std::string kBodies =
    "def local_scratch(u: IJ, v: IJ, a: float64, n: int32, ni: int32, nj: int32):\n"
    "    t = gtx.empty({I: ni, J: nj})\n"
    "    for _ in range(n):\n"
    "        scale(u, a, out=t, domain={I: (1, ni - 1), J: (1, nj - 1)})\n"
    "        axpy(u, t, a, out=v, domain={I: (1, ni - 1), J: (1, nj - 1)})\n"
    "        scale(v, 0.5, out=u, domain={I: (1, ni - 1), J: (1, nj - 1)})\n"
    "def arg_scratch(u: IJ, v: IJ, t: IJ, a: float64, n: int32):\n"
    "    for _ in range(n):\n"
    "        scale(u, a, out=t[1:-1, 1:-1])\n"
    "        axpy(u, t, a, out=v[1:-1, 1:-1])\n"
    "        scale(v, 0.5, out=u[1:-1, 1:-1])\n";

struct Shape {
  std::size_t loop_maps = 0;       // outermost maps inside the time loop
  std::set<std::string> accessed;  // containers with access nodes anywhere
};

Shape inspect(const SDFG& sdfg) {
  Shape s;
  std::function<void(const ControlFlowRegion&, bool)> walk = [&](const ControlFlowRegion& r, bool in_loop) {
    for (const ControlFlowBlock* b : r.blocks()) {
      if (auto* l = b->as<LoopRegion>()) walk(*l, true);
      if (auto* c = b->as<ConditionalBlock>())
        for (const auto& br : c->branches()) walk(*br.body, in_loop);
      if (auto* st = b->as<SDFGState>()) {
        ScopeTree tree = st->scope_tree();
        for (const Node* n : st->nodes()) {
          // Outermost maps only (cpu-schedules splits a map into a parallel and an inner one).
          if (in_loop && n->kind() == NodeKind::MapEntry && tree.parent[n->id()] == kNoNode) ++s.loop_maps;
          if (auto* a = n->as<AccessNode>()) s.accessed.insert(a->data);
          CHECK(n->kind() != NodeKind::NestedSDFG);  // every call was inlined
        }
      }
    }
  };
  walk(sdfg, false);
  return s;
}

}  // namespace

TEST_CASE(
    "orchestration: auto_optimize fuses producer and consumer of different calls, drops a local scratch "
    "field, keeps an argument",
    "[orchestration][optimize]") {
  runtime::FieldViewProgram local = load(kBodies, "local_scratch");
  runtime::FieldViewProgram arg = load(kBodies, "arg_scratch");
  runtime::CompilableProgram lo = runtime::lower(local), ao = runtime::lower(arg);
  CHECK(validate(*lo.sdfg).empty());
  CHECK(validate(*ao.sdfg).empty());
  Shape ls = inspect(*lo.sdfg), as = inspect(*ao.sdfg);
  if (const char* d = std::getenv("ORCH_DUMP")) {
    save_sdfg(*lo.sdfg, std::string(d) + "/local.sdfg");
    save_sdfg(*ao.sdfg, std::string(d) + "/arg.sdfg");
  }
  // Three calls: the producer of the local scratch and its consumer fuse into one map (the
  // scratch becomes a register scalar); the third call, which overwrites u that the first
  // reads, stays a map of its own. With t an argument nothing fuses: its values must reach
  // the caller.
  CHECK(ls.loop_maps == 2);
  CHECK(as.loop_maps == 3);
  CHECK_FALSE(ls.accessed.count("t"));
  CHECK_FALSE(lo.sdfg->arrays.count("t"));
  CHECK(as.accessed.count("t"));
  REQUIRE(ao.sdfg->arrays.count("t"));
  CHECK_FALSE(ao.sdfg->arrays.at("t").transient);

  // The same numbers as the calls one by one (embedded) and as NumPy.
  runtime::Arguments args;
  args.arrays.emplace("u",
                      make({9, 11}, [](std::int64_t i) { return std::sin(0.37 * static_cast<double>(i)); }));
  args.arrays.emplace("v", make({9, 11}, [](std::int64_t i) { return 0.01 * static_cast<double>(i % 7); }));
  args.values["a"] = 0.3;
  args.values["n"] = std::int64_t{3};
  args.values["ni"] = std::int64_t{9};
  args.values["nj"] = std::int64_t{11};
  const std::string numpy =
      "U, V = inp['u'], inp['v']\n"
      "T = np.zeros_like(U)\n"
      "for _ in range(3):\n"
      "    T[1:-1, 1:-1] = 0.3 * U[1:-1, 1:-1]\n"
      "    V[1:-1, 1:-1] = U[1:-1, 1:-1] + 0.3 * T[1:-1, 1:-1]\n"
      "    U[1:-1, 1:-1] = 0.5 * V[1:-1, 1:-1]\n"
      "out['u'], out['v'], out['t'] = U, V, T\n";
  auto ref = numpy_reference("cross-stencil", args, numpy, {"u", "v", "t"});
  std::map<std::string, runtime::Field> uv;
  uv.emplace("u", ref.at("u").clone());
  uv.emplace("v", ref.at("v").clone());
  check_both_backends(kBodies, "local_scratch", args, uv);
  runtime::Arguments with_t = clone(args);
  with_t.values.erase("ni");
  with_t.values.erase("nj");
  with_t.arrays.emplace("t", make({9, 11}, [](std::int64_t) { return 0.0; }));
  check_both_backends(kBodies, "arg_scratch", with_t, ref);
}
