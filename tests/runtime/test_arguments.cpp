// Binding arguments by name: symbol inference from shapes, dtype/shape checks, clear errors.
#include <catch2/catch.hpp>
#include <climits>
#include <cstdint>
#include <cstring>

#include "corpus.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/arguments.h"
#include "weir/runtime/connectivity_check.h"
#include "weir/runtime/errors.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"

using namespace weir::runtime;
using weir::ScalarType;
using weir::sym::Expr;

namespace {

Parameter array(std::string name, ScalarType t, std::vector<std::string> shape) {
  Parameter p;
  p.name = std::move(name);
  p.kind = Parameter::Kind::Array;
  p.dtype = t;
  for (const auto& s : shape) p.shape.push_back(Expr::parse(s));
  p.strides = weir::DataDescriptor::row_major_strides(p.shape);
  p.has_shape = true;
  return p;
}
Parameter scalar(std::string name, ScalarType t) {
  Parameter p;
  p.name = std::move(name);
  p.kind = Parameter::Kind::Scalar;
  p.dtype = t;
  return p;
}
Parameter symbol(std::string name) {
  Parameter p;
  p.name = std::move(name);
  p.kind = Parameter::Kind::Symbol;
  p.dtype = ScalarType::Int64;
  return p;
}
Field field(ScalarType t, std::vector<std::int64_t> shape) {
  return Allocator::cpu().allocate(t, std::move(shape));
}

template <class T>
T slot(const BoundArguments& b, std::size_t i) {
  T v;
  std::memcpy(&v, b.pointers()[i], sizeof v);
  return v;
}

}  // namespace

TEST_CASE("arguments: hdiff's sizes are inferred from its array shapes", "[runtime][arguments]") {
  auto sdfg = weir::load_sdfg((weir::test::dace_corpus_dir() / "hdiff" / "hdiff.simplified.sdfg").string());
  Signature sig = Signature::from_sdfg(*sdfg);
  REQUIRE(sig.names() == "in_field, out_field, coeff, I, J, K");
  CHECK(sig.find("out_field")->written);
  CHECK_FALSE(sig.find("in_field")->written);
  CHECK(sig.find("in_field")->describe() == "float64 array of shape (I + 4, J + 4, K)");
  Arguments args;
  args.arrays.emplace("in_field", field(ScalarType::Float64, {20, 20, 8}));
  args.arrays.emplace("out_field", field(ScalarType::Float64, {16, 16, 8}));
  args.arrays.emplace("coeff", field(ScalarType::Float64, {16, 16, 8}));
  BoundArguments b = bind_arguments(sig, args);
  CHECK(b.symbols() == std::map<std::string, std::int64_t>{{"I", 16}, {"J", 16}, {"K", 8}});
  REQUIRE(b.size() == 6);
  CHECK(b.pointers()[0] == args.arrays.at("in_field").data());
  CHECK(slot<std::int64_t>(b, 3) == 16);
  CHECK(slot<std::int64_t>(b, 5) == 8);
}

TEST_CASE("arguments: affine shapes, given symbols and conflicts", "[runtime][arguments]") {
  Signature sig{"p",
                {array("A", ScalarType::Float64, {"2*N + 1", "M"}),
                 array("B", ScalarType::Float64, {"N", "N*M"}), symbol("M"), symbol("N")}};
  Arguments args;
  args.arrays.emplace("A", field(ScalarType::Float64, {9, 3}));
  args.arrays.emplace("B", field(ScalarType::Float64, {4, 12}));
  auto b = bind_arguments(sig, args);
  CHECK(b.symbols() == std::map<std::string, std::int64_t>{{"M", 3}, {"N", 4}});

  // A given value must agree with the shapes.
  args.values["N"] = std::int64_t{5};
  CHECK_THROWS_WITH(
      bind_arguments(sig, args),
      "argument 'A': expected float64 array of shape (11, 3), got float64 (9, 3) (N = 5 as given)");
  args.values.erase("N");
  // Two arrays that disagree.
  args.arrays.at("B") = field(ScalarType::Float64, {6, 18});
  CHECK_THROWS_WITH(bind_arguments(sig, args),
                    "argument 'B': expected float64 array of shape (4, 12), got float64 (6, 18) "
                    "(N = 4 from argument 'A' (dimension 0 is 2*N + 1 = 9))");
  // An extent that no integer size gives.
  args.arrays.at("A") = field(ScalarType::Float64, {8, 3});
  CHECK_THROWS_WITH(bind_arguments(sig, args), Catch::StartsWith("argument 'A': dimension 0 has extent 8") &&
                                                   Catch::Contains("no solution"));
  // A dimension that inference cannot solve is checked after inference.
  args.arrays.at("A") = field(ScalarType::Float64, {13, 3});
  args.arrays.at("B") = field(ScalarType::Float64, {6, 17});
  CHECK_THROWS_WITH(bind_arguments(sig, args),
                    "argument 'B': expected float64 array of shape (6, 18), got float64 (6, 17)");
}

