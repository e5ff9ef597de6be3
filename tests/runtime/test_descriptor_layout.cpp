// Transients with legitimate non-default layouts run with correct values on the cpu backend, and
// a total_size that depends on a symbol only known at run time is checked by the generated code
// before any state runs (ADR 0037). One compile serves every case: T is a run-time symbol. The
// reach of a nested SDFG's argument or of a view that depends on a symbol (a constant shape 64
// bound to S[0:N]) is checked the same way: where the body starts, or before the state when the
// control flow assigns the symbol.
#include <catch2/catch.hpp>
#include <map>
#include <memory>
#include <string>

#include "runtime_test_util.h"
#include "weir/codegen/cpu_codegen.h"
#include "weir/codegen/cuda_codegen.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"
#include "weir/sdfg/validate.h"

using namespace weir;
using namespace weir::runtime;
using sym::Expr;

namespace {

/// prog(A[2, 3], B[2, 3], T): four maps over [0:2, 0:3] through transients with other layouts:
/// P = 2*A (padded rows: strides [4, 1], total_size 8), F = P + 1 (Fortran order: strides
/// [1, 2]), S = 3*F (start_offset 5, total_size 11), R = S - 1 (total_size T, a symbol), B = R.
std::unique_ptr<SDFG> layouts() {
  auto s = std::make_unique<SDFG>("layouts");
  s->add_symbol("T");
  s->add_array("A", ScalarType::Float64, {2, 3});
  s->add_array("B", ScalarType::Float64, {2, 3});
  DataDescriptor& p = s->add_array("P", ScalarType::Float64, {2, 3}, true);
  p.strides = {4, 1};
  p.total_size = 8;
  DataDescriptor& f = s->add_array("F", ScalarType::Float64, {2, 3}, true);
  f.strides = {1, 2};
  DataDescriptor& so = s->add_array("S", ScalarType::Float64, {2, 3}, true);
  so.start_offset = 5;
  so.total_size = 11;
  DataDescriptor& r = s->add_array("R", ScalarType::Float64, {2, 3}, true);
  r.total_size = Expr::symbol("T");
  s->arg_names = {"A", "B"};
  auto& st = s->add_state("main", true);
  const Subset all = Subset::parse("0:2, 0:3"), point = Subset::parse("i, j");
  NodeId from = st.add_access("A").id();
  std::string from_name = "A";
  const char* steps[][2] = {
      {"P", "y = 2 * x"}, {"F", "y = x + 1"}, {"S", "y = 3 * x"}, {"R", "y = x - 1"}, {"B", "y = x"}};
  for (const auto& step : steps) {
    NodeId to = st.add_access(step[0]).id();
    auto& m = st.add_map(std::string("m") + step[0], {"i", "j"}, all);
    auto t =
        st.add_tasklet(std::string("t") + step[0], CodeBlock{step[1], Language::Python}, {"x"}, {"y"}).id();
    auto in = st.add_memlet_path({from, m.id(), t}, Memlet::simple(from_name, point), "", "x");
    auto out = st.add_memlet_path({t, m.exit, to}, Memlet::simple(step[0], point), "y", "");
    st.edge(in.front()).memlet = Memlet::simple(from_name, all);
    st.edge(out.back()).memlet = Memlet::simple(step[0], all);
    from = to;
    from_name = step[0];
  }
  return s;
}

/// The same, as a nested SDFG of prog(A, B, T) (its T mapped from the caller's): its body may
/// run inside a parallel loop, so it records a failing check and returns, and the calling state
/// throws.
std::shared_ptr<SDFG> nested_layouts() {
  auto s = std::make_shared<SDFG>("outer");
  s->add_symbol("T");
  s->add_array("A", ScalarType::Float64, {2, 3});
  s->add_array("B", ScalarType::Float64, {2, 3});
  s->arg_names = {"A", "B"};
  auto& st = s->add_state("main", true);
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& ns = st.add_nested_sdfg("call", layouts(), {"A"}, {"B"}, {{"T", Expr::symbol("T")}});
  st.add_edge(a.id(), "", ns.id(), "A", Memlet::simple("A", Subset::parse("0:2, 0:3")));
  st.add_edge(ns.id(), "B", b.id(), "", Memlet::simple("B", Subset::parse("0:2, 0:3")));
  s->relink_nested();
  return s;
}

Arguments layout_arguments(std::int64_t t) {
  Arguments args;
  Field a = Allocator::cpu().allocate(ScalarType::Float64, {2, 3});
  auto* ad = static_cast<double*>(a.data());
  for (int x = 0; x < 6; ++x) ad[x] = x;  // A = [[0, 1, 2], [3, 4, 5]]
  Field b = Allocator::cpu().allocate(ScalarType::Float64, {2, 3});
  args.arrays.emplace("A", std::move(a));
  args.arrays.emplace("B", std::move(b));
  args.values["T"] = t;
  return args;
}

}  // namespace

