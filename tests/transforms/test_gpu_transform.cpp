// The GPU transformation and GPU kernel shapes: placement (storages), schedules, the copies of
// host arguments, nested SDFGs, loops, refusals; then auto_optimize for the GPU on DaCe's corpus
// kernels and the frontend's scan. GPU SDFGs run on the cpu backend (codegen's gpu_as_cpu runs
// kernels as host loops) and must give what the SDFG gave before (hand-built SDFGs on integer
// inputs: exactly) or DaCe's expected outputs (rtol 1e-12); every GPU SDFG must validate, which
// includes the GPU rules (no host array in a kernel, no device array on the host).
#include <catch2/catch.hpp>

#include <algorithm>

#include "../runtime/runtime_test_util.h"
#include "corpus.h"
#include "support/builders.h"
#include "support/cpu_run.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/type_checker.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/sdfg/serialize.h"
#include "weir/transforms/auto_optimize.h"
#include "weir/transforms/gpu_schedules.h"
#include "weir/transforms/gpu_transform.h"
#include "weir/transforms/registry.h"

using namespace weir;
using namespace weir::transforms;
using test::E;
using test::M;
using test::S;

namespace {

/// chain(A[N, M], B[N, M], C[1], s): state "main": T = 2 * A (map "double"), t = 3 * s (a
/// scalar-only tasklet), B = T + t (map "add"); state "tail": C[0] = A[0, 0] + 1 (a tasklet
/// outside any map).
std::unique_ptr<SDFG> make_chain() {
  auto g = std::make_unique<SDFG>("chain");
  g->add_symbol("N");
  g->add_symbol("M");
  g->add_array("A", ScalarType::Float64, {E("N"), E("M")});
  g->add_array("B", ScalarType::Float64, {E("N"), E("M")});
  g->add_array("C", ScalarType::Float64, {E("1")});
  g->add_scalar("s", ScalarType::Float64);
  g->add_array("T", ScalarType::Float64, {E("N"), E("M")}, true);
  g->add_scalar("t", ScalarType::Float64, true);
  g->arg_names = {"A", "B", "C", "s"};
  SDFGState& st = g->add_state("main", true);
  auto& a = st.add_access("A");
  auto& tt = st.add_access("T");
  auto& b = st.add_access("B");
  auto& m1 = st.add_map("double", {"i", "j"}, S("0:N, 0:M"));
  auto& k1 = st.add_tasklet("dbl", {"y = 2 * x", Language::Python}, {"x"}, {"y"});
  test::path_in(st, a.id(), {m1.id()}, k1.id(), "x", {M("A", "0:N, 0:M"), M("A", "i, j")});
  test::path_out(st, k1.id(), "y", {m1.exit}, tt.id(), {M("T", "i, j"), M("T", "0:N, 0:M")});
  auto& sn = st.add_access("s");
  auto& tn = st.add_access("t");
  auto& k2 = st.add_tasklet("triple", {"o = 3 * v", Language::Python}, {"v"}, {"o"});
  st.add_edge(sn.id(), "", k2.id(), "v", M("s", "0"));
  st.add_edge(k2.id(), "o", tn.id(), "", M("t", "0"));
  auto& m2 = st.add_map("add", {"i", "j"}, S("0:N, 0:M"));
  auto& k3 = st.add_tasklet("plus", {"y = x + u", Language::Python}, {"x", "u"}, {"y"});
  test::path_in(st, tt.id(), {m2.id()}, k3.id(), "x", {M("T", "0:N, 0:M"), M("T", "i, j")});
  test::path_in(st, tn.id(), {m2.id()}, k3.id(), "u", {M("t", "0")});
  test::path_out(st, k3.id(), "y", {m2.exit}, b.id(), {M("B", "i, j"), M("B", "0:N, 0:M")});
  SDFGState& tail = g->add_state("tail");
  g->add_edge(st.id(), tail.id());
  auto& a2 = tail.add_access("A");
  auto& c = tail.add_access("C");
  auto& k4 = tail.add_tasklet("first", {"y = x + 1", Language::Python}, {"x"}, {"y"});
  tail.add_edge(a2.id(), "", k4.id(), "x", M("A", "0, 0"));
  tail.add_edge(k4.id(), "y", c.id(), "", M("C", "0"));
  return g;
}

std::size_t run_pass(SDFG& g, Pass& p) {
  AnalysisCache cache;
  return p.run(g, cache);
}

std::size_t gpu_transform(SDFG& g, bool host_arguments = false, const std::string& inner = "Sequential") {
  GpuTransform t;
  t.options().set("host_arguments", host_arguments);
  t.options().set("inner_schedule", inner);
  return run_pass(g, t);
}

MapEntry* find_map(const SDFG& g, const std::string& label) {
  for (SDFGState* st : g.all_states())
    for (Node* n : st->nodes())
      if (auto* me = n->as<MapEntry>(); me && me->map->label == label) return me;
  return nullptr;
}

const std::map<std::string, long long> kSizes{{"N", 5}, {"M", 7}};

/// Transient arrays whose size depends on a symbol (grow with the domain).
std::size_t domain_sized_transients(const SDFG& sdfg) {
  std::size_t n = 0;
  for (const auto& [name, d] : sdfg.arrays) n += d.transient && !d.total_size.free_symbols().empty();
  return n;
}

/// Every map at the top level of a state of `g` is a GPU_Device kernel with a block size.
void check_kernels(const SDFG& g) {
  for (SDFGState* st : g.all_states()) {
    ScopeTree tree = st->scope_tree();
    for (Node* n : st->nodes())
      if (auto* me = n->as<MapEntry>(); me && tree.parent[me->id()] == kNoNode) {
        INFO("map " << me->map->label << " in " << st->path());
        CHECK(me->map->schedule == ScheduleType::GPU_Device);
        CHECK(!me->map->gpu_block_size.empty());
      }
  }
}

runtime::CompilableProgram program_of(const SDFG& sdfg) {
  return runtime::CompilableProgram{std::shared_ptr<const SDFG>(sdfg.clone_sdfg()), {}, sdfg.name};
}

}  // namespace

