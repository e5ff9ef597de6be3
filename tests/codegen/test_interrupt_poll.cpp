// Ctrl-C between two iterations of a program's loops (user32 H19, docs/adr/0038 session 34): the
// loops of the top-level SDFG ask the caller's poll (weir_set_interrupt_poll) once per iteration
// and stop the run when it names a signal; the states before ran whole, none after began. The
// poll here is a counter (it "interrupts" at its k-th question), so nothing depends on timing.
#include <catch2/catch.hpp>

#include <csignal>
#include <memory>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

using namespace weir;
using namespace weir::codegen;
using E = sym::Expr;

namespace {

int g_questions = 0;     // how often the program asked
int g_interrupt_at = 0;  // the question that answers SIGINT (0: never)

int counting_poll() {
  ++g_questions;
  return g_questions == g_interrupt_at ? SIGINT : 0;
}

/// B[0] += 1 in `st` (a read and a write of B).
void add_one(SDFGState& st) {
  auto& r = st.add_access("B");
  auto& w = st.add_access("B");
  auto& t = st.add_tasklet("inc", {"o = x + 1", Language::Python}, {"x"}, {"o"});
  st.add_edge(r.id(), "", t.id(), "x", Memlet::simple("B", Subset::parse("0")));
  st.add_edge(t.id(), "o", w.id(), "", Memlet::simple("B", Subset::parse("0")));
}

/// for i in range(N): B[0] += 1, as a LoopRegion.
std::unique_ptr<SDFG> loop_region_program() {
  auto s = std::make_unique<SDFG>("counted");
  s->add_array("B", ScalarType::Float64, {E(1)});
  auto& loop = s->add_loop("loop", "i", "i = 0", "i < N", "i = i + 1");
  add_one(loop.add_state("body", true));
  return s;
}

/// The same loop of interstate edges: init -> guard <-> body, guard -> done.
std::unique_ptr<SDFG> interstate_program() {
  auto s = std::make_unique<SDFG>("counted_edges");
  s->add_array("B", ScalarType::Float64, {E(1)});
  s->add_symbol("i");
  auto& init = s->add_state("init", true);
  auto& guard = s->add_state("guard");
  auto& body = s->add_state("body");
  auto& done = s->add_state("done");
  add_one(body);
  InterstateEdge start;
  start.assignments = {{"i", "0"}};
  s->add_edge(init.id(), guard.id(), start);
  InterstateEdge enter;
  enter.condition = {"i < N", Language::Python};
  s->add_edge(guard.id(), body.id(), enter);
  InterstateEdge leave;
  leave.condition = {"not (i < N)", Language::Python};
  s->add_edge(guard.id(), done.id(), leave);
  InterstateEdge back;
  back.assignments = {{"i", "i + 1"}};
  s->add_edge(body.id(), guard.id(), back);
  return s;
}

std::unique_ptr<test::LoadedProgram> build(const SDFG& s, const std::string& name) {
  auto so = test::compile_shared(generate_cpu(s).source, test::scratch_dir("interrupt_" + name));
  return std::make_unique<test::LoadedProgram>(so);
}

/// Runs `p` with N = `n` and B[0] = 0, the poll answering SIGINT at its `interrupt_at`-th
/// question (0: never); returns B[0], and in `error` weir_run's error ("" when it succeeded).
double run(test::LoadedProgram& p, int64_t n, int interrupt_at, std::string& error) {
  g_questions = 0;
  g_interrupt_at = interrupt_at;
  double b = 0;
  std::vector<void*> args = {&b, &n};
  void* h = p.init(args.data());
  REQUIRE(h != nullptr);
  error = p.run(h, args.data()) == 0 ? "" : p.last_error();
  REQUIRE(p.finalize(h) == 0);
  return b;
}

}  // namespace

TEST_CASE("a top-level loop stops between two iterations when the caller's poll names a signal",
          "[codegen][run][interrupt]") {
  for (const std::string name : {"region", "edges"}) {
    INFO(name);
    auto sdfg = name == "region" ? loop_region_program() : interstate_program();
    auto p = build(*sdfg, name);
    auto set_poll = reinterpret_cast<SetInterruptPollFn>(p->symbol(kSymSetInterruptPoll));
    REQUIRE(set_poll != nullptr);
    CHECK(set_poll(&counting_poll) == 1);  // it has a loop that asks
    std::string error;
    // Never interrupted: all 10 iterations, one question each.
    CHECK(run(*p, 10, 0, error) == 10.0);
    CHECK(error.empty());
    CHECK(g_questions == 10);
    // Interrupted at the 4th question: 3 iterations ran whole, the 4th never began.
    CHECK(run(*p, 10, 4, error) == 3.0);
    CHECK(error.find("interrupted (signal 2) between two iterations of a loop") != std::string::npos);
    CHECK(g_questions == 4);
    // The program runs again afterwards.
    CHECK(run(*p, 5, 0, error) == 5.0);
    CHECK(error.empty());
    // Without a poll (a caller that never set one) it runs uninterrupted.
    CHECK(set_poll(nullptr) == 1);
    CHECK(run(*p, 6, 1, error) == 6.0);
    CHECK(g_questions == 0);
  }
}

TEST_CASE("a program without a top-level loop asks nothing and says so", "[codegen][run][interrupt]") {
  // A map is no loop of states: its iterations never ask (no cost in hot loops), and
  // weir_set_interrupt_poll answers 0, so the runtime installs no signal handler for its runs.
  auto s = test::map_program("b = a + 1");
  GeneratedCode g = generate_cpu(*s);
  CHECK(g.source.find("weir_poll_interrupt();") == std::string::npos);
  auto p = build(*s, "map");
  auto set_poll = reinterpret_cast<SetInterruptPollFn>(p->symbol(kSymSetInterruptPoll));
  REQUIRE(set_poll != nullptr);
  CHECK(set_poll(&counting_poll) == 0);
}

TEST_CASE("a nested SDFG's loop does not ask (it may run inside a parallel map)", "[codegen][interrupt]") {
  // The outer program's loop asks once per iteration; the nested SDFG's loop inside it, never.
  auto inner = loop_region_program();
  auto s = std::make_unique<SDFG>("outer");
  s->add_array("B", ScalarType::Float64, {E(1)});
  auto& loop = s->add_loop("steps", "t", "t = 0", "t < N", "t = t + 1");
  auto& st = loop.add_state("call", true);
  auto& r = st.add_access("B");
  auto& w = st.add_access("B");
  auto& n = st.add_nested_sdfg("nested", std::move(inner), {"B"}, {"B"}, {{"N", E::symbol("N")}});
  st.add_edge(r.id(), "", n.id(), "B", Memlet::simple("B", Subset::parse("0")));
  st.add_edge(n.id(), "B", w.id(), "", Memlet::simple("B", Subset::parse("0")));
  std::string source = generate_cpu(*s).source;
  std::size_t first = source.find("weir_poll_interrupt();");
  REQUIRE(first != std::string::npos);
  CHECK(source.find("weir_poll_interrupt();", first + 1) == std::string::npos);
}