TEST_CASE("layout: a nested SDFG checks its run-time-sized transient when its body starts",
          "[runtime][layout]") {
  weir::test::fresh_cache("layout-nested");
  CompilableProgram prog{nested_layouts(), {}, "nested_layouts"};
  auto backend = make_backend("cpu");
  Arguments ok = layout_arguments(6);
  run(*backend, prog, ok);
  const auto* bd = static_cast<const double*>(ok.arrays.at("B").data());
  for (int x = 0; x < 6; ++x) CHECK(bd[x] == 6.0 * x + 2.0);  // 3*(2*A + 1) - 1
  Arguments short_size = layout_arguments(5);
  try {
    run(*backend, prog, short_size);
    FAIL("no error");
  } catch (const ProgramError& e) {
    CHECK_THAT(e.what(),
               Catch::Contains("state 'main'") &&
                   Catch::Contains("container 'R' has total_size T, but its shape [2, 3] with strides "
                                   "[3, 1] and start_offset 0 reaches element 5: total_size must be at "
                                   "least 6 (weir allocates total_size elements) (false for the "
                                   "symbol values of this call)"));
  }
}

TEST_CASE("layout: padded, Fortran-order, offset and run-time-sized transients run with correct values",
          "[runtime][layout]") {
  weir::test::fresh_cache("layout");
  CompilableProgram prog{std::shared_ptr<SDFG>(layouts()), {}, "layouts"};
  auto backend = make_backend("cpu");
  auto arguments = [](std::int64_t t) {
    Arguments args;
    Field a = Allocator::cpu().allocate(ScalarType::Float64, {2, 3});
    auto* ad = static_cast<double*>(a.data());
    for (int x = 0; x < 6; ++x) ad[x] = x;  // A = [[0, 1, 2], [3, 4, 5]]
    Field b = Allocator::cpu().allocate(ScalarType::Float64, {2, 3});
    args.arrays.emplace("A", std::move(a));
    args.arrays.emplace("B", std::move(b));
    args.values["T"] = t;
    return args;
  };
  Arguments ok = arguments(6);
  run(*backend, prog, ok);
  // B = 3*(2*A + 1) - 1 = 6*A + 2: 2, 8, 14, 20, 26, 32.
  const auto* bd = static_cast<const double*>(ok.arrays.at("B").data());
  for (int x = 0; x < 6; ++x) CHECK(bd[x] == 6.0 * x + 2.0);
  // T = 5 is one element short of what R's shape [2, 3] reaches (element 5).
  Arguments short_size = arguments(5);
  try {
    run(*backend, prog, short_size);
    FAIL("no error");
  } catch (const ProgramError& e) {
    CHECK_THAT(e.what(),
               Catch::Contains("container 'R' has total_size T, but its shape [2, 3] with strides [3, 1] "
                               "and start_offset 0 reaches element 5: total_size must be at least 6 "
                               "(weir allocates total_size elements) (false for the symbol values of "
                               "this call)"));
  }
}

