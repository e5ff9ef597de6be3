// Tests of weir::transforms::flatten_control_flow: structure of the flattened graph and, with a
// small control-flow interpreter (interstate conditions and integer symbol assignments only),
// that every original state runs exactly as often as before flattening.
#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "weir/sdfg/control_flow.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/symbolic.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/flatten_control_flow.h"

using namespace weir;
using weir::transforms::flatten_control_flow;

namespace {

using Env = std::map<std::string, long long>;
using Assignments = std::vector<std::pair<std::string, CodeBlock>>;

// --- the interpreter -----------------------------------------------------------------------

enum class Flow { Normal, Break, Continue, Return };

/// Runs the control flow of an SDFG: structured regions (loops, conditionals, break/continue/
/// return) directly, or plain states and interstate edges. Counts state executions per state
/// object (flattening moves states, so the objects stay the same).
struct Interpreter {
  Env env;
  std::map<const SDFGState*, long> counts;
  long steps = 0;
  long max_steps = 200000;
  /// Times more than one out-edge of a block was enabled (nondeterministic choice).
  long ambiguous = 0;

  explicit Interpreter(Env e) : env(std::move(e)) {}

  bool holds(const CodeBlock& c) {
    InterstateEdge tmp;
    tmp.condition = c;
    if (tmp.is_unconditional()) return true;
    return sym::Expr::parse(c.code).evaluate(env) != 0;
  }

  void assign(const Assignments& as) {
    for (const auto& [k, v] : as) env[k] = sym::Expr::parse(v.code).evaluate(env);  // in order
  }

  /// Runs "x = e; y = f" statements (loop init / update).
  void run_statements(const std::string& text) {
    std::string st;
    std::string norm = text;
    std::replace(norm.begin(), norm.end(), '\n', ';');
    std::stringstream ss(norm);
    while (std::getline(ss, st, ';')) {
      if (st.find_first_not_of(" \t\n") == std::string::npos) continue;
      auto eq = st.find('=');
      while (eq != std::string::npos && eq + 1 < st.size() && st[eq + 1] == '=') eq = st.find('=', eq + 2);
      REQUIRE(eq != std::string::npos);
      std::string lhs = st.substr(0, eq);
      lhs.erase(0, lhs.find_first_not_of(" \t\n"));
      lhs.erase(lhs.find_last_not_of(" \t\n") + 1);
      env[lhs] = sym::Expr::parse(st.substr(eq + 1)).evaluate(env);
    }
  }

  Flow run_region(const ControlFlowRegion& r) {
    if (r.num_blocks() == 0) return Flow::Normal;
    BlockId cur = r.start_block();
    REQUIRE(cur != kNoBlock);
    while (true) {
      if (++steps > max_steps) FAIL("interpreter: step limit exceeded (infinite loop?)");
      const ControlFlowBlock& b = r.block(cur);
      Flow f = Flow::Normal;
      switch (b.kind()) {
        case BlockKind::State: ++counts[b.as<SDFGState>()]; break;
        case BlockKind::Loop: f = run_loop(*b.as<LoopRegion>()); break;
        case BlockKind::Region: f = run_region(*b.as<ControlFlowRegion>()); break;
        case BlockKind::Conditional: f = run_conditional(*b.as<ConditionalBlock>()); break;
        case BlockKind::Break: return Flow::Break;
        case BlockKind::Continue: return Flow::Continue;
        case BlockKind::Return: return Flow::Return;
        case BlockKind::SDFG: FAIL("SDFG as a block"); break;
      }
      if (f != Flow::Normal) return f;
      const ControlFlowEdge* taken = nullptr;
      int enabled = 0;
      for (const ControlFlowEdge* e : r.out_edges(cur)) {
        if (!holds(e->data.condition)) continue;
        ++enabled;
        if (!taken) taken = e;
      }
      if (enabled > 1) ++ambiguous;
      if (!taken) return Flow::Normal;
      assign(taken->data.assignments);
      cur = taken->dst;
    }
  }

  Flow run_loop(const LoopRegion& l) {
    run_statements(l.init_statement.code);
    auto cond = [&] { return holds(l.loop_condition); };
    if (!l.inverted) {
      while (cond()) {
        Flow f = run_region(l);
        if (f == Flow::Break) break;
        if (f == Flow::Return) return f;
        run_statements(l.update_statement.code);
      }
    } else if (l.update_before_condition) {
      do {
        Flow f = run_region(l);
        if (f == Flow::Break) break;
        if (f == Flow::Return) return f;
        run_statements(l.update_statement.code);
      } while (cond());
    } else {
      while (true) {
        Flow f = run_region(l);
        if (f == Flow::Break) break;
        if (f == Flow::Return) return f;
        if (!cond()) break;
        run_statements(l.update_statement.code);
      }
    }
    return Flow::Normal;
  }

