// LoopMapInterchange on lowered scans: the graph it makes (one map over columns around a nested
// SDFG holding the K loops, carries as scalars, scan intermediates as column buffers), its
// refusals, and outputs before/after on seeded random inputs (cpu backend) against a plain C++
// Thomas solve.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <random>

#include "../runtime/runtime_test_util.h"
#include "support/builders.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/type_checker.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/transforms/auto_optimize.h"
#include "weir/transforms/loop_map_interchange.h"

using namespace weir;
using namespace weir::transforms;

namespace {

std::unique_ptr<SDFG> lower(const std::string& file, const std::string& program) {
  frontend::ModuleLoader loader(frontend::LoaderOptions{{}, false});
  const frontend::LoadedModule& m =
      loader.load_file((std::filesystem::path(WEIR_SOURCE_DIR) / file).string());
  frontend::TypeChecker tc;
  for (const auto& d : m.definitions)
    if (d->name == program) return frontend::lower_to_sdfg(tc.check(*d));
  FAIL("no program " << program);
  return nullptr;
}

std::unique_ptr<SDFG> lower_source(const std::string& text, const std::string& program) {
  frontend::ModuleLoader loader(frontend::LoaderOptions{{}, false});
  const frontend::LoadedModule& m = loader.load_source(frontend::SourceFile("scan.py", text));
  frontend::TypeChecker tc;
  for (const auto& d : m.definitions)
    if (d->name == program) return frontend::lower_to_sdfg(tc.check(*d));
  FAIL("no program " << program);
  return nullptr;
}

std::unique_ptr<SDFG> vertical_solver() {
  return lower("examples/cartesian/vertical_solver.py", "vertical_solver");
}

std::vector<Candidate> applicable(SDFG& sdfg, const Transformation& t) {
  AnalysisCache cache;
  std::vector<Candidate> out;
  for (auto& c : find_matches(sdfg, t, cache))
    if (c.result) out.push_back(c);
  return out;
}

/// Applies every applicable candidate, one at a time, validating after each; returns how many.
std::size_t apply_all(SDFG& sdfg) {
  LoopMapInterchange t;
  std::size_t n = 0;
  for (auto c = applicable(sdfg, t); !c.empty(); c = applicable(sdfg, t)) {
    AnalysisCache cache;
    apply_transactional(sdfg, t, c[0].match, cache);
    test::require_valid(sdfg);
    auto reloaded = sdfg_from_json_text(sdfg_to_json_text(sdfg));
    REQUIRE(sdfg_difference(*reloaded, sdfg).empty());
    ++n;
  }
  return n;
}

std::vector<std::string> reasons(SDFG& sdfg) {
  LoopMapInterchange t;
  AnalysisCache cache;
  std::vector<std::string> out;
  for (auto& c : find_matches(sdfg, t, cache))
    if (!c.result) out.push_back(c.result.reason());
  return out;
}

bool any_contains(const std::vector<std::string>& v, const std::string& s) {
  for (const auto& x : v)
    if (x.find(s) != std::string::npos) return true;
  return false;
}

constexpr std::int64_t NI = 6, NJ = 5, NK = 9;

/// Seeded diagonally dominant systems a, b, c, d of shape NI x NJ x NK.
runtime::Arguments thomas_inputs(unsigned seed) {
  std::mt19937 gen(seed);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  runtime::Arguments args;
  for (const char* n : {"a", "b", "c", "d", "x"}) {
    runtime::Field f = runtime::Allocator::cpu().allocate(ScalarType::Float64, {NI, NJ, NK});
    auto* p = static_cast<double*>(f.data());
    for (std::int64_t i = 0; i < NI * NJ * NK; ++i)
      p[i] = std::string(n) == "b" ? 4.0 + u(gen) : std::string(n) == "x" ? -7.0 : u(gen);
    args.arrays.emplace(n, std::move(f));
  }
  return args;
}

/// The Thomas algorithm per column on levels [0, nk), a plain loop nest; levels >= nk keep x.
std::vector<double> thomas_reference(const runtime::Arguments& args, std::int64_t nk) {
  auto at = [&](const char* n) { return static_cast<const double*>(args.arrays.at(n).data()); };
  const double *a = at("a"), *b = at("b"), *c = at("c"), *d = at("d"), *x0 = at("x");
  std::vector<double> x(x0, x0 + NI * NJ * NK);
  for (std::int64_t i = 0; i < NI; ++i)
    for (std::int64_t j = 0; j < NJ; ++j) {
      std::int64_t base = (i * NJ + j) * NK;
      std::vector<double> cp(static_cast<std::size_t>(nk)), dp(cp.size());
      double cprev = 0, dprev = 0;
      for (std::int64_t k = 0; k < nk; ++k) {
        double den = b[base + k] - a[base + k] * cprev;
        cprev = c[base + k] / den;
        dprev = (d[base + k] - a[base + k] * dprev) / den;
        cp[static_cast<std::size_t>(k)] = cprev;
        dp[static_cast<std::size_t>(k)] = dprev;
      }
      double xprev = 0;
      for (std::int64_t k = nk - 1; k >= 0; --k) {
        xprev = dp[static_cast<std::size_t>(k)] - cp[static_cast<std::size_t>(k)] * xprev;
        x[static_cast<std::size_t>(base + k)] = xprev;
      }
    }
  return x;
}

/// Runs `sdfg` on the cpu backend for seeds 1, 7, 42 and nk = NK, NK - 2 and checks x against
/// the reference (relative 1e-12; untouched levels exactly).
void check_thomas(const SDFG& sdfg, const std::string& tag) {
  test::fresh_cache("loop-map-interchange-" + tag);
  auto backend = runtime::make_cpu_backend();
  runtime::CompilableProgram prog;
  prog.sdfg = sdfg.clone_sdfg();
  prog.origin = sdfg.name;
  for (unsigned seed : {1u, 7u, 42u})
    for (std::int64_t nk : {NK, NK - 2}) {
      INFO("seed " << seed << " nk " << nk);
      runtime::Arguments args = thomas_inputs(seed);
      std::vector<double> want = thomas_reference(args, nk);
      args.values["nk"] = nk;
      runtime::run(*backend, prog, args);
      const auto* x = static_cast<const double*>(args.arrays.at("x").data());
      std::size_t bad = 0;
      for (std::size_t i = 0; i < want.size(); ++i)
        bad += !(std::abs(x[i] - want[i]) <= 1e-12 * std::abs(want[i]));
      CHECK(bad == 0);
    }
}

std::vector<NestedSDFGNode*> nested_nodes(const SDFG& sdfg) {
  std::vector<NestedSDFGNode*> out;
  for (SDFGState* st : sdfg.all_states())
    for (Node* n : st->nodes())
      if (auto* x = n->as<NestedSDFGNode>()) out.push_back(x);
  return out;
}

/// Imports and the dimensions I, J, K of the field-view snippets.
const char* kHeader =
    "import gt4py.next as gtx\n"
    "from gt4py.next import Dims, Field, float64\n"
    "I = gtx.Dimension(\"I\")\n"
    "J = gtx.Dimension(\"J\")\n"
    "K = gtx.Dimension(\"K\", kind=gtx.DimensionKind.VERTICAL)\n";

/// Applies the interchange (exactly once) and returns the nested SDFG it made.
const SDFG& moved_once(SDFG& sdfg) {
  REQUIRE(apply_all(sdfg) == 1);
  auto nests = nested_nodes(sdfg);
  REQUIRE(nests.size() == 1);
  return *nests[0]->sdfg;
}

/// Runs `sdfg` on the cpu backend with copies of `inputs` and a fresh `out` of `out_shape`, and
/// checks `out` against `want` (relative 1e-12).
void check_out(const SDFG& sdfg, const runtime::Arguments& inputs, std::vector<std::int64_t> out_shape,
               const std::vector<double>& want, const std::string& tag) {
  test::fresh_cache("loop-map-interchange-" + tag);
  runtime::Arguments args;
  for (const auto& [n, f] : inputs.arrays) {
    runtime::Field c = runtime::Allocator::cpu().allocate(ScalarType::Float64, f.shape());
    std::memcpy(c.data(), f.data(), sizeof(double) * static_cast<std::size_t>(f.size()));
    args.arrays.emplace(n, std::move(c));
  }
  args.values = inputs.values;
  args.arrays.emplace("out", runtime::Allocator::cpu().allocate(ScalarType::Float64, out_shape));
  runtime::CompilableProgram prog;
  prog.sdfg = sdfg.clone_sdfg();
  prog.origin = sdfg.name;
  runtime::run(*runtime::make_cpu_backend(), prog, args);
  const auto* o = static_cast<const double*>(args.arrays.at("out").data());
  std::size_t bad = 0;
  for (std::size_t i = 0; i < want.size(); ++i)
    bad += !(std::abs(o[i] - want[i]) <= 1e-12 * std::abs(want[i]) + 1e-300);
  CHECK(bad == 0);
}

/// Moves the chain of top-level blocks of `sdfg` into a loop `for t in range(steps)`; returns it.
LoopRegion& in_time_loop(SDFG& sdfg, int steps) {
  std::vector<BlockId> order;
  for (BlockId b = sdfg.start_block(); b != kNoBlock;) {
    order.push_back(b);
    auto outs = sdfg.out_edges(b);
    b = outs.empty() ? kNoBlock : outs[0]->dst;
  }
  REQUIRE(order.size() == 4);
  std::vector<std::unique_ptr<ControlFlowBlock>> blocks;
  for (BlockId b : order) blocks.push_back(sdfg.take_block(b));
  LoopRegion& time = sdfg.add_loop("time", "t", "t = 0", "t < " + std::to_string(steps), "t = t + 1");
  sdfg.set_start_block(time.id());
  BlockId prev = kNoBlock;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    BlockId id = time.add_block(std::move(blocks[i]), i == 0).id();
    if (prev != kNoBlock) time.add_edge(prev, id);
    prev = id;
  }
  sdfg.relink_nested();
  return time;
}

}  // namespace

