// Tests of the cleanup transformations (StateFusion, DeadStateElimination,
// DeadDataflowElimination, RedundantArrayRemoval) and the simplify pipeline.
#include <catch2/catch.hpp>

#include <set>
#include <string>

#include "support/builders.h"
#include "support/interpreter.h"
#include "weir/transforms/dead_dataflow_elimination.h"
#include "weir/transforms/dead_state_elimination.h"
#include "weir/transforms/redundant_array_removal.h"
#include "weir/transforms/registry.h"
#include "weir/transforms/simplify.h"
#include "weir/transforms/state_fusion.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;
using Catch::Matchers::Contains;

namespace {

const std::vector<Symbols> kSizes{{{"N", 5}}, {{"N", 1}}, {{"N", 9}}};

/// out[i] = code(a = in[i]) over i in 0:N, in state `st`.
void map1d(SDFGState& st, const std::string& in, const std::string& out,
           const std::string& code = "b = a + 1", const std::string& label = "m") {
  auto& a = st.add_access(in);
  auto& b = st.add_access(out);
  auto& t = st.add_tasklet(label + "_t", {code, Language::Python}, {"a"}, {"b"});
  auto& m = st.add_map(label, {"i"}, S("0:N"));
  path_in(st, a.id(), {m.id()}, t.id(), "a", {M(in, "0:N"), M(in, "i")});
  path_out(st, t.id(), "b", {m.exit}, b.id(), {M(out, "i"), M(out, "0:N")});
}

std::unique_ptr<SDFG> make_program(const std::vector<std::string>& arrays,
                                   const std::vector<std::string>& transients) {
  auto sdfg = std::make_unique<SDFG>("prog");
  sdfg->add_symbol("N");
  for (const auto& a : arrays) sdfg->add_array(a, ScalarType::Float64, {E("N")});
  for (const auto& a : transients) sdfg->add_array(a, ScalarType::Float64, {E("N")}, true);
  return sdfg;
}

}  // namespace

TEST_CASE("StateFusion: read-after-write states fuse through one access node", "[transforms][state-fusion]") {
  auto sdfg = make_program({"A", "B"}, {"T"});
  auto& s0 = sdfg->add_state("s0", true);
  auto& s1 = sdfg->add_state("s1");
  sdfg->add_edge(s0.id(), s1.id());
  map1d(s0, "A", "T", "b = a * 2", "m0");
  map1d(s1, "T", "B", "b = a + 5", "m1");
  StateFusion t;
  apply_and_check(*sdfg, t, kSizes);
  REQUIRE(sdfg->num_blocks() == 1);
  auto& st = only_state(*sdfg);
  CHECK(st.access_nodes("T").size() == 1);
  CHECK(st.num_nodes() == 9);
}

TEST_CASE("StateFusion: a write after read fuses when the merged array orders it after the reads",
          "[transforms][state-fusion]") {
  // jacobi_1d's time step: s0 B = A + 1 (reads A), s1 A = 3 B (writes A). B merges into one
  // node, downstream of s0's read of A and upstream of s1's write of A.
  auto sdfg = make_program({"A", "B"}, {});
  auto& s0 = sdfg->add_state("s0", true);
  auto& s1 = sdfg->add_state("s1");
  sdfg->add_edge(s0.id(), s1.id());
  map1d(s0, "A", "B", "b = a + 1", "m0");
  map1d(s1, "B", "A", "b = a * 3", "m1");
  auto pass_copy = sdfg->clone_sdfg();
  StateFusion t;
  apply_and_check(*sdfg, t, kSizes);
  REQUIRE(sdfg->num_blocks() == 1);
  CHECK(only_state(*sdfg).access_nodes("B").size() == 1);
  // Values by hand: B = A + 1, A = 3 (A + 1).
  Interpreter in(*sdfg, {{"N", 4}});
  in.randomize(5);
  const std::vector<double> a0 = in.mem["A"];
  in.run();
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(in.mem["B"][i] == a0[i] + 1);
    CHECK(in.mem["A"][i] == (a0[i] + 1) * 3);
  }
  // The state-fusion pass decides the same.
  AnalysisCache cache;
  CHECK(make_pass("state-fusion")->run(*pass_copy, cache) == 1);
  CHECK(pass_copy->num_blocks() == 1);
}