  Flow run_conditional(const ConditionalBlock& c) {
    for (const auto& br : c.branches()) {
      if (br.condition && !holds(*br.condition)) continue;
      return br.body ? run_region(*br.body) : Flow::Normal;
    }
    return Flow::Normal;
  }
};

struct Run {
  std::map<const SDFGState*, long> counts;
  Env env;
  long ambiguous = 0;
};

Run run(const SDFG& sdfg, const Env& env) {
  Interpreter in(env);
  in.run_region(sdfg);
  return {in.counts, in.env, in.ambiguous};
}

long count_of(const Run& r, const SDFG& sdfg, const std::string& label) {
  long n = 0;
  for (const SDFGState* s : sdfg.all_states())
    if (s->label == label) {
      auto it = r.counts.find(s);
      if (it != r.counts.end()) n += it->second;
    }
  return n;
}

/// Counts of `before` for the states that still exist in `after`; every original state must
/// still be there.
void require_same_counts(const SDFG& after, const Run& before, const Run& flat) {
  std::set<const SDFGState*> now;
  for (const SDFGState* s : after.all_states()) now.insert(s);
  for (const auto& [s, n] : before.counts) {
    INFO("state '" << s->label << "'");
    REQUIRE(now.count(s) == 1);
    auto it = flat.counts.find(s);
    REQUIRE(it != flat.counts.end());
    CHECK(it->second == n);
  }
  // States that did not run before must not run now, except fresh (empty) states.
  for (const auto& [s, n] : flat.counts)
    if (!before.counts.count(s)) CHECK(s->num_nodes() == 0);
  CHECK(flat.ambiguous == 0);
}

/// Only states, in the SDFG and in every nested SDFG.
bool only_states(const SDFG& sdfg) {
  for (const ControlFlowBlock* b : sdfg.blocks()) {
    const auto* st = b->as<SDFGState>();
    if (!st) return false;
    for (const Node* n : st->nodes())
      if (const auto* ns = n->as<NestedSDFGNode>(); ns && ns->sdfg && !only_states(*ns->sdfg)) return false;
  }
  return true;
}

std::map<std::string, long> counts_by_label(const SDFG& sdfg, const Run& r) {
  std::map<std::string, long> out;
  for (const SDFGState* s : sdfg.all_states()) {
    auto it = r.counts.find(s);
    out[s->label] += it == r.counts.end() ? 0 : it->second;
  }
  return out;
}

const SDFGState* state_named(const SDFG& sdfg, const std::string& label) {
  for (const ControlFlowBlock* b : sdfg.blocks())
    if (b->label == label) return b->as<SDFGState>();
  return nullptr;
}

BlockId id_of(const SDFG& sdfg, const std::string& label) {
  const SDFGState* s = state_named(sdfg, label);
  REQUIRE(s != nullptr);
  return s->id();
}

const ControlFlowEdge* edge_between(const SDFG& sdfg, const std::string& a, const std::string& b) {
  BlockId x = id_of(sdfg, a), y = id_of(sdfg, b);
  for (const auto* e : sdfg.out_edges(x))
    if (e->dst == y) return e;
  return nullptr;
}

std::string diagnostics(const SDFG& sdfg) {
  std::string out;
  for (const auto& d : validate(sdfg)) out += d.str() + "\n";
  return out;
}

/// Interprets, flattens, interprets again and compares, for each environment.
void check_semantics(const std::function<std::unique_ptr<SDFG>()>& build, const std::vector<Env>& envs) {
  for (const Env& env : envs) {
    auto sdfg = build();
    Run before = run(*sdfg, env);
    flatten_control_flow(*sdfg);
    REQUIRE(only_states(*sdfg));
    Run after = run(*sdfg, env);
    INFO("environment TSTEPS/N/x = " << (env.count("TSTEPS") ? env.at("TSTEPS") : -1) << "/"
                                     << (env.count("N") ? env.at("N") : -1) << "/"
                                     << (env.count("x") ? env.at("x") : -1));
    require_same_counts(*sdfg, before, after);
  }
}

// --- builders ------------------------------------------------------------------------------

InterstateEdge assign_edge(std::string var, std::string value) {
  InterstateEdge e;
  e.assignments.emplace_back(std::move(var), std::move(value));
  return e;
}

/// init -> for_t (t = 0 .. TSTEPS-1) { A -> if_even [(t % 2) == 0: B] } -> after
std::unique_ptr<SDFG> loop_with_conditional() {
  auto sdfg = std::make_unique<SDFG>("loopcond");
  sdfg->add_symbol("TSTEPS");
  sdfg->add_symbol("t");
  auto& init = sdfg->add_state("init", true);
  auto& loop = sdfg->add_loop("for_t", "t", "t = 0", "(t < TSTEPS)", "t = (t + 1)");
  auto& after = sdfg->add_state("after");
  sdfg->add_edge(init.id(), loop.id());
  sdfg->add_edge(loop.id(), after.id());
  auto& a = loop.add_state("A", true);
  auto& cond = loop.add_conditional("if_even");
  loop.add_edge(a.id(), cond.id());
  cond.add_branch(CodeBlock{"(t % 2) == 0", Language::Python}).add_state("B", true);
  return sdfg;
}

/// for_t (t = 0 .. TSTEPS-1) { A -> if_three [t == 3: break] -> B } -> after
std::unique_ptr<SDFG> loop_with_break() {
  auto sdfg = std::make_unique<SDFG>("loopbreak");
  sdfg->add_symbol("TSTEPS");
  sdfg->add_symbol("t");
  auto& loop = sdfg->add_loop("for_t", "t", "t = 0", "(t < TSTEPS)", "t = (t + 1)");
  sdfg->set_start_block(loop.id());
  auto& after = sdfg->add_state("after");
  sdfg->add_edge(loop.id(), after.id());
  auto& a = loop.add_state("A", true);
  auto& cond = loop.add_conditional("if_three");
  auto& b = loop.add_state("B");
  loop.add_edge(a.id(), cond.id());
  loop.add_edge(cond.id(), b.id());
  auto& body = cond.add_branch(CodeBlock{"t == 3", Language::Python});
  body.add_block(std::make_unique<ControlTransferBlock>(BlockKind::Break, "brk"), true);
  return sdfg;
}

/// for_t { A -> if_mod3 [(t % 3) == 0: continue] -> B } -> after
std::unique_ptr<SDFG> loop_with_continue() {
  auto sdfg = std::make_unique<SDFG>("loopcontinue");
  sdfg->add_symbol("TSTEPS");
  sdfg->add_symbol("t");
  auto& pre = sdfg->add_state("pre", true);
  auto& loop = sdfg->add_loop("for_t", "t", "t = 0", "(t < TSTEPS)", "t = (t + 1)");
  auto& after = sdfg->add_state("after");
  sdfg->add_edge(pre.id(), loop.id());
  sdfg->add_edge(loop.id(), after.id());
  auto& a = loop.add_state("A", true);
  auto& cond = loop.add_conditional("if_mod3");
  auto& b = loop.add_state("B");
  loop.add_edge(a.id(), cond.id());
  loop.add_edge(cond.id(), b.id());
  auto& body = cond.add_branch(CodeBlock{"(t % 3) == 0", Language::Python});
  body.add_block(std::make_unique<ControlTransferBlock>(BlockKind::Continue, "cont"), true);
  return sdfg;
}

/// i = 0; do { A } while (i < N) with the update i = i + 1 before or after the check.
std::unique_ptr<SDFG> do_while(bool update_before_condition) {
  auto sdfg = std::make_unique<SDFG>("dowhile");
  sdfg->add_symbol("N");
  sdfg->add_symbol("i");
  auto& pre = sdfg->add_state("pre", true);
  auto& loop = sdfg->add_loop("dw", "i", "i = 0", "i < N", "i = i + 1");
  loop.inverted = true;
  loop.update_before_condition = update_before_condition;
  auto& post = sdfg->add_state("post");
  sdfg->add_edge(pre.id(), loop.id());
  sdfg->add_edge(loop.id(), post.id());
  loop.add_state("A", true);
  return sdfg;
}

/// for i in 0..N-1 { if_one [i == 1: continue] -> for j in 0..i-1 { C -> if_two [j == 2:
/// break] } -> D }
std::unique_ptr<SDFG> nested_loops() {
  auto sdfg = std::make_unique<SDFG>("nested");
  sdfg->add_symbol("N");
  sdfg->add_symbol("i");
  sdfg->add_symbol("j");
  auto& outer = sdfg->add_loop("for_i", "i", "i = 0", "i < N", "i = i + 1");
  auto& c1 = outer.add_conditional("if_one");
  outer.set_start_block(c1.id());
  c1.add_branch(CodeBlock{"i == 1", Language::Python})
      .add_block(std::make_unique<ControlTransferBlock>(BlockKind::Continue, "next_i"), true);
  auto& inner = outer.add_loop("for_j", "j", "j = 0", "j < i", "j = j + 1");
  auto& d = outer.add_state("D");
  outer.add_edge(c1.id(), inner.id());
  outer.add_edge(inner.id(), d.id());
  auto& c = inner.add_state("C", true);
  auto& c2 = inner.add_conditional("if_two");
  inner.add_edge(c.id(), c2.id());
  c2.add_branch(CodeBlock{"j == 2", Language::Python})
      .add_block(std::make_unique<ControlTransferBlock>(BlockKind::Break, "stop_j"), true);
  return sdfg;
}

/// s0 -> region { r0 -> if_big [x > 2: return] -> r1 } -> s1
std::unique_ptr<SDFG> region_with_return() {
  auto sdfg = std::make_unique<SDFG>("regionreturn");
  sdfg->add_symbol("x");
  auto& s0 = sdfg->add_state("s0", true);
  auto& reg = sdfg->add_region("region");
  auto& s1 = sdfg->add_state("s1");
  sdfg->add_edge(s0.id(), reg.id());
  sdfg->add_edge(reg.id(), s1.id());
  auto& r0 = reg.add_state("r0", true);
  auto& c = reg.add_conditional("if_big");
  auto& r1 = reg.add_state("r1");
  reg.add_edge(r0.id(), c.id());
  reg.add_edge(c.id(), r1.id());
  c.add_branch(CodeBlock{"x > 2", Language::Python})
      .add_block(std::make_unique<ControlTransferBlock>(BlockKind::Return, "ret"), true);
  return sdfg;
}

/// start -> sel [x < 0: neg | x == 0: (empty) | else: pos] -> done
std::unique_ptr<SDFG> if_elif_else(bool with_else) {
  auto sdfg = std::make_unique<SDFG>("ifelse");
  sdfg->add_symbol("x");
  auto& start = sdfg->add_state("start", true);
  auto& sel = sdfg->add_conditional("sel");
  auto& done = sdfg->add_state("done");
  sdfg->add_edge(start.id(), sel.id());
  sdfg->add_edge(sel.id(), done.id());
  sel.add_branch(CodeBlock{"x < 0", Language::Python}).add_state("neg", true);
  sel.add_branch(CodeBlock{"x == 0", Language::Python});
  if (with_else) sel.add_branch(std::nullopt).add_state("pos", true);
  return sdfg;
}

}  // namespace

