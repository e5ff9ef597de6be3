// Memory layouts of data descriptors (ADR 0037): a transient's total_size, strides and
// start_offset, an argument's start_offset, a view against the subset it views and a nested
// SDFG's argument against its outer memlet. Each malformed field is one located error naming
// the container, the field, what was expected and what was found; legitimate layouts (padded
// strides, Fortran order, start_offset within total_size, symbolic sizes) stay valid. The
// expected element indices are worked out by hand in the comments.
#include <catch2/catch.hpp>
#include <memory>
#include <string>
#include <vector>

#include "weir/sdfg/layout.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/symbolic.h"
#include "weir/sdfg/validate.h"

using namespace weir;
using sym::Expr;

namespace {

/// The diagnostics of `sdfg` with `code`.
std::vector<Diagnostic> with_code(const SDFG& sdfg, const std::string& code) {
  std::vector<Diagnostic> out;
  for (auto& d : validate(sdfg))
    if (d.code == code) out.push_back(d);
  return out;
}

/// prog(A[2, 3], B[2, 3]) with transient T[2, 3]: B = (A copied through T). State "main":
/// A -> T -> B, whole-array copies. The test changes T's descriptor.
std::unique_ptr<SDFG> through_transient() {
  auto s = std::make_unique<SDFG>("prog");
  s->add_array("A", ScalarType::Float64, {2, 3});
  s->add_array("B", ScalarType::Float64, {2, 3});
  s->add_array("T", ScalarType::Float64, {2, 3}, true);
  s->arg_names = {"A", "B"};
  auto& st = s->add_state("main", true);
  auto a = st.add_access("A").id();
  auto t = st.add_access("T").id();
  auto b = st.add_access("B").id();
  st.add_edge(a, "", t, "", Memlet::simple("A", Subset::parse("0:2, 0:3")));
  st.add_edge(t, "", b, "", Memlet::simple("T", Subset::parse("0:2, 0:3")));
  return s;
}

std::string only_message(const SDFG& sdfg, const std::string& code) {
  auto ds = with_code(sdfg, code);
  INFO(InvalidSDFGError(validate(sdfg)).what());
  REQUIRE(ds.size() == 1);
  return ds.front().str();
}

}  // namespace

TEST_CASE("layout: a transient's total_size short of what its shape reaches is a located error",
          "[validate][layout]") {
  auto s = through_transient();
  // Shape [2, 3], strides [3, 1]: the last element is 1*3 + 2*1 = 5, so 6 elements are needed.
  s->arrays.at("T").total_size = 2;
  CHECK(
      only_message(*s, "desc-layout") ==
      "SDFG 'prog': container 'T' has total_size 2, but its shape [2, 3] with strides [3, 1] and "
      "start_offset 0 "
      "reaches element 5: total_size must be at least 6 (weir allocates total_size elements) [desc-layout]");
  s->arrays.at("T").total_size = 6;
  CHECK(with_code(*s, "desc-layout").empty());
}

TEST_CASE("layout: huge strides and start_offset past total_size are located errors", "[validate][layout]") {
  auto s = through_transient();
  DataDescriptor& t = s->arrays.at("T");
  // strides [2**40, 1]: element 2**40 + 2 = 1099511627778 of 6.
  t.strides = {Expr(1LL << 40), 1};
  CHECK(only_message(*s, "desc-layout")
            .find("reaches element 1099511627778: total_size must be at least "
                  "1099511627779") != std::string::npos);
  t.strides = {3, 1};
  // start_offset 64: last element 64 + 5 = 69.
  t.start_offset = 64;
  CHECK(only_message(*s, "desc-layout")
            .find("and start_offset 64 reaches element 69: total_size must be at "
                  "least 70") != std::string::npos);
  // A stride that overflows int64 when multiplied out.
  t.start_offset = 0;
  t.strides = {Expr(1LL << 62), Expr(1LL << 62)};
  t.shape = {Expr(8), Expr(8)};
  CHECK(only_message(*s, "desc-layout").find("overflow 64-bit element indices") != std::string::npos);
}

