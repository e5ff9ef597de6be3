// The validator: graphs built with the builder API that must fail (each with the diagnostic
// code and the element it names), graphs that must pass, malformed graphs that must be reported
// rather than crash, nested SDFGs, and the DaCe corpus (every file valid except
// doc-samples/reference.sdfg, whose "Reference" descriptor DaCe 2 no longer knows).
#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "corpus.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/symbolic.h"
#include "weir/sdfg/validate.h"

using namespace weir;
using sym::Expr;

namespace {

Expr N() { return Expr::symbol("N"); }

std::string all_text(const std::vector<Diagnostic>& ds) {
  std::string s;
  for (const auto& d : ds) s += d.str() + "\n";
  return s;
}

/// The first diagnostic with `code`; FAILs (listing every diagnostic) if there is none.
const Diagnostic& find_code(const std::vector<Diagnostic>& ds, const std::string& code) {
  for (const auto& d : ds)
    if (d.code == code) return d;
  FAIL("no diagnostic '" << code << "' among:\n" << all_text(ds));
  throw std::logic_error("unreachable");
}

bool contains(const std::string& haystack, const std::string& needle) {
  return haystack.find(needle) != std::string::npos;
}

void require_valid(const SDFG& sdfg) {
  auto ds = validate(sdfg);
  INFO(all_text(ds));
  REQUIRE(ds.empty());
  REQUIRE_NOTHROW(validate_or_throw(sdfg));
}

/// prog(A[N], B[N]): state "main" with map "compute" over i in 0:N running tasklet "twice"
/// (B[i] = 2 * A[i]). Ids: A 0, B 1, entry 2, exit 3, tasklet 4.
struct MapProgram {
  std::unique_ptr<SDFG> sdfg = std::make_unique<SDFG>("prog");
  SDFGState* st = nullptr;
  NodeId a = 0, b = 0, entry = 0, exit = 0, tasklet = 0;
  std::vector<EdgeId> in_path, out_path;

  MapProgram() {
    sdfg->add_symbol("N");
    sdfg->add_array("A", ScalarType::Float64, {N()});
    sdfg->add_array("B", ScalarType::Float64, {N()});
    sdfg->arg_names = {"A", "B"};
    st = &sdfg->add_state("main", true);
    a = st->add_access("A").id();
    b = st->add_access("B").id();
    auto& me = st->add_map("compute", {"i"}, Subset::parse("0:N"));
    entry = me.id();
    exit = me.exit;
    tasklet = st->add_tasklet("twice", CodeBlock{"y = 2 * x", Language::Python}, {"x"}, {"y"}).id();
    in_path = st->add_memlet_path({a, entry, tasklet}, Memlet::simple("A", Subset::parse("i")), "", "x");
    out_path = st->add_memlet_path({tasklet, exit, b}, Memlet::simple("B", Subset::parse("i")), "y", "");
    // What memlet propagation would write on the outer edges.
    st->edge(in_path.front()).memlet = Memlet::simple("A", Subset::parse("0:N"));
    st->edge(out_path.back()).memlet = Memlet::simple("B", Subset::parse("0:N"));
  }
};

/// copy(A[N], B[N]): state "copy" with A -> B (memlet A[0:N]). Ids: A 0, B 1, edge 0.
struct CopyProgram {
  std::unique_ptr<SDFG> sdfg = std::make_unique<SDFG>("copy_prog");
  SDFGState* st = nullptr;
  NodeId a = 0, b = 0;
  EdgeId e = 0;

  CopyProgram() {
    sdfg->add_symbol("N");
    sdfg->add_array("A", ScalarType::Float64, {N()});
    sdfg->add_array("B", ScalarType::Float64, {N()});
    st = &sdfg->add_state("copy", true);
    a = st->add_access("A").id();
    b = st->add_access("B").id();
    e = st->add_edge(a, "", b, "", Memlet::simple("A", Subset::parse("0:N"))).id;
  }
};

/// inner(X[M], Y[M]): Y = X, for use as a nested SDFG.
std::unique_ptr<SDFG> inner_copy_sdfg() {
  auto inner = std::make_unique<SDFG>("inner");
  inner->add_symbol("M");
  inner->add_array("X", ScalarType::Float64, {Expr::symbol("M")});
  inner->add_array("Y", ScalarType::Float64, {Expr::symbol("M")});
  auto& s = inner->add_state("body", true);
  auto x = s.add_access("X").id();
  auto y = s.add_access("Y").id();
  s.add_edge(x, "", y, "", Memlet::simple("X", Subset::parse("0:M")));
  return inner;
}

/// outer(A[N], B[N]) calling inner with M = N. Ids in state "call": A 0, B 1, nested 2.
struct NestedProgram {
  std::unique_ptr<SDFG> sdfg = std::make_unique<SDFG>("outer");
  SDFGState* st = nullptr;
  NestedSDFGNode* nested = nullptr;

  explicit NestedProgram(std::map<std::string, Expr> mapping = {{"M", N()}}) {
    sdfg->add_symbol("N");
    sdfg->add_array("A", ScalarType::Float64, {N()});
    sdfg->add_array("B", ScalarType::Float64, {N()});
    st = &sdfg->add_state("call", true);
    auto a = st->add_access("A").id();
    auto b = st->add_access("B").id();
    nested = &st->add_nested_sdfg("callee", inner_copy_sdfg(), {"X"}, {"Y"}, std::move(mapping));
    st->add_edge(a, "", nested->id(), "X", Memlet::simple("A", Subset::parse("0:N")));
    st->add_edge(nested->id(), "Y", b, "", Memlet::simple("B", Subset::parse("0:N")));
  }
};

}  // namespace