// --- structure -----------------------------------------------------------------------------

TEST_CASE("flatten: loop with a nested conditional becomes guard/end states", "[flatten]") {
  auto sdfg = loop_with_conditional();
  REQUIRE(diagnostics(*sdfg) == "");
  std::size_t removed = flatten_control_flow(*sdfg);
  CHECK(removed == 2);
  REQUIRE(only_states(*sdfg));
  CHECK_FALSE(sdfg->using_explicit_control_flow);
  std::set<std::string> labels;
  for (const auto* b : sdfg->blocks()) labels.insert(b->label);
  CHECK(labels == std::set<std::string>{"init", "after", "A", "B", "for_t_guard", "for_t_end",
                                        "if_even_guard", "if_even_end"});
  CHECK(sdfg->edges().size() == 9);
  CHECK(sdfg->start_block() == id_of(*sdfg, "init"));

  // The init assignment is merged into the edge entering the guard.
  const auto* enter = edge_between(*sdfg, "init", "for_t_guard");
  REQUIRE(enter);
  CHECK(enter->data.is_unconditional());
  CHECK(enter->data.assignments == Assignments{{"t", "0"}});
  const auto* body = edge_between(*sdfg, "for_t_guard", "A");
  REQUIRE(body);
  CHECK(body->data.condition.code == "(t < TSTEPS)");
  const auto* exit = edge_between(*sdfg, "for_t_guard", "for_t_end");
  REQUIRE(exit);
  CHECK(exit->data.condition.code == "not (t < TSTEPS)");
  CHECK(edge_between(*sdfg, "for_t_end", "after"));
  // The update is on the back edge from the body's end (the conditional's join state). Its value
  // is the tree of "t = (t + 1)"'s right-hand side, printed as Python's ast.unparse prints it.
  const auto* back = edge_between(*sdfg, "if_even_end", "for_t_guard");
  REQUIRE(back);
  CHECK(back->data.assignments == Assignments{{"t", "t + 1"}});
  const auto* then = edge_between(*sdfg, "if_even_guard", "B");
  REQUIRE(then);
  CHECK(then->data.condition.code == "(t % 2) == 0");
  const auto* skip = edge_between(*sdfg, "if_even_guard", "if_even_end");
  REQUIRE(skip);
  // A composed condition prints its operand in parentheses and the operand as its tree prints
  // ("(t % 2) == 0" has redundant parentheses; the tree has none).
  CHECK(skip->data.condition.code == "not (t % 2 == 0)");
  CHECK(edge_between(*sdfg, "B", "if_even_end"));
  CHECK(edge_between(*sdfg, "A", "if_even_guard"));
  CHECK(diagnostics(*sdfg) == "");
}

TEST_CASE("flatten: states keep their identity, labels and content", "[flatten]") {
  auto sdfg = loop_with_conditional();
  std::vector<SDFGState*> before = sdfg->all_states();
  flatten_control_flow(*sdfg);
  std::set<const SDFGState*> after;
  for (const auto* s : sdfg->all_states()) after.insert(s);
  for (const auto* s : before) CHECK(after.count(s) == 1);
  CHECK(state_named(*sdfg, "init")->id() == 0);  // top-level states keep their ids
}

TEST_CASE("flatten: the init statement gets its own state where it cannot be merged", "[flatten]") {
  SECTION("loop as start block, with an empty body") {
    SDFG sdfg("startloop");
    sdfg.add_symbol("N");
    auto& loop = sdfg.add_loop("L", "k", "k = 0", "k < N", "k = k + 1");
    sdfg.set_start_block(loop.id());
    CHECK(flatten_control_flow(sdfg) == 1);
    REQUIRE(only_states(sdfg));
    CHECK(sdfg.num_blocks() == 4);  // L_init, L_guard, L_body, L_end
    CHECK(sdfg.start_block() == id_of(sdfg, "L_init"));
    const auto* e = edge_between(sdfg, "L_init", "L_guard");
    REQUIRE(e);
    CHECK(e->data.assignments == Assignments{{"k", "0"}});
    CHECK(edge_between(sdfg, "L_body", "L_guard"));
    Run r = run(sdfg, {{"N", 7}});
    CHECK(count_of(r, sdfg, "L_body") == 7);
    CHECK(r.env.at("k") == 7);
    CHECK(diagnostics(sdfg) == "");
  }
  SECTION("the incoming edge assigns the loop variable") {
    auto build = [] {
      auto sdfg = std::make_unique<SDFG>("reassign");
      sdfg->add_symbol("N");
      sdfg->add_symbol("k");
      auto& s = sdfg->add_state("s", true);
      auto& loop = sdfg->add_loop("L", "k", "k = (k + 1)", "k < N", "k = k + 1");
      sdfg->add_edge(s.id(), loop.id(), assign_edge("k", "5"));
      loop.add_state("body", true);
      return sdfg;
    };
    auto sdfg = build();
    flatten_control_flow(*sdfg);
    const auto* e = edge_between(*sdfg, "s", "L_init");
    REQUIRE(e);
    CHECK(e->data.assignments == Assignments{{"k", "5"}});
    CHECK(edge_between(*sdfg, "L_init", "L_guard")->data.assignments == Assignments{{"k", "k + 1"}});
    CHECK(diagnostics(*sdfg) == "");
    check_semantics(build, {{{"N", 4}}, {{"N", 10}}});
  }
}