TEST_CASE("loop-map interchange: the Thomas solve becomes one map over columns around both K loops",
          "[transforms][loop-map-interchange]") {
  auto sdfg = vertical_solver();
  test::require_valid(*sdfg);
  auto before = sdfg->clone_sdfg();
  LoopMapInterchange t;
  auto cands = applicable(*sdfg, t);
  REQUIRE(cands.size() == 1);
  CHECK(cands[0].match.subgraph.size() == 4);  // forward init, forward loop, backward init, backward loop
  REQUIRE(apply_all(*sdfg) == 1);

  // Outside: one state, one map over (I, J), one nested SDFG; no plane- or volume-sized transient.
  REQUIRE(sdfg->num_blocks() == 1);
  SDFGState* st = sdfg->blocks()[0]->as<SDFGState>();
  REQUIRE(st);
  auto maps = test::maps_of(*st);
  REQUIRE(maps.size() == 1);
  CHECK(maps[0]->map->params == std::vector<std::string>{"__I", "__J"});
  for (const auto& [name, d] : sdfg->arrays) CHECK_FALSE(d.transient);
  auto nests = nested_nodes(*sdfg);
  REQUIRE(nests.size() == 1);
  std::set<std::string> ins, outs;
  for (const auto& [c, ty] : nests[0]->in_connectors) ins.insert(c);
  for (const auto& [c, ty] : nests[0]->out_connectors) outs.insert(c);
  CHECK(ins == std::set<std::string>{"a", "b", "c", "d"});
  CHECK(outs == std::set<std::string>{"x"});
  // The memlet into the nested SDFG is the column at the map point.
  for (EdgeId e : st->in_edges(nests[0]->id())) {
    const Memlet& m = st->edge(e).memlet;
    CHECK(m.subset[0] == Range::index(sym::Expr::symbol("__I")));
    CHECK(m.subset[1] == Range::index(sym::Expr::symbol("__J")));
  }

  // Inside: the four blocks in order, no map; carries are scalars, c' and d' column buffers.
  const SDFG& inner = *nests[0]->sdfg;
  CHECK(inner.num_blocks() == 4);
  std::size_t loops = 0;
  for (const ControlFlowBlock* b : inner.blocks()) loops += b->as<LoopRegion>() != nullptr;
  CHECK(loops == 2);
  for (SDFGState* s : inner.all_states()) CHECK(test::maps_of(*s).empty());
  std::size_t scalars = 0, buffers = 0;
  for (const auto& [name, d] : inner.arrays) {
    if (!d.transient) {
      CHECK(d.shape.size() == 1);  // the K column
      CHECK(d.strides[0].str() == "1");
      continue;
    }
    if (d.is_scalar())
      ++scalars;
    else if (d.shape.size() == 1 && d.shape[0].str() == "nk")
      ++buffers;
  }
  CHECK(scalars == 3);  // (c', d') of the forward scan, x of the backward scan
  CHECK(buffers == 2);

  check_thomas(*before, "before");
  check_thomas(*sdfg, "after");
}