TEST_CASE("StateFusion: a write after read with a reader off the merged path stays apart",
          "[transforms][state-fusion]") {
  // s0 also reads A into C, which nothing in s1 depends on: fused, A = 3 B could run before it.
  auto sdfg = make_program({"A", "B", "C"}, {});
  auto& s0 = sdfg->add_state("s0", true);
  auto& s1 = sdfg->add_state("s1");
  sdfg->add_edge(s0.id(), s1.id());
  map1d(s0, "A", "B", "b = a + 1", "m0");
  map1d(s0, "A", "C", "b = a - 1", "m2");
  map1d(s1, "B", "A", "b = a * 3", "m1");
  StateFusion t;
  AnalysisCache cache;
  std::set<std::string> reasons;
  for (auto& c : find_matches(*sdfg, t, cache))
    if (!c.result) reasons.insert(c.result.reason());
  CHECK(reasons.count("container 'A' is read in 's0' and written in 's1' (write after read)"));
  CHECK(make_pass("state-fusion")->run(*sdfg, cache) == 0);
  CHECK(sdfg->num_blocks() == 2);
}

TEST_CASE("StateFusion: independent states fuse, successors move to the fused state",
          "[transforms][state-fusion]") {
  auto sdfg = make_program({"A", "B", "C", "D"}, {});
  auto& s0 = sdfg->add_state("s0", true);
  auto& s1 = sdfg->add_state("s1");
  auto& s2 = sdfg->add_state("s2");
  sdfg->add_edge(s0.id(), s1.id());
  InterstateEdge cond;
  cond.condition = {"N > 3", Language::Python};
  sdfg->add_edge(s1.id(), s2.id(), cond);
  map1d(s0, "A", "B");
  map1d(s1, "C", "D", "b = a * a");
  map1d(s2, "A", "C", "b = a - 1");
  StateFusion t;
  apply_and_check(*sdfg, t, kSizes);
  REQUIRE(sdfg->num_blocks() == 2);
  REQUIRE(sdfg->edges().size() == 1);
  CHECK(sdfg->edges()[0]->data.condition.code == "N > 3");
}

TEST_CASE("StateFusion: refuses with reasons", "[transforms][state-fusion]") {
  StateFusion t;
  auto build = [](InterstateEdge e, bool war) {
    auto sdfg = make_program({"A", "B", "C"}, {});
    auto& s0 = sdfg->add_state("s0", true);
    auto& s1 = sdfg->add_state("s1");
    sdfg->add_edge(s0.id(), s1.id(), std::move(e));
    map1d(s0, "A", "B");
    if (war)
      map1d(s1, "C", "A");
    else
      map1d(s1, "A", "B");
    return sdfg;
  };
  SECTION("write after read") {
    auto sdfg = build({}, true);
    CHECK(refusal(*sdfg, t) == "container 'A' is read in 's0' and written in 's1' (write after read)");
  }
  SECTION("write after write") {
    auto sdfg = build({}, false);
    CHECK(refusal(*sdfg, t) == "container 'B' is written in both 's0' and 's1' (write after write)");
  }
  SECTION("conditional edge") {
    InterstateEdge e;
    e.condition = {"N > 1", Language::Python};
    auto sdfg = build(e, true);
    CHECK(refusal(*sdfg, t) == "the edge between the states has the condition 'N > 1'");
  }
  SECTION("assignment") {
    InterstateEdge e;
    e.assignments = {{"k", "N + 1"}};
    auto sdfg = build(e, true);
    CHECK(refusal(*sdfg, t) == "the edge between the states assigns 'k'");
  }
}