TEST_CASE("flatten: several statements in init and update", "[flatten]") {
  auto build = [] {
    auto sdfg = std::make_unique<SDFG>("multi");
    sdfg->add_symbol("N");
    auto& s = sdfg->add_state("s", true);
    auto& loop = sdfg->add_loop("L", "i", "i = 0; j = 10", "i < N", "i = i + 1\nj = j - 2");
    sdfg->add_edge(s.id(), loop.id());
    loop.add_state("body", true);
    return sdfg;
  };
  auto sdfg = build();
  flatten_control_flow(*sdfg);
  CHECK(edge_between(*sdfg, "s", "L_guard")->data.assignments == Assignments{{"i", "0"}, {"j", "10"}});
  CHECK(edge_between(*sdfg, "body", "L_guard")->data.assignments ==
        Assignments{{"i", "i + 1"}, {"j", "j - 2"}});
  Run r = run(*sdfg, {{"N", 3}});
  CHECK(r.env.at("j") == 4);
  check_semantics(build, {{{"N", 0}}, {{"N", 3}}});
}

TEST_CASE("flatten: loop statements that are not assignments are rejected", "[flatten]") {
  auto sdfg = loop_with_conditional();
  auto* loop = sdfg->block(1).as<LoopRegion>();
  REQUIRE(loop);
  SECTION("augmented assignment") { loop->update_statement.code = "t += 1"; }
  SECTION("expression") { loop->init_statement.code = "reset(t)"; }
  SECTION("comparison only") { loop->update_statement.code = "t == 1"; }
  std::size_t blocks = sdfg->num_blocks();
  try {
    flatten_control_flow(*sdfg);
    FAIL("no error");
  } catch (const Error& e) {
    std::string what = e.what();
    INFO(what);
    CHECK(what.find("for_t") != std::string::npos);
    CHECK(what.find("name = expression") != std::string::npos);
  }
  // Nothing was changed.
  CHECK(sdfg->num_blocks() == blocks);
  CHECK(sdfg->block(1).kind() == BlockKind::Loop);
  CHECK(sdfg->using_explicit_control_flow);
}

TEST_CASE("flatten: break outside a loop is rejected", "[flatten]") {
  SDFG sdfg("badbreak");
  auto& s = sdfg.add_state("s", true);
  auto& c = sdfg.add_conditional("c");
  sdfg.add_edge(s.id(), c.id());
  c.add_branch(CodeBlock{"1", Language::Python})
      .add_block(std::make_unique<ControlTransferBlock>(BlockKind::Break, "b"), true);
  CHECK_THROWS_WITH(flatten_control_flow(sdfg), Catch::Contains("not inside a loop"));
  CHECK(sdfg.num_blocks() == 2);
}

TEST_CASE("flatten: break redirects to the loop exit", "[flatten]") {
  auto sdfg = loop_with_break();
  CHECK(flatten_control_flow(*sdfg) == 3);  // loop, conditional, break
  REQUIRE(only_states(*sdfg));
  // The break's in-edge (from the conditional's guard) now leaves the loop.
  const auto* e = edge_between(*sdfg, "if_three_guard", "for_t_end");
  REQUIRE(e);
  CHECK(e->data.condition.code == "t == 3");
  CHECK(state_named(*sdfg, "brk") == nullptr);
  CHECK(diagnostics(*sdfg) == "");
  for (long T : {0L, 2L, 3L, 4L, 10L}) {
    Run r = run(*sdfg, {{"TSTEPS", T}});
    CHECK(count_of(r, *sdfg, "A") == std::min(T, 4L));
    CHECK(count_of(r, *sdfg, "B") == std::min(T, 3L));
    CHECK(count_of(r, *sdfg, "after") == 1);
  }
  check_semantics(loop_with_break, {{{"TSTEPS", 0}}, {{"TSTEPS", 3}}, {{"TSTEPS", 4}}, {{"TSTEPS", 10}}});
}

TEST_CASE("flatten: continue goes to the update", "[flatten]") {
  auto sdfg = loop_with_continue();
  flatten_control_flow(*sdfg);
  REQUIRE(only_states(*sdfg));
  const auto* e = edge_between(*sdfg, "if_mod3_guard", "for_t_guard");
  REQUIRE(e);
  CHECK(e->data.condition.code == "(t % 3) == 0");  // a branch's condition as written
  CHECK(e->data.assignments == Assignments{{"t", "t + 1"}});
  for (long T : {0L, 1L, 5L, 9L}) {
    Run r = run(*sdfg, {{"TSTEPS", T}});
    CHECK(count_of(r, *sdfg, "A") == T);
    CHECK(count_of(r, *sdfg, "B") == T - (T + 2) / 3);
  }
  check_semantics(loop_with_continue, {{{"TSTEPS", 0}}, {{"TSTEPS", 7}}});
}

TEST_CASE("flatten: states of different regions that share a label get unique ones", "[flatten]") {
  // As an orchestrated program: a loop whose body calls two stencils, each call a region with
  // states of the same labels ("main", as every lowered stencil's state), and a "main" at the top.
  auto build = [] {
    auto sdfg = std::make_unique<SDFG>("calls");
    sdfg->add_symbol("TSTEPS");
    sdfg->add_symbol("t");
    auto& top = sdfg->add_state("main", true);
    auto& loop = sdfg->add_loop("for_t", "t", "t = 0", "t < TSTEPS", "t = t + 1");
    sdfg->add_edge(top.id(), loop.id());
    auto& call0 = loop.add_region("call_0");
    auto& call1 = loop.add_region("call_1");
    loop.add_edge(call0.id(), call1.id());
    for (ControlFlowRegion* call : {&call0, &call1}) {
      auto& a = call->add_state("main", true);
      auto& b = call->add_state("main_1");
      call->add_edge(a.id(), b.id());
    }
    return sdfg;
  };
  auto sdfg = build();
  REQUIRE(diagnostics(*sdfg) == "");
  CHECK(flatten_control_flow(*sdfg) == 3);
  REQUIRE(only_states(*sdfg));
  std::multiset<std::string> labels;
  for (const auto* b : sdfg->blocks()) labels.insert(b->label);
  // The first of each label keeps it (the top state "main"); the others get fresh labels that no
  // block had before ("main_1" was taken: the second "main" becomes "main_2").
  CHECK(labels == std::multiset<std::string>{"main", "main_1", "main_1_1", "main_2", "main_3", "for_t_guard",
                                             "for_t_end"});
  CHECK(state_named(*sdfg, "main")->id() == 0);
  CHECK(diagnostics(*sdfg) == "");
  check_semantics(build, {{{"TSTEPS", 0}}, {{"TSTEPS", 3}}});
}