// --- must pass -------------------------------------------------------------------------------

TEST_CASE("a map with a tasklet is valid", "[validate]") {
  MapProgram p;
  require_valid(*p.sdfg);
}

TEST_CASE("a loop region whose body indexes with the loop variable is valid", "[validate]") {
  auto sdfg = std::make_unique<SDFG>("looped");
  sdfg->add_symbol("N");
  sdfg->add_array("A", ScalarType::Float64, {N()});
  sdfg->add_array("B", ScalarType::Float64, {N()});
  sdfg->add_scalar("TSTEPS", ScalarType::Int64);  // interstate code may read scalars
  sdfg->arg_names = {"A", "B", "TSTEPS"};
  auto& init = sdfg->add_state("init", true);
  auto& loop = sdfg->add_loop("time", "t", "t = 0", "t < TSTEPS", "t = t + 1");
  sdfg->add_edge(init.id(), loop.id());
  auto& body = loop.add_state("step", true);
  auto a = body.add_access("A").id();
  auto b = body.add_access("B").id();
  auto t = body.add_tasklet("inc", CodeBlock{"o = i + 1", Language::Python}, {"i"}, {"o"}).id();
  body.add_edge(a, "", t, "i", Memlet::simple("A", Subset::parse("t")));
  body.add_edge(t, "o", b, "", Memlet::simple("B", Subset::parse("t")));
  require_valid(*sdfg);
}

TEST_CASE("a conditional block with an else branch is valid", "[validate]") {
  CopyProgram p;
  auto& cond = p.sdfg->add_conditional("branch");
  p.sdfg->add_edge(p.st->id(), cond.id());
  auto& then_body = cond.add_branch(CodeBlock{"N > 5", Language::Python}, "then_body");
  auto& big = then_body.add_state("big", true);
  big.add_edge(big.add_access("B").id(), "", big.add_access("A").id(), "",
               Memlet::simple("B", Subset::parse("0:N")));
  auto& else_body = cond.add_branch(std::nullopt, "else_body");
  else_body.add_state("small", true);
  require_valid(*p.sdfg);
}

TEST_CASE("a nested SDFG with a symbol mapping is valid", "[validate]") {
  NestedProgram p;
  require_valid(*p.sdfg);
}

TEST_CASE("a copy between two access nodes with other_subset is valid", "[validate]") {
  auto sdfg = std::make_unique<SDFG>("shifted");
  sdfg->add_symbol("N");
  sdfg->add_array("A", ScalarType::Float64, {N(), N()});
  sdfg->add_array("B", ScalarType::Float64, {N() + 1, N()});
  auto& st = sdfg->add_state("shift", true);
  auto a = st.add_access("A").id();
  auto b = st.add_access("B").id();
  Memlet m = Memlet::simple("A", Subset::parse("0:N, 0:N"));
  m.other_subset = Subset::parse("1:N+1, 0:N");
  st.add_edge(a, "", b, "", m);
  require_valid(*sdfg);
}

TEST_CASE("interstate assignments define symbols for later states", "[validate]") {
  CopyProgram p;
  auto& next = p.sdfg->add_state("next");
  InterstateEdge ie;
  ie.assignments = {{"k", "N - 1"}};
  p.sdfg->add_edge(p.st->id(), next.id(), ie);
  next.add_edge(next.add_access("A").id(), "", next.add_access("B").id(), "",
                Memlet::simple("A", Subset::parse("k")));
  require_valid(*p.sdfg);
}

// --- must fail: SDFG level and descriptors ---------------------------------------------------

TEST_CASE("an unknown descriptor type is reported with its type name", "[validate]") {
  CopyProgram p;
  DataDescriptor ref;
  ref.kind = DataKind::Unknown;
  ref.type_name = "Reference";
  p.sdfg->arrays.emplace("ref", ref);
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "desc-unknown-type");
  CHECK(contains(d.message, "unknown data descriptor type 'Reference'"));
  CHECK(contains(d.message, "'ref'"));
  CHECK(d.where.sdfg == "copy_prog");
  CHECK(ds.size() == 1);
}

TEST_CASE("arguments must be non-transient containers or symbols", "[validate]") {
  CopyProgram p;
  p.sdfg->add_array("tmp", ScalarType::Float64, {N()}, /*transient=*/true);
  p.sdfg->arg_names = {"A", "tmp", "nothing", "N"};
  auto ds = validate(*p.sdfg);
  CHECK(contains(find_code(ds, "arg-transient").message, "'tmp'"));
  CHECK(contains(find_code(ds, "arg-unknown").message, "'nothing'"));
  CHECK(ds.size() == 2);
}

TEST_CASE("invalid SDFG and container names are reported", "[validate]") {
  CopyProgram p;
  p.sdfg->name = "copy-prog";
  p.sdfg->arrays.emplace("2x", DataDescriptor::make_scalar(ScalarType::Int32, true));
  auto ds = validate(*p.sdfg);
  CHECK(contains(find_code(ds, "sdfg-name").message, "'copy-prog'"));
  CHECK(contains(find_code(ds, "data-name").message, "'2x'"));
}

TEST_CASE("descriptor shape, strides and symbols are checked", "[validate]") {
  CopyProgram p;
  auto bad_scalar = DataDescriptor::make_scalar(ScalarType::Int32, true);
  bad_scalar.shape = {Expr(2)};
  p.sdfg->arrays.emplace("s", bad_scalar);
  auto bad_strides = DataDescriptor::make_array(ScalarType::Float64, {N(), N()}, true);
  bad_strides.strides = {Expr(1)};
  p.sdfg->arrays.emplace("t", bad_strides);
  p.sdfg->arrays.emplace("u", DataDescriptor::make_array(ScalarType::Float64, {Expr::symbol("M")}, true));
  auto ds = validate(*p.sdfg);
  CHECK(contains(find_code(ds, "desc-scalar-shape").message, "'s'"));
  CHECK(contains(find_code(ds, "desc-strides").message, "'t'"));
  const auto& undef = find_code(ds, "desc-undefined-symbol");
  CHECK(contains(undef.message, "'u'"));
  CHECK(contains(undef.message, "'M'"));
}

