// ScanColumnBlocking on the Thomas solve after LoopMapInterchange: the graph it makes (the column
// map in steps of B, the block's columns in a SIMD map inside every level, carries as register
// arrays of B), its refusals, and results before/after on the reference interpreter and on the
// cpu backend against a plain C++ Thomas solve, for blocks that divide the columns and blocks
// that leave a remainder.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <random>

#include "../runtime/runtime_test_util.h"
#include "support/builders.h"
#include "support/interpreter.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/type_checker.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/transforms/auto_optimize.h"
#include "weir/transforms/cpu_schedules.h"
#include "weir/transforms/loop_map_interchange.h"
#include "weir/transforms/scan_column_blocking.h"
#include "weir/transforms/scan_full_blocks.h"

using namespace weir;
using namespace weir::transforms;

namespace {

std::unique_ptr<SDFG> vertical_solver() {
  frontend::ModuleLoader loader(frontend::LoaderOptions{{}, false});
  const frontend::LoadedModule& m = loader.load_file(
      (std::filesystem::path(WEIR_SOURCE_DIR) / "examples/cartesian/vertical_solver.py").string());
  frontend::TypeChecker tc;
  for (const auto& d : m.definitions)
    if (d->name == "vertical_solver") return frontend::lower_to_sdfg(tc.check(*d));
  FAIL("no program vertical_solver");
  return nullptr;
}

std::vector<Candidate> candidates(SDFG& sdfg, const Transformation& t, bool ok) {
  AnalysisCache cache;
  std::vector<Candidate> out;
  for (auto& c : find_matches(sdfg, t, cache))
    if (static_cast<bool>(c.result) == ok) out.push_back(c);
  return out;
}

/// Applies `t` once where it applies (exactly one candidate), validating and reloading after.
void apply_once(SDFG& sdfg, Transformation& t) {
  auto c = candidates(sdfg, t, true);
  REQUIRE(c.size() == 1);
  AnalysisCache cache;
  apply_transactional(sdfg, t, c[0].match, cache);
  test::require_valid(sdfg);
  auto reloaded = sdfg_from_json_text(sdfg_to_json_text(sdfg));
  REQUIRE(sdfg_difference(*reloaded, sdfg).empty());
}

/// The Thomas solve with its scans nested by LoopMapInterchange.
std::unique_ptr<SDFG> interchanged() {
  auto sdfg = vertical_solver();
  LoopMapInterchange li;
  apply_once(*sdfg, li);
  return sdfg;
}

std::unique_ptr<SDFG> blocked(long long b) {
  auto sdfg = interchanged();
  ScanColumnBlocking t;
  t.options().set("block_size", b);
  apply_once(*sdfg, t);
  return sdfg;
}

constexpr std::int64_t NI = 3, NJ = 5, NK = 7;

test::Symbols symbols(std::int64_t nk) {
  test::Symbols s{{"nk", nk}};
  for (const char* n : {"a", "b", "c", "d", "x"}) {
    s[std::string("__") + n + "_I_size"] = NI;
    s[std::string("__") + n + "_J_size"] = NJ;
    s[std::string("__") + n + "_K_size"] = NK;
  }
  return s;
}

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

/// Runs `sdfg` on the cpu backend for two seeds and nk = NK, NK - 2 and checks x against the
/// reference (relative 1e-12; untouched levels exactly).
void check_thomas(const SDFG& sdfg, const std::string& tag) {
  test::fresh_cache("scan-column-blocking-" + tag);
  auto backend = runtime::make_cpu_backend();
  runtime::CompilableProgram prog;
  prog.sdfg = sdfg.clone_sdfg();
  prog.origin = sdfg.name;
  for (unsigned seed : {1u, 42u})
    for (std::int64_t nk : {NK, NK - 2}) {
      INFO(tag << " seed " << seed << " nk " << nk);
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

/// Runs `sdfg` on the reference interpreter with seeded diagonally dominant systems (b in
/// [20, 29], a, c, d small integers); returns the final non-transient containers.
test::Arrays interpret(const SDFG& sdfg, std::int64_t nk, unsigned seed) {
  test::Interpreter in(sdfg, symbols(nk), true);
  in.randomize(seed);
  for (double& v : in.mem.at("b")) v = 25.0 + std::fmod(v, 5.0);
  in.run();
  test::Arrays out;
  for (const auto& [name, d] : sdfg.arrays)
    if (!d.transient && !d.is_view()) out[name] = in.mem[name];
  return out;
}

/// The same values bit for bit (NaN where the other has NaN).
bool same(const test::Arrays& a, const test::Arrays& b) {
  if (a.size() != b.size()) return false;
  for (const auto& [name, v] : a) {
    const auto& w = b.at(name);
    if (v.size() != w.size()) return false;
    for (std::size_t i = 0; i < v.size(); ++i)
      if (!(v[i] == w[i] || (std::isnan(v[i]) && std::isnan(w[i])))) return false;
  }
  return true;
}

NestedSDFGNode* nested_node(const SDFG& sdfg) {
  NestedSDFGNode* out = nullptr;
  for (SDFGState* st : sdfg.all_states())
    for (Node* n : st->nodes())
      if (auto* x = n->as<NestedSDFGNode>()) out = x;
  return out;
}

}  // namespace

TEST_CASE("scan column blocking: the Thomas solve runs blocks of columns with the block innermost per level",
          "[transforms][scan-column-blocking]") {
  auto sdfg = blocked(4);
  NestedSDFGNode* ns = nested_node(*sdfg);
  REQUIRE(ns);
  // The column map steps over blocks; the nested SDFG gets the block's width.
  MapEntry* outer = nullptr;
  for (SDFGState* st : sdfg->all_states())
    for (Node* n : st->nodes())
      if (auto* e = n->as<MapEntry>()) outer = e;
  REQUIRE(outer);
  REQUIRE(outer->map->params.size() == 2);
  CHECK(outer->map->range[1].step == sym::Expr(4));
  REQUIRE(ns->symbol_mapping.count("__colblock_n"));
  CHECK(ns->symbol_mapping.at("__colblock_n").free_symbols().count(outer->map->params[1]));
  // Carries are register arrays of B; the scan buffers gain a last dimension of B; the fields a
  // block dimension of the block's width.
  std::size_t carries = 0;
  for (const auto& [name, d] : ns->sdfg->arrays) {
    CHECK_FALSE(d.is_scalar());
    if (d.transient && d.shape.size() == 1) {
      CHECK(d.storage == StorageType::Register);
      CHECK(d.shape[0] == sym::Expr(4));
      ++carries;
    } else if (d.transient) {
      CHECK(d.shape.back() == sym::Expr(4));
    } else {
      REQUIRE(d.shape.size() == 2);
      CHECK(d.shape[0] == sym::Expr::symbol("__colblock_n"));
    }
  }
  CHECK(carries == 3);
  // Every state with tasklets holds one sequential SIMD map over the block.
  std::size_t maps = 0;
  for (SDFGState* st : ns->sdfg->all_states())
    for (Node* n : st->nodes())
      if (auto* e = n->as<MapEntry>()) {
        ++maps;
        CHECK(e->map->schedule == ScheduleType::Sequential);
        REQUIRE(e->map->extra.find(kVectorizeAttribute));
        CHECK(*e->map->extra.find(kVectorizeAttribute) == "true");
      }
  CHECK(maps == 4);
  // The program's own code, after the prelude (whose comments name the pragmas).
  const std::string full = codegen::generate_cpu(*sdfg).source;
  REQUIRE(full.find("// --- SDFG") != std::string::npos);
  const std::string src = full.substr(full.find("// --- SDFG"));
  CHECK(src.find("#pragma omp simd") != std::string::npos);
}

TEST_CASE("scan column blocking: results equal the unblocked SDFG on the reference interpreter",
          "[transforms][scan-column-blocking]") {
  auto before = interchanged();
  // NJ = 5: B = 2 and 8 leave a remainder block (Min-bounded), B = 5 divides it.
  for (long long b : {2LL, 5LL, 8LL})
    for (std::int64_t nk : {NK, NK - 3}) {
      INFO("B " << b << " nk " << nk);
      auto after = blocked(b);
      for (unsigned seed : {3u, 11u}) CHECK(same(interpret(*before, nk, seed), interpret(*after, nk, seed)));
    }
}

TEST_CASE("scan column blocking: compiled results match a plain Thomas solve, with and without remainder",
          "[transforms][scan-column-blocking]") {
  check_thomas(*blocked(2), "b2");
  check_thomas(*blocked(5), "b5");
  check_thomas(*blocked(8), "b8");
}

TEST_CASE("scan column blocking: refusals", "[transforms][scan-column-blocking]") {
  // Before the interchange there is no nested SDFG to block.
  auto flat = vertical_solver();
  ScanColumnBlocking t;
  CHECK(candidates(*flat, t, true).empty());
  // Blocking again is refused: the column map already steps over blocks.
  auto sdfg = blocked(8);
  auto refused = candidates(*sdfg, t, false);
  REQUIRE(refused.size() == 1);
  CHECK_THAT(refused[0].result.reason(), Catch::Matchers::Contains("has a non-unit step"));
  // With a unit step again, the block's width still depends on the column: a symbol mapped from
  // an expression of the parameter (only the parameter itself is taken, as the column).
  for (SDFGState* st : sdfg->all_states())
    for (Node* n : st->nodes())
      if (auto* e = n->as<MapEntry>()) {
        Range& r = e->map->range.ranges().back();
        r = Range(r.start, r.end);
      }
  refused = candidates(*sdfg, t, false);
  REQUIRE(refused.size() == 1);
  CHECK_THAT(refused[0].result.reason(), Catch::Matchers::Contains("an expression of parameter '__J'"));
  // A negative block is refused by the option's minimum (0 sizes it from l1_bytes); a block of
  // one column by can_apply.
  CHECK_THROWS(t.options().set("block_size", -1LL));
  CHECK_THROWS(t.options().set("l1_bytes", 512LL));
  t.options().set("block_size", 1LL);
  refused = candidates(*sdfg, t, false);
  REQUIRE_FALSE(refused.empty());
  CHECK_THAT(refused[0].result.reason(), Catch::Matchers::Contains("block size 1: nothing to block"));
}

TEST_CASE(
    "scan column blocking: auto-optimize for the CPU blocks the Thomas solve after loop-map interchange",
    "[transforms][scan-column-blocking]") {
  auto names = auto_optimize_pass_names(DeviceType::CPU);
  auto li = std::find(names.begin(), names.end(), "loop-map-interchange");
  REQUIRE(li != names.end());
  CHECK(std::next(li) != names.end());
  CHECK(*std::next(li) == "scan-column-blocking");
  auto gpu = auto_optimize_pass_names(DeviceType::GPU);
  CHECK(std::find(gpu.begin(), gpu.end(), "scan-column-blocking") == gpu.end());
  auto sdfg = vertical_solver();
  auto_optimize(*sdfg, DeviceType::CPU);
  test::require_valid(*sdfg);
  NestedSDFGNode* ns = nested_node(*sdfg);
  REQUIRE(ns);
  CHECK(ns->symbol_mapping.count("__colblock_n"));
  // The program's own code, after the prelude (whose comments name the pragmas).
  const std::string full = codegen::generate_cpu(*sdfg).source;
  REQUIRE(full.find("// --- SDFG") != std::string::npos);
  const std::string src = full.substr(full.find("// --- SDFG"));
  CHECK(src.find("#pragma omp parallel for collapse(2)") != std::string::npos);
  CHECK(src.find("#pragma omp simd") != std::string::npos);
  check_thomas(*sdfg, "auto-optimized");
}

// ScanFullBlocks (ADR 0059) on the blocked Thomas solve: full blocks of constant width plus the
// partial last block.

namespace {

std::unique_ptr<SDFG> full_blocks(long long b) {
  auto sdfg = blocked(b);
  ScanFullBlocks t;
  apply_once(*sdfg, t);
  return sdfg;
}

}  // namespace

TEST_CASE("scan full blocks: full blocks get a constant width, the partial block its own map",
          "[transforms][scan-full-blocks]") {
  // NJ = 5, B = 2: full blocks at J = 0 and 2 (J in 0 : 3 step 2), the partial one at J = 4.
  auto sdfg = full_blocks(2);
  std::vector<MapEntry*> maps;
  for (SDFGState* st : sdfg->all_states())
    for (Node* n : st->nodes())
      if (auto* e = n->as<MapEntry>()) maps.push_back(e);
  REQUIRE(maps.size() == 2);
  MapEntry* full = maps[0]->map->extra.find(kColumnRemainderAttribute) ? maps[1] : maps[0];
  MapEntry* rem = full == maps[0] ? maps[1] : maps[0];
  REQUIRE(rem->map->extra.find(kColumnRemainderAttribute));
  CHECK(*rem->map->extra.find(kColumnRemainderAttribute) == "2");
  const auto at = [&](const sym::Expr& e) { return e.evaluate({{"__x_J_size", NJ}}); };
  CHECK(full->map->range[1].step == sym::Expr(2));
  CHECK(at(full->map->range[1].start) == 0);
  CHECK(at(full->map->range[1].end) == 3);
  CHECK(at(rem->map->range[1].start) == 4);
  CHECK(at(rem->map->range[1].end) == 4);
  // The full blocks' nested SDFG gets the constant width, the partial block's keeps the Min.
  std::vector<NestedSDFGNode*> nested;
  for (SDFGState* st : sdfg->all_states())
    for (Node* n : st->nodes())
      if (auto* x = n->as<NestedSDFGNode>()) nested.push_back(x);
  REQUIRE(nested.size() == 2);
  std::size_t constant = 0;
  for (NestedSDFGNode* ns : nested)
    constant += ns->symbol_mapping.at("__colblock_n").as_integer() == std::optional<long long>(2);
  CHECK(constant == 1);
}

TEST_CASE("scan full blocks: results equal the unblocked SDFG on the reference interpreter",
          "[transforms][scan-full-blocks]") {
  auto before = interchanged();
  // NJ = 5: B = 2 (two full blocks and a partial one), 5 (one full block, no partial one), 8
  // (no full block, one partial block).
  for (long long b : {2LL, 5LL, 8LL})
    for (std::int64_t nk : {NK, NK - 3}) {
      INFO("B " << b << " nk " << nk);
      auto after = full_blocks(b);
      for (unsigned seed : {3u, 11u}) CHECK(same(interpret(*before, nk, seed), interpret(*after, nk, seed)));
    }
}

TEST_CASE("scan full blocks: compiled results match a plain Thomas solve", "[transforms][scan-full-blocks]") {
  check_thomas(*full_blocks(2), "full-b2");
  check_thomas(*full_blocks(5), "full-b5");
  check_thomas(*full_blocks(8), "full-b8");
}

TEST_CASE("scan full blocks: refusals", "[transforms][scan-full-blocks]") {
  ScanFullBlocks t;
  // Before scan-column-blocking the nested SDFG has no block width.
  auto plain = interchanged();
  auto refused = candidates(*plain, t, false);
  REQUIRE_FALSE(refused.empty());
  CHECK(candidates(*plain, t, true).empty());
  bool no_width = false;
  for (const auto& c : refused)
    no_width = no_width || c.result.reason().find("has no block width __colblock_n") != std::string::npos;
  CHECK(no_width);
  // After the split: the full blocks run a constant width, the partial block is marked.
  auto sdfg = full_blocks(2);
  CHECK(candidates(*sdfg, t, true).empty());
  std::size_t constant = 0, partial = 0, body = 0;
  for (const auto& c : candidates(*sdfg, t, false)) {
    const std::string why = c.result.reason();
    constant += why.find("already runs full blocks of constant width 2") != std::string::npos;
    partial += why.find("is the partial last block") != std::string::npos;
    body += why.find("is not exactly one nested SDFG") != std::string::npos;
  }
  CHECK(constant == 1);
  CHECK(partial == 1);
  CHECK(body == 8);  // the 4 SIMD maps over a block's columns in each of the 2 nested SDFGs
  // The partial block's marker survives a write and a read of the SDFG file.
  auto reloaded = sdfg_from_json_text(sdfg_to_json_text(*sdfg));
  CHECK(candidates(*reloaded, t, true).empty());
  // A width that is not ScanColumnBlocking's Min(B, end - j + 1) is refused with both.
  auto odd = blocked(2);
  nested_node(*odd)->symbol_mapping["__colblock_n"] =
      sym::Expr::symbol("__x_J_size") - sym::Expr::symbol("__J");
  refused = candidates(*odd, t, false);
  bool named = false;
  for (const auto& c : refused) named = named || c.result.reason().find("not Min(") != std::string::npos;
  CHECK(named);
}

// ScanColumnBlocking of a scan whose columns read a value shared by every column: implicit
// vertical diffusion with a scalar time step dt (the coefficients a = -dt kh, b = 1 + dt (kh +
// kh(K + 1)), c = -dt kh(K + 1) computed in the column SDFG), issue G25 of user31.

namespace {

constexpr const char* kImplicitDiffusion = R"(import gt4py.next as gtx
from gt4py.next import Dims, Field, float64

I = gtx.Dimension("I")
J = gtx.Dimension("J")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
Full = Field[Dims[I, J, K], float64]


@gtx.field_operator
def coeffs(kh: Full, dt: float64) -> tuple[Full, Full, Full]:
    return -dt * kh, 1.0 + dt * (kh + kh(K + 1)), -dt * kh(K + 1)


@gtx.scan_operator(axis=K, forward=True, init=(0.0, 0.0))
def fwd(carry: tuple[float64, float64], a: float64, b: float64, c: float64, d: float64) -> tuple[float64, float64]:
    cp, dp = carry
    den = b - a * cp
    return c / den, (d - a * dp) / den


@gtx.scan_operator(axis=K, forward=False, init=0.0)
def bwd(x_above: float64, cm: float64, dm: float64) -> float64:
    return dm - cm * x_above


@gtx.field_operator
def vdiff(q: Full, kh: Full, dt: float64) -> Full:
    a, b, c = coeffs(kh, dt)
    cm, dm = fwd(a, b, c, q)
    return bwd(cm, dm)


@gtx.program
def vdiff_program(q: Full, kh: Full, dt: float64, out: Full, nlev: gtx.int32):
    vdiff(q, kh, dt, out=out, domain={K: (0, nlev)})
)";

/// The implicit diffusion program, its scans nested by LoopMapInterchange.
std::unique_ptr<SDFG> diffusion_interchanged() {
  auto file = test::scratch_dir("scan-column-blocking-shared-dt") / "implicit_diffusion.py";
  std::ofstream(file) << kImplicitDiffusion;
  frontend::ModuleLoader loader(frontend::LoaderOptions{{}, false});
  const frontend::LoadedModule& m = loader.load_file(file.string());
  frontend::TypeChecker tc;
  std::unique_ptr<SDFG> sdfg;
  for (const auto& d : m.definitions)
    if (d->name == "vdiff_program") sdfg = frontend::lower_to_sdfg(tc.check(*d));
  REQUIRE(sdfg);
  LoopMapInterchange li;
  apply_once(*sdfg, li);
  return sdfg;
}

test::Symbols diffusion_symbols(std::int64_t nlev) {
  test::Symbols s{{"nlev", nlev}};
  for (const char* n : {"q", "kh", "out"}) {
    s[std::string("__") + n + "_I_size"] = NI;
    s[std::string("__") + n + "_J_size"] = NJ;
    s[std::string("__") + n + "_K_size"] = std::string(n) == "kh" ? NK + 1 : NK;
  }
  return s;
}

/// The reference interpreter with q small integers, kh in [0, 0.9], dt = 0.25.
test::Arrays interpret_diffusion(const SDFG& sdfg, std::int64_t nlev, unsigned seed) {
  test::Interpreter in(sdfg, diffusion_symbols(nlev), true);
  in.randomize(seed);
  for (double& v : in.mem.at("kh")) v = std::abs(v) / 10.0;
  in.mem.at("dt").assign(1, 0.25);
  in.run();
  return {{"out", in.mem.at("out")}};
}

/// Implicit diffusion per column on levels [0, nlev) as a plain loop nest (Thomas, the
/// coefficients from kh on half levels and dt); levels >= nlev keep out.
std::vector<double> diffusion_reference(const std::vector<double>& q, const std::vector<double>& kh,
                                        const std::vector<double>& out0, double dt, std::int64_t nlev) {
  std::vector<double> x = out0;
  for (std::int64_t col = 0; col < NI * NJ; ++col) {
    const double* qc = q.data() + col * NK;
    const double* kc = kh.data() + col * (NK + 1);
    std::vector<double> cp(static_cast<std::size_t>(nlev)), dp(cp.size());
    double cprev = 0, dprev = 0;
    for (std::int64_t k = 0; k < nlev; ++k) {
      double a = -dt * kc[k], b = 1.0 + dt * (kc[k] + kc[k + 1]), c = -dt * kc[k + 1];
      double den = b - a * cprev;
      cprev = c / den;
      dprev = (qc[k] - a * dprev) / den;
      cp[static_cast<std::size_t>(k)] = cprev;
      dp[static_cast<std::size_t>(k)] = dprev;
    }
    double xprev = 0;
    for (std::int64_t k = nlev - 1; k >= 0; --k) {
      xprev = dp[static_cast<std::size_t>(k)] - cp[static_cast<std::size_t>(k)] * xprev;
      x[static_cast<std::size_t>(col * NK + k)] = xprev;
    }
  }
  return x;
}

}  // namespace

TEST_CASE("scan column blocking: a scalar shared by every column is read as it is inside the block",
          "[transforms][scan-column-blocking]") {
  auto before = diffusion_interchanged();
  ScanColumnBlocking t;
  t.options().set("block_size", 2LL);
  auto after = diffusion_interchanged();
  apply_once(*after, t);
  // dt keeps its descriptor and its [0] memlets; the per-column fields gain the block dimension.
  NestedSDFGNode* ns = nested_node(*after);
  REQUIRE(ns);
  REQUIRE(ns->sdfg->arrays.count("dt"));
  CHECK(ns->sdfg->data("dt").is_scalar());
  REQUIRE(ns->sdfg->arrays.count("q"));
  CHECK(ns->sdfg->data("q").shape.size() == 2);
  for (SDFGState* st : after->all_states())
    for (EdgeId id : st->in_edges(ns->id()))
      if (st->edge(id).dst_conn == "dt") CHECK(st->edge(id).memlet.subset.str() == "0");
  // Bit for bit the unblocked SDFG on the reference interpreter, with a remainder block (NJ = 5).
  for (std::int64_t nlev : {NK, NK - 3})
    for (unsigned seed : {5u, 17u}) {
      INFO("nlev " << nlev << " seed " << seed);
      CHECK(same(interpret_diffusion(*before, nlev, seed), interpret_diffusion(*after, nlev, seed)));
    }
  // Compiled: a plain Thomas solve with dt = 0.3.
  test::fresh_cache("scan-column-blocking-shared-dt");
  auto backend = runtime::make_cpu_backend();
  runtime::CompilableProgram prog;
  prog.sdfg = after->clone_sdfg();
  prog.origin = after->name;
  std::mt19937 gen(7);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (std::int64_t nlev : {NK, NK - 2}) {
    INFO("nlev " << nlev);
    runtime::Arguments args;
    std::map<std::string, std::vector<double>> host;
    for (const char* n : {"q", "kh", "out"}) {
      std::int64_t nk = std::string(n) == "kh" ? NK + 1 : NK;
      runtime::Field f = runtime::Allocator::cpu().allocate(ScalarType::Float64, {NI, NJ, nk});
      auto* p = static_cast<double*>(f.data());
      for (std::int64_t i = 0; i < NI * NJ * nk; ++i) p[i] = std::string(n) == "out" ? -7.0 : u(gen);
      host[n].assign(p, p + NI * NJ * nk);
      args.arrays.emplace(n, std::move(f));
    }
    args.values["dt"] = 0.3;
    args.values["nlev"] = nlev;
    std::vector<double> want = diffusion_reference(host["q"], host["kh"], host["out"], 0.3, nlev);
    runtime::run(*backend, prog, args);
    const auto* x = static_cast<const double*>(args.arrays.at("out").data());
    std::size_t bad = 0;
    for (std::size_t i = 0; i < want.size(); ++i)
      bad += !(std::abs(x[i] - want[i]) <= 1e-12 * std::abs(want[i]));
    CHECK(bad == 0);
  }
}

TEST_CASE("scan column blocking: a write shared by every column is refused",
          "[transforms][scan-column-blocking]") {
  // The output written at one column for every column: blocking would race on it.
  auto sdfg = interchanged();
  NestedSDFGNode* ns = nested_node(*sdfg);
  REQUIRE(ns);
  for (SDFGState* st : sdfg->all_states())
    for (EdgeId id : st->out_edges(ns->id())) {
      Memlet& m = st->edge(id).memlet;
      std::vector<Range> rs = m.subset.ranges();
      for (Range& r : rs)
        if (r.start.free_symbols().count("__J")) r = Range::index(sym::Expr(0));
      m.subset = Subset(rs);
    }
  ScanColumnBlocking t;
  auto refused = candidates(*sdfg, t, false);
  REQUIRE(refused.size() == 1);
  CHECK_THAT(refused[0].result.reason(),
             Catch::Matchers::Contains("is written by every column (not indexed by parameter '__J')"));
}