TEST_CASE("DeadStateElimination: unreachable and constant-false blocks go",
          "[transforms][dead-state-elimination]") {
  auto sdfg = make_program({"A", "B", "C"}, {});
  auto& s0 = sdfg->add_state("s0", true);
  auto& s1 = sdfg->add_state("s1");
  auto& s2 = sdfg->add_state("never");
  InterstateEdge f;
  f.condition = {"False", Language::Python};
  sdfg->add_edge(s0.id(), s1.id());
  sdfg->add_edge(s0.id(), s2.id(), f);
  map1d(s0, "A", "B");
  map1d(s1, "B", "C");
  map1d(s2, "A", "C", "b = 0");
  DeadStateElimination t;
  apply_and_check(*sdfg, t, kSizes);
  CHECK(sdfg->num_blocks() == 2);
  for (auto* b : sdfg->blocks()) CHECK(b->label != "never");
  CHECK(refusal(*sdfg, t) == "block 's0' is reachable from the start block");
}

TEST_CASE("DeadDataflowElimination: isolated access nodes and dead transient writes",
          "[transforms][dead-dataflow-elimination]") {
  auto sdfg = make_program({"A", "B"}, {"T"});
  auto& s0 = sdfg->add_state("s0", true);
  map1d(s0, "A", "B");
  map1d(s0, "A", "T", "b = a * 7", "dead");
  DeadDataflowElimination t;
  apply_and_check(*sdfg, t, kSizes);
  auto& st = only_state(*sdfg);
  CHECK(maps_of(st).size() == 1);
  CHECK_FALSE(sdfg->has_data("T"));
  // The A node that only fed the dead map went with it.
  CHECK(st.access_nodes("A").size() == 1);
  CHECK(st.num_nodes() == 5);
  CHECK_THAT(refusal(*sdfg, t), Contains("is read in this state"));
}

TEST_CASE("DeadDataflowElimination: an access node without edges goes",
          "[transforms][dead-dataflow-elimination]") {
  auto sdfg = make_program({"A", "B"}, {});
  auto& s0 = sdfg->add_state("s0", true);
  map1d(s0, "A", "B");
  s0.add_access("B");
  auto before = sdfg->clone_sdfg();
  DeadDataflowElimination t;
  AnalysisCache cache;
  auto cands = find_matches(*sdfg, t, cache);
  REQUIRE(cands.size() == 3);
  REQUIRE(cands[2].result);
  apply_transactional(*sdfg, t, cands[2].match, cache);
  require_valid(*sdfg);
  CHECK(s0.access_nodes("B").size() == 1);
  CHECK(run_program(*before, {{"N", 4}}, 1) == run_program(*sdfg, {{"N", 4}}, 1));
}

TEST_CASE("DeadDataflowElimination: refuses non-transients and data read elsewhere",
          "[transforms][dead-dataflow-elimination]") {
  auto sdfg = make_program({"A", "B", "C"}, {"T"});
  auto& s0 = sdfg->add_state("s0", true);
  auto& s1 = sdfg->add_state("s1");
  sdfg->add_edge(s0.id(), s1.id());
  map1d(s0, "A", "T");
  map1d(s1, "T", "C");
  DeadDataflowElimination t;
  AnalysisCache cache;
  std::set<std::string> reasons;
  for (auto& c : find_matches(*sdfg, t, cache)) {
    CHECK_FALSE(c.result);
    reasons.insert(c.result.reason());
  }
  CHECK(reasons.count("container 'T' is read elsewhere in the SDFG"));
  CHECK(reasons.count("container 'C' is not transient (the caller may read it)"));
}