TEST_CASE(
    "loop-map interchange: auto_optimize gives a collapsed parallel loop over columns with the K loops "
    "inside",
    "[transforms][loop-map-interchange]") {
  auto names = auto_optimize_pass_names(DeviceType::CPU);
  CHECK(std::find(names.begin(), names.end(), "loop-map-interchange") != names.end());
  auto sdfg = vertical_solver();
  auto_optimize(*sdfg, DeviceType::CPU);
  test::require_valid(*sdfg);
  REQUIRE(nested_nodes(*sdfg).size() == 1);
  std::string src = codegen::generate_cpu(*sdfg).source;
  INFO(src);
  // Parallel regions of the program's own code, after the prelude (whose table check has one).
  std::size_t parallel = 0;
  for (std::size_t p = src.find("#pragma omp parallel", src.find("// --- SDFG")); p != std::string::npos;
       p = src.find("#pragma omp parallel", p + 1))
    ++parallel;
  CHECK(parallel == 1);
  CHECK(src.find("#pragma omp parallel for collapse(2)") != std::string::npos);
  CHECK(src.find("for (__K = 0; __K <= nk - 1; __K = __K + 1)") != std::string::npos);
  CHECK(src.find("for (__K = nk - 1; __K >= 0; __K = __K - 1)") != std::string::npos);
  // c' and d' are per-thread buffers kept between columns, not an allocation per column.
  CHECK(src.find("static thread_local weir_scratch<double> __scan1_0__buf;") != std::string::npos);
  CHECK(src.find("weir_buffer<double> __scan1_0__buf") == std::string::npos);
  check_thomas(*sdfg, "auto-optimized");
}

