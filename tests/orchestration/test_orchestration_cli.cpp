// `weir sdfg|run|compile FILE.py::FUNCTION` for an orchestration function: one SDFG that
// validates and round-trips through JSON, both backends agree with NumPy, --out writes exactly
// the fields the function changed.
#include <filesystem>
#include <fstream>

#include "cli_run.h"
#include "corpus.h"
#include "orchestration_run_util.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"

namespace fs = std::filesystem;
using namespace weir;
using namespace weir::test::orchestration;

namespace {

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }
const fs::path kHeat = fs::path(WEIR_SOURCE_DIR) / "examples" / "orchestration" / "heat.py";

/// One map of an SDFG, at any depth of nested SDFGs: its label, schedule, SIMD hint and whether
/// it runs inside another map (its own state's or around the nested SDFG holding it).
struct MapSeen {
  std::string label;
  ScheduleType schedule;
  bool vectorize;
  bool in_map;
};

struct Census {
  std::vector<MapSeen> maps;
  std::size_t nested = 0;  // nested SDFG nodes, at any depth
};

void census(const SDFG& sdfg, bool in_map, Census& out) {
  for (const SDFGState* st : sdfg.all_states()) {
    ScopeTree tree = st->scope_tree();
    for (const Node* n : st->nodes()) {
      bool inside = in_map || tree.parent[n->id()] != kNoNode;
      if (auto* e = n->as<MapEntry>()) {
        const std::string* v = e->map->extra.find("weir_vectorize");
        out.maps.push_back({e->map->label, e->map->schedule, v && *v == "true", inside});
      } else if (auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg) {
        ++out.nested;
        census(*ns->sdfg, inside, out);
      }
    }
  }
}

Census census(const SDFG& sdfg) {
  Census c;
  census(sdfg, false, c);
  return c;
}

/// Runs the SDFG file `sdfg` on the cpu backend and the function `function` (FILE.py::NAME) on
/// the embedded one, from the arrays in DIR/in and `set`; checks `fields` agree within `tol`.
void compare_with_embedded(const fs::path& dir, const fs::path& sdfg, const std::string& function,
                           const std::string& set, const std::vector<std::string>& fields, double tol) {
  const std::string args = " --in-dir " + q(dir / "in") + " " + set + " --out ";
  auto cpu = weir::test::run_weir("run " + q(sdfg) + " --backend cpu" + args + q(dir / "cpu"));
  INFO(cpu.out);
  REQUIRE(cpu.code == 0);
  auto emb = weir::test::run_weir("run " + q(function) + " --backend embedded" + args + q(dir / "embedded"));
  INFO(emb.out);
  REQUIRE(emb.code == 0);
  for (const std::string& f : fields) {
    INFO("field " << f);
    CHECK(max_rel_diff(runtime::read_npy(dir / "cpu" / (f + ".npy")),
                       runtime::read_npy(dir / "embedded" / (f + ".npy"))) <= tol);
  }
}

}  // namespace