namespace {

/// T[i] = 0 over i in `range` (a map whose tasklet reads nothing), in state `st`: the zero-fill
/// the orchestration lowering gives a gtx.zeros local field.
void zero_fill(SDFGState& st, const std::string& T, const std::string& range) {
  auto& t = st.add_access(T);
  auto& z = st.add_tasklet("zero_t", {"b = 0.0", Language::Python}, {}, {"b"});
  auto& m = st.add_map("zero", {"i"}, S(range));
  st.add_edge(m.id(), "", z.id(), "", Memlet{});
  path_out(st, z.id(), "b", {m.exit}, t.id(), {M(T, "i"), M(T, range)});
}

/// s0 zero-fills T over 0:N, s1 writes T over `written` from A, s2 reads T over 0:N into B.
std::unique_ptr<SDFG> zero_then_overwrite(const std::string& written) {
  auto sdfg = make_program({"A", "B"}, {"T"});
  auto& s0 = sdfg->add_state("s0", true);
  auto& s1 = sdfg->add_state("s1");
  auto& s2 = sdfg->add_state("s2");
  sdfg->add_edge(s0.id(), s1.id());
  sdfg->add_edge(s1.id(), s2.id());
  zero_fill(s0, "T", "0:N");
  auto& a = s1.add_access("A");
  auto& t = s1.add_access("T");
  auto& k = s1.add_tasklet("w_t", {"b = a * 2", Language::Python}, {"a"}, {"b"});
  auto& m = s1.add_map("w", {"i"}, S(written));
  path_in(s1, a.id(), {m.id()}, k.id(), "a", {M("A", written), M("A", "i")});
  path_out(s1, k.id(), "b", {m.exit}, t.id(), {M("T", "i"), M("T", written)});
  map1d(s2, "T", "B", "b = a + 5", "r");
  return sdfg;
}

}  // namespace

TEST_CASE(
    "DeadDataflowElimination: a zero-fill that the next state overwrites wherever it is read disappears",
    "[transforms][dead-dataflow-elimination]") {
  auto sdfg = zero_then_overwrite("0:N");
  DeadDataflowElimination t;
  apply_and_check(*sdfg, t, kSizes);  // B = 2 A + 5 before and after, on random A
  const SDFGState& s0 = *sdfg->all_states().front();
  CHECK(s0.label == "s0");
  CHECK(s0.num_nodes() == 0);  // the map, its tasklet and T's node are gone
  CHECK(sdfg->has_data("T"));  // s1 and s2 still use it
}

TEST_CASE("DeadDataflowElimination: a zero-fill that a read sees where the later write leaves it stays",
          "[transforms][dead-dataflow-elimination]") {
  // s1 writes T[1:N] only: B[0] = T[0] + 5 = 5 reads the zero.
  auto sdfg = zero_then_overwrite("1:N");
  DeadDataflowElimination t;
  AnalysisCache cache;
  std::set<std::string> reasons;
  for (auto& c : find_matches(*sdfg, t, cache))
    if (!c.result) reasons.insert(c.result.reason());
  CHECK(
      reasons.count("container 'T' is read elsewhere in the SDFG (at T[0:N] in state 's2', which the 1 "
                    "write(s) that always "
                    "follow do not cover)"));
  // Nothing before the read writes T: the plain reason.
  auto only_zero = make_program({"B"}, {"T"});
  auto& z0 = only_zero->add_state("s0", true);
  auto& z1 = only_zero->add_state("s1");
  only_zero->add_edge(z0.id(), z1.id());
  zero_fill(z0, "T", "0:N");
  map1d(z1, "T", "B");
  reasons.clear();
  for (auto& c : find_matches(*only_zero, t, cache))
    if (!c.result) reasons.insert(c.result.reason());
  CHECK(reasons.count("container 'T' is read elsewhere in the SDFG"));
}