TEST_CASE(
    "loop-map interchange: runs split at a different map, carries and results used outside stay columns",
    "[transforms][loop-map-interchange]") {
  auto sdfg = vertical_solver();
  // Rename the parameters of the backward scan's init map: same values, but a different map,
  // so the forward scan and the backward loop become separate runs and the backward carry
  // (initialized outside its run) and the forward results (used by the other run) stay outside.
  SDFGState* init = nullptr;
  for (SDFGState* s : sdfg->all_states())
    if (s->label == "scan0_thomas_backward_init") init = s;
  REQUIRE(init);
  std::map<std::string, sym::Expr> ren{{"__I", sym::Expr::symbol("__I2")},
                                       {"__J", sym::Expr::symbol("__J2")}};
  for (MapEntry* e : test::maps_of(*init)) e->map->params = {"__I2", "__J2"};
  for (const DataflowEdge* e : init->edges()) {
    DataflowEdge& m = init->edge(e->id);
    if (!m.memlet.is_empty()) m.memlet.subset = m.memlet.subset.subs(ren);
  }
  test::require_valid(*sdfg);
  auto rs = reasons(*sdfg);
  CHECK(applicable(*sdfg, LoopMapInterchange()).size() == 2);
  CHECK(any_contains(rs, "has no loop"));  // the lone init state
  REQUIRE(apply_all(*sdfg) == 2);
  CHECK(sdfg->has_data("__carry0_0"));  // the backward carry, initialized outside its run
  CHECK(sdfg->has_data("__scan1_0"));   // c', read by the backward run
  CHECK_FALSE(sdfg->has_data("__carry1_0"));
  check_thomas(*sdfg, "split");
}

TEST_CASE("loop-map interchange: refuses cross-column accesses and runs without a loop",
          "[transforms][loop-map-interchange]") {
  SECTION("a shifted read of data the run writes") {
    auto sdfg = vertical_solver();
    SDFGState* level = nullptr;
    for (SDFGState* s : sdfg->all_states())
      if (s->label == "scan0_thomas_backward_level") level = s;
    REQUIRE(level);
    bool shifted = false;
    for (const DataflowEdge* e : level->edges()) {
      DataflowEdge& m = level->edge(e->id);
      if (m.memlet.data == "__scan1_0" && level->node(m.dst).kind() == NodeKind::Tasklet) {
        m.memlet.subset.ranges()[0] = Range::index(sym::Expr::symbol("__I") + sym::Expr(1));
        shifted = true;
      }
    }
    REQUIRE(shifted);
    // The outer memlet covers the shifted reads (memlet propagation; the validator checks it).
    for (const DataflowEdge* e : level->edges()) {
      DataflowEdge& m = level->edge(e->id);
      if (m.memlet.data == "__scan1_0" && level->node(m.dst).kind() == NodeKind::MapEntry)
        m.memlet.subset.ranges()[0] = Range(sym::Expr(1), sym::Expr::symbol("__x_I_size"));
    }
    // The whole solve as one run is refused (the found runs stop before the backward loop).
    Match whole{0, kNoBlock, {}};
    for (BlockId b = sdfg->start_block(); b != kNoBlock;) {
      whole.subgraph.push_back(b);
      auto outs = sdfg->out_edges(b);
      b = outs.empty() ? kNoBlock : outs[0]->dst;
    }
    AnalysisCache cache;
    MatchResult r = check_match(*sdfg, LoopMapInterchange(), whole, cache);
    REQUIRE_FALSE(r);
    CHECK(r.reason() ==
          "state 'scan0_thomas_backward_level': '__scan1_0[__I + 1, __J, __K]' is not at the map point in "
          "parameter '__I' (it reads or writes other columns)");
    // Split at the backward level: the forward scan moves; the backward scan, which only reads
    // c' (shared whole), moves on its own.
    CHECK(apply_all(*sdfg) == 2);
    CHECK(sdfg->has_data("__scan1_0"));
  }
  SECTION("a stencil program has maps but no loop") {
    auto sdfg = lower("examples/cartesian/hdiff.py", "hdiff_program");
    CHECK(applicable(*sdfg, LoopMapInterchange()).empty());
    auto rs = reasons(*sdfg);
    REQUIRE_FALSE(rs.empty());
    CHECK(any_contains(rs, "has no loop"));
  }
}

