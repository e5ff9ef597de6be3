// Tests of CopyIntoMap: a map's result copied after the map is written by the map's points.
#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "support/builders.h"
#include "support/interpreter.h"
#include "weir/transforms/copy_into_map.h"

using namespace weir;
using namespace weir::test;
using namespace weir::transforms;
using Catch::Matchers::Contains;

namespace {

const std::vector<Symbols> kSizes{{{"N", 5}}, {{"N", 1}}, {{"N", 8}}};

/// The copy edge `t_node -> dst` of T[t_part] onto dst[dst_part].
void copy_edge(SDFGState& st, NodeId t_node, NodeId dst, const std::string& t_part,
               const std::string& dst_part) {
  Memlet m = M("T", t_part);
  m.other_subset = S(dst_part);
  st.add_edge(t_node, "", dst, "", m);
}

/// vadv's backward sweep, one level: T[i] = A[i] * D[i] over `range`; D[copied] = T[copied];
/// O[i] = T[i] - A[i] over 0:N. `read` is where the map reads D (the point "i" or a neighbour).
std::unique_ptr<SDFG> data_col_kind(const std::string& range = "0:N", const std::string& copied = "0:N",
                                    const std::string& read = "i") {
  auto sdfg = std::make_unique<SDFG>("prog");
  sdfg->add_symbol("N");
  for (const char* a : {"A", "D", "O"}) sdfg->add_array(a, ScalarType::Float64, {E("N")});
  sdfg->add_array("T", ScalarType::Float64, {E("N")}, true);
  auto& st = sdfg->add_state("s0", true);
  auto& a = st.add_access("A");
  auto& d_in = st.add_access("D");
  auto& t = st.add_access("T");
  auto& d_out = st.add_access("D");
  auto& k = st.add_tasklet("mul", {"b = x * y", Language::Python}, {"x", "y"}, {"b"});
  auto& m = st.add_map("m", {"i"}, S(range));
  path_in(st, a.id(), {m.id()}, k.id(), "x", {M("A", "0:N"), M("A", "i")});
  path_in(st, d_in.id(), {m.id()}, k.id(), "y", {M("D", "0:N"), M("D", read)});
  path_out(st, k.id(), "b", {m.exit}, t.id(), {M("T", "i"), M("T", range)});
  copy_edge(st, t.id(), d_out.id(), copied, copied);
  auto& a2 = st.add_access("A");
  auto& o = st.add_access("O");
  auto& k2 = st.add_tasklet("sub", {"b = x - y", Language::Python}, {"x", "y"}, {"b"});
  auto& m2 = st.add_map("m2", {"i"}, S("0:N"));
  path_in(st, t.id(), {m2.id()}, k2.id(), "x", {M("T", "0:N"), M("T", "i")});
  path_in(st, a2.id(), {m2.id()}, k2.id(), "y", {M("A", "0:N"), M("A", "i")});
  path_out(st, k2.id(), "b", {m2.exit}, o.id(), {M("O", "i"), M("O", "0:N")});
  return sdfg;
}

}  // namespace

TEST_CASE("CopyIntoMap: a result copied into an array the map reads at the point is written by the map",
          "[transforms][copy-into-map]") {
  auto sdfg = data_col_kind();
  CopyIntoMap t;
  apply_and_check(*sdfg, t, kSizes);
  auto& st = only_state(*sdfg);
  // No copy between access nodes is left; D is written through the map's exit, at the point.
  std::set<std::string> d_writes;
  for (const DataflowEdge* e : st.edges()) {
    CHECK_FALSE((st.node(e->src).as<AccessNode>() && st.node(e->dst).as<AccessNode>() &&
                 st.node(e->src).as<AccessNode>()->data == "T"));
    if (e->memlet.data == "D" && (st.node(e->dst).as<MapExit>() || st.node(e->src).as<MapExit>()))
      d_writes.insert(e->memlet.subset.str());
  }
  CHECK(d_writes == std::set<std::string>{"i", "0:N"});
  // Values by hand: D[i] = A[i] * D[i], O[i] = A[i] * D[i] - A[i] (the old D).
  Interpreter in(*sdfg, {{"N", 6}});
  in.randomize(5);
  const std::vector<double> a0 = in.mem["A"], d0 = in.mem["D"];
  in.run();
  for (std::size_t i = 0; i < 6; ++i) {
    CHECK(in.mem["D"][i] == a0[i] * d0[i]);
    CHECK(in.mem["O"][i] == a0[i] * d0[i] - a0[i]);
  }
}