namespace {

/// Fusion's shape of a map that writes T and reads the value at the point: v = a * 2 (a scalar
/// inside the map) -> T[i] (an access node inside the map) -> the exit -> T; v -> B[i] = v + 1.
void fused_write(SDFG& sdfg, SDFGState& st) {
  if (!sdfg.has_data("v")) {
    DataDescriptor v = DataDescriptor::make_scalar(ScalarType::Float64, true);
    sdfg.add_data("v", v);
  }
  auto& a = st.add_access("A");
  auto& t = st.add_access("T");
  auto& b = st.add_access("B");
  auto& m = st.add_map("fused", {"i"}, S("0:N"));
  auto& k1 = st.add_tasklet("twice", {"b = a * 2", Language::Python}, {"a"}, {"b"});
  auto& k2 = st.add_tasklet("plus", {"b = a + 1", Language::Python}, {"a"}, {"b"});
  path_in(st, a.id(), {m.id()}, k1.id(), "a", {M("A", "0:N"), M("A", "i")});
  auto& v = st.add_access("v");
  auto& t_in = st.add_access("T");
  st.add_edge(k1.id(), "b", v.id(), "", M("v", "0"));
  Memlet to_t = M("T", "i");
  to_t.other_subset = S("0");
  st.add_edge(v.id(), "", t_in.id(), "", to_t);
  path_out(st, t_in.id(), "", {m.exit}, t.id(), {M("T", "i"), M("T", "0:N")});
  st.add_edge(v.id(), "", k2.id(), "a", M("v", "0"));
  path_out(st, k2.id(), "b", {m.exit}, b.id(), {M("B", "i"), M("B", "0:N")});
}

/// s0: the fused write of T (and B); s1: T = A + 3 written and, when `own` is true, read from
/// that node into C (else from a node s1 does not write: the value s0 left).
std::unique_ptr<SDFG> reused_transient(bool own) {
  auto sdfg = make_program({"A", "B", "C"}, {"T"});
  auto& s0 = sdfg->add_state("s0", true);
  auto& s1 = sdfg->add_state("s1");
  sdfg->add_edge(s0.id(), s1.id());
  fused_write(*sdfg, s0);
  if (own) {
    auto& a = s1.add_access("A");
    auto& t = s1.add_access("T");
    auto& c = s1.add_access("C");
    auto& k = s1.add_tasklet("w", {"b = a + 3", Language::Python}, {"a"}, {"b"});
    auto& m = s1.add_map("w", {"i"}, S("0:N"));
    path_in(s1, a.id(), {m.id()}, k.id(), "a", {M("A", "0:N"), M("A", "i")});
    path_out(s1, k.id(), "b", {m.exit}, t.id(), {M("T", "i"), M("T", "0:N")});
    auto& k2 = s1.add_tasklet("r", {"b = a * 5", Language::Python}, {"a"}, {"b"});
    auto& m2 = s1.add_map("r", {"i"}, S("0:N"));
    path_in(s1, t.id(), {m2.id()}, k2.id(), "a", {M("T", "0:N"), M("T", "i")});
    path_out(s1, k2.id(), "b", {m2.exit}, c.id(), {M("C", "i"), M("C", "0:N")});
  } else {
    map1d(s1, "T", "C", "b = a * 5", "r");
  }
  return sdfg;
}

}  // namespace

TEST_CASE(
    "DeadDataflowElimination: a write inside a fused map of a transient every state writes before reading "
    "goes",
    "[transforms][dead-dataflow-elimination]") {
  // DaCe's frontend reuses one transient in several loops (vadv's `divided`); each state that
  // reads it wrote it first, so what s0 writes is never read.
  auto sdfg = reused_transient(true);
  DeadDataflowElimination t;
  apply_and_check(*sdfg, t, kSizes);
  const SDFGState& s0 = *sdfg->all_states().front();
  REQUIRE(s0.label == "s0");
  CHECK(s0.access_nodes("T").empty());  // the node inside the map and the one outside
  CHECK(s0.access_nodes("v").size() == 1);
  CHECK(sdfg->has_data("T"));  // s1 still uses it
  // Values by hand: B = 2 A + 1, C = 5 (A + 3).
  Interpreter in(*sdfg, {{"N", 4}});
  in.randomize(3);
  const std::vector<double> a0 = in.mem["A"];
  in.run();
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(in.mem["B"][i] == a0[i] * 2 + 1);
    CHECK(in.mem["C"][i] == (a0[i] + 3) * 5);
  }
}