namespace {

/// inner(X[64], Y[64]): Y[i] = 2 * X[i] for i in 0:64 (constant shapes, no symbols).
std::unique_ptr<SDFG> doubler() {
  auto s = std::make_unique<SDFG>("inner");
  s->add_array("X", ScalarType::Float64, {64});
  s->add_array("Y", ScalarType::Float64, {64});
  auto& st = s->add_state("body", true);
  NodeId x = st.add_access("X").id();
  NodeId y = st.add_access("Y").id();
  auto& m = st.add_map("double", {"i"}, Subset::parse("0:64"));
  auto t = st.add_tasklet("twice", CodeBlock{"y = 2 * x", Language::Python}, {"x"}, {"y"}).id();
  auto in = st.add_memlet_path({x, m.id(), t}, Memlet::simple("X", Subset::parse("i")), "", "x");
  auto out = st.add_memlet_path({t, m.exit, y}, Memlet::simple("Y", Subset::parse("i")), "y", "");
  st.edge(in.front()).memlet = Memlet::simple("X", Subset::parse("0:64"));
  st.edge(out.back()).memlet = Memlet::simple("Y", Subset::parse("0:64"));
  return s;
}

/// `name`(in[n], out[n]) with a state "main" calling `callee` on in[0:n] (its X) and out[0:n]
/// (its Y).
std::unique_ptr<SDFG> caller(const std::string& name, const std::string& n, const std::string& in,
                             const std::string& out, std::unique_ptr<SDFG> callee,
                             const std::map<std::string, Expr>& mapping) {
  auto s = std::make_unique<SDFG>(name);
  s->add_symbol(n);
  s->add_array(in, ScalarType::Float64, {Expr::symbol(n)});
  s->add_array(out, ScalarType::Float64, {Expr::symbol(n)});
  s->arg_names = {in, out};
  auto& st = s->add_state("main", true);
  auto& a = st.add_access(in);
  auto& b = st.add_access(out);
  auto& ns = st.add_nested_sdfg("call", std::move(callee), {"X"}, {"Y"}, mapping);
  st.add_edge(a.id(), "", ns.id(), "X", Memlet::simple(in, Subset::parse("0:" + n)));
  st.add_edge(ns.id(), "Y", b.id(), "", Memlet::simple(out, Subset::parse("0:" + n)));
  return s;
}

/// prog(S[N], R[N]) calling inner(X[64], Y[64]) on S[0:N] and R[0:N]: right for N >= 64 only.
/// `deeper`: through a nested SDFG mid(X[M], Y[M]) (M = N) that makes the call on X[0:M] and
/// Y[0:M], so that the condition (on mid's M) is checked where mid's body starts.
std::shared_ptr<SDFG> constant_argument(bool deeper) {
  std::shared_ptr<SDFG> s = deeper
                                ? caller("prog", "N", "S", "R", caller("mid", "M", "X", "Y", doubler(), {}),
                                         {{"M", Expr::symbol("N")}})
                                : caller("prog", "N", "S", "R", doubler(), {});
  s->relink_nested();
  return s;
}

/// S = [1, 2, ..., n], R = -1 everywhere.
Arguments reach_arguments(std::int64_t n, std::int64_t r = -1) {
  Arguments args;
  Field a = Allocator::cpu().allocate(ScalarType::Float64, {n});
  auto* ad = static_cast<double*>(a.data());
  for (std::int64_t x = 0; x < n; ++x) ad[x] = static_cast<double>(x + 1);
  Field b = Allocator::cpu().allocate(ScalarType::Float64, {r < 0 ? n : r});
  auto* bd = static_cast<double*>(b.data());
  for (std::int64_t x = 0; x < (r < 0 ? n : r); ++x) bd[x] = -1.0;
  args.arrays.emplace("S", std::move(a));
  args.arrays.emplace("R", std::move(b));
  return args;
}

const std::string kArgumentReach =
    "argument 'X' of nested SDFG 'inner' (shape [64], strides [1], start_offset 0) reaches element 63 from "
    "the start of S[0:N], which holds elements 0..N - 1 of 'S' (strides [1]): its accesses would leave the "
    "memory it is bound to (false for the symbol values of this call)";

}  // namespace

