// Big programs as several translation units compiled in parallel (codegen's split_units,
// runtime's compile_units; ADR 0024): the units linked together compute what the single unit
// computes (values worked out by hand here), a fault recorded in one unit is raised by the entry
// points of another (the shared fault state), the cache key follows the units, a failed unit
// installs nothing and its error names the unit's file and line, and small programs stay one unit.
#include <atomic>
#include <catch2/catch.hpp>
#include <fstream>
#include <set>

#include "runtime_test_util.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/program_cache.h"
#include "weir/runtime/program_profile.h"
#include "weir/sdfg/instrumented.h"
#include "weir/sdfg/state.h"

namespace fs = std::filesystem;
using namespace weir;
using namespace weir::runtime;

namespace {

constexpr std::int64_t kN = 5;

/// `states` states in a chain; state k computes T<k+1>[i] = T<k>[i] * 2 + k over 0:N, T0 the
/// input, the last T the output. With `power_state` >= 0 that state also computes
/// P[i] = E[i] ** E[i] in int64 (E = -1 is a fault: NumPy raises for negative integer powers).
std::shared_ptr<const SDFG> chain(int states, int power_state = -1, const std::string& coefficient = "2") {
  auto sdfg = std::make_shared<SDFG>("units" + std::to_string(states));
  sdfg->add_symbol("N");
  std::vector<sym::Expr> shape = {sym::Expr::parse("N")};
  for (int k = 0; k <= states; ++k)
    sdfg->add_array("T" + std::to_string(k), ScalarType::Float64, shape, k != 0 && k != states);
  if (power_state >= 0) {
    sdfg->add_array("E", ScalarType::Int64, shape, false);
    sdfg->add_array("P", ScalarType::Int64, shape, false);
  }
  BlockId prev = kNoBlock;
  for (int k = 0; k < states; ++k) {
    SDFGState& st = sdfg->add_state("s" + std::to_string(k), k == 0);
    if (prev != kNoBlock) sdfg->add_edge(prev, st.id());
    prev = st.id();
    auto stencil = [&](const std::string& in, const std::string& out, const std::string& code) {
      auto& m = st.add_map(out, {"i"}, Subset::parse("0:N"));
      auto& t = st.add_tasklet(out, {code, Language::Python}, {"a"}, {"y"});
      NodeId src = st.add_access(in).id(), dst = st.add_access(out).id();
      auto ei = st.add_memlet_path({src, m.id(), t.id()}, Memlet::simple(in, Subset::parse("i")), "", "a");
      st.edge(ei[0]).memlet = Memlet::simple(in, Subset::parse("0:N"));
      auto eo = st.add_memlet_path({t.id(), m.exit, dst}, Memlet::simple(out, Subset::parse("i")), "y", "");
      st.edge(eo[1]).memlet = Memlet::simple(out, Subset::parse("0:N"));
    };
    stencil("T" + std::to_string(k), "T" + std::to_string(k + 1),
            "y = a * " + coefficient + " + " + std::to_string(k));
    if (k == power_state) stencil("E", "P", "y = a ** a");
  }
  return sdfg;
}

CompilableProgram program(std::shared_ptr<const SDFG> sdfg, std::size_t unit_bytes) {
  CompilableProgram p{std::move(sdfg), {}, "test_program_units"};
  p.options.unit_bytes = unit_bytes;
  return p;
}

CompilerSettings quick() {
  CompilerSettings s;
  s.flags = {"-std=c++17", "-O1"};
  s.jobs = 2;
  return s;
}

/// Counts compiler runs (from several threads at once) and remembers their sources.
struct Counting {
  std::shared_ptr<std::atomic<int>> calls = std::make_shared<std::atomic<int>>(0);
  CompilerInvocation invoke(std::function<bool(const std::vector<std::string>&)> fail = {}) const {
    auto c = calls;
    return [c, fail](const std::vector<std::string>& argv) {
      ++*c;
      if (fail && fail(argv)) return ProcessOutput{1, "simulated failure"};
      return run_process(argv);
    };
  }
};

std::unique_ptr<CompiledBackend> backend(const Counting& counter,
                                         std::function<bool(const std::vector<std::string>&)> fail = {}) {
  return std::make_unique<CompiledBackend>("cpu-units", Allocator{},
                                           make_cpu_compiler(quick(), std::nullopt, counter.invoke(fail)));
}

/// Runs the chain on T0[i] = i and returns the output; the values by hand: x -> 2x + k per state.
std::vector<double> run_chain(const Backend& b, const CompilableProgram& p, int states) {
  Arguments args;
  args.values = {{"N", kN}};
  for (int k : {0, states}) {
    auto f = Allocator::cpu().allocate(ScalarType::Float64, {kN});
    for (std::int64_t i = 0; i < kN; ++i) static_cast<double*>(f.data())[i] = k == 0 ? double(i) : -1.0;
    args.arrays.emplace("T" + std::to_string(k), std::move(f));
  }
  run(b, p, args);
  const auto* out = static_cast<const double*>(args.arrays.at("T" + std::to_string(states)).data());
  return std::vector<double>(out, out + kN);
}

std::vector<double> by_hand(int states) {
  std::vector<double> v;
  for (std::int64_t i = 0; i < kN; ++i) {
    double x = double(i);
    for (int k = 0; k < states; ++k) x = x * 2 + k;
    v.push_back(x);
  }
  return v;
}

}  // namespace