TEST_CASE("flatten: loop with a nested conditional keeps execution counts", "[flatten]") {
  for (long T : {0L, 1L, 5L, 10L}) {
    auto sdfg = loop_with_conditional();
    Run before = run(*sdfg, {{"TSTEPS", T}});
    CHECK(count_of(before, *sdfg, "A") == T);
    CHECK(count_of(before, *sdfg, "B") == (T + 1) / 2);
    flatten_control_flow(*sdfg);
    Run after = run(*sdfg, {{"TSTEPS", T}});
    CHECK(count_of(after, *sdfg, "A") == T);
    CHECK(count_of(after, *sdfg, "B") == (T + 1) / 2);
    CHECK(count_of(after, *sdfg, "init") == 1);
    CHECK(count_of(after, *sdfg, "after") == 1);
    require_same_counts(*sdfg, before, after);
    CHECK(after.env.at("t") == before.env.at("t"));
  }
}

TEST_CASE("flatten: do-while loops, update before or after the condition", "[flatten]") {
  for (bool ubc : {true, false}) {
    auto build = [ubc] { return do_while(ubc); };
    auto sdfg = build();
    flatten_control_flow(*sdfg);
    REQUIRE(only_states(*sdfg));
    // The body is entered first, with the init assignment.
    const auto* e = edge_between(*sdfg, "pre", "A");
    REQUIRE(e);
    CHECK(e->data.assignments == Assignments{{"i", "0"}});
    const auto* again = edge_between(*sdfg, "dw_guard", "A");
    REQUIRE(again);
    CHECK(again->data.condition.code == "i < N");
    CHECK(again->data.assignments.empty() == ubc);
    CHECK(edge_between(*sdfg, "A", "dw_guard")->data.assignments.empty() == !ubc);
    for (long n : {0L, 1L, 3L}) {
      Run r = run(*sdfg, {{"N", n}});
      long expect = ubc ? std::max(n, 1L) : n + 1;
      CHECK(count_of(r, *sdfg, "A") == expect);
      CHECK(count_of(r, *sdfg, "post") == 1);
    }
    check_semantics(build, {{{"N", 0}}, {{"N", 1}}, {{"N", 4}}});
  }
}

TEST_CASE("flatten: nested loops with continue at the body start and an inner break", "[flatten]") {
  auto sdfg = nested_loops();
  CHECK(flatten_control_flow(*sdfg) == 6);  // 2 loops, 2 conditionals, continue, break
  REQUIRE(only_states(*sdfg));
  CHECK(diagnostics(*sdfg) == "");
  for (long n : {0L, 1L, 2L, 5L}) {
    Run r = run(*sdfg, {{"N", n}});
    long c = 0, d = 0;
    for (long i = 0; i < n; ++i) {
      if (i == 1) continue;
      c += std::min(i, 3L);
      ++d;
    }
    CHECK(count_of(r, *sdfg, "C") == c);
    CHECK(count_of(r, *sdfg, "D") == d);
  }
  check_semantics(nested_loops, {{{"N", 0}}, {{"N", 2}}, {{"N", 6}}});
}

TEST_CASE("flatten: regions and return", "[flatten]") {
  auto sdfg = region_with_return();
  CHECK(flatten_control_flow(*sdfg) == 3);  // region, conditional, return
  REQUIRE(only_states(*sdfg));
  // The return block became an empty sink state with its label.
  const SDFGState* ret = state_named(*sdfg, "ret");
  REQUIRE(ret);
  CHECK(sdfg->out_edges(ret->id()).empty());
  CHECK(edge_between(*sdfg, "s0", "r0"));
  CHECK(edge_between(*sdfg, "r1", "s1"));  // the region's single end state keeps its out-edge
  CHECK(diagnostics(*sdfg) == "");
  Run big = run(*sdfg, {{"x", 5}});
  CHECK(count_of(big, *sdfg, "r0") == 1);
  CHECK(count_of(big, *sdfg, "r1") == 0);
  CHECK(count_of(big, *sdfg, "s1") == 0);
  Run small = run(*sdfg, {{"x", 1}});
  CHECK(count_of(small, *sdfg, "r1") == 1);
  CHECK(count_of(small, *sdfg, "s1") == 1);
  check_semantics(region_with_return, {{{"x", 5}}, {{"x", 0}}});
}

TEST_CASE("flatten: return inside a loop ends the SDFG", "[flatten]") {
  auto build = [] {
    auto sdfg = std::make_unique<SDFG>("loopreturn");
    sdfg->add_symbol("TSTEPS");
    auto& loop = sdfg->add_loop("for_t", "t", "t = 0", "(t < TSTEPS)", "t = (t + 1)");
    sdfg->set_start_block(loop.id());
    auto& after = sdfg->add_state("after");
    sdfg->add_edge(loop.id(), after.id());
    auto& a = loop.add_state("A", true);
    auto& c = loop.add_conditional("if_two");
    loop.add_edge(a.id(), c.id());
    c.add_branch(CodeBlock{"t == 2", Language::Python})
        .add_block(std::make_unique<ControlTransferBlock>(BlockKind::Return), true);
    return sdfg;
  };
  auto sdfg = build();
  flatten_control_flow(*sdfg);
  REQUIRE(only_states(*sdfg));
  CHECK(state_named(*sdfg, "return_state"));
  CHECK(diagnostics(*sdfg) == "");
  Run r = run(*sdfg, {{"TSTEPS", 10}});
  CHECK(count_of(r, *sdfg, "A") == 3);
  CHECK(count_of(r, *sdfg, "after") == 0);
  check_semantics(build, {{{"TSTEPS", 1}}, {{"TSTEPS", 10}}});
}

TEST_CASE("flatten: if / elif / else conditions", "[flatten]") {
  SECTION("with else") {
    auto sdfg = if_elif_else(true);
    flatten_control_flow(*sdfg);
    REQUIRE(only_states(*sdfg));
    CHECK(edge_between(*sdfg, "sel_guard", "neg")->data.condition.code == "x < 0");
    // The empty elif branch goes straight to the join.
    CHECK(edge_between(*sdfg, "sel_guard", "sel_end")->data.condition.code == "(not (x < 0)) and (x == 0)");
    CHECK(edge_between(*sdfg, "sel_guard", "pos")->data.condition.code == "(not (x < 0)) and (not (x == 0))");
    CHECK(sdfg->out_edges(id_of(*sdfg, "sel_guard")).size() == 3);
    CHECK(diagnostics(*sdfg) == "");
    for (long x : {-3L, 0L, 4L}) {
      Run r = run(*sdfg, {{"x", x}});
      CHECK(count_of(r, *sdfg, "neg") == (x < 0 ? 1 : 0));
      CHECK(count_of(r, *sdfg, "pos") == (x > 0 ? 1 : 0));
      CHECK(count_of(r, *sdfg, "done") == 1);
      CHECK(r.ambiguous == 0);
    }
    check_semantics([] { return if_elif_else(true); }, {{{"x", -1}}, {{"x", 0}}, {{"x", 1}}});
  }
  SECTION("without else: the implicit else and the empty branch share the join") {
    auto sdfg = if_elif_else(false);
    flatten_control_flow(*sdfg);
    REQUIRE(only_states(*sdfg));
    // No parallel edges: the second edge to the join goes through a fresh state.
    std::set<std::pair<BlockId, BlockId>> pairs;
    for (const auto* e : sdfg->edges()) CHECK(pairs.insert({e->src, e->dst}).second);
    CHECK(state_named(*sdfg, "sel_else"));
    CHECK(diagnostics(*sdfg) == "");
    check_semantics([] { return if_elif_else(false); }, {{{"x", -1}}, {{"x", 0}}, {{"x", 1}}});
  }
}