TEST_CASE("gpu-transform: arguments and shared transients on the device, kernels, host scalars",
          "[transforms][gpu]") {
  auto g = make_chain();
  auto before = g->clone_sdfg();
  CHECK(gpu_transform(*g) > 0);
  test::require_valid(*g);
  for (const char* a : {"A", "B", "C", "T"}) CHECK(g->data(a).storage == StorageType::GPU_Global);
  // Scalars only host code writes stay on the host; kernels get them by value.
  CHECK(g->data("s").storage == StorageType::Default);
  CHECK(g->data("t").storage == StorageType::Default);
  CHECK(find_map(*g, "double")->map->schedule == ScheduleType::GPU_Device);
  CHECK(find_map(*g, "add")->map->schedule == ScheduleType::GPU_Device);
  // The tasklet reading an array runs as a one-point kernel; the scalar-only one stays.
  MapEntry* wrap = find_map(*g, "first_gpu");
  REQUIRE(wrap);
  CHECK(wrap->map->schedule == ScheduleType::GPU_Device);
  CHECK(wrap->map->range.str() == "0");
  SDFGState& main = *g->all_states()[0];
  ScopeTree tree = main.scope_tree();
  for (Node* n : main.nodes())
    if (n->label == "triple") CHECK(tree.parent[n->id()] == kNoNode);
  // Nothing left to do the second time.
  CHECK(gpu_transform(*g) == 0);
  CHECK(test::run_on_cpu(*before, kSizes, 3) == test::run_on_cpu(*g, kSizes, 3));
}