TEST_CASE("loop-map interchange: read-only fields over fewer dimensions are shared by the columns",
          "[transforms][loop-map-interchange]") {
  // out[i, j, k] = out[i, j, k - 1] * w[k] + x[i, j, k] * v[i, j]: w is K-only, v has no K.
  const std::string src =
      std::string(kHeader) +
      "@gtx.scan_operator(axis=K, forward=True, init=0.0)\n"
      "def acc(s: float64, x: float64, w: float64, v: float64) -> float64:\n"
      "    return s * w + x * v\n"
      "@gtx.program\n"
      "def p(x: Field[Dims[I, J, K], float64], w: Field[Dims[K], float64], v: Field[Dims[I, J], float64],\n"
      "      out: Field[Dims[I, J, K], float64]):\n"
      "    acc(x, w, v, out=out)\n";
  auto sdfg = lower_source(src, "p");
  auto before = sdfg->clone_sdfg();
  const SDFG& inner = moved_once(*sdfg);
  CHECK(inner.arrays.at("w").shape.size() == 1);  // all of w
  CHECK(inner.arrays.at("v").is_scalar());        // v at the map point

  std::mt19937 gen(3);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  auto field = [&](std::vector<std::int64_t> shape) {
    runtime::Field f = runtime::Allocator::cpu().allocate(ScalarType::Float64, shape);
    for (std::int64_t i = 0; i < f.size(); ++i) static_cast<double*>(f.data())[i] = u(gen);
    return f;
  };
  runtime::Arguments proto;
  proto.arrays.emplace("x", field({NI, NJ, NK}));
  proto.arrays.emplace("w", field({NK}));
  proto.arrays.emplace("v", field({NI, NJ}));
  auto in = [&](const char* n) { return static_cast<const double*>(proto.arrays.at(n).data()); };
  std::vector<double> want(static_cast<std::size_t>(NI * NJ * NK));
  for (std::int64_t i = 0; i < NI; ++i)
    for (std::int64_t j = 0; j < NJ; ++j) {
      double s = 0;
      for (std::int64_t k = 0; k < NK; ++k) {
        s = s * in("w")[k] + in("x")[(i * NJ + j) * NK + k] * in("v")[i * NJ + j];
        want[static_cast<std::size_t>((i * NJ + j) * NK + k)] = s;
      }
    }
  check_out(*before, proto, {NI, NJ, NK}, want, "shared-before");
  check_out(*sdfg, proto, {NI, NJ, NK}, want, "shared-after");
}

TEST_CASE("loop-map interchange: a stencil input of a scan is passed whole",
          "[transforms][loop-map-interchange]") {
  // out[i, j, k] = 0.5 * out[i, j, k - 1] + x[i + 1, j, k] - x[i, j, k] for i < n.
  const std::string src = std::string(kHeader) +
                          "Ioff = gtx.FieldOffset(\"Ioff\", source=I, target=(I,))\n"
                          "F = Field[Dims[I, J, K], float64]\n"
                          "@gtx.scan_operator(axis=K, forward=True, init=0.0)\n"
                          "def acc(s: float64, x: float64) -> float64:\n"
                          "    return 0.5 * s + x\n"
                          "@gtx.field_operator\n"
                          "def f(x: F) -> F:\n"
                          "    return acc(x(Ioff[1]) - x)\n"
                          "@gtx.program\n"
                          "def p(x: F, out: F, n: gtx.int32):\n"
                          "    f(x, out=out, domain={I: (0, n), J: (0, 5), K: (0, 9)})\n";
  auto sdfg = lower_source(src, "p");
  auto before = sdfg->clone_sdfg();
  const SDFG& inner = moved_once(*sdfg);
  CHECK(inner.arrays.at("x").shape.size() == 3);  // all of x: the column reads I + 1
  CHECK(inner.arrays.at("out").shape.size() == 1);

  std::mt19937 gen(11);
  std::uniform_real_distribution<double> u(-1.0, 1.0);
  runtime::Arguments in;
  runtime::Field x = runtime::Allocator::cpu().allocate(ScalarType::Float64, {NI + 1, NJ, NK});
  auto* xp = static_cast<double*>(x.data());
  for (std::int64_t i = 0; i < x.size(); ++i) xp[i] = u(gen);
  in.arrays.emplace("x", std::move(x));
  in.values["n"] = std::int64_t{NI};
  // out has the shape of x; only rows i < n (the first NI * NJ * NK values) are compared
  std::vector<double> want;
  for (std::int64_t i = 0; i < NI; ++i)
    for (std::int64_t j = 0; j < NJ; ++j) {
      double s = 0;
      for (std::int64_t k = 0; k < NK; ++k) {
        s = 0.5 * s + xp[((i + 1) * NJ + j) * NK + k] - xp[(i * NJ + j) * NK + k];
        want.push_back(s);
      }
    }
  check_out(*before, in, {NI + 1, NJ, NK}, want, "stencil-before");
  check_out(*sdfg, in, {NI + 1, NJ, NK}, want, "stencil-after");
}