TEST_CASE("a non-transient array may use Register storage, as DaCe accepts", "[validate]") {
  // DaCe's auto-optimize writes such containers (npbench crc16, conv2d) and DaCe validates them.
  CopyProgram p;
  p.sdfg->data("B").storage = StorageType::Register;
  CHECK(validate(*p.sdfg).empty());
}

TEST_CASE("a Register container cannot be persistent", "[validate]") {
  CopyProgram p;
  p.sdfg->data("B").storage = StorageType::Register;
  p.sdfg->data("B").lifetime = AllocationLifetime::Persistent;
  auto ds = validate(*p.sdfg);
  CHECK(contains(find_code(ds, "desc-storage").message, "'B'"));
  CHECK(ds.size() == 1);
}

// --- must fail: control flow -----------------------------------------------------------------

TEST_CASE("an interstate edge may not assign a data container", "[validate]") {
  CopyProgram p;
  auto& next = p.sdfg->add_state("next");
  InterstateEdge ie;
  ie.assignments = {{"A", "1"}};
  auto eid = p.sdfg->add_edge(p.st->id(), next.id(), ie).id;
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "isedge-assign-data");
  CHECK(d.where.edge == static_cast<long>(eid));
  CHECK(contains(d.message, "'copy' -> 'next'"));
  CHECK(contains(d.message, "'A'"));
  CHECK(contains(d.str(), "edge " + std::to_string(eid)));
}

TEST_CASE("undefined symbols in interstate conditions are reported", "[validate]") {
  CopyProgram p;
  auto& next = p.sdfg->add_state("next");
  InterstateEdge ie;
  ie.condition = CodeBlock{"k < N", Language::Python};
  auto eid = p.sdfg->add_edge(p.st->id(), next.id(), ie).id;
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "undefined-symbol");
  CHECK(d.where.edge == static_cast<long>(eid));
  CHECK(contains(d.message, "'k'"));
  CHECK_FALSE(contains(d.message, "'N'"));
  CHECK(ds.size() == 1);
}

TEST_CASE("a region with several source blocks and no start block is reported", "[validate]") {
  CopyProgram p;
  auto& loop = p.sdfg->add_loop("outer_loop", "t", "t = 0", "t < N", "t = t + 1");
  p.sdfg->add_edge(p.st->id(), loop.id());
  loop.add_state("first");
  loop.add_state("second");
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "cf-start-block");
  CHECK(d.where.block_path == "outer_loop");
  CHECK(contains(d.str(), "'outer_loop'"));
}

TEST_CASE("loop variables must be identifiers and loop conditions use defined symbols", "[validate]") {
  CopyProgram p;
  auto& loop = p.sdfg->add_loop("bad_loop", "1t", "", "x < N", "");
  p.sdfg->add_edge(p.st->id(), loop.id());
  loop.add_state("inside", true);
  auto ds = validate(*p.sdfg);
  CHECK(find_code(ds, "loop-variable-name").where.block_path == "bad_loop");
  const auto& undef = find_code(ds, "undefined-symbol");
  CHECK(undef.where.block_path == "bad_loop");
  CHECK(contains(undef.message, "'x'"));
}

TEST_CASE("a dangling interstate edge is reported, not followed", "[validate]") {
  CopyProgram p;
  auto& next = p.sdfg->add_state("next");
  auto eid = p.sdfg->add_edge(p.st->id(), next.id()).id;
  p.sdfg->edge(eid).dst = 42;
  auto ds = validate(*p.sdfg);
  CHECK(find_code(ds, "cf-edge-endpoint").where.edge == static_cast<long>(eid));
}

// --- must fail: states, scopes, connectors, memlets ------------------------------------------

TEST_CASE("a map entry without its exit is an unbalanced scope", "[validate]") {
  MapProgram p;
  p.st->remove_node(p.exit);
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "scope-unbalanced");
  CHECK(d.where.node == static_cast<long>(p.entry));
  CHECK(d.where.block_path == "main");
  CHECK(contains(d.str(), "state 'main'"));
  CHECK(contains(d.str(), "node " + std::to_string(p.entry) + " ('compute')"));
  // The failing scope tree is not reported a second time.
  for (const auto& x : ds) CHECK(x.code != "scope-tree");
}

TEST_CASE("entry and exit must point at each other and share their map", "[validate]") {
  MapProgram p;
  p.st->node(p.exit).as<MapExit>()->map = std::make_shared<MapInfo>(*p.st->node(p.entry).as<MapEntry>()->map);
  auto ds = validate(*p.sdfg);
  CHECK(find_code(ds, "scope-map-shared").where.node == static_cast<long>(p.entry));

  MapProgram q;
  q.st->node(q.exit).as<MapExit>()->entry = q.tasklet;
  auto ds2 = validate(*q.sdfg);
  const auto& d = find_code(ds2, "scope-unbalanced");
  CHECK((d.where.node == static_cast<long>(q.entry) || d.where.node == static_cast<long>(q.exit)));
}