TEST_CASE("gpu-transform: host arguments get device copies, copied in first and (if written) out last",
          "[transforms][gpu]") {
  auto g = make_chain();
  auto before = g->clone_sdfg();
  gpu_transform(*g, true);
  test::require_valid(*g);
  for (const char* a : {"A", "B", "C"}) {
    INFO(a);
    CHECK(g->data(a).storage == StorageType::CPU_Heap);
    CHECK(!g->data(a).transient);
    const DataDescriptor& copy = g->data(std::string("gpu_") + a);
    CHECK(copy.transient);
    CHECK(copy.storage == StorageType::GPU_Global);
    CHECK(copy.shape == g->data(a).shape);
  }
  // The start state copies every argument in (outputs too: unwritten elements keep their value).
  auto& in = *g->block(g->start_block()).as<SDFGState>();
  CHECK(in.label == "gpu_copy_in");
  CHECK(in.num_edges() == 3);
  for (const DataflowEdge* e : in.edges()) {
    const auto* src = in.node(e->src).as<AccessNode>();
    const auto* dst = in.node(e->dst).as<AccessNode>();
    REQUIRE((src && dst));
    CHECK(dst->data == "gpu_" + src->data);
  }
  // The only sink copies the written ones out: B and C, not A.
  SDFGState* out = nullptr;
  for (ControlFlowBlock* b : g->blocks())
    if (g->out_edges(b->id()).empty()) out = b->as<SDFGState>();
  REQUIRE(out);
  CHECK(out->label == "gpu_copy_out");
  std::set<std::string> copied;
  for (const DataflowEdge* e : out->edges()) copied.insert(out->node(e->dst).as<AccessNode>()->data);
  CHECK(copied == std::set<std::string>{"B", "C"});
  // Kernels use the copies only.
  for (SDFGState* st : g->all_states()) {
    if (st == &in || st == out) continue;
    for (Node* n : st->nodes())
      if (auto* a = n->as<AccessNode>()) CHECK((a->data != "A" && a->data != "B" && a->data != "C"));
  }
  CHECK(gpu_transform(*g, true) == 0);
  CHECK(test::run_on_cpu(*before, kSizes, 4) == test::run_on_cpu(*g, kSizes, 4));
}

TEST_CASE("gpu-transform: simplify keeps the copies between host and GPU memory", "[transforms][gpu]") {
  auto g = make_chain();
  auto before = g->clone_sdfg();
  gpu_transform(*g, true);
  run_pass(*g, *make_pass("simplify"));
  test::require_valid(*g);
  for (const char* a : {"gpu_A", "gpu_B", "gpu_C"}) CHECK(g->has_data(a));
  CHECK(test::run_on_cpu(*before, kSizes, 12) == test::run_on_cpu(*g, kSizes, 12));
  // DaCe's GPU sample: its copy-in of B is not "redundant" either.
  auto notb = load_sdfg((test::dace_corpus_dir() / "doc-samples" / "gpu-notb.sdfg").string());
  run_pass(*notb, *make_pass("simplify"));
  test::require_valid(*notb);
}

TEST_CASE("gpu-transform: inner maps run sequentially per thread, or as the thread block",
          "[transforms][gpu]") {
  for (const std::string inner : {"Sequential", "GPU_ThreadBlock"}) {
    INFO(inner);
    auto g = test::make_map2d(true);
    auto before = g->clone_sdfg();
    gpu_transform(*g, false, inner);
    test::require_valid(*g);
    CHECK(find_map(*g, "outer")->map->schedule == ScheduleType::GPU_Device);
    CHECK(to_string(find_map(*g, "inner")->map->schedule) == inner);
    CHECK(test::run_on_cpu(*before, kSizes, 5) == test::run_on_cpu(*g, kSizes, 5));
  }
  auto g = test::make_map2d(true);
  CHECK_THROWS_WITH(
      gpu_transform(*g, false, "CPU_Multicore"),
      "gpu-transform: option inner_schedule must be Sequential or GPU_ThreadBlock, not 'CPU_Multicore'");
}

TEST_CASE("gpu-transform: maps in a loop become kernels run per iteration", "[transforms][gpu][loop]") {
  // loop(A[N]): for k in 0..3: A = A * 2 + k.
  auto g = std::make_unique<SDFG>("loop");
  g->add_symbol("N");
  g->add_array("A", ScalarType::Float64, {E("N")});
  g->arg_names = {"A"};
  LoopRegion& loop = g->add_loop("steps", "k", "k = 0", "k < 3", "k = k + 1");
  SDFGState& st = loop.add_state("body", true);
  auto& a = st.add_access("A");
  auto& a2 = st.add_access("A");
  auto& m = st.add_map("scale", {"i"}, S("0:N"));
  auto& t = st.add_tasklet("f", {"y = 2 * x + k", Language::Python}, {"x"}, {"y"});
  test::path_in(st, a.id(), {m.id()}, t.id(), "x", {M("A", "0:N"), M("A", "i")});
  test::path_out(st, t.id(), "y", {m.exit}, a2.id(), {M("A", "i"), M("A", "0:N")});
  auto before = g->clone_sdfg();
  gpu_transform(*g, true);
  test::require_valid(*g);
  CHECK(find_map(*g, "scale")->map->schedule == ScheduleType::GPU_Device);
  CHECK(g->data("gpu_A").storage == StorageType::GPU_Global);
  // Copies at the SDFG's boundary, not in the loop.
  CHECK(g->block(g->start_block()).label == "gpu_copy_in");
  CHECK(test::run_on_cpu(*before, {{"N", 9}}, 6) == test::run_on_cpu(*g, {{"N", 9}}, 6));
}