TEST_CASE("layout: negative strides, start_offset and total_size are located errors", "[validate][layout]") {
  auto s = through_transient();
  DataDescriptor& t = s->arrays.at("T");
  t.strides = {-3, 1};
  t.total_size = 100;
  CHECK(only_message(*s, "desc-layout") ==
        "SDFG 'prog': container 'T' has stride -3 in dimension 0 (strides [-3, 1]): strides must be "
        "non-negative [desc-layout]");
  t.strides = {3, 1};
  t.start_offset = -1;
  CHECK(only_message(*s, "desc-layout") ==
        "SDFG 'prog': container 'T' has start_offset -1: it must be non-negative [desc-layout]");
  t.start_offset = 0;
  t.total_size = -6;
  CHECK(only_message(*s, "desc-layout") ==
        "SDFG 'prog': container 'T' has total_size -6: it must be non-negative [desc-layout]");
  // A dimension of extent 1 never multiplies its stride by anything but 0: any stride is fine.
  t.total_size = 3;
  t.shape = {1, 3};
  t.strides = {-100, 1};
  CHECK(with_code(*s, "desc-layout").empty());
}

TEST_CASE("layout: padded, Fortran-order and offset transients are valid", "[validate][layout]") {
  auto s = through_transient();
  DataDescriptor& t = s->arrays.at("T");
  t.strides = {4, 1};  // padded rows: last element 1*4 + 2 = 6
  t.total_size = 7;
  CHECK(validate(*s).empty());
  t.strides = {1, 2};  // Fortran order: last element 1 + 2*2 = 5
  t.total_size = 6;
  CHECK(validate(*s).empty());
  t.strides = {3, 1};  // start_offset 5 within total_size 11: last element 5 + 5 = 10
  t.start_offset = 5;
  t.total_size = 11;
  CHECK(validate(*s).empty());
  // total_size 0 means the product of the shape (DaCe's loader, weir's allocation).
  t.start_offset = 0;
  t.total_size = 0;
  CHECK(validate(*s).empty());
}

TEST_CASE("layout: symbolic total_size is checked where provable", "[validate][layout]") {
  auto s = through_transient();
  s->add_symbol("N");
  s->add_symbol("S");
  DataDescriptor& t = s->arrays.at("T");
  const Expr n = Expr::symbol("N");
  t.shape = {n, n + 2};
  t.strides = {n + 2, 1};
  s->arrays.at("A").shape = {n, n + 2};
  s->arrays.at("B").shape = {n, n + 2};
  // N*(N + 2) is exactly what the shape reaches: (N - 1)*(N + 2) + N + 1 + 1.
  t.total_size = n * (n + 2);
  CHECK(with_code(*s, "desc-layout").empty());
  // One element short for every N: provably wrong.
  t.total_size = n * (n + 2) - 1;
  CHECK(only_message(*s, "desc-layout").find("total_size must be at least N**2 + 2*N") != std::string::npos);
  // An unrelated symbol: not decidable here, checked by the generated code at run time.
  t.total_size = Expr::symbol("S");
  CHECK(with_code(*s, "desc-layout").empty());
  LayoutCondition c = layout_conditions("T", t).back();
  CHECK(c.field == "total_size");
  CHECK(!holds(c).has_value());
}

TEST_CASE("layout: an argument's start_offset is a located error", "[validate][layout]") {
  auto s = through_transient();
  s->arrays.at("A").start_offset = 3;
  CHECK(
      only_message(*s, "desc-layout") ==
      "SDFG 'prog': container 'A' is an argument of the program with start_offset 3: arguments are bound at "
      "their first element, so start_offset must be 0 [desc-layout]");
}