TEST_CASE("flatten: a state whose conditions may all fail ends its loop iteration", "[flatten]") {
  auto build = [] {
    auto sdfg = std::make_unique<SDFG>("fallthrough");
    sdfg->add_symbol("TSTEPS");
    sdfg->add_symbol("x");
    auto& loop = sdfg->add_loop("for_t", "t", "t = 0", "t < TSTEPS", "t = t + 1");
    sdfg->set_start_block(loop.id());
    auto& after = sdfg->add_state("after");
    sdfg->add_edge(loop.id(), after.id());
    auto& a = loop.add_state("A", true);
    auto& b = loop.add_state("B");
    InterstateEdge e;
    e.condition = CodeBlock{"x > 0", Language::Python};
    loop.add_edge(a.id(), b.id(), e);
    return sdfg;
  };
  auto sdfg = build();
  flatten_control_flow(*sdfg);
  const auto* ft = edge_between(*sdfg, "A", "for_t_guard");
  REQUIRE(ft);
  CHECK(ft->data.condition.code == "not (x > 0)");
  CHECK(ft->data.assignments == Assignments{{"t", "t + 1"}});
  Run r = run(*sdfg, {{"TSTEPS", 4}, {"x", 0}});
  CHECK(count_of(r, *sdfg, "A") == 4);
  CHECK(count_of(r, *sdfg, "B") == 0);
  CHECK(count_of(r, *sdfg, "after") == 1);
  check_semantics(build, {{{"TSTEPS", 4}, {"x", 0}}, {{"TSTEPS", 4}, {"x", 1}}});
}

TEST_CASE("flatten: fall-through edges only where the conditions may all fail", "[flatten]") {
  // for_t { A --x > 0--> B, A --x < -5--> C; P --(x == 1)--> Q, P --not (x == 1)--> R }
  auto build = [] {
    auto sdfg = std::make_unique<SDFG>("fallthrough2");
    sdfg->add_symbol("x");
    auto& loop = sdfg->add_loop("for_t", "t", "t = 0", "t < 3", "t = t + 1");
    sdfg->set_start_block(loop.id());
    auto& a = loop.add_state("A", true);
    auto& b = loop.add_state("B");
    auto& c = loop.add_state("C");
    auto& p = loop.add_state("P");
    auto& q = loop.add_state("Q");
    auto& r = loop.add_state("R");
    auto cond = [](const char* text) {
      InterstateEdge e;
      e.condition = CodeBlock{text, Language::Python};
      return e;
    };
    loop.add_edge(a.id(), b.id(), cond("x > 0"));
    loop.add_edge(a.id(), c.id(), cond("x < -5"));
    loop.add_edge(b.id(), p.id());
    loop.add_edge(c.id(), p.id());
    loop.add_edge(p.id(), q.id(), cond("(x == 1)"));
    loop.add_edge(p.id(), r.id(), cond("not (x == 1)"));
    return sdfg;
  };
  auto sdfg = build();
  flatten_control_flow(*sdfg);
  const auto* ft = edge_between(*sdfg, "A", "for_t_guard");
  REQUIRE(ft);
  CHECK(ft->data.condition.code == "not ((x > 0) or (x < -5))");
  CHECK(sdfg->out_edges(id_of(*sdfg, "P")).size() == 2);  // exhaustive: no fall-through
  // Both sinks go back to the guard with the update.
  CHECK(edge_between(*sdfg, "Q", "for_t_guard"));
  CHECK(edge_between(*sdfg, "R", "for_t_guard"));
  CHECK(diagnostics(*sdfg) == "");
  check_semantics(build, {{{"x", 0}}, {{"x", 1}}, {{"x", 2}}, {{"x", -9}}});
}

TEST_CASE("flatten: conditions are composed on their trees, comments and parentheses alike", "[flatten]") {
  // for_t (t < TSTEPS  # bound) { A --x > 0  # positive--> B, A --second--> C }. Pasting texts
  // together would have written "not (x > 0  # positive)", whose comment hides the closing
  // parenthesis.
  auto build = [](const char* second) {
    auto sdfg = std::make_unique<SDFG>("comments");
    sdfg->add_symbol("TSTEPS");
    sdfg->add_symbol("x");
    auto& loop = sdfg->add_loop("for_t", "t", "t = 0", "t < TSTEPS  # bound", "t = t + 1");
    sdfg->set_start_block(loop.id());
    auto& a = loop.add_state("A", true);
    auto& b = loop.add_state("B");
    auto& c = loop.add_state("C");
    InterstateEdge pos, other;
    pos.condition = CodeBlock{"x > 0  # positive", Language::Python};
    other.condition = CodeBlock{second, Language::Python};
    loop.add_edge(a.id(), b.id(), pos);
    loop.add_edge(a.id(), c.id(), other);
    return sdfg;
  };
  SECTION("conditions that may all fail get a fall-through edge") {
    auto sdfg = build("x < -5");
    flatten_control_flow(*sdfg);
    CHECK(edge_between(*sdfg, "for_t_guard", "for_t_end")->data.condition.code == "not (t < TSTEPS)");
    CHECK(edge_between(*sdfg, "for_t_guard", "A")->data.condition.code == "t < TSTEPS  # bound");
    const auto* ft = edge_between(*sdfg, "A", "for_t_guard");
    REQUIRE(ft);
    CHECK(ft->data.condition.code == "not ((x > 0) or (x < -5))");
    CHECK(diagnostics(*sdfg) == "");
  }
  SECTION("a negation in other parentheses is recognized on the tree: no fall-through edge") {
    auto sdfg = build("(not ((x > 0)))");
    flatten_control_flow(*sdfg);
    CHECK(sdfg->out_edges(id_of(*sdfg, "A")).size() == 2);
    CHECK(diagnostics(*sdfg) == "");
  }
}