TEST_CASE("units: a program over unit_bytes is split, small programs stay one unit", "[runtime][units]") {
  auto sdfg = chain(6);
  auto one = codegen::generate_cpu(*sdfg);  // default unit_bytes: far above this program
  CHECK(one.units.empty());
  codegen::CodegenOptions o;
  o.unit_bytes = 1;  // every function its own unit
  auto split = codegen::generate_cpu(*sdfg, o);
  REQUIRE(split.units.size() == 7);   // the entry points + 6 state functions
  CHECK(split.source == one.source);  // the single unit does not change
  CHECK_THAT(split.units[0], Catch::Contains("extern \"C\" int weir_run"));
  CHECK_THAT(split.units[0], Catch::Contains("[[gnu::visibility(\"hidden\")]] void weir_state_0"));
  for (std::size_t u = 1; u < split.units.size(); ++u) {
    CHECK_THAT(split.units[u], !Catch::Contains("extern \"C\" int weir_run"));
    CHECK_THAT(split.units[u], !Catch::Contains("static void weir_state_"));
    // The fault state is one for the program: hidden inline variables (WEIR_PROGRAM_STATE,
    // codegen/prelude/weir_faults.h), static in a program of one unit.
    CHECK_THAT(split.units[u],
               Catch::Contains("#define WEIR_PROGRAM_STATE [[gnu::visibility(\"hidden\")]] inline\n") &&
                   Catch::Contains("WEIR_PROGRAM_STATE std::atomic<int> weir_fault_state"));
  }
  CHECK_THAT(one.source, !Catch::Contains("#define WEIR_PROGRAM_STATE [[gnu::visibility"));
  o.unit_bytes = 0;  // never
  CHECK(codegen::generate_cpu(*sdfg, o).units.empty());
  // A big state (state s2 of this chain has two maps) becomes parts the state function calls,
  // each in its own unit here; a small one stays one function.
  o.unit_bytes = 1;
  auto parts = codegen::generate_cpu(*chain(4, 2), o);
  REQUIRE(parts.units.size() == 4 + 2 + 1);
  CHECK_THAT(parts.units[0], !Catch::Contains("_part"));
  std::string all;
  for (const auto& u : parts.units) all += u;
  CHECK_THAT(all, Catch::Contains("void weir_state_2_s2_part(") &&
                      Catch::Contains("void weir_state_2_s2_part_1(") &&
                      !Catch::Contains("weir_state_1_s1_part"));
  CHECK_THAT(codegen::generate_cpu(*chain(4, 2)).source, !Catch::Contains("_part"));
}

TEST_CASE("units: several units linked compute what one unit computes", "[runtime][units]") {
  weir::test::fresh_cache("units-values");
  Counting counter;
  auto b = backend(counter);
  const int states = 6;
  CHECK(run_chain(*b, program(chain(states), 0), states) == by_hand(states));
  CHECK(*counter.calls == 1);
  CHECK(run_chain(*b, program(chain(states), 1), states) == by_hand(states));
  CHECK(*counter.calls == 1 + 7 + 1);  // 7 units and the link
}

TEST_CASE("units: a fault recorded in one unit is raised by the entry points in another",
          "[runtime][units]") {
  weir::test::fresh_cache("units-fault");
  Counting counter;
  auto b = backend(counter);
  for (std::size_t unit_bytes : {std::size_t(0), std::size_t(1)}) {
    INFO("unit_bytes " << unit_bytes);
    auto p = program(chain(4, 2), unit_bytes);
    Arguments args;
    args.values = {{"N", kN}};
    for (const char* name : {"T0", "T4"})
      args.arrays.emplace(name, Allocator::cpu().allocate(ScalarType::Float64, {kN}));
    auto e = Allocator::cpu().allocate(ScalarType::Int64, {kN});
    for (std::int64_t i = 0; i < kN; ++i) static_cast<std::int64_t*>(e.data())[i] = i == 3 ? -1 : 2;
    args.arrays.emplace("E", std::move(e));
    args.arrays.emplace("P", Allocator::cpu().allocate(ScalarType::Int64, {kN}));
    CHECK_THROWS_WITH(run(*b, p, args), Catch::Contains("state 's2'") && Catch::Contains("negative"));
  }
}