TEST_CASE("loop-map interchange: refuses a write that every column makes",
          "[transforms][loop-map-interchange]") {
  auto sdfg = vertical_solver();
  SDFGState* level = nullptr;
  for (SDFGState* s : sdfg->all_states())
    if (s->label == "scan0_thomas_backward_level") level = s;
  REQUIRE(level);
  for (const DataflowEdge* e : level->edges()) {
    DataflowEdge& m = level->edge(e->id);
    if (m.memlet.data == "x" && level->node(m.src).kind() == NodeKind::Tasklet)
      m.memlet.subset.ranges()[0] = Range::index(sym::Expr(0));
  }
  CHECK(any_contains(
      reasons(*sdfg),
      "'x[0, __J, __K]' is written by every point of the map (no dimension of parameter '__I')"));
}

TEST_CASE("loop-map interchange: inside a time loop, only transients written first stay in the column",
          "[transforms][loop-map-interchange]") {
  // The Thomas solve twice, in a loop over t: a transient read before the run writes it could
  // carry a value from the previous step, so only the carries (set by the init states) become
  // the column's own; c' and d' (first touched inside the forward loop) stay outside.
  auto sdfg = vertical_solver();
  LoopRegion& time = in_time_loop(*sdfg, 2);
  BlockId prev = kNoBlock;  // the last block of the chain
  for (const ControlFlowBlock* b : time.blocks())
    if (time.out_edges(b->id()).empty()) prev = b->id();
  // A step that is no column map (a tasklet outside any map), so the time loop as a whole is
  // no run; the scans inside it are.
  sdfg->add_scalar("__steps", ScalarType::Float64, true);
  SDFGState& count = time.add_state("count");
  Tasklet& one = count.add_tasklet("one", CodeBlock{"o = 1.0", Language::Python}, {}, {"o"});
  count.add_edge(one.id(), "o", count.add_access("__steps").id(), {},
                 Memlet::simple("__steps", Subset::parse("0")));
  time.add_edge(prev, count.id());
  sdfg->relink_nested();
  test::require_valid(*sdfg);
  CHECK(any_contains(reasons(*sdfg), "state 'count' has a Tasklet outside its map"));
  REQUIRE(apply_all(*sdfg) == 1);
  CHECK_FALSE(sdfg->has_data("__carry1_0"));
  CHECK_FALSE(sdfg->has_data("__carry0_0"));
  CHECK(sdfg->has_data("__scan1_0"));
  CHECK(sdfg->has_data("__scan1_1"));
  check_thomas(*sdfg, "time-loop");
}

TEST_CASE("loop-map interchange: a time loop whose every state is a column map moves whole",
          "[transforms][loop-map-interchange]") {
  auto sdfg = vertical_solver();
  in_time_loop(*sdfg, 3);
  REQUIRE(apply_all(*sdfg) == 1);
  auto nests = nested_nodes(*sdfg);
  REQUIRE(nests.size() == 1);
  REQUIRE(nests[0]->sdfg->num_blocks() == 1);
  CHECK(nests[0]->sdfg->blocks()[0]->label == "time");
  for (const auto& [name, d] : sdfg->arrays) CHECK_FALSE(d.transient);
  check_thomas(*sdfg, "whole-time-loop");
}