TEST_CASE(
    "layout: a nested SDFG argument of constant shape bound to a slice of symbolic size is checked at run "
    "time",
    "[runtime][layout]") {
  const bool deeper = GENERATE(false, true);
  INFO("through a nested SDFG: " << deeper);
  weir::test::fresh_cache(deeper ? "layout-reach-nested-deeper" : "layout-reach-nested");
  CompilableProgram prog{constant_argument(deeper), {}, "constant_argument"};
  auto backend = make_backend("cpu");
  // N = 64: R = 2 * S = 2, 4, ..., 128.
  Arguments exact = reach_arguments(64);
  run(*backend, prog, exact);
  const auto* r = static_cast<const double*>(exact.arrays.at("R").data());
  for (int x = 0; x < 64; ++x) CHECK(r[x] == 2.0 * (x + 1));
  // N = 100: R[0:64] = 2 * S[0:64], R[64:100] untouched (-1).
  Arguments larger = reach_arguments(100);
  run(*backend, prog, larger);
  r = static_cast<const double*>(larger.arrays.at("R").data());
  for (int x = 0; x < 64; ++x) CHECK(r[x] == 2.0 * (x + 1));
  for (int x = 64; x < 100; ++x) CHECK(r[x] == -1.0);
  // N = 10: X would read S[10..63] and Y write R[10..63], outside their memory. The run fails
  // before the nested SDFG runs (R untouched).
  Arguments small = reach_arguments(10);
  try {
    run(*backend, prog, small);
    FAIL("no error");
  } catch (const ProgramError& e) {
    std::string want = kArgumentReach;
    if (deeper) {
      // Checked where mid's body starts, in mid's names; the calling state throws.
      want =
          "argument 'X' of nested SDFG 'inner' (shape [64], strides [1], start_offset 0) reaches element 63 "
          "from the start of X[0:M], which holds elements 0..M - 1 of 'X' (strides [1]): its accesses would "
          "leave the memory it is bound to (false for the symbol values of this call)";
      CHECK_THAT(e.what(), Catch::Contains("state 'main'"));
    }
    CHECK_THAT(e.what(), Catch::Contains(want));
  }
  r = static_cast<const double*>(small.arrays.at("R").data());
  for (int x = 0; x < 10; ++x) CHECK(r[x] == -1.0);
}

namespace {

/// prog(S[N], R[64]): view V[64] of S[0:N] (right for N >= 64 only), copied to R. `assigned`: the
/// view is of S[0:K], K = N assigned on the edge from state "init" to "main", so the condition
/// is checked when "main" starts.
/// `end`: the slice's end instead of N (a symbolic function, for the refusal case).
std::shared_ptr<SDFG> constant_view(bool assigned, const std::string& end = "") {
  auto s = std::make_shared<SDFG>("viewer");
  s->add_symbol("N");
  s->add_array("S", ScalarType::Float64, {Expr::symbol("N")});
  s->add_array("R", ScalarType::Float64, {64});
  DataDescriptor& v = s->add_array("V", ScalarType::Float64, {64}, true);
  v.kind = DataKind::View;
  v.type_name = "View";
  v.strides = {1};
  v.total_size = 64;
  s->arg_names = {"S", "R"};
  std::string k = "N";
  SDFGState* main = nullptr;
  if (assigned) {
    s->add_symbol("K");
    k = "K";
    auto& init = s->add_state("init", true);
    main = &s->add_state("main");
    InterstateEdge e;
    e.assignments.push_back({"K", CodeBlock{"N", Language::Python}});
    s->add_edge(init.id(), main->id(), e);
  } else {
    main = &s->add_state("main", true);
  }
  if (!end.empty()) k = end;
  auto a = main->add_access("S").id();
  auto& view = main->add_access("V");
  view.in_connectors["views"] = std::nullopt;
  auto vn = view.id();
  auto b = main->add_access("R").id();
  main->add_edge(a, "", vn, "views", Memlet::simple("S", Subset::parse("0:" + k)));
  main->add_edge(vn, "", b, "", Memlet::simple("V", Subset::parse("0:64")));
  return s;
}

}  // namespace