TEST_CASE("DeadDataflowElimination: a write inside a fused map that a later state reads stays",
          "[transforms][dead-dataflow-elimination]") {
  auto sdfg = reused_transient(false);  // s1 reads the T that s0 wrote
  DeadDataflowElimination t;
  AnalysisCache cache;
  std::set<std::string> reasons;
  for (auto& c : find_matches(*sdfg, t, cache)) {
    CHECK_FALSE(c.result);
    reasons.insert(c.result.reason());
  }
  CHECK(reasons.count("container 'T' is read elsewhere in the SDFG"));
}

TEST_CASE("RedundantArrayRemoval: a full copy of a transient disappears",
          "[transforms][redundant-array-removal]") {
  auto sdfg = make_program({"A", "B"}, {"T"});
  auto& st = sdfg->add_state("s0", true);
  map1d(st, "A", "T", "b = a * 3");
  auto& b = st.add_access("B");
  st.add_edge(st.access_nodes("T")[0]->id(), "", b.id(), "", M("T", "0:N"));
  // Remove the B node map1d did not create: none; the copy target is the new B.
  RedundantArrayRemoval t;
  apply_and_check(*sdfg, t, kSizes);
  CHECK_FALSE(sdfg->has_data("T"));
  CHECK(st.access_nodes("T").empty());
  for (const DataflowEdge* e : st.edges()) CHECK(e->memlet.data != "T");
}

TEST_CASE("RedundantArrayRemoval: refuses partial copies", "[transforms][redundant-array-removal]") {
  auto sdfg = make_program({"A", "B"}, {"T"});
  auto& st = sdfg->add_state("s0", true);
  map1d(st, "A", "T");
  auto& b = st.add_access("B");
  Memlet m = M("T", "1:N");
  m.other_subset = S("0:N-1");
  st.add_edge(st.access_nodes("T")[0]->id(), "", b.id(), "", m);
  RedundantArrayRemoval t;
  CHECK(refusal(*sdfg, t) == "the copy does not read all of 'T' ([1:N])");
}

namespace {

/// T[i] = code(a = <in>[i]) over i in 0:N-2 (T transient of N - 2 elements), then T copied into
/// B[1:N-1]: jacobi_1d's `B[1:-1] = 0.33333 * (...)` as DaCe's frontend writes it.
std::unique_ptr<SDFG> make_part_copy(const std::string& in, const std::string& code = "b = a * 3") {
  auto sdfg = make_program({"A", "B"}, {});
  sdfg->add_array("T", ScalarType::Float64, {E("N - 2")}, true);
  auto& st = sdfg->add_state("s0", true);
  auto& a = st.add_access(in);
  auto& t = st.add_access("T");
  auto& task = st.add_tasklet("t", {code, Language::Python}, {"a"}, {"b"});
  auto& m = st.add_map("m", {"i"}, S("0:N-2"));
  path_in(st, a.id(), {m.id()}, task.id(), "a", {M(in, "0:N-2"), M(in, "i")});
  path_out(st, task.id(), "b", {m.exit}, t.id(), {M("T", "i"), M("T", "0:N-2")});
  auto& b = st.add_access("B");
  Memlet copy = M("T", "0:N-2");
  copy.other_subset = S("1:N-1");
  st.add_edge(t.id(), "", b.id(), "", copy);
  return sdfg;
}

}  // namespace

