// LoopMapInterchange's runs of columns over the parameters all their maps share (docs/adr/0052,
// 2026-12-06, session 28): an orchestrated time loop over cells and levels (a swap, a one-level
// call, a scalar cast, a local field computed before the loop) moves inside one parallel map
// over cells, each map keeping its levels. Validated after the transformation; values of the
// transformed SDFG on the cpu backend against NumPy written independently, for 0 steps (the
// loop runs no time: the swap's binding comes from outside the columns), 1, 2 and 3; a call
// past its output is refused with the message it had before; a run whose swap binding is read
// after it is refused.
#include <functional>

#include "orchestration_run_util.h"
#include "weir/frontend/orchestration.h"
#include "weir/runtime/dispatch.h"
#include "weir/sdfg/checked_accesses.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/loop_map_interchange.h"
#include "weir/transforms/registry.h"

using namespace weir;
using namespace weir::test::orchestration;

namespace {

const std::string kColumns = R"(import gt4py.next as gtx
from gt4py.next import Dims, Field, float64, int32

Cell = gtx.Dimension("Cell")
K = gtx.Dimension("K", kind=gtx.DimensionKind.VERTICAL)
CellK = Field[Dims[Cell, K], float64]


@gtx.field_operator
def halve(q: CellK) -> CellK:
    return 0.5 * q


@gtx.field_operator
def relax(q: CellK, coef: CellK, rate: float64) -> CellK:
    return q - rate * coef * (q - q(K - 1))


@gtx.field_operator
def keep(q: CellK) -> CellK:
    return q


@gtx.field_operator
def pair_sum(q: CellK) -> CellK:
    return q + q(K + 1)


def column_steps(q, q_new, src, out, rate: float64, n_steps: int32, first: int32, last: int32,
                 n_cells: int32, nlev: int32):
    coef = gtx.zeros({Cell: n_cells, K: nlev}, dtype=float64)
    halve(src, out=coef, domain={Cell: (first, last), K: (0, nlev)})
    for _ in range(n_steps):
        relax(q, coef, gtx.float64(rate), out=q_new, domain={Cell: (first, last), K: (1, nlev)})
        keep(q, out=q_new, domain={Cell: (first, last), K: (0, 1)})
        q, q_new = q_new, q
    pair_sum(q, out=out, domain={Cell: (first, last), K: (0, nlev - 1)})


def steps_then_all_cells(q, q_new, src, out, rate: float64, n_steps: int32, first: int32, last: int32,
                         n_cells: int32, nlev: int32):
    coef = gtx.zeros({Cell: n_cells, K: nlev}, dtype=float64)
    halve(src, out=coef, domain={Cell: (first, last), K: (0, nlev)})
    for _ in range(n_steps):
        relax(q, coef, gtx.float64(rate), out=q_new, domain={Cell: (first, last), K: (1, nlev)})
        keep(q, out=q_new, domain={Cell: (first, last), K: (0, 1)})
        q, q_new = q_new, q
    pair_sum(q, out=out, domain={Cell: (0, n_cells), K: (0, nlev - 1)})
)";

constexpr std::int64_t kCells = 7, kLevels = 6, kFirst = 1, kLast = 6;

/// The function lowered to one SDFG, calls inlined and simplified (what loop-map-interchange
/// sees in --auto cpu).
std::unique_ptr<SDFG> lowered(const std::string& name) {
  runtime::FieldViewProgram p = runtime::load_field_view_source(kColumns, name, "orch_columns.py");
  std::unique_ptr<SDFG> sdfg = frontend::lower_orchestration(*p.orchestration);
  transforms::AnalysisCache cache;
  for (const char* pass : {"inline-sdfgs", "simplify"}) {
    transforms::make_pass(pass)->run(*sdfg, cache);
    REQUIRE(validate(*sdfg).empty());
  }
  return sdfg;
}