TEST_CASE("map parameters and range dimensions are checked", "[validate]") {
  MapProgram p;
  auto& info = *p.st->node(p.entry).as<MapEntry>()->map;
  info.params = {"i", "i", "2j"};
  auto ds = validate(*p.sdfg);
  CHECK(find_code(ds, "map-param-duplicate").where.node == static_cast<long>(p.entry));
  CHECK(contains(find_code(ds, "map-param-name").message, "'2j'"));
  const auto& dims = find_code(ds, "map-range-dims");
  CHECK(dims.where.node == static_cast<long>(p.entry));
  CHECK(contains(dims.message, "3 parameter(s)"));
}

TEST_CASE("a map step of 0 is reported with the range as it is, not the label's", "[validate]") {
  // user31 G18 (j_maprange.sdfg): the label keeps the range the map was made with
  // ("hdiff4_map[__I=2:...]"); the message must show the range that is wrong.
  MapProgram p;
  auto& info = *p.st->node(p.entry).as<MapEntry>()->map;
  info.label = "compute[i=0:N]";
  info.range = Subset({Range(sym::Expr(0), sym::Expr(-5), sym::Expr(0))});
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "map-step");
  CHECK(d.where.node == static_cast<long>(p.entry));
  CHECK(
      contains(d.message, "has step 0 in dimension 0 of its range (i=0:-4:0; the loop would never advance)"));
}

TEST_CASE("tasklet and map labels must be identifiers", "[validate]") {
  MapProgram p;
  p.st->node(p.tasklet).label = "twice x";
  p.st->node(p.entry).as<MapEntry>()->map->label = "compute-all";
  auto ds = validate(*p.sdfg);
  REQUIRE(ds.size() == 2);
  CHECK(ds[0].code == "node-label");
  CHECK(ds[0].where.node == static_cast<long>(p.entry));
  CHECK(contains(ds[0].message, "'compute-all'"));
  CHECK(ds[1].code == "node-label");
  CHECK(ds[1].where.node == static_cast<long>(p.tasklet));
  CHECK(contains(ds[1].str(), "node " + std::to_string(p.tasklet) + " ('twice x')"));
}

TEST_CASE("scope connectors come in IN_/OUT_ pairs", "[validate]") {
  MapProgram p;
  p.st->node(p.entry).in_connectors["IN_Z"] = std::nullopt;
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "scope-connector-unpaired");
  CHECK(d.where.node == static_cast<long>(p.entry));
  CHECK(contains(d.message, "'IN_Z'"));
  CHECK(contains(d.str(), "state 'main'"));
}

TEST_CASE("a dataflow cycle is reported", "[validate]") {
  auto sdfg = std::make_unique<SDFG>("cyclic");
  auto& st = sdfg->add_state("loopy", true);
  auto t1 = st.add_tasklet("t1", CodeBlock{"o = i", Language::Python}, {"i"}, {"o"}).id();
  auto t2 = st.add_tasklet("t2", CodeBlock{"o = i", Language::Python}, {"i"}, {"o"}).id();
  st.add_edge(t1, "o", t2, "i", Memlet{});
  st.add_edge(t2, "o", t1, "i", Memlet{});
  std::vector<Diagnostic> ds;
  REQUIRE_NOTHROW(ds = validate(*sdfg));
  const auto& d = find_code(ds, "state-cycle");
  CHECK(d.where.block_path == "loopy");
  CHECK(contains(d.str(), "state 'loopy'"));
  CHECK((d.where.node == static_cast<long>(t1) || d.where.node == static_cast<long>(t2)));
}

TEST_CASE("a scope tree that cannot be built is reported as a diagnostic", "[validate]") {
  auto sdfg = std::make_unique<SDFG>("backwards");
  sdfg->add_array("D", ScalarType::Float64, {Expr(4)}, true);
  auto& st = sdfg->add_state("main", true);
  auto& entry = st.add_map("m", {"i"}, Subset::parse("0:4"));
  NodeId exit = entry.exit;
  auto d = st.add_access("D").id();
  // The exit runs before its own entry: exit -> D -> entry (empty memlets only order nodes).
  st.add_edge(exit, "", d, "", Memlet{});
  st.add_edge(d, "", entry.id(), "", Memlet{});
  std::vector<Diagnostic> ds;
  REQUIRE_NOTHROW(ds = validate(*sdfg));
  INFO(all_text(ds));
  REQUIRE(ds.size() == 1);
  const auto& diag = find_code(ds, "scope-tree");
  CHECK(diag.where.block_path == "main");
  CHECK(diag.where.node == static_cast<long>(exit));
  CHECK(contains(diag.str(), "state 'main', node " + std::to_string(exit) + " ('m')"));
  CHECK(contains(diag.message, "the scopes of the state cannot be determined"));
}

TEST_CASE("connectors must exist and be connected exactly once", "[validate]") {
  MapProgram p;
  auto& t = p.st->node(p.tasklet);
  t.in_connectors["unused"] = std::nullopt;
  auto ds = validate(*p.sdfg);
  const auto& dangling = find_code(ds, "connector-dangling");
  CHECK(dangling.where.node == static_cast<long>(p.tasklet));
  CHECK(contains(dangling.message, "'unused'"));
  CHECK(contains(dangling.str(), "node " + std::to_string(p.tasklet) + " ('twice')"));

  MapProgram q;
  q.st->edge(q.in_path.back()).dst_conn = "z";
  auto ds2 = validate(*q.sdfg);
  const auto& missing = find_code(ds2, "connector-missing");
  CHECK(missing.where.node == static_cast<long>(q.tasklet));
  CHECK(missing.where.edge == static_cast<long>(q.in_path.back()));
  CHECK(contains(missing.message, "'z'"));
}