TEST_CASE("loop-map interchange: the map over columns keeps the call's source line for bounds errors",
          "[transforms][loop-map-interchange]") {
  // Fuzzer seed 9002, program 4220: a backward scan over all of K reads a(K + 1) at K = 4. After
  // the interchange, the outer memlets of the new map over columns are the first to be checked;
  // the map had no source line, so the error named only the SDFG state and map.
  const std::string src = std::string(kHeader) +
                          "@gtx.scan_operator(axis=K, forward=False, init=0.0)\n"
                          "def acc(s: float64, x: float64) -> float64:\n"
                          "    return 0.5 * s + x\n"
                          "@gtx.field_operator\n"
                          "def f(a: Field[Dims[I, K], float64]) -> Field[Dims[I, K], float64]:\n"
                          "    return acc(a(K + 1))\n"
                          "@gtx.program\n"
                          "def p(a: Field[Dims[I, K], float64], out: Field[Dims[I, K], float64]):\n"
                          "    f(a, out=out)\n";
  auto sdfg = lower_source(src, "p");
  moved_once(*sdfg);
  // Line 14, column 5: the call f(a, out=out), as the lowering names the run's maps.
  std::size_t checked = 0;
  for (SDFGState* st : sdfg->all_states())
    for (const Node* n : st->nodes()) {
      if (st->label.find("_columns") == std::string::npos) continue;
      ++checked;
      INFO(st->label << ", " << n->label);
      const std::string* d = n->extra.find("debuginfo");
      REQUIRE(d);
      CHECK_THAT(*d, Catch::Contains("\"start_line\": 14") && Catch::Contains("\"start_column\": 5") &&
                         Catch::Contains("scan.py"));
    }
  CHECK(checked == 5);  // map entry and exit, nested SDFG, a, out
  test::fresh_cache("loop-map-interchange-source-line");
  runtime::Arguments args;
  args.arrays.emplace("a", runtime::Allocator::cpu().allocate(ScalarType::Float64, {2, 4}));
  args.arrays.emplace("out", runtime::Allocator::cpu().allocate(ScalarType::Float64, {2, 4}));
  runtime::CompilableProgram prog;
  prog.sdfg = sdfg->clone_sdfg();
  prog.origin = sdfg->name;
  // The bounds check of the new map's outer memlet (a[0:2, 0:5], no line of its own) names the
  // shifted read inside the nested SDFG it covers: `a` of a(K + 1), line 11, column 16.
  CHECK_THROWS_WITH(
      runtime::run(*runtime::make_cpu_backend(), prog, args),
      Catch::Contains("scan.py:11:16: 'a' is read over K: [0, 5), outside its domain K: [0, 4)") &&
          Catch::Contains("_columns_map': reads a[0 .. 4] in dimension 1 of a with shape 4 (shifted reads "
                          "need a larger input or a smaller output domain)"));
}

namespace {

/// mandelbrot1's kind: for k in range(<bound>): map i { nested SDFG: z = z * 0.5 + k } over
/// Z[N]; `steps` (a scalar argument, as maxiter) is declared for bounds that name it.
std::unique_ptr<SDFG> nested_in_loop(const std::string& bound) {
  auto sdfg = std::make_unique<SDFG>("nested_in_loop");
  sdfg->add_symbol("N");
  sdfg->add_array("Z", ScalarType::Float64, {test::E("N")});
  if (bound == "steps") sdfg->add_scalar("steps", ScalarType::Int64);
  LoopRegion& loop = sdfg->add_loop("steps_loop", "k", "k = 0", "k < " + bound, "k = k + 1");
  sdfg->set_start_block(loop.id());
  SDFGState& st = loop.add_state("step", true);
  auto body = std::make_unique<SDFG>("point");
  body->add_symbol("k");
  body->add_array("zi", ScalarType::Float64, {sym::Expr(1)});
  body->add_array("zo", ScalarType::Float64, {sym::Expr(1)});
  SDFGState& bs = body->add_state("update", true);
  Tasklet& t = bs.add_tasklet("update", CodeBlock{"b = a * 0.5 + k", Language::Python}, {"a"}, {"b"});
  bs.add_edge(bs.add_access("zi").id(), {}, t.id(), "a", Memlet::simple("zi", Subset::parse("0")));
  bs.add_edge(t.id(), "b", bs.add_access("zo").id(), {}, Memlet::simple("zo", Subset::parse("0")));
  MapEntry& m = st.add_map("points", {"i"}, Subset::parse("0:N"));
  NestedSDFGNode& nest =
      st.add_nested_sdfg("point", std::move(body), {"zi"}, {"zo"}, {{"k", sym::Expr::symbol("k")}});
  test::path_in(st, st.add_access("Z").id(), {m.id()}, nest.id(), "zi",
                {test::M("Z", "0:N"), test::M("Z", "i")});
  test::path_out(st, nest.id(), "zo", {m.exit}, st.add_access("Z").id(),
                 {test::M("Z", "i"), test::M("Z", "0:N")});
  sdfg->relink_nested();
  test::require_valid(*sdfg);
  return sdfg;
}

/// The top level after the interchange: one state whose one map holds the column's nested SDFG,
/// which holds the loop; returns that nested SDFG node.
const NestedSDFGNode& column_of(const SDFG& sdfg) {
  REQUIRE(sdfg.num_blocks() == 1);
  const auto* top = sdfg.blocks()[0]->as<SDFGState>();
  REQUIRE(top);
  std::size_t maps = 0;
  const NestedSDFGNode* column = nullptr;
  for (const Node* n : top->nodes()) {
    maps += n->kind() == NodeKind::MapEntry;
    if (const auto* x = n->as<NestedSDFGNode>()) column = x;
  }
  CHECK(maps == 1);
  REQUIRE(column);
  REQUIRE(column->sdfg->num_blocks() == 1);
  CHECK(column->sdfg->blocks()[0]->as<LoopRegion>());
  return *column;
}

}  // namespace