/// Applies LoopMapInterchange wherever it applies, validating after each; returns how often.
std::size_t interchange(SDFG& sdfg) {
  transforms::LoopMapInterchange t;
  std::size_t n = 0;
  for (;;) {
    transforms::AnalysisCache cache;
    std::vector<transforms::Candidate> ok;
    for (auto& c : transforms::find_matches(sdfg, t, cache))
      if (c.result) ok.push_back(c);
    if (ok.empty()) return n;
    transforms::apply_transactional(sdfg, t, ok[0].match, cache);
    INFO(validate(sdfg).size() << " validation errors after application " << n + 1);
    REQUIRE(validate(sdfg).empty());
    ++n;
  }
}

std::vector<std::string> refusals(SDFG& sdfg) {
  transforms::LoopMapInterchange t;
  transforms::AnalysisCache cache;
  std::vector<std::string> out;
  for (auto& c : transforms::find_matches(sdfg, t, cache))
    if (!c.result) out.push_back(c.result.reason());
  return out;
}

runtime::Arguments column_args(std::int64_t steps, std::int64_t q_new_levels) {
  runtime::Arguments a;
  a.arrays.emplace("q", make({kCells, kLevels}, [](std::int64_t i) { return std::sin(0.31 * double(i)); }));
  a.arrays.emplace("q_new", make({kCells, q_new_levels}, [](std::int64_t) { return 9.0; }));
  a.arrays.emplace("src",
                   make({kCells, kLevels}, [](std::int64_t i) { return 0.1 + 0.01 * double(i % 11); }));
  a.arrays.emplace("out", make({kCells, kLevels}, [](std::int64_t) { return -1.0; }));
  a.values["rate"] = 0.7;
  a.values["n_steps"] = steps;
  a.values["first"] = kFirst;
  a.values["last"] = kLast;
  a.values["n_cells"] = kCells;
  a.values["nlev"] = kLevels;
  return a;
}

const std::string kColumnsNumpy = R"(
q, qn, src, o = inp["q"], inp["q_new"], inp["src"], inp["out"]
coef = np.zeros_like(src)
coef[F:L] = 0.5 * src[F:L]
a, b = q, qn
for _ in range(NSTEPS):
    b[F:L, 1:NLEV] = a[F:L, 1:NLEV] - 0.7 * coef[F:L, 1:NLEV] * (a[F:L, 1:NLEV] - a[F:L, :NLEV - 1])
    b[F:L, 0] = a[F:L, 0]
    a, b = b, a
o[F:L, :NLEV - 1] = a[F:L, :NLEV - 1] + a[F:L, 1:NLEV]
out["q"], out["q_new"], out["out"] = q, qn, o
)";

std::shared_ptr<runtime::Program> compiled(std::unique_ptr<SDFG> sdfg, const std::string& origin) {
  static const std::string cache = weir::test::shared_cache_dir("orchestration").string();
  ::setenv("WEIR_CACHE_DIR", cache.c_str(), 1);
  runtime::CompilableProgram cp;
  cp.sdfg = std::move(sdfg);
  cp.origin = origin;
  return runtime::prepare(*runtime::make_backend("cpu"), cp);
}

std::string first_line_of_error(runtime::Program& p, runtime::Arguments& a) {
  try {
    p.run(a);
  } catch (const runtime::ProgramError& e) {
    std::string m = e.what();
    return m.substr(0, m.find('\n'));
  }
  return "";
}

}  // namespace