TEST_CASE("connectors of DaCe's vector types are refused with the connectors named", "[validate]") {
  // What DaCe's Vectorization writes (user31's G16): the tasklet's connectors become
  // {"type": "vector", "dtype": "float64", "elements": "4"}, which weir's codegen cannot run.
  MapProgram p;
  auto& t = p.st->node(p.tasklet);
  const DataType vec{ScalarType::Void, 0, R"({"dtype":"float64","elements":"4","type":"vector"})"};
  t.in_connectors["x"] = vec;
  t.out_connectors["y"] = vec;
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "connector-vector-type");
  CHECK(d.where.node == static_cast<long>(p.tasklet));
  CHECK(contains(d.message, "tasklet 'twice'"));
  CHECK(contains(d.message, "connectors 'x', 'y' of DaCe's vector type float64 x 4"));
  CHECK(contains(d.message, "weir's MapVectorization"));
  CHECK(std::count_if(ds.begin(), ds.end(),
                      [](const Diagnostic& x) { return x.code == "connector-vector-type"; }) == 1);
  // Other types weir keeps as written (a struct) are not this problem; scalars never are.
  MapProgram q;
  q.st->node(q.tasklet).in_connectors["x"] = DataType{ScalarType::Void, 0, R"({"type":"struct","name":"s"})"};
  for (const auto& x : validate(*q.sdfg)) CHECK(x.code != "connector-vector-type");
  require_valid(*MapProgram().sdfg);
}

TEST_CASE("a tasklet input connector takes one edge", "[validate]") {
  MapProgram p;
  p.st->add_edge(p.entry, "OUT_A", p.tasklet, "x", Memlet::simple("A", Subset::parse("i")));
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "connector-multiple-edges");
  CHECK(d.where.node == static_cast<long>(p.tasklet));
  CHECK(contains(d.message, "'x'"));
}

TEST_CASE("an access node must name an existing container", "[validate]") {
  CopyProgram p;
  auto c = p.st->add_access("C").id();
  p.st->add_edge(p.b, "", c, "", Memlet::simple("B", Subset::parse("0:N")));
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "access-unknown-data");
  CHECK(d.where.node == static_cast<long>(c));
  CHECK(d.where.block_path == "copy");
  CHECK(contains(d.message, "'C'"));
}

TEST_CASE("memlet subsets must match the container's dimensions", "[validate]") {
  MapProgram p;
  p.st->edge(p.in_path.back()).memlet = Memlet::simple("A", Subset::parse("i, 0"));
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "memlet-dims");
  CHECK(d.where.edge == static_cast<long>(p.in_path.back()));
  CHECK(d.where.block_path == "main");
  CHECK(contains(d.message, "2 dimension(s)"));
  CHECK(contains(d.message, "tasklet 'twice' (node " + std::to_string(p.tasklet) + ")"));
}

TEST_CASE("other_subset must match the other container's dimensions", "[validate]") {
  CopyProgram p;
  p.st->edge(p.e).memlet.other_subset = Subset::parse("0:N, 0");
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "memlet-other-dims");
  CHECK(d.where.edge == static_cast<long>(p.e));
  CHECK(contains(d.message, "'B'"));
}

TEST_CASE("a memlet between two access nodes must name one of them", "[validate]") {
  CopyProgram p;
  p.sdfg->add_array("C", ScalarType::Float64, {N()}, true);
  p.st->edge(p.e).memlet = Memlet::simple("C", Subset::parse("0:N"));
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "memlet-data-mismatch");
  CHECK(d.where.edge == static_cast<long>(p.e));
  CHECK(contains(d.message, "'C'"));
  CHECK(contains(d.message, "access node 'A' (node " + std::to_string(p.a) + ")"));
}

TEST_CASE("a memlet of an unknown container is reported", "[validate]") {
  CopyProgram p;
  p.st->edge(p.e).memlet.data = "nope";
  auto ds = validate(*p.sdfg);
  CHECK(find_code(ds, "memlet-unknown-data").where.edge == static_cast<long>(p.e));
}

TEST_CASE("constant out-of-bounds memlets are reported", "[validate]") {
  auto sdfg = std::make_unique<SDFG>("small");
  sdfg->add_array("A", ScalarType::Float64, {Expr(10)});
  sdfg->add_array("B", ScalarType::Float64, {Expr(10)});
  auto& st = sdfg->add_state("s", true);
  auto e = st.add_edge(st.add_access("A").id(), "", st.add_access("B").id(), "",
                       Memlet::simple("A", Subset::parse("5:11")))
               .id;
  auto ds = validate(*sdfg);
  const auto& d = find_code(ds, "memlet-out-of-bounds");
  CHECK(d.where.edge == static_cast<long>(e));
  CHECK(contains(d.message, "index 10"));
}

TEST_CASE("memlet symbols must be defined: map parameters only inside their map", "[validate]") {
  MapProgram p;
  // The outer edge still indexes with the map parameter: i is undefined outside the map.
  p.st->edge(p.in_path.front()).memlet = Memlet::simple("A", Subset::parse("i"));
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "undefined-symbol");
  CHECK(d.where.edge == static_cast<long>(p.in_path.front()));
  CHECK(contains(d.message, "'i'"));
  CHECK(ds.size() == 1);

  CopyProgram q;
  q.st->edge(q.e).memlet = Memlet::simple("A", Subset::parse("0:M"));
  auto ds2 = validate(*q.sdfg);
  const auto& d2 = find_code(ds2, "undefined-symbol");
  CHECK(d2.where.edge == static_cast<long>(q.e));
  CHECK(contains(d2.message, "'M'"));
}

