// Timers on states, library nodes, nested SDFG calls and copies inside map scopes
// (docs/adr/0048-profiling.md, "2026-12-06, session 28: every element inside maps"): each is timed
// on the running thread's own row of slots, as a nested map is (once per thread around the loops
// where it is the whole body of the map around it, else around each execution), with no atomics.
// The executions per call are worked out by hand below; each element's time lies within the time
// of the map around it; results are exact.
#include <catch2/catch.hpp>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "codegen_test_util.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/sdfg/instrumented.h"

using namespace weir;
using namespace weir::codegen;

namespace {

using E = sym::Expr;

std::string chunk_record(int slot) {
  return "weir_profile_record_chunk(weir_profile_thread_slot(weir_profile_rows, weir_profile_row_stride, " +
         std::to_string(slot) + ")";
}
std::string execution_record(int slot) {
  return "weir_profile_record(weir_profile_thread_slot(weir_profile_rows, weir_profile_row_stride, " +
         std::to_string(slot) + ")";
}
/// Where the program's own code starts: after the prelude (whose comments name OpenMP pragmas),
/// at the timer slots.
std::size_t after_prelude(const std::string& source) {
  const auto at = source.find("weir_profile_slot weir_profile_slots[");
  REQUIRE(at != std::string::npos);
  return at;
}

/// C[b] = A[b] @ W (A: N x P x Q, W: Q x R, C: N x P x R) as a MatMul library node per point of
/// a CPU_Multicore map over b. The state, the map and the library node are timed: slots 0, 1, 2.
/// With `beside`, a tasklet D[b] = A[b, 0, 0] + 1 shares the map's body with the library node.
std::unique_ptr<SDFG> batched_matmul(bool beside) {
  auto s = std::make_unique<SDFG>("batched");
  s->add_array("A", ScalarType::Float64, {E::symbol("N"), E(3), E(4)});
  s->add_array("W", ScalarType::Float64, {E(4), E(2)});
  s->add_array("C", ScalarType::Float64, {E::symbol("N"), E(3), E(2)});
  if (beside) s->add_array("D", ScalarType::Float64, {E::symbol("N")});
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& w = st.add_access("W");
  auto& c = st.add_access("C");
  auto& m = st.add_map("batch", {"b"}, Subset::parse("0:N"), ScheduleType::CPU_Multicore);
  auto lib = std::make_unique<LibraryNode>("mm", "LibraryNode");
  lib->classpath = "dace.libraries.blas.nodes.matmul.MatMul";
  lib->in_connectors["_a"] = std::nullopt;
  lib->in_connectors["_b"] = std::nullopt;
  lib->out_connectors["_c"] = std::nullopt;
  Node& mm = st.add_node(std::move(lib));
  st.add_memlet_path({a.id(), m.id(), mm.id()}, Memlet::simple("A", Subset::parse("b, 0:3, 0:4")), "", "_a");
  st.add_memlet_path({w.id(), m.id(), mm.id()}, Memlet::simple("W", Subset::parse("0:4, 0:2")), "", "_b");
  st.add_memlet_path({mm.id(), m.exit, c.id()}, Memlet::simple("C", Subset::parse("b, 0:3, 0:2")), "_c", "");
  if (beside) {
    auto& d = st.add_access("D");
    auto& t = st.add_tasklet("first", {"d = x + 1", Language::Python}, {"x"}, {"d"});
    st.add_memlet_path({a.id(), m.id(), t.id()}, Memlet::simple("A", Subset::parse("b, 0, 0")), "", "x");
    st.add_memlet_path({t.id(), m.exit, d.id()}, Memlet::simple("D", Subset::parse("b")), "d", "");
  }
  set_instrument(st.extra, kTimerInstrument);
  set_instrument(m.extra, kTimerInstrument);
  set_instrument(mm.extra, kTimerInstrument);
  return s;
}

/// Runs batched_matmul twice at N batches and checks each call's profile and the products.
void run_matmul(const std::filesystem::path& library, bool beside, std::int64_t n) {
  test::LoadedProgram p(library);
  auto read = reinterpret_cast<ProfileReadFn>(p.symbol(kSymProfileRead));
  REQUIRE(read);
  const auto batches = static_cast<std::size_t>(n);
  std::vector<double> A(batches * 12), W(8), C(batches * 6, -1.0), D(batches, 0.0);
  // Small integers: every product and sum is exact.
  for (std::size_t k = 0; k < A.size(); ++k) A[k] = static_cast<double>(k % 13) - 6;
  for (std::size_t k = 0; k < W.size(); ++k) W[k] = static_cast<double>(k % 5) - 2;
  std::int64_t sn = n;
  // The containers by name, then the symbols.
  std::vector<void*> args{A.data(), C.data()};
  if (beside) args.push_back(D.data());
  args.push_back(W.data());
  args.push_back(&sn);
  void* h = p.init(args.data());
  REQUIRE(h);
  for (int call = 0; call < 2; ++call) {
    INFO("N = " << n << ", call " << call);
    REQUIRE(p.run(h, args.data()) == 0);
    std::vector<std::int64_t> out(9, -1);
    REQUIRE(read(out.data(), 3) == 0);
    CHECK(out[0] == 1);  // the state: once per call
    CHECK(out[3] == 1);  // the map: once per call
    CHECK(out[6] == n);  // the library node: once per batch, whichever threads ran them
    CHECK(out[7] > 0);
    CHECK(out[7] <= out[4]);  // the busiest thread's total within the map's wall time
    CHECK(out[4] <= out[1]);
    CHECK(out[8] >= out[5]);
  }
  for (std::size_t b = 0; b < batches; ++b)
    for (std::size_t i = 0; i < 3; ++i)
      for (std::size_t j = 0; j < 2; ++j) {
        double sum = 0;
        for (std::size_t k = 0; k < 4; ++k) sum += A[b * 12 + i * 4 + k] * W[k * 2 + j];
        REQUIRE(C[b * 6 + i * 2 + j] == sum);
      }
  if (beside)
    for (std::size_t b = 0; b < batches; ++b) REQUIRE(D[b] == A[b * 12] + 1);
  REQUIRE(p.finalize(h) == 0);
}

/// Y[i] = X[i] * 2 + 1 by a nested SDFG called per point of map "points" (CPU_Multicore when
/// `parallel`, else Sequential): its state "scale" computes t = x * 2 (t a transient),
/// its state "add" copies t to u (a transient) and computes y = u + 1. Timed: the outer state (slot
/// 0), the map (1), the call (2), the states "scale" (3) and "add" (4) and the copy t -> u (5).
std::unique_ptr<SDFG> per_point_call(bool parallel) {
  auto body = std::make_unique<SDFG>("body");
  body->add_scalar("x", ScalarType::Float64);
  body->add_scalar("y", ScalarType::Float64);
  body->add_scalar("t", ScalarType::Float64, true);
  body->add_scalar("u", ScalarType::Float64, true);
  auto& scale = body->add_state("scale", true);
  auto& twice = scale.add_tasklet("twice", {"o = i * 2", Language::Python}, {"i"}, {"o"});
  scale.add_edge(scale.add_access("x").id(), "", twice.id(), "i", Memlet::simple("x", Subset::parse("0")));
  scale.add_edge(twice.id(), "o", scale.add_access("t").id(), "", Memlet::simple("t", Subset::parse("0")));
  auto& add = body->add_state("add");
  body->add_edge(scale.id(), add.id());
  auto& t = add.add_access("t");
  auto& u = add.add_access("u");
  add.add_edge(t.id(), "", u.id(), "", Memlet::simple("t", Subset::parse("0")));
  auto& plus = add.add_tasklet("plus", {"o = i + 1", Language::Python}, {"i"}, {"o"});
  add.add_edge(u.id(), "", plus.id(), "i", Memlet::simple("u", Subset::parse("0")));
  add.add_edge(plus.id(), "o", add.add_access("y").id(), "", Memlet::simple("y", Subset::parse("0")));

  auto s = std::make_unique<SDFG>("prog");
  s->add_array("X", ScalarType::Float64, {E::symbol("N")});
  s->add_array("Y", ScalarType::Float64, {E::symbol("N")});
  auto& st = s->add_state("main", true);
  auto& x = st.add_access("X");
  auto& y = st.add_access("Y");
  auto& m = st.add_map("points", {"i"}, Subset::parse("0:N"),
                       parallel ? ScheduleType::CPU_Multicore : ScheduleType::Sequential);
  auto& call = st.add_nested_sdfg("per_point", std::move(body), {"x"}, {"y"});
  st.add_memlet_path({x.id(), m.id(), call.id()}, Memlet::simple("X", Subset::parse("i")), "", "x");
  st.add_memlet_path({call.id(), m.exit, y.id()}, Memlet::simple("Y", Subset::parse("i")), "y", "");
  set_instrument(st.extra, kTimerInstrument);
  set_instrument(m.extra, kTimerInstrument);
  set_instrument(call.extra, kTimerInstrument);
  for (SDFGState* bs : call.sdfg->all_states()) set_instrument(bs->extra, kTimerInstrument);
  const DataflowEdge* copy = add.edges().front();
  set_instrument(add.edge(copy->id).memlet.extra, kTimerInstrument);
  return s;
}

/// Runs per_point_call twice at N points: every element inside the map runs N times per call.
void run_per_point(const std::filesystem::path& library, std::int64_t n) {
  test::LoadedProgram p(library);
  auto read = reinterpret_cast<ProfileReadFn>(p.symbol(kSymProfileRead));
  REQUIRE(read);
  std::vector<double> X(static_cast<std::size_t>(n)), Y(static_cast<std::size_t>(n), 0.0);
  for (std::size_t k = 0; k < X.size(); ++k) X[k] = static_cast<double>(k) * 0.5 - 3;
  std::int64_t sn = n;
  std::vector<void*> args{X.data(), Y.data(), &sn};
  void* h = p.init(args.data());
  REQUIRE(h);
  for (int call = 0; call < 2; ++call) {
    INFO("N = " << n << ", call " << call);
    REQUIRE(p.run(h, args.data()) == 0);
    std::vector<std::int64_t> out(18, -1);
    REQUIRE(read(out.data(), 6) == 0);
    CHECK(out[0] == 1);  // state "main"
    CHECK(out[3] == 1);  // map "points"
    for (int k = 2; k < 6; ++k) {
      INFO("slot " << k);
      CHECK(out[3 * k] == n);  // the call, its two states and the copy: once per point
      CHECK(out[3 * k + 1] > 0);
      CHECK(out[3 * k + 1] <= out[4]);  // within the map's wall time
      CHECK(out[3 * k + 2] >= out[5]);
    }
    // Each state, and the copy inside the second, within the call around them.
    CHECK(out[10] <= out[7]);
    CHECK(out[13] <= out[7]);
    CHECK(out[16] <= out[13]);
    CHECK(out[4] <= out[1]);
  }
  for (std::size_t k = 0; k < X.size(); ++k) REQUIRE(Y[k] == X[k] * 2 + 1);
  REQUIRE(p.finalize(h) == 0);
}

}  // namespace