TEST_CASE("units: the cache key follows the units, a hit runs no compiler", "[runtime][units][cache]") {
  auto root = weir::test::fresh_cache("units-key");
  Counting counter;
  auto b = backend(counter);
  auto a = compile(*b, program(chain(6), 1));
  CHECK(*counter.calls == 8);
  CHECK_FALSE(a.cache_hit);
  // The whole program stays beside the library, for reading, and the units with it.
  CHECK_THAT(weir::test::read_text(a.source), Catch::Contains("weir_run"));
  CHECK(fs::is_regular_file(a.library.parent_path() / "unit6.cpp"));
  CHECK_FALSE(fs::exists(a.library.parent_path() / "unit6.cpp.o"));
  auto again = compile(*b, program(chain(6), 1));
  CHECK(again.cache_hit);
  CHECK(again.fingerprint == a.fingerprint);
  CHECK(*counter.calls == 8);
  // Another number of units (same source), one unit, one changed state: new keys.
  // (The chain's state functions take 2-3 KB each: 5,000 bytes put two in a unit; 2,048 became
  // one function per unit, the same split as 1 byte, once the small-map branch grew them.)
  auto fewer = compile(*b, program(chain(6), 5000));
  CHECK(fs::is_regular_file(fewer.library.parent_path() / "unit1.cpp"));
  CHECK_FALSE(fs::exists(fewer.library.parent_path() / "unit6.cpp"));
  auto single = compile(*b, program(chain(6), 0));
  auto changed = compile(*b, program(chain(6, -1, "3"), 1));
  CHECK(std::set<std::string>{a.fingerprint, fewer.fingerprint, single.fingerprint, changed.fingerprint}
            .size() == 4);
  CHECK(ProgramCache(root).stats().entries == 4);
}

TEST_CASE("units: a failed unit installs nothing and names its file", "[runtime][units][cache]") {
  auto root = weir::test::fresh_cache("units-failed");
  Counting counter;
  auto failing = backend(counter, [](const std::vector<std::string>& argv) {
    return argv.back().size() >= 9 && argv.back().substr(argv.back().size() - 9) == "unit3.cpp";
  });
  auto p = program(chain(6), 1);
  try {
    compile(*failing, p);
    FAIL("no CompileError");
  } catch (const CompileError& e) {
    CHECK_THAT(e.source_path(), Catch::EndsWith("unit3.cpp"));
    CHECK(e.source_path().find("failed") != std::string::npos);
    CHECK(fs::is_regular_file(e.source_path()));
  }
  CHECK(ProgramCache(root).stats().entries == 0);
  // A working compiler then builds the program (the failed build was never installed).
  Counting ok;
  CHECK(run_chain(*backend(ok), p, 6) == by_hand(6));
  CHECK(*ok.calls == 8);
}

TEST_CASE("units: compiler errors name the unit's file and line", "[runtime][units]") {
  auto dir = weir::test::scratch_dir("units-errors");
  std::ofstream(dir / "unit0.cpp") << "int weir_units_ok() { return 1; }\n";
  std::ofstream(dir / "unit1.cpp") << "int f() {\n  return 1;\n  this is not C++;\n}\n";
  try {
    compile_units(quick(), {dir / "unit0.cpp", dir / "unit1.cpp"}, dir / "lib.so", "broken");
    FAIL("no CompileError");
  } catch (const CompileError& e) {
    CHECK(e.source_path() == (dir / "unit1.cpp").string());
    CHECK_THAT(e.what(), Catch::Contains("unit1.cpp:3:"));
  }
  CHECK_FALSE(fs::exists(dir / "lib.so"));
}

TEST_CASE("units: the timers of a program split into units count into one set of slots",
          "[runtime][units][profile]") {
  weir::test::fresh_cache("units-timers");
  Counting counter;
  auto b = backend(counter);
  const int states = 6;
  auto sdfg = std::const_pointer_cast<SDFG>(chain(states));
  for (SDFGState* st : sdfg->all_states()) {
    set_instrument(st->extra, kTimerInstrument);
    for (Node* n : st->nodes())
      if (n->kind() == NodeKind::MapEntry) set_instrument(n->extra, kTimerInstrument);
  }
  const CompilableProgram p = program(sdfg, 1);
  Arguments args;
  args.values = {{"N", kN}};
  for (int k : {0, states}) {
    auto f = Allocator::cpu().allocate(ScalarType::Float64, {kN});
    for (std::int64_t i = 0; i < kN; ++i) static_cast<double*>(f.data())[i] = k == 0 ? double(i) : -1.0;
    args.arrays.emplace("T" + std::to_string(k), std::move(f));
  }
  CompilationArtifact loaded;
  auto prog = prepare(*b, p, &loaded);
  CHECK(*counter.calls == 7 + 1);  // split into units and linked
  prog->run(args);
  const auto* out = static_cast<const double*>(args.arrays.at("T" + std::to_string(states)).data());
  CHECK(std::vector<double>(out, out + kN) == by_hand(states));
  // Each state and each map, recorded by the state functions of other units than weir_run's.
  runtime::ProgramProfile timers(loaded.library);
  REQUIRE(timers.elements().size() == 2 * states);
  for (const auto& e : timers.read()) {
    CHECK(e.executions == 1);
    CHECK(e.ns > 0);
  }
}