TEST_CASE("layout: a view of constant shape on a slice of symbolic size is checked at run time",
          "[runtime][layout]") {
  const bool assigned = GENERATE(false, true);
  INFO("bound through an assigned symbol: " << assigned);
  weir::test::fresh_cache(assigned ? "layout-reach-view-assigned" : "layout-reach-view");
  CompilableProgram prog{constant_view(assigned), {}, "constant_view"};
  auto backend = make_backend("cpu");
  for (std::int64_t n : {64, 100}) {
    Arguments ok = reach_arguments(n, 64);
    run(*backend, prog, ok);
    const auto* r = static_cast<const double*>(ok.arrays.at("R").data());
    for (int x = 0; x < 64; ++x) CHECK(r[x] == x + 1.0);  // R = S[0:64]
  }
  Arguments small = reach_arguments(10, 64);
  try {
    run(*backend, prog, small);
    FAIL("no error");
  } catch (const ProgramError& e) {
    const std::string k = assigned ? "K" : "N";
    CHECK_THAT(
        e.what(),
        Catch::Contains("view 'V' (shape [64], strides [1], start_offset 0) reaches element 63 from the "
                        "start of S[0:" +
                        k + "], which holds elements 0.." + k +
                        " - 1 of 'S' (strides [1]): its accesses would leave the memory it is bound to " +
                        (assigned ? "(false for the symbol values when state 'main' of SDFG 'viewer' starts)"
                                  : "(false for the symbol values of this call)")));
  }
  const auto* r = static_cast<const double*>(small.arrays.at("R").data());
  for (int x = 0; x < 64; ++x) CHECK(r[x] == -1.0);
}

namespace {

/// prog(S[N], R[N]): a map over i in 0:2 calls inner(X[4], Y[4]) (Y = 2 * X) on S[4*i:N] and
/// R[4*i:N]: right for N >= 8 only, and the condition depends on the map's parameter, so it is
/// checked at each call.
/// `gpu`: the map is a GPU_Device kernel and S, R are GPU_Global (for generate_cuda).
std::shared_ptr<SDFG> mapped_argument(bool gpu = false) {
  auto inner = std::make_unique<SDFG>("inner4");
  inner->add_array("X", ScalarType::Float64, {4});
  inner->add_array("Y", ScalarType::Float64, {4});
  {
    auto& st = inner->add_state("body", true);
    NodeId x = st.add_access("X").id();
    NodeId y = st.add_access("Y").id();
    auto& m = st.add_map("double", {"j"}, Subset::parse("0:4"));
    auto t = st.add_tasklet("twice", CodeBlock{"y = 2 * x", Language::Python}, {"x"}, {"y"}).id();
    auto in = st.add_memlet_path({x, m.id(), t}, Memlet::simple("X", Subset::parse("j")), "", "x");
    auto out = st.add_memlet_path({t, m.exit, y}, Memlet::simple("Y", Subset::parse("j")), "y", "");
    st.edge(in.front()).memlet = Memlet::simple("X", Subset::parse("0:4"));
    st.edge(out.back()).memlet = Memlet::simple("Y", Subset::parse("0:4"));
  }
  auto s = std::make_shared<SDFG>("prog");
  s->add_symbol("N");
  s->add_array("S", ScalarType::Float64, {Expr::symbol("N")});
  s->add_array("R", ScalarType::Float64, {Expr::symbol("N")});
  s->arg_names = {"S", "R"};
  auto& st = s->add_state("main", true);
  NodeId a = st.add_access("S").id();
  NodeId b = st.add_access("R").id();
  if (gpu) {
    s->arrays.at("S").storage = StorageType::GPU_Global;
    s->arrays.at("R").storage = StorageType::GPU_Global;
  }
  auto& m = st.add_map("halves", {"i"}, Subset::parse("0:2"),
                       gpu ? ScheduleType::GPU_Device : ScheduleType::Default);
  auto& ns = st.add_nested_sdfg("call", std::move(inner), {"X"}, {"Y"});
  auto in = st.add_memlet_path({a, m.id(), ns.id()}, Memlet::simple("S", Subset::parse("4*i:N")), "", "X");
  auto out = st.add_memlet_path({ns.id(), m.exit, b}, Memlet::simple("R", Subset::parse("4*i:N")), "Y", "");
  st.edge(in.front()).memlet = Memlet::simple("S", Subset::parse("0:N"));
  st.edge(out.back()).memlet = Memlet::simple("R", Subset::parse("0:N"));
  s->relink_nested();
  return s;
}

}  // namespace