TEST_CASE("flatten: conditions it cannot negate are refused before any change", "[flatten]") {
  auto sdfg = loop_with_conditional();
  auto* loop = sdfg->block(1).as<LoopRegion>();
  REQUIRE(loop);
  std::string expected;
  SECTION("invalid Python") {
    loop->loop_condition.code = "t <";
    expected =
        "flatten_control_flow: loop 'for_t' in SDFG 'loopcond': cannot negate the condition 't <': not valid "
        "Python";
  }
  SECTION("statements, not an expression") {
    loop->loop_condition.code = "t = 1";
    expected =
        "flatten_control_flow: loop 'for_t' in SDFG 'loopcond': cannot negate the condition 't = 1': not one "
        "expression";
  }
  SECTION("C++") {
    loop->loop_condition = CodeBlock{"t < TSTEPS", Language::CPP};
    expected =
        "flatten_control_flow: loop 'for_t' in SDFG 'loopcond': cannot negate the condition 't < TSTEPS': it "
        "is CPP, not Python";
  }
  const std::size_t blocks = sdfg->num_blocks();
  try {
    flatten_control_flow(*sdfg);
    FAIL("no error");
  } catch (const weir::Error& e) {
    INFO(e.what());
    CHECK(std::string(e.what()).rfind(expected, 0) == 0);
  }
  CHECK(sdfg->num_blocks() == blocks);  // unchanged
  CHECK(sdfg->block(1).as<LoopRegion>());
}

TEST_CASE("flatten: a region with several end states gets a joining end state", "[flatten]") {
  auto build = [] {
    auto sdfg = std::make_unique<SDFG>("regionends");
    sdfg->add_symbol("x");
    auto& reg = sdfg->add_region("reg");
    sdfg->set_start_block(reg.id());
    auto& after = sdfg->add_state("after");
    InterstateEdge out;
    out.assignments.emplace_back("y", "x + 1");
    sdfg->add_edge(reg.id(), after.id(), out);
    auto& a = reg.add_state("a", true);
    auto& b = reg.add_state("b");
    auto& c = reg.add_state("c");
    InterstateEdge pos, neg;
    pos.condition = CodeBlock{"x > 0", Language::Python};
    neg.condition = CodeBlock{"not (x > 0)", Language::Python};
    reg.add_edge(a.id(), b.id(), pos);
    reg.add_edge(a.id(), c.id(), neg);
    return sdfg;
  };
  auto sdfg = build();
  CHECK(flatten_control_flow(*sdfg) == 1);
  REQUIRE(only_states(*sdfg));
  CHECK(sdfg->start_block() == id_of(*sdfg, "a"));
  CHECK(edge_between(*sdfg, "b", "reg_end"));
  CHECK(edge_between(*sdfg, "c", "reg_end"));
  const auto* e = edge_between(*sdfg, "reg_end", "after");
  REQUIRE(e);
  CHECK(e->data.assignments == Assignments{{"y", "x + 1"}});
  CHECK(diagnostics(*sdfg) == "");
  Run r = run(*sdfg, {{"x", 4}});
  CHECK(r.env.at("y") == 5);
  check_semantics(build, {{{"x", 1}}, {{"x", 0}}});
}

TEST_CASE("flatten: nested SDFGs are flattened too", "[flatten]") {
  auto inner = loop_with_conditional();
  SDFG outer("outer");
  auto& s = outer.add_state("s", true);
  s.add_nested_sdfg("nest", std::move(inner), {}, {});
  auto& loop = outer.add_loop("L", "k", "k = 0", "k < 2", "k = k + 1");
  outer.add_edge(s.id(), loop.id());
  loop.add_state("body", true);
  CHECK(flatten_control_flow(outer) == 3);
  CHECK(only_states(outer));
  CHECK_FALSE(outer.using_explicit_control_flow);
  for (const auto* n : s.nodes())
    if (const auto* ns = n->as<NestedSDFGNode>()) {
      CHECK_FALSE(ns->sdfg->using_explicit_control_flow);
      CHECK(ns->sdfg->num_blocks() == 8);
    }
}

TEST_CASE("flatten: an SDFG without regions is left alone", "[flatten]") {
  SDFG sdfg("plain");
  auto& a = sdfg.add_state("a", true);
  auto& b = sdfg.add_state("b");
  sdfg.add_edge(a.id(), b.id(), assign_edge("q", "1"));
  CHECK(flatten_control_flow(sdfg) == 0);
  CHECK(sdfg.num_blocks() == 2);
  CHECK(sdfg.edges().size() == 1);
  CHECK_FALSE(sdfg.using_explicit_control_flow);
}

// --- random structured programs ----------------------------------------------------------

namespace {

/// Builds random structured control flow: loops with small trip counts (some inverted),
/// if/elif/else chains, nested regions, break/continue/return, conditional chain edges and
/// interstate assignments. Every loop terminates.
struct RandomProgram {
  std::mt19937 rng;
  int next_label = 0;
  int next_var = 0;

  explicit RandomProgram(unsigned seed) : rng(seed) {}

  int pick(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng); }
  std::string label(const char* p) { return p + std::to_string(next_label++); }

  std::string condition(const std::vector<std::string>& vars) {
    std::string v = vars.empty() ? "x" : vars[pick(static_cast<int>(vars.size()))];
    switch (pick(4)) {
      case 0: return "(" + v + " + x) % 2 == 0";
      case 1: return "(" + v + " < " + std::to_string(pick(3)) + ")";
      case 2: return v + " == " + std::to_string(pick(3));
      default: return "(y % 3 != 1) and (" + v + " >= 1)";
    }
  }

  void fill(ControlFlowRegion& r, int depth, bool in_loop, std::vector<std::string> vars) {
    int n = 1 + pick(3);
    BlockId prev = kNoBlock;
    for (int k = 0; k < n; ++k) {
      BlockId id = add_block(r, depth, in_loop, vars);
      if (prev == kNoBlock) {
        r.set_start_block(id);
      } else {
        InterstateEdge e;
        if (pick(4) == 0) e.condition = CodeBlock{condition(vars), Language::Python};
        if (pick(3) == 0) e.assignments.emplace_back("y", "y + " + std::to_string(1 + pick(2)));
        r.add_edge(prev, id, e);
      }
      auto it = exits[&r].find(id);
      prev = it == exits[&r].end() ? id : it->second;
    }
  }