TEST_CASE("RedundantArrayRemoval: a transient copied into a part of an array writes that part",
          "[transforms][redundant-array-removal]") {
  auto sdfg = make_part_copy("A");
  RedundantArrayRemoval t;
  apply_and_check(*sdfg, t, {{{"N", 5}}, {{"N", 2}}, {{"N", 9}}});
  CHECK_FALSE(sdfg->has_data("T"));
  auto& st = only_state(*sdfg);
  // The tasklet writes B at i + 1, the map exit B[1:N-1]; no copy is left.
  std::set<std::string> written;
  for (const DataflowEdge* e : st.edges()) {
    CHECK(e->memlet.data != "T");
    if (e->memlet.data == "B") written.insert(e->memlet.subset.str());
  }
  CHECK(written == std::set<std::string>{"i + 1", "1:N - 1"});
  // Values by hand: B[i + 1] = 3 A[i], B[0] and B[N-1] keep their values.
  Interpreter in(*sdfg, {{"N", 6}});
  in.randomize(3);
  const std::vector<double> a0 = in.mem["A"], b0 = in.mem["B"];
  in.run();
  const std::vector<double>& b = in.mem["B"];
  REQUIRE(b.size() == 6);
  CHECK(b[0] == b0[0]);
  CHECK(b[5] == b0[5]);
  for (std::size_t i = 0; i < 4; ++i) CHECK(b[i + 1] == a0[i] * 3);
}

namespace {

/// T[i] = 3 A[i] over 0:N-1, copied into the row part C[`row`, 1:N] of C (3 x N).
std::unique_ptr<SDFG> make_row_copy(const std::string& row) {
  auto sdfg = make_program({"A"}, {});
  sdfg->add_array("C", ScalarType::Float64, {E("3"), E("N")});
  sdfg->add_array("T", ScalarType::Float64, {E("N - 1")}, true);
  auto& st = sdfg->add_state("s0", true);
  auto& a = st.add_access("A");
  auto& t = st.add_access("T");
  auto& task = st.add_tasklet("t", {"b = a * 3", Language::Python}, {"a"}, {"b"});
  auto& m = st.add_map("m", {"i"}, S("0:N-1"));
  path_in(st, a.id(), {m.id()}, task.id(), "a", {M("A", "0:N-1"), M("A", "i")});
  path_out(st, task.id(), "b", {m.exit}, t.id(), {M("T", "i"), M("T", "0:N-1")});
  auto& c = st.add_access("C");
  Memlet copy = M("T", "0:N-1");
  copy.other_subset = S(row + ", 1:N");
  st.add_edge(t.id(), "", c.id(), "", copy);
  return sdfg;
}

}  // namespace

TEST_CASE("RedundantArrayRemoval: a 1-D transient copied into a row of a 2-D array writes that row",
          "[transforms][redundant-array-removal]") {
  // correlation's `corr[i, i + 1:M] = data[:, i] @ data[:, i + 1:M]`: the product's result was
  // a transient copied into the row (a buffer and a copy per i).
  auto sdfg = make_row_copy("2");
  RedundantArrayRemoval t;
  apply_and_check(*sdfg, t, {{{"N", 5}}, {{"N", 2}}, {{"N", 9}}});
  CHECK_FALSE(sdfg->has_data("T"));
  std::set<std::string> written;
  for (const DataflowEdge* e : only_state(*sdfg).edges())
    if (e->memlet.data == "C") written.insert(e->memlet.subset.str());
  CHECK(written == std::set<std::string>{"2, i + 1", "2, 1:N"});
  // Values by hand: C[2, i + 1] = 3 A[i]; rows 0 and 1 and C[2, 0] keep theirs.
  Interpreter in(*sdfg, {{"N", 5}});
  in.randomize(4);
  const std::vector<double> a0 = in.mem["A"], c0 = in.mem["C"];
  in.run();
  const std::vector<double>& c = in.mem["C"];
  REQUIRE(c.size() == 15);
  for (std::size_t k = 0; k < 11; ++k) CHECK(c[k] == c0[k]);
  for (std::size_t i = 0; i < 4; ++i) CHECK(c[11 + i] == a0[i] * 3);
  // Two rows do not hold a 1-D transient.
  auto two = make_row_copy("0:2");
  CHECK_THAT(refusal(*two, t), Contains("2 dimension(s) where the transient has 1"));
}