TEST_CASE("gpu-transform: a nested SDFG with maps keeps its maps as kernels, one without runs in a kernel",
          "[transforms][gpu]") {
  auto make = [](bool inner_map) {
    auto inner = std::make_unique<SDFG>("inner");
    inner->add_symbol("N");
    inner->add_array("X", ScalarType::Float64, {E("N")});
    inner->add_array("Y", ScalarType::Float64, {E("N")});
    inner->add_array("tmp", ScalarType::Float64, {E("N")}, true);
    SDFGState& is = inner->add_state("s", true);
    auto& x = is.add_access("X");
    auto& tmp = is.add_access("tmp");
    auto& y = is.add_access("Y");
    if (inner_map) {
      auto& m = is.add_map("inc", {"i"}, S("0:N"));
      auto& t = is.add_tasklet("t", {"b = a + 1", Language::Python}, {"a"}, {"b"});
      test::path_in(is, x.id(), {m.id()}, t.id(), "a", {M("X", "0:N"), M("X", "i")});
      test::path_out(is, t.id(), "b", {m.exit}, tmp.id(), {M("tmp", "i"), M("tmp", "0:N")});
    } else {
      is.add_edge(x.id(), "", tmp.id(), "", M("X", "0:N"));
    }
    is.add_edge(tmp.id(), "", y.id(), "", M("tmp", "0:N"));
    auto g = std::make_unique<SDFG>("outer");
    g->add_symbol("N");
    g->add_array("A", ScalarType::Float64, {E("N")});
    g->add_array("B", ScalarType::Float64, {E("N")});
    g->arg_names = {"A", "B"};
    SDFGState& st = g->add_state("main", true);
    auto& a = st.add_access("A");
    auto& b = st.add_access("B");
    auto& ns = st.add_nested_sdfg("call", std::move(inner), {"X"}, {"Y"}, {{"N", E("N")}});
    st.add_edge(a.id(), "", ns.id(), "X", M("A", "0:N"));
    st.add_edge(ns.id(), "Y", b.id(), "", M("B", "0:N"));
    return g;
  };
  for (bool inner_map : {true, false}) {
    INFO("inner map: " << inner_map);
    auto g = make(inner_map);
    auto before = g->clone_sdfg();
    gpu_transform(*g);
    test::require_valid(*g);
    SDFGState& st = *g->all_states()[0];
    NestedSDFGNode* ns = nullptr;
    for (Node* n : st.nodes())
      if (auto* x = n->as<NestedSDFGNode>()) ns = x;
    REQUIRE(ns);
    SDFG& inner = *ns->sdfg;
    CHECK(inner.data("X").storage == StorageType::GPU_Global);
    CHECK(inner.data("Y").storage == StorageType::GPU_Global);
    ScopeTree tree = st.scope_tree();
    if (inner_map) {
      // Host code inside: its map is a kernel, its shared transient on the device.
      CHECK(tree.parent[ns->id()] == kNoNode);
      CHECK(find_map(inner, "inc")->map->schedule == ScheduleType::GPU_Device);
      CHECK(inner.data("tmp").storage == StorageType::GPU_Global);
    } else {
      // Device code: a one-point kernel around it, its transient private to the thread.
      REQUIRE(tree.parent[ns->id()] != kNoNode);
      CHECK(st.node(tree.parent[ns->id()]).as<MapEntry>()->map->schedule == ScheduleType::GPU_Device);
      CHECK(inner.data("tmp").storage == StorageType::Register);
    }
    CHECK(test::run_on_cpu(*before, {{"N", 6}}, 7) == test::run_on_cpu(*g, {{"N", 6}}, 7));
  }
}