TEST_CASE("profile inner elements: a library node that is a parallel map's whole body is timed per thread",
          "[codegen][profile]") {
  auto s = batched_matmul(false);
  GeneratedCode g = generate_cpu(*s);
  const auto pragma = g.source.find("#pragma omp for nowait");
  REQUIRE(pragma != std::string::npos);
  CHECK(g.source.find(chunk_record(2), pragma) != std::string::npos);
  CHECK(g.source.find(execution_record(2)) == std::string::npos);
  CHECK(g.source.find("omp atomic", after_prelude(g.source)) == std::string::npos);
  CHECK(g.source.find("omp critical", after_prelude(g.source)) == std::string::npos);
  auto dir = test::scratch_dir("profile_inner_library_whole_body");
  const auto library = test::compile_shared(g.source, dir);
  run_matmul(library, false, 37);
  run_matmul(library, false, 1);  // threads without a batch record nothing
}

TEST_CASE("profile inner elements: a library node beside a tasklet is timed around each execution",
          "[codegen][profile]") {
  auto s = batched_matmul(true);
  GeneratedCode g = generate_cpu(*s);
  CHECK(g.source.find(execution_record(2)) != std::string::npos);
  CHECK(g.source.find(chunk_record(2)) == std::string::npos);
  CHECK(g.source.find("omp atomic", after_prelude(g.source)) == std::string::npos);
  auto dir = test::scratch_dir("profile_inner_library_beside");
  const auto library = test::compile_shared(g.source, dir);
  run_matmul(library, true, 37);
  run_matmul(library, true, 1);
}