TEST_CASE("arguments: wrong dtype, wrong shape, missing and unknown names", "[runtime][arguments]") {
  Signature sig{"p",
                {array("A", ScalarType::Float64, {"N", "N"}), scalar("alpha", ScalarType::Float64),
                 scalar("TSTEPS", ScalarType::Int32), symbol("N")}};
  Arguments args;
  args.arrays.emplace("A", field(ScalarType::Int64, {64, 64}));
  args.values["alpha"] = 0.5;
  args.values["TSTEPS"] = std::int64_t{10};
  CHECK_THROWS_WITH(bind_arguments(sig, args),
                    "argument 'A': expected float64 array of shape (64, 64), got int64 (64, 64)");
  CHECK_THROWS_AS(bind_arguments(sig, args), ArgumentError);
  args.arrays.at("A") = field(ScalarType::Float64, {64});
  CHECK_THROWS_WITH(bind_arguments(sig, args),
                    "argument 'A': expected float64 array of shape (N, N), got float64 (64,)");
  args.arrays.at("A") = field(ScalarType::Float64, {64, 32});
  CHECK_THROWS_WITH(
      bind_arguments(sig, args),
      "argument 'A': expected float64 array of shape (64, 64), got float64 (64, 32) (N = 64 from its "
      "dimension 0)");
  args.arrays.at("A") = field(ScalarType::Float64, {64, 64});
  auto b = bind_arguments(sig, args);
  CHECK(slot<double>(b, 1) == 0.5);
  CHECK(slot<std::int32_t>(b, 2) == 10);

  Arguments missing;
  missing.values["alpha"] = 1.0;
  CHECK_THROWS_WITH(bind_arguments(sig, missing),
                    "missing arguments 'A' (float64 array of shape (N, N)), 'TSTEPS' (int32 scalar)");
  missing.values["TSTEPS"] = std::int64_t{1};
  missing.values["N"] = std::int64_t{8};
  CHECK_THROWS_WITH(bind_arguments(sig, missing), "missing argument 'A' (float64 array of shape (8, 8))");

  Arguments unknown;
  unknown.arrays.emplace("X", field(ScalarType::Float64, {1}));
  CHECK_THROWS_WITH(bind_arguments(sig, unknown),
                    "unknown argument 'X' (program 'p' takes A, alpha, TSTEPS, N)");
  Arguments wrong_kind;
  wrong_kind.values["A"] = 1.0;
  CHECK_THROWS_WITH(bind_arguments(sig, wrong_kind),
                    Catch::StartsWith("argument 'A': expected float64 array"));

  args.values["TSTEPS"] = 2.5;
  CHECK_THROWS_WITH(bind_arguments(sig, args),
                    "argument 'TSTEPS': expected int32 scalar, got 2.5 (not an integer)");
  args.values["TSTEPS"] = std::int64_t{1} << 40;
  CHECK_THROWS_WITH(bind_arguments(sig, args), Catch::Contains("(out of range)"));
  args.values["TSTEPS"] = 3.0;  // an integral float is fine
  CHECK(slot<std::int32_t>(bind_arguments(sig, args), 2) == 3);
  // true for a float64 scalar is refused, not passed as 1.0.
  args.values["alpha"] = true;
  CHECK_THROWS_WITH(
      bind_arguments(sig, args),
      "argument 'alpha': expected float64 scalar, got true (a boolean for a floating-point parameter)");
}