TEST_CASE("an edge may not enter a map scope around its entry", "[validate]") {
  MapProgram p;
  p.sdfg->add_array("C", ScalarType::Float64, {N()});
  auto c = p.st->add_access("C").id();
  p.st->node(p.tasklet).in_connectors["w"] = std::nullopt;
  auto e = p.st->add_edge(c, "", p.tasklet, "w", Memlet::simple("C", Subset::parse("0"))).id;
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "scope-crossing");
  CHECK(d.where.edge == static_cast<long>(e));
  CHECK(contains(d.message, "map entry 'compute' (node " + std::to_string(p.entry) + ")"));
  CHECK(contains(d.message, "access node 'C'"));
}

TEST_CASE("a memlet leaving a map must end at an access node", "[validate]") {
  MapProgram p;
  auto sink = p.st->add_tasklet("sink", CodeBlock{"pass", Language::Python}, {"v"}, {}).id();
  auto e = p.st->add_edge(p.exit, "OUT_B", sink, "v", Memlet::simple("B", Subset::parse("0:N"))).id;
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "memlet-path-end");
  CHECK(d.where.edge == static_cast<long>(e));
  CHECK(contains(d.message, "tasklet 'sink'"));
}

// --- nested SDFGs ----------------------------------------------------------------------------

TEST_CASE("a nested SDFG needs every free symbol in its symbol mapping", "[validate]") {
  NestedProgram p(std::map<std::string, Expr>{});
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "nested-symbol-missing");
  CHECK(d.where.node == static_cast<long>(p.nested->id()));
  CHECK(d.where.block_path == "call");
  CHECK(contains(d.message, "'M'"));
}

// DaCe's rule (SDFG.free_symbols): a symbol declared in the nested SDFG is free unless its control
// flow defines it; DaCe refuses the file with "Missing symbols on nested SDFG: ['i']". What
// LoopToMap once left behind: the loop variable declared after the loop became a map.
TEST_CASE("a nested SDFG's declared symbol that only a map parameter defines must be mapped", "[validate]") {
  NestedProgram p;
  SDFG& inner = *p.nested->sdfg;
  inner.add_symbol("i");
  auto& body = *inner.all_states().front();
  auto& me = body.add_map("m", {"i"}, Subset::parse("0:M"));
  body.add_edge(me.id(), "", me.exit, "", Memlet{});
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "nested-symbol-missing");
  CHECK(d.where.node == static_cast<long>(p.nested->id()));
  CHECK(contains(d.message, "free symbol(s) 'i' of 'inner' are missing from the symbol mapping"));
  CHECK(contains(d.message, "declared in its symbols and not defined by an interstate assignment or loop"));
  CHECK(ds.size() == 1);

  inner.symbols.erase("i");  // the map parameter alone defines it
  require_valid(*p.sdfg);
  inner.add_symbol("i");
  p.nested->symbol_mapping["i"] = N();
  require_valid(*p.sdfg);
}

TEST_CASE("a nested SDFG's loop variable and assigned symbols need no mapping, read-before-assigned ones do",
          "[validate]") {
  NestedProgram p;
  SDFG& inner = *p.nested->sdfg;
  BlockId body = inner.all_states().front()->id();
  inner.add_symbol("t");
  auto& loop = inner.add_loop("steps", "t", "t = 0", "t < M", "t = t + 1");
  loop.add_state("step", true);
  inner.add_edge(body, loop.id());
  inner.add_symbol("k");
  auto& after = inner.add_state("after");
  inner.add_edge(loop.id(), after.id(), InterstateEdge{CodeBlock{"True"}, {{"k", CodeBlock{"M - 1"}}}, {}});
  require_valid(*p.sdfg);

  // `k = k + 1` reads k before it is assigned: DaCe counts k free.
  auto& last = inner.add_state("last");
  inner.add_edge(after.id(), last.id(), InterstateEdge{CodeBlock{"True"}, {{"k", CodeBlock{"k + 1"}}}, {}});
  inner.edge(inner.in_edges(after.id()).front()->id).data.assignments.clear();
  auto ds = validate(*p.sdfg);
  CHECK(contains(find_code(ds, "nested-symbol-missing").message, "free symbol(s) 'k' of 'inner'"));
}

TEST_CASE("a symbol mapping that reads an array is refused (arrays go through connectors)", "[validate]") {
  // What LoopToMap once wrote for `start = A_row[i]` on an interstate edge of the loop body.
  NestedProgram p(std::map<std::string, Expr>{{"M", Expr::symbol("A")}});
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "nested-symbol-array");
  CHECK(d.where.node == static_cast<long>(p.nested->id()));
  CHECK(contains(d.message, "symbol mapping M = A reads array 'A'"));
}

TEST_CASE("nested SDFG connectors match the non-transient containers inside", "[validate]") {
  NestedProgram p;
  p.nested->in_connectors.erase("X");
  p.nested->in_connectors["Q"] = std::nullopt;
  auto ds = validate(*p.sdfg);
  const auto& missing = find_code(ds, "nested-connector-missing");
  CHECK(missing.where.node == static_cast<long>(p.nested->id()));
  CHECK(contains(missing.message, "'X'"));
  CHECK(contains(find_code(ds, "nested-connector-unknown").message, "'Q'"));
}

TEST_CASE("problems inside a nested SDFG name it as outer/inner", "[validate]") {
  NestedProgram p;
  auto& body = *p.nested->sdfg->all_states().front();
  body.edge(0).memlet = Memlet::simple("X", Subset::parse("0:M, 0"));
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "memlet-dims");
  CHECK(d.where.sdfg == "outer/inner");
  CHECK(d.where.block_path == "body");
  CHECK(d.where.edge == 0);
  CHECK(contains(d.str(), "SDFG 'outer/inner'"));
  CHECK(ds.size() == 1);
}