TEST_CASE("CopyIntoMap: a result copied into a column of a 2-D array the map reads beside it",
          "[transforms][copy-into-map]") {
  // vadv's `ccol[:, :, k] = ccol[:, :, k] * divided` reading `ccol[:, :, k - 1]`, one dimension
  // fewer: T[i] = C[i, 0] + 2 C[i, 1]; C[0:N, 1] = T.
  auto sdfg = std::make_unique<SDFG>("prog");
  sdfg->add_symbol("N");
  sdfg->add_array("C", ScalarType::Float64, {E("N"), E("2")});
  sdfg->add_array("T", ScalarType::Float64, {E("N")}, true);
  auto& st = sdfg->add_state("s0", true);
  auto& c_in = st.add_access("C");
  auto& t = st.add_access("T");
  auto& c_out = st.add_access("C");
  auto& k = st.add_tasklet("f", {"b = x + 2 * y", Language::Python}, {"x", "y"}, {"b"});
  auto& m = st.add_map("m", {"i"}, S("0:N"));
  path_in(st, c_in.id(), {m.id()}, k.id(), "x", {M("C", "0:N, 0"), M("C", "i, 0")});
  path_in(st, c_in.id(), {m.id()}, k.id(), "y", {M("C", "0:N, 1"), M("C", "i, 1")});
  path_out(st, k.id(), "b", {m.exit}, t.id(), {M("T", "i"), M("T", "0:N")});
  copy_edge(st, t.id(), c_out.id(), "0:N", "0:N, 1");
  CopyIntoMap x;
  apply_and_check(*sdfg, x, kSizes);
  Interpreter in(*sdfg, {{"N", 4}});
  in.randomize(9);
  const std::vector<double> c0 = in.mem["C"];
  in.run();
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(in.mem["C"][2 * i] == c0[2 * i]);
    CHECK(in.mem["C"][2 * i + 1] == c0[2 * i] + 2 * c0[2 * i + 1]);
  }
}

TEST_CASE(
    "CopyIntoMap: refuses reads of the destination at other points, partly written results and GPU kernels",
    "[transforms][copy-into-map]") {
  CopyIntoMap t;
  // Each point reads D[i + 1], which the point i + 1 would overwrite.
  auto neighbour = data_col_kind("0:N - 1", "0:N - 1", "i + 1");
  CHECK_THAT(refusal(*neighbour, t), Contains("the map reads 'D[i + 1]', not only the element [i]"));
  // The map writes T[1:N] only; the copy of T[0] would be lost.
  auto part = data_col_kind("1:N", "0:N");
  CHECK_THAT(refusal(*part, t), Contains("does not write each element of the copied part [0:N] once"));
  // A GPU kernel writing a transient copied to host memory: the copy moves the data.
  auto gpu = data_col_kind();
  for (Node* n : only_state(*gpu).nodes())
    if (auto* me = n->as<MapEntry>(); me && me->label == "m") me->map->schedule = ScheduleType::GPU_Device;
  CHECK_THAT(refusal(*gpu, t), Contains("the map is a GPU kernel and 'D' is in host memory"));
}