TEST_CASE("arguments: a symbol no shape determines must be given", "[runtime][arguments]") {
  Signature sig{"p", {array("A", ScalarType::Float64, {"N + M"}), symbol("M"), symbol("N")}};
  Arguments args;
  args.arrays.emplace("A", field(ScalarType::Float64, {10}));
  CHECK_THROWS_WITH(bind_arguments(sig, args), Catch::StartsWith("missing value of symbol 'M'"));
  args.values["M"] = std::int64_t{4};
  CHECK_THROWS_WITH(bind_arguments(sig, args), Catch::StartsWith("missing value of symbol 'N'"));
  args.values["N"] = std::int64_t{6};
  CHECK(bind_arguments(sig, args).symbols().at("N") == 6);
  args.values["N"] = std::int64_t{7};
  CHECK_THROWS_WITH(bind_arguments(sig, args),
                    "argument 'A': expected float64 array of shape (11,), got float64 (10,)");
}

TEST_CASE("arguments: non-C-order descriptor strides are rejected", "[runtime][arguments]") {
  Parameter p = array("A", ScalarType::Float64, {"N", "M"});
  p.strides = {Expr(1), Expr::parse("N")};  // Fortran order
  Signature sig{"p", {p, symbol("M"), symbol("N")}};
  Arguments args;
  args.arrays.emplace("A", field(ScalarType::Float64, {3, 4}));
  CHECK_THROWS_WITH(bind_arguments(sig, args),
                    Catch::Contains("expects strides (1, 3)") && Catch::Contains("(4, 1)"));
}

TEST_CASE("arguments: written scalars are copied back", "[runtime][arguments]") {
  Parameter s = scalar("x", ScalarType::Float32);
  s.written = true;
  Signature sig{"p", {s}};
  Arguments args;
  args.values["x"] = std::int64_t{2};
  auto b = bind_arguments(sig, args);
  float v = 7.5f;
  std::memcpy(b.pointers()[0], &v, sizeof v);
  b.store_written_scalars(sig, args);
  CHECK(std::get<double>(args.values.at("x")) == 7.5);
}

TEST_CASE("return values the caller does not give are allocated with their symbols' sizes",
          "[arguments][return]") {
  Signature sig;
  sig.program_name = "p";
  sig.params = {array("A", ScalarType::Float64, {"N", "M"}),
                array("__return", ScalarType::Float32, {"M + 1"}), symbol("M"), symbol("N")};
  sig.params[1].returned = true;
  Arguments args;
  args.arrays.emplace("A", field(ScalarType::Float64, {3, 5}));
  auto b = bind_arguments(sig, args);
  REQUIRE(args.arrays.count("__return"));
  const Field& r = args.arrays.at("__return");
  CHECK(r.describe() == "float32 (6,)");
  CHECK(b.pointers()[1] == r.data());
  for (std::int64_t i = 0; i < r.size(); ++i) CHECK(r.value_as_double(i) == 0.0);
  // A caller may still pass it; then that array is used and checked.
  Arguments given;
  given.arrays.emplace("A", field(ScalarType::Float64, {3, 5}));
  given.arrays.emplace("__return", field(ScalarType::Float32, {6}));
  const void* mine = given.arrays.at("__return").data();
  auto b2 = bind_arguments(sig, given);
  CHECK(b2.pointers()[1] == mine);
  Arguments wrong;
  wrong.arrays.emplace("A", field(ScalarType::Float64, {3, 5}));
  wrong.arrays.emplace("__return", field(ScalarType::Float32, {5}));
  CHECK_THROWS_WITH(bind_arguments(sig, wrong), Catch::Contains("argument '__return'"));
}

TEST_CASE("a return value sized by a symbol nobody gives is a missing symbol", "[arguments][return]") {
  Signature sig;
  sig.program_name = "p";
  sig.params = {array("__return", ScalarType::Float64, {"K"}), symbol("K")};
  sig.params[0].returned = true;
  Arguments args;
  CHECK_THROWS_WITH(bind_arguments(sig, args), Catch::Contains("missing value of symbol 'K'"));
}