TEST_CASE("symbol mapping expressions use defined outer symbols", "[validate]") {
  NestedProgram p({{"M", Expr::symbol("K")}});
  auto ds = validate(*p.sdfg);
  const auto& d = find_code(ds, "undefined-symbol");
  CHECK(d.where.node == static_cast<long>(p.nested->id()));
  CHECK(contains(d.message, "'K'"));
}

// --- robustness and reporting ----------------------------------------------------------------

TEST_CASE("malformed graphs are reported, never thrown", "[validate]") {
  MapProgram p;
  p.st->node(p.entry).as<MapEntry>()->map.reset();
  p.st->node(p.exit).as<MapExit>()->map.reset();
  p.st->edge(p.out_path.back()).dst = 1000;
  std::vector<Diagnostic> ds;
  REQUIRE_NOTHROW(ds = validate(*p.sdfg));
  CHECK(find_code(ds, "edge-endpoint").where.edge == static_cast<long>(p.out_path.back()));

  MapProgram q;
  q.st->node(q.entry).as<MapEntry>()->map.reset();
  REQUIRE_NOTHROW(ds = validate(*q.sdfg));
  CHECK(find_code(ds, "map-missing-info").where.node == static_cast<long>(q.entry));

  // A nested SDFG with a broken map: reported inside it, not a crash outside it.
  NestedProgram n;
  auto& body = *n.nested->sdfg->all_states().front();
  auto& inner_map = body.add_map("inner_map", {"j"}, Subset::parse("0:M"));
  inner_map.map.reset();
  REQUIRE_NOTHROW(ds = validate(*n.sdfg));
  const auto& inner = find_code(ds, "map-missing-info");
  CHECK(inner.where.sdfg == "outer/inner");
  CHECK(inner.where.node == static_cast<long>(inner_map.id()));

  NestedProgram r;
  r.nested->sdfg.reset();
  REQUIRE_NOTHROW(ds = validate(*r.sdfg));
  CHECK(find_code(ds, "nested-sdfg-missing").where.node == static_cast<long>(r.nested->id()));

  auto empty = std::make_unique<SDFG>("empty");
  REQUIRE_NOTHROW(ds = validate(*empty));
  CHECK(find_code(ds, "sdfg-empty").where.sdfg == "empty");
}

TEST_CASE("validate_or_throw carries every diagnostic", "[validate]") {
  MapProgram p;
  p.st->edge(p.in_path.back()).memlet = Memlet::simple("A", Subset::parse("i, 0"));
  p.sdfg->arg_names.push_back("ghost");
  try {
    validate_or_throw(*p.sdfg);
    FAIL("validate_or_throw did not throw");
  } catch (const InvalidSDFGError& e) {
    REQUIRE(e.diagnostics().size() == 2);
    CHECK(contains(e.what(), "[memlet-dims]"));
    CHECK(contains(e.what(), "[arg-unknown]"));
    CHECK(contains(e.what(), "state 'main'"));
  }
}

TEST_CASE("Diagnostic::str names the element, the message and the code", "[validate]") {
  Diagnostic d{"scope-unbalanced", "map entry has no matching map exit",
               ElementRef{"x", "a/b", 3, -1, "lap"}};
  CHECK(d.str() ==
        "SDFG 'x', state 'a/b', node 3 ('lap'): map entry has no matching map exit "
        "[scope-unbalanced]");
  Diagnostic bare{"sdfg-empty", "no blocks", ElementRef{}};
  CHECK(bare.str() == "no blocks [sdfg-empty]");
}

// --- the DaCe corpus -------------------------------------------------------------------------

TEST_CASE("every DaCe corpus SDFG validates, except reference.sdfg", "[validate][corpus]") {
  auto files = weir::test::dace_corpus_files();
  bool saw_reference = false;
  for (const auto& f : files) {
    std::string rel = std::filesystem::relative(f, weir::test::dace_corpus_dir()).generic_string();
    INFO("corpus file " << rel);
    std::unique_ptr<SDFG> sdfg;
    REQUIRE_NOTHROW(sdfg = load_sdfg(f.string()));
    auto ds = validate(*sdfg);
    INFO(all_text(ds));
    if (rel == "doc-samples/reference.sdfg") {
      saw_reference = true;
      REQUIRE(ds.size() == 1);
      CHECK(ds[0].code == "desc-unknown-type");
      CHECK(contains(ds[0].message, "unknown data descriptor type 'Reference'"));
      CHECK(contains(ds[0].message, "'ref'"));
      CHECK_THROWS_AS(validate_or_throw(*sdfg), InvalidSDFGError);
    } else {
      CHECK(ds.empty());
    }
  }
  CHECK(files.size() >= 18);
  CHECK(saw_reference);
}

TEST_CASE("a tasklet with output connectors and empty or blank code is reported", "[validate]") {
  for (const std::string code : {"", "   \n\t "}) {
    MapProgram p;
    static_cast<Tasklet&>(p.st->node(p.tasklet)).code.code = code;
    auto ds = validate(*p.sdfg);
    const Diagnostic& d = find_code(ds, "tasklet-no-code");
    CHECK(contains(d.message, "has no code but has output connectors"));
    CHECK(contains(d.str(), "twice"));
    CHECK_THROWS(validate_or_throw(*p.sdfg));
  }
  // A tasklet without outputs may be empty: it only orders its inputs.
  MapProgram p;
  auto t = p.st->add_tasklet("order", CodeBlock{"", Language::Python}, {"x"}, {}).id();
  p.st->add_edge(p.a, "", t, "x", Memlet::simple("A", Subset::parse("0")));
  auto ds = validate(*p.sdfg);
  for (const auto& d : ds) CHECK(d.code != "tasklet-no-code");
}