namespace {

/// floyd_warshall's step: T[i, j] = min(P[i, j], P[i, k] + P[k, j]) over (i, j) in 0:N x 0:N;
/// P = T. `row` and `col` are where the map reads the two other elements of P.
std::unique_ptr<SDFG> floyd_kind(const std::string& col = "i, k", const std::string& row = "k, j") {
  auto sdfg = std::make_unique<SDFG>("prog");
  sdfg->add_symbol("N");
  sdfg->add_symbol("k");
  sdfg->add_array("P", ScalarType::Float64, {E("N"), E("N")});
  sdfg->add_array("T", ScalarType::Float64, {E("N"), E("N")}, true);
  auto& st = sdfg->add_state("s0", true);
  auto& p_in = st.add_access("P");
  auto& t = st.add_access("T");
  auto& p_out = st.add_access("P");
  auto& f = st.add_tasklet("step", {"b = min(z, x + y)", Language::Python}, {"x", "y", "z"}, {"b"});
  auto& m = st.add_map("m", {"i", "j"}, S("0:N, 0:N"));
  path_in(st, p_in.id(), {m.id()}, f.id(), "x", {M("P", "0:N, 0:N"), M("P", col)});
  path_in(st, p_in.id(), {m.id()}, f.id(), "y", {M("P", "0:N, 0:N"), M("P", row)});
  path_in(st, p_in.id(), {m.id()}, f.id(), "z", {M("P", "0:N, 0:N"), M("P", "i, j")});
  path_out(st, f.id(), "b", {m.exit}, t.id(), {M("T", "i, j"), M("T", "0:N, 0:N")});
  copy_edge(st, t.id(), p_out.id(), "0:N, 0:N", "0:N, 0:N");
  return sdfg;
}

const std::vector<Symbols> kFloydSizes{{{"N", 5}, {"k", 2}}, {{"N", 1}, {"k", 0}}, {{"N", 6}, {"k", 5}}};

/// The copies of P between access nodes ("P_snapshot = P[0:N, k]"), the edges defining views
/// excepted.
std::set<std::string> copies_of_p(const SDFGState& st) {
  std::set<std::string> out;
  for (const DataflowEdge* e : st.edges())
    if (e->memlet.data == "P" && st.node(e->src).as<AccessNode>() && st.node(e->dst).as<AccessNode>() &&
        e->dst_conn != "views")
      out.insert(st.node(e->dst).as<AccessNode>()->data + " = P[" + e->memlet.subset.str() + "]");
  return out;
}

}  // namespace

TEST_CASE("CopyIntoMap: reads of a row and a column of the destination go to snapshots taken before the map",
          "[transforms][copy-into-map]") {
  auto sdfg = floyd_kind();
  CopyIntoMap t;
  // Random values from -9 to 9: a negative P[k, k] changes row and column k during the step, so
  // a point reading P itself instead of the snapshots gets other values.
  apply_and_check(*sdfg, t, kFloydSizes);
  auto& st = only_state(*sdfg);
  // The map reads P only at its point; the row and the column come from two snapshots of N
  // elements, copied from P outside the map.
  std::set<std::string> p_reads;
  for (const DataflowEdge* e : st.edges())
    if (e->memlet.data == "P" && st.node(e->dst).as<Tasklet>()) p_reads.insert(e->memlet.subset.str());
  CHECK(p_reads == std::set<std::string>{"i, j"});
  CHECK(copies_of_p(st) == std::set<std::string>{"P_snapshot = P[0:N, k]", "P_snapshot_0 = P[k, 0:N]"});
  CHECK(sdfg->data("P_snapshot").shape.size() == 1);
  CHECK(sdfg->data("P_snapshot_0").shape.size() == 1);
  // Values by hand, with P[k, k] < 0.
  Interpreter in(*sdfg, {{"N", 4}, {"k", 1}});
  in.randomize(3);
  in.mem["P"][1 * 4 + 1] = -5;
  const std::vector<double> p0 = in.mem["P"];
  in.run();
  for (std::size_t i = 0; i < 4; ++i)
    for (std::size_t j = 0; j < 4; ++j)
      CHECK(in.mem["P"][i * 4 + j] == std::min(p0[i * 4 + j], p0[i * 4 + 1] + p0[1 * 4 + j]));
}

