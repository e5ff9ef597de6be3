// Tests of dead-assignment-elimination: interstate assignments overwritten on every path before
// a read (or read nowhere) are removed, live ones are kept with the reason; the SDFG stays valid
// and computes the same values (reference interpreter, values worked out by hand), and states
// joined by freed edges fuse.
#include <catch2/catch.hpp>

#include "support/builders.h"
#include "weir/transforms/dead_assignment_elimination.h"
#include "weir/transforms/registry.h"
#include "weir/transforms/simplify.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;

namespace {

/// out[i] = code(a) with a = in[i], over i in 0:N (the code may read symbols).
void map_state(SDFGState& st, const std::string& in, const std::string& out, const std::string& code) {
  auto& a = st.add_access(in);
  auto& b = st.add_access(out);
  auto& t = st.add_tasklet("t", {"o = " + code, Language::Python}, {"a"}, {"o"});
  auto& mp = st.add_map("m_" + out, {"i"}, S("0:N"));
  path_in(st, a.id(), {mp.id()}, t.id(), "a", {M(in, "0:N"), M(in, "i")});
  path_out(st, t.id(), "o", {mp.exit}, b.id(), {M(out, "i"), M(out, "0:N")});
}

std::unique_ptr<SDFG> arrays(const std::string& name) {
  auto sdfg = std::make_unique<SDFG>(name);
  sdfg->add_symbol("N");
  sdfg->add_symbol("x");
  for (const char* a : {"A", "B", "C", "D"}) sdfg->add_array(a, ScalarType::Float64, {E("N")});
  return sdfg;
}

InterstateEdge assign(std::vector<std::pair<std::string, std::string>> as, const std::string& cond = "1") {
  InterstateEdge e;
  for (auto& [k, v] : as) e.assignments.emplace_back(k, CodeBlock{v, Language::Python});
  e.condition = CodeBlock{cond, Language::Python};
  return e;
}

std::size_t run_pass(SDFG& sdfg, const std::string& name) {
  auto pass = make_pass(name);
  REQUIRE(pass);
  AnalysisCache cache;
  std::size_t n = pass->run(sdfg, cache);
  require_valid(sdfg);
  return n;
}

std::size_t assignments_of(const SDFG& sdfg, const std::string& sym) {
  std::size_t n = 0;
  for (const auto* e : sdfg.edges())
    for (const auto& [k, v] : e->data.assignments) n += k == sym;
  return n;
}

const Symbols kN{{"N", 5}};

}  // namespace

TEST_CASE("dead-assignment-elimination: an assignment overwritten before any read goes, states then fuse",
          "[transforms][dead-assignment-elimination]") {
  auto sdfg = arrays("overwritten");
  auto& s0 = sdfg->add_state("s0", true);
  auto& s1 = sdfg->add_state("s1");
  auto& s2 = sdfg->add_state("s2");
  map_state(s0, "A", "C", "a * 2");
  map_state(s1, "A", "D", "a + 1");
  map_state(s2, "A", "B", "a + x");
  const EdgeId first = sdfg->add_edge(s0.id(), s1.id(), assign({{"x", "1"}})).id;
  const EdgeId second = sdfg->add_edge(s1.id(), s2.id(), assign({{"x", "2"}})).id;
  require_valid(*sdfg);
  CHECK(!assignment_live_reason(*sdfg, *sdfg, first, "x"));
  CHECK(assignment_live_reason(*sdfg, *sdfg, second, "x") == "read in block 's2'");
  CHECK_THROWS_AS(assignment_live_reason(*sdfg, *sdfg, first, "N"), TransformError);

  auto before = run_program(*sdfg, kN, 3);
  for (std::size_t i = 0; i < 5; ++i) {  // by hand: x = 2 when s2 runs
    REQUIRE(before["B"][i] == before["A"][i] + 2);
    REQUIRE(before["C"][i] == before["A"][i] * 2);
  }
  CHECK(run_pass(*sdfg, "dead-assignment-elimination") == 1);
  CHECK(sdfg->edge(first).data.assignments.empty());
  CHECK(assignments_of(*sdfg, "x") == 1);
  CHECK(sdfg->symbols.count("x"));  // still assigned and read
  CHECK(run_program(*sdfg, kN, 3) == before);
  CHECK(run_pass(*sdfg, "dead-assignment-elimination") == 0);

  // s0 -> s1 no longer assigns: state fusion merges them; s1 -> s2 still assigns x.
  CHECK(run_pass(*sdfg, "state-fusion") >= 1);
  CHECK(sdfg->num_blocks() == 2);
  CHECK(run_program(*sdfg, kN, 3) == before);
}

TEST_CASE("dead-assignment-elimination: a symbol nothing reads loses every assignment and its declaration",
          "[transforms][dead-assignment-elimination]") {
  auto sdfg = arrays("unread");
  sdfg->add_symbol("__binding");
  auto& s0 = sdfg->add_state("s0", true);
  auto& s1 = sdfg->add_state("s1");
  auto& s2 = sdfg->add_state("s2");
  map_state(s0, "A", "C", "a * 3");
  map_state(s1, "C", "D", "a - 1");
  map_state(s2, "D", "B", "a * a");
  sdfg->add_edge(s0.id(), s1.id(), assign({{"__binding", "0"}}));
  sdfg->add_edge(s1.id(), s2.id(), assign({{"__binding", "1"}}));
  require_valid(*sdfg);
  auto before = run_program(*sdfg, kN, 5);
  for (std::size_t i = 0; i < 5; ++i) {  // by hand: B = (3 A - 1)^2
    const double v = before["A"][i] * 3 - 1;
    REQUIRE(before["B"][i] == v * v);
  }
  auto pipeline = make_simplify_pipeline();
  AnalysisCache cache;
  CHECK(pipeline->run(*sdfg, cache) >= 3);  // two assignments, then the states fuse
  require_valid(*sdfg);
  CHECK(assignments_of(*sdfg, "__binding") == 0);
  CHECK(!sdfg->symbols.count("__binding"));
  auto args = sdfg->arglist();
  CHECK(std::find(args.begin(), args.end(), "__binding") == args.end());
  CHECK(sdfg->num_blocks() == 1);
  CHECK(run_program(*sdfg, kN, 5) == before);
}