TEST_CASE("Signature::from_sdfg marks __return containers as returned", "[arguments][return]") {
  auto sdfg = weir::load_sdfg((weir::test::npbench_corpus_dir() / "atax" / "atax.simplified.sdfg").string());
  auto sig = Signature::from_sdfg(*sdfg);
  REQUIRE(sig.find("__return"));
  CHECK(sig.find("__return")->returned);
  CHECK_FALSE(sig.find("A")->returned);
}

TEST_CASE("arguments: a binding takes other arrays and values without binding again",
          "[runtime][arguments]") {
  Signature sig;
  sig.program_name = "p";
  sig.params = {array("A", ScalarType::Float64, {"N"}), scalar("a", ScalarType::Int32), symbol("N"),
                symbol("lo")};
  Arguments args;
  args.arrays.emplace("A", field(ScalarType::Float64, {4}));
  args.values["a"] = std::int64_t{3};
  args.values["lo"] = std::int64_t{1};
  BoundArguments b = bind_arguments(sig, args);
  Field other = field(ScalarType::Float64, {4});
  b.rebind_array(0, other.data());
  CHECK(b.pointers()[0] == other.data());
  b.rebind_value(sig, 1, std::int64_t{-7});
  CHECK(slot<std::int32_t>(b, 1) == -7);
  b.rebind_value(sig, 3, 5.0);  // an integral float for a symbol
  CHECK(slot<std::int64_t>(b, 3) == 5);
  CHECK(b.symbols().at("lo") == 5);
  CHECK(b.symbols().at("N") == 4);
  // The conversions of bind_arguments, with its messages.
  CHECK_THROWS_WITH(b.rebind_value(sig, 1, std::int64_t{1} << 40), Catch::Contains("argument 'a': expected"));
  CHECK_THROWS_WITH(b.rebind_value(sig, 3, 0.5),
                    Catch::Contains("symbol 'lo': expected an integer, got 0.5"));
  CHECK_THROWS_AS(b.rebind_value(sig, 0, 1.0), ArgumentError);
}

TEST_CASE("an int64 connectivity entry that does not fit int32 is named with its table and place",
          "[runtime][arguments]") {
  // A table over a dimension no other argument gives the extent of (check_connectivities
  // cannot bound its entries): narrowing it to the program's int32 is where the entry is caught.
  Signature sig;
  sig.params.push_back(array("E2V", ScalarType::Int32, {"__E2V_Edge_size", "__E2V_E2VDim_size"}));
  const std::vector<ConnectivityParameter> conns{{"E2V", "Edge", "Vertex", "E2VDim"}};
  Arguments args;
  Field t = field(ScalarType::Int64, {3, 2});
  auto* e = static_cast<std::int64_t*>(t.data());
  for (std::int64_t i = 0; i < 6; ++i) e[i] = i;
  e[3] = std::int64_t{1} << 40;  // row 1, column 1 (row-major, 2 columns): 1099511627776
  args.arrays.emplace("E2V", std::move(t));
  bool ran = false;
  CHECK_THROWS_WITH(
      with_int32_tables(conns, sig, args, [&] { ran = true; }),
      "connectivity 'E2V': entry [1, 1] = 1099511627776 does not fit int32 (the compiled program "
      "reads its tables as int32; an entry is -1 or an index of Vertex)");
  CHECK(!ran);
  // The caller's table is left as it was.
  REQUIRE(args.arrays.at("E2V").dtype() == ScalarType::Int64);
  CHECK(static_cast<const std::int64_t*>(args.arrays.at("E2V").data())[3] == (std::int64_t{1} << 40));
  // -2^31 - 1 fails the same way, at its own place; INT32_MIN and INT32_MAX fit.
  e = static_cast<std::int64_t*>(args.arrays.at("E2V").data());
  e[3] = 3;
  e[4] = std::int64_t{INT32_MIN} - 1;
  CHECK_THROWS_WITH(with_int32_tables(conns, sig, args, [] {}),
                    Catch::StartsWith("connectivity 'E2V': entry [2, 0] = -2147483649 does not fit int32"));
  e[4] = INT32_MIN;
  e[5] = INT32_MAX;
  std::int32_t seen = 0;
  with_int32_tables(conns, sig, args,
                    [&] { seen = static_cast<const std::int32_t*>(args.arrays.at("E2V").data())[5]; });
  CHECK(seen == INT32_MAX);
}