TEST_CASE("gpu-transform: control flow reads host mirrors of what lives in GPU memory", "[transforms][gpu]") {
  // chain, then: if C[0] > 0: C[0] = C[0] * 10 (C is written by a kernel in "tail").
  for (bool host : {false, true}) {
    INFO("host arguments: " << host);
    auto g = make_chain();
    SDFGState& more = g->add_state("more");
    InterstateEdge cond;
    cond.condition = CodeBlock{"C[0] > 0 and A[0, 0] > -100", Language::Python};
    g->add_edge(g->all_states()[1]->id(), more.id(), cond);
    auto& c = more.add_access("C");
    auto& c2 = more.add_access("C");
    auto& t = more.add_tasklet("times", {"y = 10 * x", Language::Python}, {"x"}, {"y"});
    more.add_edge(c.id(), "", t.id(), "x", M("C", "0"));
    more.add_edge(t.id(), "y", c2.id(), "", M("C", "0"));
    auto before = g->clone_sdfg();
    gpu_transform(*g, host);
    test::require_valid(*g);
    // The edge into "more" (with host arguments the body is in a region: the program may end
    // at "tail", whose only out-edge has a condition, and the copy-out must follow either way).
    const ControlFlowEdge* e = nullptr;
    std::vector<const ControlFlowRegion*> regions{g.get()};
    for (ControlFlowBlock* b : g->blocks())
      if (auto* r = b->as<ControlFlowRegion>()) regions.push_back(r);
    for (const ControlFlowRegion* r : regions)
      for (const ControlFlowEdge* x : r->edges())
        if (r->block(x->dst).label == "more") e = x;
    REQUIRE(e);
    CHECK((g->block(g->start_block()).label == (host ? "gpu_copy_in" : "gpu_mirror_in")));
    if (host) {
      // The host arguments themselves, refreshed from their device copies after each write.
      CHECK(e->data.condition.code == "C[0] > 0 and A[0, 0] > -100");
      CHECK(!g->has_data("host_C"));
      bool in_body = false;
      for (SDFGState* st : g->all_states()) in_body = in_body || st->path() == "gpu_body/main";
      CHECK(in_body);
    } else {
      CHECK(e->data.condition.code == "host_C[0] > 0 and host_A[0, 0] > -100");
      CHECK(g->data("host_C").storage == StorageType::CPU_Heap);
      CHECK(g->data("host_A").transient);
    }
    for (unsigned seed : {9u, 10u, 11u})
      CHECK(test::run_on_cpu(*before, kSizes, seed) == test::run_on_cpu(*g, kSizes, seed));
  }
}