TEST_CASE("a Python tasklet that never assigns an output connector is reported with the connector",
          "[validate]") {
  MapProgram p;
  auto& t = static_cast<Tasklet&>(p.st->node(p.tasklet));
  SECTION("no output assigned: only a local") {
    t.code.code = "tmp = 2 * x";
    auto ds = validate(*p.sdfg);
    const Diagnostic& d = find_code(ds, "tasklet-output-unassigned");
    CHECK(d.message == "tasklet 'twice' (node " + std::to_string(p.tasklet) +
                           ") never assigns its output connector 'y' (its code: `tmp = 2 * x`)");
    CHECK(d.where.node == static_cast<long>(p.tasklet));
    CHECK_THROWS_AS(validate_or_throw(*p.sdfg), InvalidSDFGError);
  }
  SECTION("one of two outputs assigned") {
    t.out_connectors["z"] = std::nullopt;
    p.st->add_memlet_path({p.tasklet, p.exit, p.b}, Memlet::simple("B", Subset::parse("i")), "z", "");
    t.code.code = "y = 2 * x";
    auto ds = validate(*p.sdfg);
    CHECK(contains(find_code(ds, "tasklet-output-unassigned").message, "output connector 'z' "));
  }
  SECTION("assigned in part, by an augmented assignment or in one branch: accepted") {
    for (const std::string code : {"y[0] = x", "y = 0\ny += x", "if x > 0:\n    y = x\nelse:\n    y = -x"}) {
      t.code.code = code;
      auto ds = validate(*p.sdfg);
      INFO(code);
      for (const auto& d : ds) CHECK(d.code != "tasklet-output-unassigned");
    }
  }
}

TEST_CASE("a Python tasklet reading a name that is no connector, local or symbol is reported", "[validate]") {
  MapProgram p;
  auto& t = static_cast<Tasklet&>(p.st->node(p.tasklet));
  t.code.code = "y = undefined_name * x + N + i";  // N: declared symbol; i: map parameter
  auto ds = validate(*p.sdfg);
  const Diagnostic& d = find_code(ds, "tasklet-undefined-name");
  CHECK(d.message ==
        "tasklet 'twice' (node " + std::to_string(p.tasklet) +
            ") reads 'undefined_name', which is neither one of its connectors, nor assigned in its "
            "code, nor a symbol of SDFG 'prog' (its code: `y = undefined_name * x + N + i`)");
  CHECK(d.where.node == static_cast<long>(p.tasklet));
  // Exactly one diagnostic of this kind: N and i are defined where the tasklet runs.
  CHECK(std::count_if(ds.begin(), ds.end(),
                      [](const Diagnostic& x) { return x.code == "tasklet-undefined-name"; }) == 1);
  SECTION("declared as a symbol of the SDFG: accepted") {
    p.sdfg->add_symbol("undefined_name", ScalarType::Float64);
    for (const auto& x : validate(*p.sdfg)) CHECK(x.code != "tasklet-undefined-name");
  }
  SECTION("assigned on an interstate edge before the state: accepted") {
    auto& first = p.sdfg->add_state("first", true);
    InterstateEdge ie;
    ie.assignments.emplace_back("undefined_name", CodeBlock{"2", Language::Python});
    p.sdfg->add_edge(first.id(), p.st->id(), ie);
    for (const auto& x : validate(*p.sdfg)) CHECK(x.code != "tasklet-undefined-name");
  }
  SECTION("math functions, builtins and locals: accepted") {
    t.code.code = "t = math.sqrt(abs(x))\ny = min(t, inf) + pi";
    for (const auto& x : validate(*p.sdfg)) CHECK(x.code != "tasklet-undefined-name");
  }
}

TEST_CASE("validate: inner memlets over the map's range stay inside the outer memlet (propagation)",
          "[sdfg][validate][security]") {
  MapProgram p;
  require_valid(*p.sdfg);
  SECTION("the map runs one element past its outer memlets") {
    p.st->node(p.entry).as<MapEntry>()->map->range = Subset::parse("0:N + 1");
    auto ds = validate(*p.sdfg);
    CHECK(all_text(ds) ==
          "SDFG 'prog', state 'main', edge 1: map entry 'compute' (node 2): over the range of map 'compute' "
          "[0:N + 1], "
          "the inner memlet [i] of 'A' leaves the outer memlet [0:N] in dimension 0 (N > N - 1); the outer "
          "memlet "
          "must cover every access of the map [memlet-propagation]\n"
          "SDFG 'prog', state 'main', edge 2: map exit 'compute' (node 3): over the range of map 'compute' "
          "[0:N + 1], "
          "the inner memlet [i] of 'B' leaves the outer memlet [0:N] in dimension 0 (N > N - 1); the outer "
          "memlet "
          "must cover every access of the map [memlet-propagation]\n");
  }
  SECTION("a shifted inner read") {
    p.st->edge(p.in_path.back()).memlet = Memlet::simple("A", Subset::parse("i + 1"));
    auto ds = validate(*p.sdfg);
    CHECK(all_text(ds) ==
          "SDFG 'prog', state 'main', edge 1: map entry 'compute' (node 2): over the range of map 'compute' "
          "[0:N], "
          "the inner memlet [i + 1] of 'A' leaves the outer memlet [0:N] in dimension 0 (N > N - 1); the "
          "outer memlet "
          "must cover every access of the map [memlet-propagation]\n");
  }
  SECTION("a map over a symbol the outer memlet does not name is not judged") {
    p.sdfg->add_symbol("M");
    p.st->node(p.entry).as<MapEntry>()->map->range = Subset::parse("0:M");
    require_valid(*p.sdfg);
  }
}