TEST_CASE("layout: a nested SDFG argument whose reach depends on a map parameter is checked at its call",
          "[runtime][layout]") {
  weir::test::fresh_cache("layout-reach-mapped");
  CompilableProgram prog{mapped_argument(), {}, "mapped_argument"};
  auto backend = make_backend("cpu");
  // N = 8: the calls write R[0:4] and R[4:8] = 2 * S.
  Arguments ok = reach_arguments(8);
  run(*backend, prog, ok);
  const auto* r = static_cast<const double*>(ok.arrays.at("R").data());
  for (int x = 0; x < 8; ++x) CHECK(r[x] == 2.0 * (x + 1));
  // N = 7: the call for i = 1 would read S[4..7] and write R[4..7]; it is skipped, and the run
  // fails after the state.
  Arguments small = reach_arguments(7);
  try {
    run(*backend, prog, small);
    FAIL("no error");
  } catch (const ProgramError& e) {
    CHECK_THAT(e.what(),
               Catch::Contains("state 'main'") &&
                   Catch::Contains("argument 'X' of nested SDFG 'inner4' (shape [4], strides [1], "
                                   "start_offset 0) reaches element 3 from the start of S[4*i:N]") &&
                   Catch::Contains("(false for the values of this call)"));
  }
  r = static_cast<const double*>(small.arrays.at("R").data());
  for (int x = 4; x < 7; ++x) CHECK(r[x] == -1.0);
}

TEST_CASE("layout: in a CUDA kernel a nested SDFG argument's reach is checked at its call as a device fault",
          "[runtime][layout]") {
  // The kernel records the fault (weir_layout_fault: device fault kind 4 under __CUDA_ARCH__) and
  // skips the call; the host raises it after the kernel.
  const std::string source = codegen::generate_cuda(*mapped_argument(true)).source;
  const std::size_t kernel = source.find("__global__");
  const std::size_t check = source.find(
      "if ((N - 4*i - 4) < 0) weir_layout_fault(\"argument 'X' of nested SDFG 'inner4' (shape [4], strides "
      "[1], "
      "start_offset 0) reaches element 3 from the start of S[4*i:N]");
  REQUIRE(kernel != std::string::npos);
  REQUIRE(check != std::string::npos);
  CHECK(kernel < check);
  CHECK(source.find("weir_device_fault(4, 0, 0, 0, text)") != std::string::npos);
}

namespace {

/// prog(S[N], R[8]): a map over i in 0:2 defines the view V[4] of S[4*i:N] and writes
/// R[4*i + j] = 2 * V[j] for j in 0:4: right for N >= 8 only, and the view's reach depends on
/// the map's parameter, so each iteration checks it before its body runs.
/// `gpu`: the outer map is a GPU_Device kernel and S, R are GPU_Global (for generate_cuda).
std::shared_ptr<SDFG> mapped_view(bool gpu = false) {
  auto s = std::make_shared<SDFG>("mapped_view");
  s->add_symbol("N");
  s->add_array("S", ScalarType::Float64, {Expr::symbol("N")});
  s->add_array("R", ScalarType::Float64, {8});
  DataDescriptor& v = s->add_array("V", ScalarType::Float64, {4}, true);
  v.kind = DataKind::View;
  if (gpu) {
    s->arrays.at("S").storage = StorageType::GPU_Global;
    s->arrays.at("R").storage = StorageType::GPU_Global;
    s->arrays.at("V").storage = StorageType::GPU_Global;
  }
  s->arg_names = {"S", "R"};
  auto& st = s->add_state("main", true);
  NodeId a = st.add_access("S").id();
  NodeId b = st.add_access("R").id();
  auto& outer = st.add_map("quarters", {"i"}, Subset::parse("0:2"),
                           gpu ? ScheduleType::GPU_Device : ScheduleType::Default);
  auto& view = st.add_access("V");
  view.in_connectors["views"] = std::nullopt;
  NodeId vn = view.id();
  auto& inner = st.add_map("points", {"j"}, Subset::parse("0:4"), ScheduleType::Sequential);
  auto t = st.add_tasklet("twice", CodeBlock{"y = 2 * x", Language::Python}, {"x"}, {"y"}).id();
  st.add_memlet_path({a, outer.id(), vn}, Memlet::simple("S", Subset::parse("4*i:N")), "", "views");
  st.edge(st.in_edges(outer.id()).front()).memlet = Memlet::simple("S", Subset::parse("0:N"));
  auto in = st.add_memlet_path({vn, inner.id(), t}, Memlet::simple("V", Subset::parse("j")), "", "x");
  st.edge(in.front()).memlet = Memlet::simple("V", Subset::parse("0:4"));
  auto out = st.add_memlet_path({t, inner.exit, outer.exit, b}, Memlet::simple("R", Subset::parse("4*i + j")),
                                "y", "");
  st.edge(out[1]).memlet = Memlet::simple("R", Subset::parse("4*i:4*i + 4"));
  st.edge(out.back()).memlet = Memlet::simple("R", Subset::parse("0:8"));
  return s;
}

const std::string kViewReach =
    "view 'V' (shape [4], strides [1], start_offset 0) reaches element 3 from the start of S[4*i:N]";

}  // namespace