TEST_CASE("dead-assignment-elimination: assignments a read may see are kept, with the reason",
          "[transforms][dead-assignment-elimination]") {
  SECTION("a path around the re-assignment reaches the read") {
    // s0 -(x = 1)-> s1; s1 -(N > 3: x = 2)-> s2; s1 -(N <= 3)-> s3 -> s2 reads x.
    auto sdfg = arrays("branch");
    auto& s0 = sdfg->add_state("s0", true);
    auto& s1 = sdfg->add_state("s1");
    auto& s2 = sdfg->add_state("s2");
    auto& s3 = sdfg->add_state("s3");
    map_state(s0, "A", "C", "a * 2");
    map_state(s2, "A", "B", "a + x");
    const EdgeId e0 = sdfg->add_edge(s0.id(), s1.id(), assign({{"x", "1"}})).id;
    const EdgeId e1 = sdfg->add_edge(s1.id(), s2.id(), assign({{"x", "2"}}, "N > 3")).id;
    sdfg->add_edge(s1.id(), s3.id(), assign({}, "N <= 3"));
    sdfg->add_edge(s3.id(), s2.id());
    require_valid(*sdfg);
    CHECK(assignment_live_reason(*sdfg, *sdfg, e0, "x") == "read in block 's2'");
    CHECK(assignment_live_reason(*sdfg, *sdfg, e1, "x") == "read in block 's2'");
    for (long long n : {5LL, 2LL}) {
      Symbols syms{{"N", n}};
      auto before = run_program(*sdfg, syms, 7);
      const double x = n > 3 ? 2 : 1;  // by hand
      for (long long i = 0; i < n; ++i) REQUIRE(before["B"][i] == before["A"][i] + x);
      CHECK(run_pass(*sdfg, "dead-assignment-elimination") == 0);
      CHECK(run_program(*sdfg, syms, 7) == before);
    }
  }
  SECTION("an interstate condition or assignment reads it") {
    auto sdfg = arrays("edge_reads");
    sdfg->add_symbol("y");
    std::vector<BlockId> s;
    for (const char* n : {"s0", "s1", "s2", "s3", "s4"}) s.push_back(sdfg->add_state(n, s.empty()).id());
    map_state(static_cast<SDFGState&>(sdfg->block(s[4])), "A", "B", "a + x + y");
    const EdgeId e0 = sdfg->add_edge(s[0], s[1], assign({{"x", "1"}})).id;
    const EdgeId e1 = sdfg->add_edge(s[1], s[2], assign({{"y", "x + 10"}})).id;
    const EdgeId e2 = sdfg->add_edge(s[2], s[3], assign({{"x", "4"}})).id;
    const EdgeId e3 = sdfg->add_edge(s[3], s[4], assign({{"x", "x + 2"}}, "x > 0")).id;
    require_valid(*sdfg);
    CHECK(assignment_live_reason(*sdfg, *sdfg, e0, "x") == "read by the edge 's1' -> 's2'");
    CHECK(assignment_live_reason(*sdfg, *sdfg, e1, "y") == "read in block 's4'");
    CHECK(assignment_live_reason(*sdfg, *sdfg, e2, "x") == "read by the edge 's3' -> 's4'");
    CHECK(assignment_live_reason(*sdfg, *sdfg, e3, "x") == "read in block 's4'");
    auto before = run_program(*sdfg, kN, 9);
    for (std::size_t i = 0; i < 5; ++i)  // by hand: y = 1 + 10, x = 4 + 2
      REQUIRE(before["B"][i] == before["A"][i] + 6 + 11);
    CHECK(run_pass(*sdfg, "dead-assignment-elimination") == 0);
    CHECK(run_program(*sdfg, kN, 9) == before);
  }
  SECTION("the end of a loop body is not looked past") {
    // for t in 0:3 { b0 -(x = t)-> b1 }, and B = A + x after the loop.
    auto sdfg = arrays("loop");
    auto& L = sdfg->add_loop("for_t", "t", "t = 0", "t < 3", "t = t + 1");
    auto& b0 = L.add_state("b0", true);
    auto& b1 = L.add_state("b1");
    map_state(b0, "A", "C", "a * 2");
    const EdgeId e = L.add_edge(b0.id(), b1.id(), assign({{"x", "t"}})).id;
    auto& after = sdfg->add_state("after");
    map_state(after, "A", "B", "a + x");
    sdfg->add_edge(L.id(), after.id());
    require_valid(*sdfg);
    CHECK(assignment_live_reason(*sdfg, L, e, "x") == "reaches the end of region 'for_t'");
    auto before = run_program(*sdfg, kN, 11);
    for (std::size_t i = 0; i < 5; ++i) REQUIRE(before["B"][i] == before["A"][i] + 2);  // last t
    CHECK(run_pass(*sdfg, "dead-assignment-elimination") == 0);
    CHECK(run_program(*sdfg, kN, 11) == before);
  }
}