TEST_CASE("weir sdfg FILE.py::FUNCTION: one SDFG that validates and round-trips", "[orchestration][cli]") {
  auto dir = weir::test::scratch_dir("orchestration-cli-sdfg");
  auto r = weir::test::run_weir("sdfg " + q(kHeat.string() + "::heat") + " -o " + q(dir / "heat.sdfg"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  std::unique_ptr<SDFG> sdfg = load_sdfg((dir / "heat.sdfg").string());
  CHECK(validate(*sdfg).empty());
  CHECK(sdfg->arg_names == std::vector<std::string>{"u", "u_next", "kappa", "dt", "steps"});
  // The time loop with one swap is unrolled by two: both calls connect to fixed arrays.
  std::size_t loops = 0, nested = 0;
  std::function<void(const ControlFlowRegion&)> walk = [&](const ControlFlowRegion& reg) {
    for (const ControlFlowBlock* b : reg.blocks()) {
      if (auto* l = b->as<LoopRegion>()) {
        ++loops;
        walk(*l);
      }
      if (auto* c = b->as<ConditionalBlock>())
        for (const auto& br : c->branches()) walk(*br.body);
      if (auto* st = b->as<SDFGState>())
        for (const Node* n : st->nodes()) nested += n->kind() == NodeKind::NestedSDFG;
    }
  };
  walk(*sdfg);
  CHECK(loops == 1);
  CHECK(nested == 2);  // the body twice: an even and an odd iteration (the latter guarded)
  // JSON round trip: what is loaded saves and loads back unchanged (the edges' assignments come
  // back in name order: no edge reads what it assigns, so their order does not matter).
  save_sdfg(*sdfg, (dir / "again.sdfg").string());
  std::unique_ptr<SDFG> again = load_sdfg((dir / "again.sdfg").string());
  CHECK(validate(*again).empty());
  save_sdfg(*again, (dir / "again2.sdfg").string());
  CHECK(weir::test::read_text(dir / "again2.sdfg") == weir::test::read_text(dir / "again.sdfg"));
  CHECK(weir::test::read_text(dir / "again.sdfg").size() == weir::test::read_text(dir / "heat.sdfg").size());
}

TEST_CASE("weir run FILE.py::FUNCTION: embedded and cpu agree with NumPy, --out writes the changed fields",
          "[orchestration][cli]") {
  auto dir = weir::test::scratch_dir("orchestration-cli-run");
  ::setenv("WEIR_CACHE_DIR", weir::test::shared_cache_dir("orchestration").c_str(), 1);
  fs::create_directories(dir / "in");
  runtime::Arguments args;
  args.arrays.emplace("u",
                      make({12, 10}, [](std::int64_t i) { return std::cos(0.21 * static_cast<double>(i)); }));
  args.arrays.emplace("u_next", make({12, 10}, [](std::int64_t) { return 0.0; }));
  args.arrays.emplace("kappa",
                      make({12, 10}, [](std::int64_t i) { return 0.5 + 0.01 * static_cast<double>(i % 9); }));
  for (const auto& [k, f] : args.arrays) runtime::write_npy(dir / "in" / (k + ".npy"), f);
  auto ref = numpy_reference(
      "cli-heat", args,
      "u, un, kappa = inp['u'], inp['u_next'], inp['kappa']\n"
      "U, UN = u, un\n"
      "for _ in range(5):\n"
      "    l = -4.0 * u[1:-1, 1:-1] + u[2:, 1:-1] + u[:-2, 1:-1] + u[1:-1, 2:] + u[1:-1, :-2]\n"
      "    un[1:-1, 1:-1] = u[1:-1, 1:-1] + 0.1 * kappa[1:-1, 1:-1] * l\n"
      "    u, un = un, u\n"
      "out['u'], out['u_next'] = U, UN\n",
      {"u", "u_next"});
  for (const char* backend : {"embedded", "cpu"}) {
    INFO("backend " << backend);
    fs::path out = dir / (std::string("out-") + backend);
    auto r =
        weir::test::run_weir("run " + q(kHeat.string() + "::heat") + " --backend " + backend + " --in-dir " +
                             q(dir / "in") + " --set dt=0.1 --set steps=5 --out " + q(out));
    INFO(r.out);
    REQUIRE(r.code == 0);
    CHECK(fs::exists(out / "u.npy"));
    CHECK(fs::exists(out / "u_next.npy"));
    CHECK_FALSE(fs::exists(out / "kappa.npy"));  // only read
    for (const char* f : {"u", "u_next"}) {
      INFO("field " << f);
      CHECK(max_rel_diff(runtime::read_npy(out / (std::string(f) + ".npy")), ref.at(f)) <= 1e-12);
    }
  }
  auto c = weir::test::run_weir("compile " + q(kHeat.string() + "::heat"));
  INFO(c.out);
  CHECK(c.code == 0);
}

TEST_CASE("weir run FILE.py::FUNCTION: a call that reads past a local field is refused on both backends",
          "[orchestration][cli]") {
  // A local field is as long as its size expression (docs/adr/0049): t of (ni, nj) = (4, 4)
  // is filled from u (4, 5), then read over v's 5 columns. The embedded backend names the call
  // and which fields its parameters are, the cpu backend the field read and its extent.
  auto dir = weir::test::scratch_dir("orchestration-cli-local-size");
  ::setenv("WEIR_CACHE_DIR", weir::test::shared_cache_dir("orchestration").c_str(), 1);
  std::ofstream(dir / "loc.py") << kPrelude
                                << "def g(u: IJ, v: IJ, ni: int32, nj: int32):\n"
                                   "    t = gtx.zeros({I: ni, J: nj}, dtype=float64)\n"
                                   "    scale_prog(u, 2.0, t)\n"
                                   "    scale_prog(t, 3.0, v)\n";
  runtime::write_npy(dir / "u.npy", make({4, 5}, [](std::int64_t i) { return static_cast<double>(i); }));
  runtime::write_npy(dir / "v.npy", make({4, 5}, [](std::int64_t) { return 0.0; }));
  const std::map<std::string, std::string> expected{
      {"embedded", "weir: error: " + (dir / "loc.py").string() + ":" + std::to_string(prelude_lines() + 4) +
                       ":5: in the call of 'scale_prog' (its 'u' is 't', 'out' is 'v'): "},
      {"cpu", "'t' is read over J: [0, 5), outside its domain J: [0, 4)"}};
  for (const char* backend : {"embedded", "cpu"}) {
    INFO("backend " << backend);
    for (int nj : {4, 5}) {
      INFO("nj = " << nj);
      fs::path out = dir / ("out-" + std::string(backend) + std::to_string(nj));
      auto r = weir::test::run_weir("run " + q(dir / "loc.py") + "::g --backend " + backend +
                                    " --in u=" + q(dir / "u.npy") + " --in v=" + q(dir / "v.npy") +
                                    " --set ni=4 --set nj=" + std::to_string(nj) + " --out " + q(out));
      INFO(r.out);
      if (nj == 4) {
        CHECK(r.code == 1);
        CHECK_THAT(r.out, Catch::Contains(expected.at(backend)));
        CHECK_FALSE(fs::exists(out / "v.npy"));
      } else {  // v = 3 * (2 * u) = 6 * i
        REQUIRE(r.code == 0);
        runtime::Field v = runtime::read_npy(out / "v.npy");
        for (std::int64_t i = 0; i < 20; ++i) CHECK(v.value_as_double(i) == 6.0 * static_cast<double>(i));
      }
    }
  }
}

TEST_CASE(
    "weir optimize --auto cpu of an exported orchestration SDFG: calls inlined and scheduled as run does",
    "[orchestration][cli]") {
  // Issue 16, friction 28: auto_optimize's first pass inlines the calls' nested SDFGs, so the
  // optimized file is what `weir run --backend cpu` compiles (each pass validated).
  auto dir = weir::test::scratch_dir("orchestration-cli-optimize");
  ::setenv("WEIR_CACHE_DIR", weir::test::shared_cache_dir("orchestration").c_str(), 1);
  auto r = weir::test::run_weir("sdfg " + q(kHeat.string() + "::heat") + " -o " + q(dir / "heat.sdfg"));
  REQUIRE(r.code == 0);
  CHECK(census(*load_sdfg((dir / "heat.sdfg").string())).nested == 2);
  r = weir::test::run_weir("optimize " + q(dir / "heat.sdfg") + " --auto cpu --verify-each -o " +
                           q(dir / "heat_opt.sdfg"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  // The binding assignments of the call edges are dead (docs/adr/0052): they go and the states
  // of consecutive calls fuse.
  CHECK_THAT(
      r.out,
      Catch::Contains(
          "applied 4 passes (inline-sdfgs, dead-assignment-elimination, state-fusion, cpu-schedules)"));
  std::unique_ptr<SDFG> opt = load_sdfg((dir / "heat_opt.sdfg").string());
  CHECK(validate(*opt).empty());
  Census c = census(*opt);
  CHECK(c.nested == 0);
  // The two calls (an even and a guarded odd iteration): each an OpenMP map over I around a
  // sequential SIMD map over J.
  REQUIRE(c.maps.size() == 4);
  std::size_t parallel = 0, simd = 0;
  for (const MapSeen& m : c.maps) {
    INFO(m.label);
    if (m.schedule == ScheduleType::CPU_Multicore) {
      ++parallel;
      CHECK_FALSE(m.in_map);
    } else {
      CHECK(m.schedule == ScheduleType::Sequential);
      CHECK(m.in_map);
      simd += m.vectorize;
    }
  }
  CHECK(parallel == 2);
  CHECK(simd == 2);
  // The same maps, schedules and hints as the SDFG `weir run --backend cpu` compiles.
  Census run = census(*runtime::lower(runtime::load_field_view_program(kHeat.string(), "heat")).sdfg);
  REQUIRE(run.maps.size() == c.maps.size());
  CHECK(run.nested == 0);
  for (std::size_t i = 0; i < run.maps.size(); ++i) {
    CHECK(run.maps[i].label == c.maps[i].label);
    CHECK(run.maps[i].schedule == c.maps[i].schedule);
    CHECK(run.maps[i].vectorize == c.maps[i].vectorize);
  }
  // The optimized file runs to the embedded backend's numbers.
  fs::create_directories(dir / "in");
  runtime::write_npy(dir / "in" / "u.npy",
                     make({12, 10}, [](std::int64_t i) { return std::cos(0.21 * static_cast<double>(i)); }));
  runtime::write_npy(dir / "in" / "u_next.npy", make({12, 10}, [](std::int64_t) { return 0.0; }));
  runtime::write_npy(dir / "in" / "kappa.npy",
                     make({12, 10}, [](std::int64_t i) { return 0.5 + 0.01 * static_cast<double>(i % 9); }));
  // Bit for bit.
  compare_with_embedded(dir, dir / "heat_opt.sdfg", kHeat.string() + "::heat", "--set dt=0.1 --set steps=5",
                        {"u", "u_next"}, 0.0);
}

TEST_CASE("weir optimize --auto cpu: maps in nested SDFGs that stay (a scan's loops) get schedules",
          "[orchestration][cli]") {
  // A call of a program with scans keeps its nested SDFG (several blocks: the scans' loops);
  // loop-map-interchange nests the scans of each call (of both, an even and a guarded odd
  // iteration) in a map over columns, which becomes an OpenMP map; maps inside a map would be
  // sequential; none stays Default (issue 16, friction 28).
  auto dir = weir::test::scratch_dir("orchestration-cli-optimize-scan");
  ::setenv("WEIR_CACHE_DIR", weir::test::shared_cache_dir("orchestration").c_str(), 1);
  std::ofstream(dir / "vs.py") << weir::test::read_text(fs::path(WEIR_SOURCE_DIR) / "examples" / "cartesian" /
                                                        "vertical_solver.py")
                               << "\n\ndef solve_twice(a: ColumnField, b: ColumnField, c: ColumnField, "
                                  "d: ColumnField, x: ColumnField, nk: gtx.int32):\n"
                                  "    for _ in range(2):\n"
                                  "        vertical_solver(a, b, c, d, x, nk)\n"
                                  "        d, x = x, d\n";
  auto r = weir::test::run_weir("sdfg " + q(dir / "vs.py") + "::solve_twice -o " + q(dir / "vs.sdfg"));
  REQUIRE(r.code == 0);
  Census before = census(*load_sdfg((dir / "vs.sdfg").string()));
  CHECK(before.nested == 2);
  for (const MapSeen& m : before.maps) CHECK(m.schedule == ScheduleType::Default);
  r = weir::test::run_weir("optimize " + q(dir / "vs.sdfg") + " --auto cpu --verify-each -o " +
                           q(dir / "vs_opt.sdfg"));
  INFO(r.out);
  REQUIRE(r.code == 0);
  std::unique_ptr<SDFG> opt = load_sdfg((dir / "vs_opt.sdfg").string());
  CHECK(validate(*opt).empty());
  Census c = census(*opt);
  CHECK(c.nested == 4);  // the two calls, each with the column scan loop-map-interchange nested
  std::size_t parallel = 0;
  for (const MapSeen& m : c.maps) {
    INFO(m.label);
    CHECK(m.schedule == (m.in_map ? ScheduleType::Sequential : ScheduleType::CPU_Multicore));
    parallel += m.schedule == ScheduleType::CPU_Multicore;
  }
  CHECK(parallel == 2);  // each call's column map
  // The optimized file and the embedded backend agree.
  fs::create_directories(dir / "in");
  auto field = [](double base, double scale) {
    return make({3, 4, 6},
                [=](std::int64_t i) { return base + scale * std::sin(0.3 * static_cast<double>(i)); });
  };
  runtime::write_npy(dir / "in" / "a.npy", field(-1.0, 0.1));
  runtime::write_npy(dir / "in" / "b.npy", field(4.0, 0.2));
  runtime::write_npy(dir / "in" / "c.npy", field(-1.0, 0.1));
  runtime::write_npy(dir / "in" / "d.npy", field(1.0, 0.5));
  runtime::write_npy(dir / "in" / "x.npy", field(0.0, 0.0));
  compare_with_embedded(dir, dir / "vs_opt.sdfg", (dir / "vs.py").string() + "::solve_twice", "--set nk=6",
                        {"d", "x"}, 1e-12);
}