TEST_CASE("CopyIntoMap: a read of the destination spanning as many dimensions as the copy stays refused",
          "[transforms][copy-into-map]") {
  // P[j, i]: the points read all of P, which a snapshot would copy whole.
  auto transposed = floyd_kind("j, i");
  CopyIntoMap t;
  CHECK_THAT(refusal(*transposed, t), Contains("the map reads 'P[j, i]', not only the element [i, j]"));
}

namespace {

/// A view `name` of P[`part`] with `shape` and `strides` (DaCe's frontend reads `path[:, k]`
/// through such views), defined by its `views` edge from `p`; its node.
NodeId view_of_p(SDFG& sdfg, SDFGState& st, NodeId p, const std::string& name, const std::string& part,
                 std::vector<sym::Expr> shape, std::vector<sym::Expr> strides) {
  DataDescriptor v = DataDescriptor::make_array(ScalarType::Float64, shape, true);
  v.kind = DataKind::View;
  v.type_name = "ArrayView";
  v.strides = std::move(strides);
  sdfg.add_data(name, v);
  auto& n = st.add_access(name);
  n.in_connectors["views"] = std::nullopt;
  Memlet m = M("P", part);
  m.other_subset = Subset::full(shape);
  st.add_edge(p, "", n.id(), "views", m);
  return n.id();
}

/// floyd_warshall's step as DaCe's frontend writes it: the map reads P's column k, row k and P
/// itself through views (Pc = P[0:N, k] as an N x 1 array, Pr = P[k, 0:N], Pp = P), each from a
/// node of P of its own; T[i, j] = min(Pp[i, j], Pc[i, 0] + Pr[j]); P = T. `point` replaces Pp's
/// shape and strides (a transposed or reshaping view) and `read` its index.
std::unique_ptr<SDFG> floyd_views(std::vector<sym::Expr> point_shape = {E("N"), E("N")},
                                  std::vector<sym::Expr> point_strides = {E("N"), E("1")},
                                  const std::string& read = "i, j") {
  auto sdfg = std::make_unique<SDFG>("prog");
  sdfg->add_symbol("N");
  sdfg->add_symbol("k");
  sdfg->add_array("P", ScalarType::Float64, {E("N"), E("N")});
  sdfg->add_array("T", ScalarType::Float64, {E("N"), E("N")}, true);
  auto& st = sdfg->add_state("s0", true);
  const NodeId pc =
      view_of_p(*sdfg, st, st.add_access("P").id(), "Pc", "0:N, k", {E("N"), E("1")}, {E("N"), E("1")});
  const NodeId pr = view_of_p(*sdfg, st, st.add_access("P").id(), "Pr", "k, 0:N", {E("N")}, {E("1")});
  const std::string whole = point_shape.size() == 2 ? "0:N, 0:N" : "0:N*N";
  const NodeId pp =
      view_of_p(*sdfg, st, st.add_access("P").id(), "Pp", "0:N, 0:N", point_shape, point_strides);
  auto& t = st.add_access("T");
  auto& p_out = st.add_access("P");
  auto& f = st.add_tasklet("step", {"b = min(z, x + y)", Language::Python}, {"x", "y", "z"}, {"b"});
  auto& m = st.add_map("m", {"i", "j"}, S("0:N, 0:N"));
  path_in(st, pc, {m.id()}, f.id(), "x", {M("Pc", "0:N, 0"), M("Pc", "i, 0")});
  path_in(st, pr, {m.id()}, f.id(), "y", {M("Pr", "0:N"), M("Pr", "j")});
  path_in(st, pp, {m.id()}, f.id(), "z", {M("Pp", whole), M("Pp", read)});
  path_out(st, f.id(), "b", {m.exit}, t.id(), {M("T", "i, j"), M("T", "0:N, 0:N")});
  copy_edge(st, t.id(), p_out.id(), "0:N, 0:N", "0:N, 0:N");
  return sdfg;
}

/// The refusals of every candidate of `t` (none applies), one a line.
std::string refusals(SDFG& sdfg, const Transformation& t) {
  transforms::AnalysisCache cache;
  std::string all;
  for (auto& c : transforms::find_matches(sdfg, t, cache)) {
    REQUIRE_FALSE(c.result);
    all += c.result.reason() + "\n";
  }
  return all;
}

}  // namespace

