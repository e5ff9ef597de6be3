// Transients with legitimate non-default layouts run with correct values on the cpu backend, and
// a total_size that depends on a symbol only known at run time is checked by the generated code
// before any state runs (ADR 0037). One compile serves every case: T is a run-time symbol.
#include <catch2/catch.hpp>
#include <memory>
#include <string>

#include "runtime_test_util.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state.h"

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