TEST_CASE("gpu-schedules: the unit-stride parameter goes last (threadIdx.x), gt4py's block sizes",
          "[transforms][gpu]") {
  // B[i, j] = 2 * A[i, j] over a map written as (j, i): j indexes the contiguous dimension.
  auto g = std::make_unique<SDFG>("order");
  g->add_symbol("N");
  g->add_symbol("M");
  g->add_array("A", ScalarType::Float64, {E("N"), E("M")});
  g->add_array("B", ScalarType::Float64, {E("N"), E("M")});
  g->add_array("V", ScalarType::Float64, {E("N")});
  SDFGState& st = g->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& m = st.add_map("m2", {"j", "i"}, S("0:M, 0:N"));
  auto& t = st.add_tasklet("t", {"y = 2 * x", Language::Python}, {"x"}, {"y"});
  test::path_in(st, a.id(), {m.id()}, t.id(), "x", {M("A", "0:N, 0:M"), M("A", "i, j")});
  test::path_out(st, t.id(), "y", {m.exit}, b.id(), {M("B", "i, j"), M("B", "0:N, 0:M")});
  auto& v = st.add_access("V");
  auto& v2 = st.add_access("V");
  auto& m1 = st.add_map("m1", {"i"}, S("0:N"));
  auto& t1 = st.add_tasklet("t1", {"y = x + 1", Language::Python}, {"x"}, {"y"});
  test::path_in(st, v.id(), {m1.id()}, t1.id(), "x", {M("V", "0:N"), M("V", "i")});
  test::path_out(st, t1.id(), "y", {m1.exit}, v2.id(), {M("V", "i"), M("V", "0:N")});
  auto before = g->clone_sdfg();
  gpu_transform(*g);
  {
    auto copy = g->clone_sdfg();
    GpuSchedules s;
    CHECK(run_pass(*g, s) == 3);  // m2 reordered and sized, m1 sized
    test::require_valid(*g);
    MapInfo& m2 = *find_map(*g, "m2")->map;
    CHECK(m2.params == std::vector<std::string>{"i", "j"});
    CHECK(m2.range.str() == "0:N, 0:M");
    CHECK(m2.gpu_block_size == std::vector<std::string>{"32", "8", "1"});
    CHECK(find_map(*g, "m1")->map->gpu_block_size == std::vector<std::string>{"64", "1", "1"});
    CHECK(run_pass(*g, s) == 0);
    // Options: a 2-D size of its own.
    GpuSchedules o;
    o.options().set_text("block_size_2d", "16,16,1");
    o.options().set("order", false);
    run_pass(*copy, o);
    CHECK(find_map(*copy, "m2")->map->params == std::vector<std::string>{"j", "i"});
    CHECK(find_map(*copy, "m2")->map->gpu_block_size == std::vector<std::string>{"16", "16", "1"});
    // A size with more threads along a dimension than the kernel has (J1's kind): every point
    // of the 1-D m1 would run twice (y has no parameter); refused, naming the map.
    auto refusal = [&](const char* option, const char* value) {
      auto g2 = before->clone_sdfg();
      gpu_transform(*g2);
      GpuSchedules bad;
      bad.options().set_text(option, value);
      try {
        run_pass(*g2, bad);
      } catch (const TransformError& e) {
        return std::string(e.what());
      }
      return std::string("applied");
    };
    CHECK_THAT(
        refusal("block_size_1d", "64,2,1"),
        Catch::Matchers::Contains("option 'block_size_1d': block (64, 2, 1) has 2 threads along y, but map "
                                  "'m1' has 1 parameter (i): each point would run 2 times; give 1 there"));
    CHECK_THAT(
        refusal("block_size", "8,8,4,2"),
        Catch::Matchers::Contains("option 'block_size': block (8, 8, 4, 2) has 4 values; a thread block "
                                  "has three (x, y, z)"));
    // The z of block_size on the 2-D kernel m2 (z is the third parameter and beyond).
    CHECK_THAT(refusal("block_size", "8,8,2"),
               Catch::Matchers::Contains("has 2 threads along z, but map 'm2' has 2 parameters"));
  }
  CHECK(test::run_on_cpu(*before, kSizes, 8) == test::run_on_cpu(*g, kSizes, 8));
  // The pass is in the registry and its options parse in pipeline texts.
  auto p = parse_pipeline("gpu-transform{host_arguments=true},gpu-schedules{block_size=128,1,1}");
  CHECK(p->str_passes() == "gpu-transform{host_arguments=true},gpu-schedules{block_size=128,1,1}");
}

TEST_CASE("auto_optimize(GPU): the CPU pipeline's fusion, then gpu-transform and gpu-schedules",
          "[transforms][gpu][auto-optimize]") {
  auto names = auto_optimize_pass_names(DeviceType::GPU);
  auto cpu = auto_optimize_pass_names(DeviceType::CPU);
  // Scan column blocking is the CPU's only (ADR 0044): GPU threads are the columns already.
  cpu.erase(std::remove(cpu.begin(), cpu.end(), "scan-column-blocking"), cpu.end());
  REQUIRE(names.size() == cpu.size() + 1);
  CHECK(std::equal(cpu.begin(), cpu.end() - 1, names.begin()));
  CHECK(names[names.size() - 2] == "gpu-transform");
  CHECK(names.back() == "gpu-schedules");
  auto p = make_pass("auto-optimize-gpu");
  REQUIRE(p);
  CHECK(p->name() == "auto-optimize-gpu");
}