TEST_CASE("layout: a view whose reach depends on a map parameter is checked in each iteration",
          "[runtime][layout]") {
  weir::test::fresh_cache("layout-reach-mapped-view");
  std::shared_ptr<SDFG> sdfg = mapped_view();
  REQUIRE(validate(*sdfg).empty());
  CompilableProgram prog{sdfg, {}, "mapped_view"};
  auto backend = make_backend("cpu");
  // N = 8 and N = 9: R = 2 * S[0:8].
  for (std::int64_t n : {8, 9}) {
    Arguments ok = reach_arguments(n, 8);
    run(*backend, prog, ok);
    const auto* r = static_cast<const double*>(ok.arrays.at("R").data());
    for (int x = 0; x < 8; ++x) CHECK(r[x] == 2.0 * (x + 1));
  }
  // N = 7: the iteration i = 1 would read S[4..7]; its body is skipped, and the run fails after
  // the state (old code: an unchecked read past S's 7 elements).
  Arguments small = reach_arguments(7, 8);
  try {
    run(*backend, prog, small);
    FAIL("no error");
  } catch (const ProgramError& e) {
    CHECK_THAT(e.what(), Catch::Contains("state 'main'") && Catch::Contains(kViewReach) &&
                             Catch::Contains("(false for the values of this iteration)"));
  }
  const auto* r = static_cast<const double*>(small.arrays.at("R").data());
  for (int x = 4; x < 8; ++x) CHECK(r[x] == -1.0);
}

TEST_CASE("layout: in a CUDA kernel a view's reach on a map parameter is checked as a device fault",
          "[runtime][layout]") {
  const std::string source = codegen::generate_cuda(*mapped_view(true)).source;
  const std::size_t kernel = source.find("__global__");
  const std::size_t check = source.find("if ((N - 4*i - 4) < 0) weir_layout_fault(\"" + kViewReach);
  REQUIRE(kernel != std::string::npos);
  REQUIRE(check != std::string::npos);
  CHECK(kernel < check);
}

TEST_CASE("layout: an undecidable reach without a C++ spelling is refused, not left unchecked",
          "[runtime][layout]") {
  // blur(N) has no C++ equivalent, so weir cannot check V[64] on S[0:blur(N)] at run time: code
  // generation refuses the view (old code: compiled with the reach unchecked).
  try {
    (void)codegen::generate_cpu(*constant_view(false, "blur(N)"));
    FAIL("no error");
  } catch (const Error& e) {
    CHECK_THAT(e.what(), Catch::Contains("view 'V' (shape [64]") &&
                             Catch::Contains("weir cannot write a run-time check for it") &&
                             Catch::Contains("'blur'"));
  }
}