namespace {

/// prog(A[4, 5], B[k]): state "main" with A -> V -> B, where V is a view of A[subset] with
/// `shape` and `strides` (V -> B copies V[0:k]).
std::unique_ptr<SDFG> viewing(const std::string& subset, long long k, long long stride) {
  auto s = std::make_unique<SDFG>("viewer");
  s->add_array("A", ScalarType::Float64, {4, 5});
  s->add_array("B", ScalarType::Float64, {k});
  DataDescriptor& v = s->add_array("V", ScalarType::Float64, {k}, true);
  v.kind = DataKind::View;
  v.type_name = "View";
  v.strides = {stride};
  v.total_size = (k - 1) * stride + 1;
  s->arg_names = {"A", "B"};
  auto& st = s->add_state("main", true);
  auto a = st.add_access("A").id();
  auto vn = st.add_access("V").id();
  auto b = st.add_access("B").id();
  st.add_edge(a, "", vn, "views", Memlet::simple("A", Subset::parse(subset)));
  st.add_edge(vn, "", b, "", Memlet::simple("V", Subset::parse("0:" + std::to_string(k))));
  return s;
}

}  // namespace

TEST_CASE("layout: a view that reaches past the subset it views is a located error", "[validate][layout]") {
  // Row 1 of A: elements 5..9, so the view has room for elements 0..4 from its start.
  CHECK(with_code(*viewing("1, 0:5", 5, 1), "view-reach").empty());
  CHECK(
      only_message(*viewing("1, 0:5", 6, 1), "view-reach") ==
      "SDFG 'viewer', state 'main', node 1 ('V'): view 'V' (shape [6], strides [1], start_offset 0) reaches "
      "element 5 from the start of A[1, 0:5], which holds elements 0..4 of 'A' (strides [5, 1]): its "
      "accesses "
      "would leave the memory it is bound to [view-reach]");
  // Column 2 with stride 5: A[0:4, 2] spans 3*5 = 15 elements from its start, the view 3*5.
  CHECK(with_code(*viewing("0:4, 2", 4, 5), "view-reach").empty());
  // The same column with stride 6 reaches element 18.
  CHECK(only_message(*viewing("0:4, 2", 4, 6), "view-reach").find("reaches element 18") != std::string::npos);
}

TEST_CASE("layout: a nested SDFG argument larger than its outer memlet is a located error",
          "[validate][layout]") {
  auto make = [](const Expr& m) {
    auto s = std::make_unique<SDFG>("outer");
    s->add_symbol("N");
    const Expr n = Expr::symbol("N");
    s->add_array("A", ScalarType::Float64, {n});
    s->add_array("B", ScalarType::Float64, {n});
    auto inner = std::make_unique<SDFG>("inner");
    inner->add_symbol("M");
    inner->add_array("X", ScalarType::Float64, {Expr::symbol("M")});
    inner->add_array("Y", ScalarType::Float64, {Expr::symbol("M")});
    auto& is = inner->add_state("body", true);
    is.add_edge(is.add_access("X").id(), "", is.add_access("Y").id(), "",
                Memlet::simple("X", Subset::parse("0:M")));
    auto& st = s->add_state("call", true);
    auto a = st.add_access("A").id();
    auto b = st.add_access("B").id();
    auto& nested = st.add_nested_sdfg("callee", std::move(inner), {"X"}, {"Y"}, {{"M", m}});
    st.add_edge(a, "", nested.id(), "X", Memlet::simple("A", Subset::parse("0:N")));
    st.add_edge(nested.id(), "Y", b, "", Memlet::simple("B", Subset::parse("0:N")));
    return s;
  };
  CHECK(with_code(*make(Expr::symbol("N")), "nested-reach").empty());
  // M = N + 1: X reaches element N from A[0], A[0:N] holds elements 0..N - 1 (both edges).
  auto bad = with_code(*make(Expr::symbol("N") + 1), "nested-reach");
  REQUIRE(bad.size() == 2);
  CHECK(
      bad[0].str() ==
      "SDFG 'outer', state 'call', edge 0: argument 'X' of nested SDFG 'inner' (shape [N + 1], strides [1], "
      "start_offset 0) reaches element N from the start of A[0:N], which holds elements 0..N - 1 of 'A' "
      "(strides [1]): its accesses would leave the memory it is bound to [nested-reach]");
}