TEST_CASE("auto_optimize(GPU): DaCe's corpus kernels give DaCe's results on the host",
          "[transforms][gpu][auto-optimize][corpus]") {
  weir::test::fresh_cache("gpu-auto-optimize-corpus");
  auto backend = runtime::make_cpu_backend();
  for (const char* kernel : {"laplace2d", "jacobi_2d", "hdiff"})
    for (const char* stage : {"frontend", "simplified", "auto_optimized_cpu", "auto_optimized_gpu"})
      for (bool host : {false, true}) {
        INFO(kernel << "." << stage << (host ? " with host arguments" : ""));
        auto sdfg = load_sdfg(
            (test::dace_corpus_dir() / kernel / (std::string(kernel) + "." + stage + ".sdfg")).string());
        auto pipe = make_auto_optimize_pipeline(DeviceType::GPU);
        for (auto& pass : pipe->passes())
          if (pass->name() == "gpu-transform") pass->options().set("host_arguments", host);
        pipe->run(*sdfg);
        test::require_valid(*sdfg);
        check_kernels(*sdfg);
        auto args = weir::test::corpus_arguments(kernel);
        runtime::run(*backend, program_of(*sdfg), args);
        CHECK(weir::test::check_expected(kernel, args) >= 1);
      }
}

TEST_CASE("auto_optimize(GPU): hdiff fuses into kernels with registers, no domain-sized transient",
          "[transforms][gpu][auto-optimize]") {
  auto sdfg = load_sdfg((test::dace_corpus_dir() / "hdiff" / "hdiff.simplified.sdfg").string());
  auto_optimize(*sdfg, DeviceType::GPU);
  test::require_valid(*sdfg);
  CHECK(domain_sized_transients(*sdfg) == 0);
  std::vector<MapEntry*> kernels;
  for (SDFGState* st : sdfg->all_states()) {
    ScopeTree tree = st->scope_tree();
    for (Node* n : st->nodes())
      if (auto* me = n->as<MapEntry>(); me && tree.parent[me->id()] == kNoNode) kernels.push_back(me);
  }
  REQUIRE(kernels.size() == 1);
  MapInfo& k = *kernels[0]->map;
  CHECK(k.schedule == ScheduleType::GPU_Device);
  CHECK(k.params.size() == 3);
  // K is the contiguous dimension of hdiff's [I, J, K] fields: its parameter is threadIdx.x.
  CHECK(k.range[2].end == sym::Expr::parse("K - 1"));
  CHECK(k.gpu_block_size == std::vector<std::string>{"32", "8", "1"});
  for (const auto& [name, d] : sdfg->arrays) {
    INFO(name);
    if (d.transient)
      CHECK(d.storage == StorageType::Register);
    else
      CHECK(d.storage == StorageType::GPU_Global);
  }
}

TEST_CASE("auto_optimize(GPU): a scan is one thread per column with the K loop inside",
          "[transforms][gpu][auto-optimize][scan]") {
  using namespace weir::frontend;
  ModuleLoader loader(LoaderOptions{{}, false});
  const LoadedModule& m = loader.load_file(
      (std::filesystem::path(WEIR_SOURCE_DIR) / "examples/cartesian/vertical_solver.py").string());
  TypeChecker tc;
  std::unique_ptr<SDFG> sdfg;
  for (const auto& d : m.definitions)
    if (d->name == "vertical_solver") sdfg = lower_to_sdfg(tc.check(*d));
  REQUIRE(sdfg);
  auto_optimize(*sdfg, DeviceType::GPU);
  test::require_valid(*sdfg);
  check_kernels(*sdfg);
  // One kernel over the columns (I, J) whose thread runs a nested SDFG with the level loops.
  std::vector<std::pair<MapEntry*, NestedSDFGNode*>> columns;
  for (SDFGState* st : sdfg->all_states()) {
    ScopeTree tree = st->scope_tree();
    for (Node* n : st->nodes())
      if (auto* ns = n->as<NestedSDFGNode>(); ns && tree.parent[ns->id()] != kNoNode)
        columns.emplace_back(st->node(tree.parent[ns->id()]).as<MapEntry>(), ns);
  }
  REQUIRE(columns.size() == 1);
  auto [kernel, body] = columns[0];
  CHECK(kernel->map->schedule == ScheduleType::GPU_Device);
  CHECK(kernel->map->params.size() == 2);
  CHECK(kernel->map->gpu_block_size == std::vector<std::string>{"32", "8", "1"});
  std::size_t loops = 0;
  for (ControlFlowBlock* b : body->sdfg->blocks()) loops += b->kind() == BlockKind::Loop;
  CHECK(loops == 2);  // the forward and the backward sweep
  // The carries are thread-private.
  for (const auto& [name, d] : body->sdfg->arrays)
    if (d.transient) {
      INFO(name);
      CHECK(d.storage == StorageType::Register);
    }
}