TEST_CASE(
    "loop-map interchange: a time loop over cells and levels becomes one map over cells with the levels "
    "inside",
    "[orchestration][optimize]") {
  std::unique_ptr<SDFG> sdfg = lowered("column_steps");
  REQUIRE(sdfg->arrays.count("coef"));
  std::unique_ptr<SDFG> before = sdfg->clone_sdfg();
  REQUIRE(interchange(*sdfg) == 1);

  // One top-level map over the cells (the calls' shared parameter and range) around a nested
  // SDFG that holds the loop; every map inside keeps only its levels; the local field is the
  // column's own (one level array per column), gone from the outer SDFG.
  const MapEntry* columns = nullptr;
  const NestedSDFGNode* nest = nullptr;
  for (const SDFGState* st : sdfg->all_states())
    for (const Node* n : st->nodes()) {
      if (const auto* e = n->as<MapEntry>()) {
        CHECK_FALSE(columns);
        columns = e;
      }
      if (const auto* ns = n->as<NestedSDFGNode>()) nest = ns;
    }
  REQUIRE(columns);
  REQUIRE(nest);
  CHECK(columns->map->params == std::vector<std::string>{"__Cell"});
  CHECK(columns->map->range[0].start.str() == "first");
  CHECK_FALSE(sdfg->arrays.count("coef"));
  REQUIRE(nest->sdfg->arrays.count("coef"));
  CHECK(nest->sdfg->data("coef").shape.size() == 1);
  std::size_t loops = 0, level_maps = 0;
  std::function<void(const ControlFlowRegion&)> walk = [&](const ControlFlowRegion& r) {
    for (const ControlFlowBlock* b : r.blocks()) {
      if (const auto* l = b->as<LoopRegion>()) {
        ++loops;
        walk(*l);
      }
      if (const auto* c = b->as<ConditionalBlock>())
        for (const auto& br : c->branches()) walk(*br.body);
      if (const auto* st = b->as<SDFGState>())
        for (const Node* n : st->nodes())
          if (const auto* e = n->as<MapEntry>()) {
            ++level_maps;
            CHECK(e->map->params == std::vector<std::string>{"__K"});
          }
    }
  };
  walk(*nest->sdfg);
  CHECK(loops == 1);
  CHECK(level_maps >= 3);  // halve, relax (each unrolled copy), pair_sum (each binding)
  // Every call's accesses are checked before the columns run, each with its own range.
  CHECK(checked_accesses(*columns->map).size() >= 6);

  // The values of the calls one by one, in NumPy, before and after.
  auto after = compiled(std::move(sdfg), "column_steps (columns)");
  auto as_lowered = compiled(std::move(before), "column_steps (lowered)");
  for (std::int64_t steps : {0, 1, 2, 3}) {
    INFO(steps << " steps");
    runtime::Arguments args = column_args(steps, kLevels);
    auto ref = numpy_reference("columns" + std::to_string(steps), args,
                               "F, L, NLEV, NSTEPS = " + std::to_string(kFirst) + ", " +
                                   std::to_string(kLast) + ", " + std::to_string(kLevels) + ", " +
                                   std::to_string(steps) + "\n" + kColumnsNumpy,
                               {"q", "q_new", "out"});
    for (auto* p : {after.get(), as_lowered.get()}) {
      runtime::Arguments a = clone(args);
      p->run(a);
      for (const auto& [k, want] : ref) {
        INFO("field " << k << (p == after.get() ? " (columns)" : " (lowered)"));
        CHECK(max_rel_diff(a.arrays.at(k), want) <= 1e-12);
      }
    }
  }

  // A q_new one level short: relax writes past it. The columns refuse the call before running,
  // naming relax's call and range as the SDFG before the transformation did.
  runtime::Arguments shorter = column_args(2, kLevels - 1);
  runtime::Arguments shorter2 = clone(shorter);
  std::string was = first_line_of_error(*as_lowered, shorter);
  std::string now = first_line_of_error(*after, shorter2);
  CHECK_THAT(was, Catch::Contains("orch_columns.py:") &&
                      Catch::Contains("'q_new' is written over K: [1, 6), outside its domain K: [0, 5)"));
  CHECK(now == was);
}

TEST_CASE("loop-map interchange: a run whose swap binding a later call reads is refused",
          "[orchestration][optimize]") {
  // The last call runs over every cell, not the loop's range: it cannot join the run, and it
  // reads the swap's binding symbol that the loop assigns (which array holds q). A nested SDFG
  // keeps its own symbols, so the run is refused rather than leaving that call a stale binding.
  std::unique_ptr<SDFG> sdfg = lowered("steps_then_all_cells");
  std::vector<std::string> why = refusals(*sdfg);
  CHECK(std::any_of(why.begin(), why.end(), [](const std::string& s) {
    return s.find("is assigned in the run and read outside it") != std::string::npos;
  }));
  CHECK(interchange(*sdfg) == 0);
}