  BlockId add_block(ControlFlowRegion& r, int depth, bool in_loop, const std::vector<std::string>& vars) {
    int kind = depth >= 3 ? 0 : pick(9);
    if ((kind == 6 || kind == 7) && !in_loop) kind = 0;
    switch (kind) {
      case 1:
      case 2: {
        std::string v = "i" + std::to_string(next_var++);
        auto& loop = r.add_loop(label("loop"), v, v + " = 0", v + " < " + std::to_string(pick(4)),
                                v + " = " + v + " + 1");
        loop.inverted = pick(3) == 0;
        loop.update_before_condition = pick(2) == 0;
        auto inner = vars;
        inner.push_back(v);
        fill(loop, depth + 1, true, inner);
        return loop.id();
      }
      case 3:
      case 4: {
        auto& c = r.add_conditional(label("cond"));
        int branches = 1 + pick(3);
        for (int b = 0; b < branches; ++b) {
          bool is_else = b == branches - 1 && b > 0 && pick(2) == 0;
          auto& body =
              c.add_branch(is_else ? std::nullopt
                                   : std::optional<CodeBlock>(CodeBlock{condition(vars), Language::Python}));
          if (pick(5) != 0) fill(body, depth + 1, in_loop, vars);
        }
        return c.id();
      }
      case 5: {
        auto& reg = r.add_region(label("reg"));
        fill(reg, depth + 1, in_loop, vars);
        return reg.id();
      }
      case 6: return r.add_block(std::make_unique<ControlTransferBlock>(BlockKind::Break, label("brk"))).id();
      case 7:
        return r.add_block(std::make_unique<ControlTransferBlock>(BlockKind::Continue, label("cnt"))).id();
      case 8:
        if (pick(3) == 0)
          return r.add_block(std::make_unique<ControlTransferBlock>(BlockKind::Return, label("ret"))).id();
        [[fallthrough]];
      default: {
        // A state; sometimes an old-style if/else diamond of states.
        auto& s = r.add_state(label("s"));
        if (pick(4) != 0) return s.id();
        auto& a = r.add_state(label("s"));
        auto& b = r.add_state(label("s"));
        std::string c = condition(vars);
        InterstateEdge ea, eb;
        ea.condition = CodeBlock{c, Language::Python};
        eb.condition = CodeBlock{"not (" + c + ")", Language::Python};
        r.add_edge(s.id(), a.id(), ea);
        r.add_edge(s.id(), b.id(), eb);
        auto& j = r.add_state(label("s"));
        r.add_edge(a.id(), j.id());
        r.add_edge(b.id(), j.id());
        exits[&r][s.id()] = j.id();  // the next block in the chain follows j
        return s.id();
      }
    }
  }
  std::map<const ControlFlowRegion*, std::map<BlockId, BlockId>> exits;
};

std::unique_ptr<SDFG> random_program(unsigned seed) {
  auto sdfg = std::make_unique<SDFG>("random" + std::to_string(seed));
  sdfg->add_symbol("x");
  sdfg->add_symbol("y");
  RandomProgram gen(seed);
  gen.fill(*sdfg, 0, false, {});
  return sdfg;
}

}  // namespace

TEST_CASE("flatten: random structured programs keep their execution counts", "[flatten]") {
  int flattened = 0;
  for (unsigned seed = 1; seed <= 400; ++seed) {
    INFO("seed " << seed);
    for (long x : {0L, 1L, 2L}) {
      Env env{{"x", x}, {"y", 0}};
      auto sdfg = random_program(seed);
      Run before = run(*sdfg, env);
      std::size_t removed = flatten_control_flow(*sdfg);
      flattened += removed > 0;
      REQUIRE(only_states(*sdfg));
      CHECK(diagnostics(*sdfg) == "");
      Run after = run(*sdfg, env);
      require_same_counts(*sdfg, before, after);
      CHECK(after.env.at("y") == before.env.at("y"));
      // No parallel edges.
      std::set<std::pair<BlockId, BlockId>> pairs;
      for (const auto* e : sdfg->edges()) CHECK(pairs.insert({e->src, e->dst}).second);
      // The JSON round trip keeps the behaviour.
      auto reloaded = sdfg_from_json_text(sdfg_to_json_text(*sdfg));
      Run again = run(*reloaded, env);
      CHECK(counts_by_label(*reloaded, again) == counts_by_label(*sdfg, after));
    }
  }
  CHECK(flattened > 600);
}

// --- the DaCe corpus -----------------------------------------------------------------------

namespace {

std::filesystem::path corpus_dir() {
  return std::filesystem::path(WEIR_SOURCE_DIR) / ".." / "shared" / "corpus" / "dace";
}

/// Reads the flat `{"NAME": integer, ...}` objects of symbols.json and scalars.json (without
/// a JSON library: this suite links only weir_transforms).
Env read_values(const std::filesystem::path& dir) {
  Env env;
  for (const char* f : {"symbols.json", "scalars.json"}) {
    std::ifstream in(dir / f);
    if (!in) FAIL("cannot read " << (dir / f).string());
    std::stringstream ss;
    ss << in.rdbuf();
    static const std::regex entry("\"([A-Za-z_][A-Za-z0-9_]*)\"\\s*:\\s*(-?[0-9]+)");
    std::string text = ss.str();
    for (std::sregex_iterator it(text.begin(), text.end(), entry), end; it != end; ++it)
      env[(*it)[1].str()] = std::stoll((*it)[2].str());
  }
  return env;
}

void check_corpus_kernel(const std::string& kernel, long iterations) {
  auto dir = corpus_dir() / kernel;
  if (!std::filesystem::is_directory(dir)) FAIL("the DaCe corpus is missing: no directory " << dir.string());
  Env env = read_values(dir);
  REQUIRE(env.count("TSTEPS") == 1);
  std::vector<std::filesystem::path> files;
  for (const auto& f : std::filesystem::directory_iterator(dir))
    if (f.path().extension() == ".sdfg") files.push_back(f.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() == 4);
  for (const auto& file : files) {
    INFO("file " << file.string());
    auto sdfg = load_sdfg(file.string());
    CHECK_FALSE(only_states(*sdfg));
    std::string before_diag = diagnostics(*sdfg);
    Run before = run(*sdfg, env);
    // Every state inside the time loop runs once per iteration.
    bool has_loop_state = false;
    for (const auto* b : sdfg->blocks())
      if (const auto* loop = b->as<LoopRegion>())
        for (const auto* s : loop->all_states()) {
          has_loop_state = true;
          CHECK(before.counts[s] == iterations);
        }
    CHECK(has_loop_state);

    std::size_t removed = flatten_control_flow(*sdfg);
    CHECK(removed >= 1);
    REQUIRE(only_states(*sdfg));
    CHECK_FALSE(sdfg->using_explicit_control_flow);
    INFO("diagnostics before flattening:\n" << before_diag);
    CHECK(diagnostics(*sdfg) == "");
    Run after = run(*sdfg, env);
    require_same_counts(*sdfg, before, after);

    // The flattened SDFG survives a JSON round trip with the same behaviour.
    auto reloaded = sdfg_from_json_text(sdfg_to_json_text(*sdfg), file.filename().string());
    REQUIRE(only_states(*reloaded));
    CHECK_FALSE(reloaded->using_explicit_control_flow);
    CHECK(diagnostics(*reloaded) == "");
    Run again = run(*reloaded, env);
    CHECK(counts_by_label(*reloaded, again) == counts_by_label(*sdfg, after));
    CHECK(again.ambiguous == 0);
  }
}

}  // namespace

TEST_CASE("flatten: laplace2d corpus files", "[flatten][corpus]") {
  check_corpus_kernel("laplace2d", 10);  // t = 0 .. TSTEPS-1, TSTEPS = 10
}

TEST_CASE("flatten: jacobi_2d corpus files", "[flatten][corpus]") {
  check_corpus_kernel("jacobi_2d", 9);  // t = 1 .. TSTEPS-1
}