TEST_CASE("RedundantArrayRemoval: refuses a part of an array its writers read",
          "[transforms][redundant-array-removal]") {
  // T[i] = 3 B[i], then B[1:N-1] = T: written directly, B[i + 1] would be written while a later
  // point still reads it.
  auto sdfg = make_part_copy("B");
  RedundantArrayRemoval t;
  CHECK(refusal(*sdfg, t) == "'B' is read by the writers of 'T'");
}

TEST_CASE("RedundantArrayRemoval: refuses a part of another size or with a step",
          "[transforms][redundant-array-removal]") {
  auto sdfg = make_part_copy("A");
  auto& st = only_state(*sdfg);
  const auto& outs = st.out_edges(st.access_nodes("T")[0]->id());
  REQUIRE(outs.size() == 1);
  Memlet* copy = &st.edge(outs.front()).memlet;
  RedundantArrayRemoval t;
  copy->other_subset = S("0:N-1:2");
  CHECK(refusal(*sdfg, t) == "the copy writes [0:N - 1:2] of 'B' with a step");
  copy->other_subset = S("1:N");
  CHECK(refusal(*sdfg, t) ==
        "the copy writes [1:N] of 'B', whose size in dimension 0 is not the transient's (N - 2)");
}

TEST_CASE("RedundantArrayRemoval: refuses a part of an array when the transient is itself a copy",
          "[transforms][redundant-array-removal]") {
  // A[2:N] -> T -> B[1:N-1]: the first copy's memlet names A; its T side is not moved.
  auto sdfg = make_program({"A", "B"}, {});
  sdfg->add_array("T", ScalarType::Float64, {E("N - 2")}, true);
  auto& st = sdfg->add_state("s0", true);
  auto& a = st.add_access("A");
  auto& t = st.add_access("T");
  auto& b = st.add_access("B");
  Memlet in = M("A", "2:N");
  in.other_subset = S("0:N-2");
  st.add_edge(a.id(), "", t.id(), "", in);
  Memlet out = M("T", "0:N-2");
  out.other_subset = S("1:N-1");
  st.add_edge(t.id(), "", b.id(), "", out);
  RedundantArrayRemoval rar;
  transforms::AnalysisCache cache;
  std::set<std::string> reasons;
  for (auto& c : find_matches(*sdfg, rar, cache))
    if (!c.result) reasons.insert(c.result.reason());
  CHECK(reasons.count("'T' is written by a copy, and the copy into 'B' writes only [1:N - 1] of it"));
}

TEST_CASE("simplify: a fixed point of the cleanup passes", "[transforms][simplify]") {
  auto sdfg = make_program({"A", "B", "C"}, {"T", "U"});
  auto& s0 = sdfg->add_state("s0", true);
  auto& s1 = sdfg->add_state("s1");
  auto& s2 = sdfg->add_state("dead");
  sdfg->add_edge(s0.id(), s1.id());
  map1d(s0, "A", "T", "b = a * 2", "m0");
  map1d(s1, "T", "U", "b = a + 1", "m1");
  auto& c = s1.add_access("C");
  s1.add_edge(s1.access_nodes("U")[0]->id(), "", c.id(), "", M("U", "0:N"));
  map1d(s2, "A", "B");
  auto before = sdfg->clone_sdfg();
  auto p = make_simplify_pipeline();
  CHECK(p->str_passes() ==
        "dead-state-elimination,dead-assignment-elimination,state-fusion,dead-dataflow-elimination,"
        "redundant-array-removal,trivial-map-elimination");
  AnalysisCache cache;
  std::size_t n = p->run(*sdfg, cache);
  CHECK(n >= 3);
  CHECK(p->rounds_run() >= 2);
  require_valid(*sdfg);
  CHECK(sdfg->num_blocks() == 1);
  CHECK_FALSE(sdfg->has_data("U"));
  for (unsigned seed : {3u, 5u})
    for (const auto& syms : kSizes) CHECK(run_program(*before, syms, seed) == run_program(*sdfg, syms, seed));
  // A second run changes nothing.
  CHECK(simplify(*sdfg) == 0);
}