TEST_CASE("CopyIntoMap: reads of the destination through views of it (DaCe's frontend) go to snapshots",
          "[transforms][copy-into-map]") {
  auto sdfg = floyd_views();
  CopyIntoMap t;
  // The interpreter before and after, values from -9 to 9 (a negative P[k, k] in some of them).
  apply_and_check(*sdfg, t, kFloydSizes);
  auto& st = only_state(*sdfg);
  // The column and the row come from snapshots copied from P itself; their views go, the view of
  // P at the point stays; no copy of T is left.
  CHECK(copies_of_p(st) == std::set<std::string>{"P_snapshot = P[0:N, k]", "P_snapshot_0 = P[k, 0:N]"});
  std::set<std::string> containers;
  for (Node* n : st.nodes())
    if (auto* a = n->as<AccessNode>()) containers.insert(a->data);
  CHECK(containers == std::set<std::string>{"P", "Pp", "P_snapshot", "P_snapshot_0", "T", "T_value"});
  // Values by hand: N = 4, k = 1, P[i, j] = 3 i - 2 j + 1 and P[1, 1] = -5, so the step changes
  // row and column 1 themselves (P[1, j] = min(P[1, j], P[1, 1] + P[1, j]) = P[1, j] - 5).
  Interpreter in(*sdfg, {{"N", 4}, {"k", 1}});
  in.randomize(3);
  for (int i = 0; i < 4; ++i)
    for (int j = 0; j < 4; ++j) in.mem["P"][i * 4 + j] = 3 * i - 2 * j + 1;
  in.mem["P"][1 * 4 + 1] = -5;
  in.run();
  // Row 1 (j != 1): P[1, j] + P[1, 1] = -1 - 2 j; column 1 (i != 1): P[i, 1] + P[1, 1] = 3 i - 6;
  // P[1, 1] = -10; elsewhere P[i, 1] + P[1, j] = 3 i - 2 j + 3 > P[i, j], which stays.
  const std::vector<double> want{1, -6, -3, -5, -1, -10, -5, -7, 7, 0, 3, 1, 10, 3, 6, 4};
  CHECK(in.mem["P"] == want);
}

TEST_CASE("CopyIntoMap: a transposed or reshaping view of the destination is refused, named",
          "[transforms][copy-into-map]") {
  CopyIntoMap t;
  // Pp with strides (1, N): Pp[i, j] is P[j, i].
  auto transposed = floyd_views({E("N"), E("N")}, {E("1"), E("N")});
  CHECK_THAT(
      refusals(*transposed, t),
      Contains("the map reads 'P' through a view that is not its elements one by one: view 'Pp' of 'P' "
               "runs along [0:N, 0:N] with other extents or strides (a strided or transposed view)"));
  // Pp as one dimension of N * N elements.
  auto flat = floyd_views({E("N*N")}, {E("1")}, "i*N + j");
  CHECK_THAT(refusals(*flat, t), Contains("view 'Pp' of 'P' reshapes [0:N, 0:N]"));
  // A view at the point read at another element stays refused as P itself is.
  auto neighbour = floyd_views({E("N"), E("N")}, {E("N"), E("1")}, "j, i");
  CHECK_THAT(refusals(*neighbour, t),
             Contains("the map reads 'P[j, i]' through view 'Pp', not only the element [i, j]"));
}