TEST_CASE("loop-map interchange: a nested SDFG at each map point moves into the column with its loop",
          "[transforms][loop-map-interchange]") {
  // After the interchange each point runs its own k loop: one fork/join instead of one per step.
  auto sdfg = nested_in_loop("3");
  auto before = sdfg->clone_sdfg();
  REQUIRE(apply_all(*sdfg) == 1);
  column_of(*sdfg);
  // Values by hand: z -> z / 2 + 0 -> z / 4 + 1 -> z / 8 + 1 / 2 + 2 = z / 8 + 2.5.
  test::Interpreter in(*sdfg, {{"N", 5}});
  in.randomize(11);
  const std::vector<double> z0 = in.mem["Z"];
  in.run();
  for (std::size_t i = 0; i < 5; ++i) CHECK(in.mem["Z"][i] == Approx(z0[i] / 8 + 2.5).epsilon(1e-14));
  for (unsigned seed : {1u, 9u})
    CHECK(test::run_program(*before, {{"N", 4}}, seed) == test::run_program(*sdfg, {{"N", 4}}, seed));
}

TEST_CASE("loop-map interchange: a scalar loop bound the run does not write is passed to the column",
          "[transforms][loop-map-interchange]") {
  // mandelbrot1's `for k in range(maxiter)`: the same bound for every column.
  auto sdfg = nested_in_loop("steps");
  REQUIRE(apply_all(*sdfg) == 1);
  const NestedSDFGNode& column = column_of(*sdfg);
  CHECK(column.in_connectors.count("steps"));
  REQUIRE(column.sdfg->has_data("steps"));
  CHECK_FALSE(column.sdfg->data("steps").transient);
  // Values by hand on the cpu backend, steps = 3 and 0: z / 8 + 2.5, and z unchanged.
  test::fresh_cache("loop-map-interchange-scalar-bound");
  runtime::CompilableProgram prog;
  prog.sdfg = sdfg->clone_sdfg();
  prog.origin = sdfg->name;
  for (std::int64_t steps : {3, 0}) {
    runtime::Arguments args;
    runtime::Field z = runtime::Allocator::cpu().allocate(ScalarType::Float64, {6});
    auto* p = static_cast<double*>(z.data());
    for (int i = 0; i < 6; ++i) p[i] = 0.25 * i - 1.0;
    args.arrays.emplace("Z", std::move(z));
    args.values["steps"] = steps;
    args.values["N"] = std::int64_t{6};
    runtime::run(*runtime::make_cpu_backend(), prog, args);
    const auto* o = static_cast<const double*>(args.arrays.at("Z").data());
    for (int i = 0; i < 6; ++i)
      CHECK(o[i] == Approx(steps == 3 ? (0.25 * i - 1.0) / 8 + 2.5 : 0.25 * i - 1.0));
  }
}

TEST_CASE("loop-map interchange: refuses a loop bound of more than one element",
          "[transforms][loop-map-interchange]") {
  // The bound read from an array of N elements: not one value for every column.
  auto sdfg = nested_in_loop("steps");
  sdfg->arrays.erase("steps");
  sdfg->add_array("steps", ScalarType::Int64, {test::E("N")});
  CHECK(any_contains(reasons(*sdfg),
                     "the run's control flow reads container 'steps' (a loop bound or condition "
                     "that would differ per column: it is not one element, or the run writes it)"));
}