TEST_CASE("profile inner elements: a nested SDFG call with its states and copy inside a parallel map",
          "[codegen][profile]") {
  auto s = per_point_call(true);
  GeneratedCode g = generate_cpu(*s);
  // The call is the map's whole body: one record per thread; its states and its copy run on the
  // calling thread, each recorded on that thread's row.
  const auto pragma = g.source.find("#pragma omp for nowait");
  REQUIRE(pragma != std::string::npos);
  CHECK(g.source.find(chunk_record(2), pragma) != std::string::npos);
  for (int k : {3, 4, 5}) CHECK(g.source.find(execution_record(k)) != std::string::npos);
  CHECK(g.source.find("weir_profile_slots[3]") == std::string::npos);
  CHECK(g.source.find("omp atomic", after_prelude(g.source)) == std::string::npos);
  CHECK(g.source.find("omp critical", after_prelude(g.source)) == std::string::npos);
  auto dir = test::scratch_dir("profile_inner_nested_parallel");
  const auto library = test::compile_shared(g.source, dir);
  run_per_point(library, 301);
  run_per_point(library, 1);
}

TEST_CASE("profile inner elements: a nested SDFG call inside a sequential map is counted per point",
          "[codegen][profile]") {
  // No parallel region: the elements inside the map are still counted per execution (the call on
  // row 0 of the per-thread rows, the called SDFG's states on their own slots).
  auto s = per_point_call(false);
  GeneratedCode g = generate_cpu(*s);
  const auto pragma = g.source.find("#pragma omp", after_prelude(g.source));
  INFO(g.source.substr(pragma == std::string::npos ? 0 : pragma, 200));
  CHECK(pragma == std::string::npos);
  auto dir = test::scratch_dir("profile_inner_nested_sequential");
  run_per_point(test::compile_shared(g.source, dir), 45);
}
