// concat_where splits the output domain (gt4py's meaning: each branch is a field on its own
// part of the domain): one map per region of the conditions, each computing only the branch
// taken there, so that no read of a branch not taken is made, even with bounds checks off.
// Structure of the maps and tasklets, and every outer read memlet inside its container at
// concrete sizes (boundary regions of one point, empty regions, nested concat_where).
#include "lowering_test_util.h"

using namespace weir;
using namespace weir::frontend;
using namespace weir::frontend::test;

namespace {

const std::string kSplit =
    "from gt4py.next.experimental import concat_where\n"
    "KF = Field[[K], float64]\n"
    "IK = Field[[I, K], float64]\n"
    "@gtx.field_operator\n"
    "def diff_down(u: KF) -> KF:\n"
    "    return concat_where(K == 0, 0.0, u - u(K - 1))\n"
    "@gtx.field_operator\n"
    "def below_one(u: KF) -> KF:\n"
    "    return concat_where(K < 1, u(K + 1), u(K - 1))\n"
    "@gtx.field_operator\n"
    "def nested(u: KF) -> KF:\n"
    "    return concat_where(K == 0, u(K + 1), concat_where(K == 5, u(K - 1), 0.5 * (u(K + 1) + u(K - 1))))\n"
    "@gtx.field_operator\n"
    "def band(f: IK, n: int32) -> IK:\n"
    "    return concat_where((I > 2) & (I < n), f(I - 3), f)\n"
    "@gtx.field_operator\n"
    "def inverted(f: IK) -> IK:\n"
    "    return concat_where((K == 0) | (I == 0), 0.0, f(I - 1, K - 1))\n"
    "@gtx.program\n"
    "def columns(u: KF, o1: KF, o2: KF, o3: KF):\n"
    "    diff_down(u, out=o1)\n"
    "    below_one(u, out=o2)\n"
    "    nested(u, out=o3, domain={K: (0, 6)})\n"
    "@gtx.program\n"
    "def planes(f: IK, n: int32, g: IK, h: IK):\n"
    "    band(f, n, out=g, domain={I: (0, n + 2), K: (0, 4)})\n"
    "    inverted(f, out=h)\n";

/// The outer read memlets (access node -> map entry) of the states whose label starts with
/// `call` that leave their container when every size symbol is `size` and the other symbols
/// have `values`; empty ranges read nothing.
std::vector<std::string> reads_outside(const SDFG& s, const std::string& call, long long size,
                                       std::map<std::string, long long> values) {
  for (const auto& [name, type] : s.symbols)
    if (name.rfind("__", 0) == 0) values[name] = size;
  std::vector<std::string> bad;
  for (SDFGState* st : s.all_states())
    for (const DataflowEdge* e : st->edges()) {
      if (st->label.rfind(call, 0) != 0) continue;
      if (!st->node(e->src).as<AccessNode>() || !st->node(e->dst).as<MapEntry>()) continue;
      const DataDescriptor& d = s.data(e->memlet.data);
      bool empty = false, outside = false;
      for (std::size_t j = 0; j < e->memlet.subset.dims(); ++j) {
        long long lo = e->memlet.subset[j].start.evaluate(values),
                  hi = e->memlet.subset[j].end.evaluate(values);
        empty = empty || hi < lo;
        outside = outside || lo < 0 || hi >= d.shape[j].evaluate(values);
      }
      if (outside && !empty) bad.push_back(e->memlet.data + "[" + e->memlet.subset.str() + "]");
    }
  return bad;
}

/// The maps of the states computing `call` (state labels start with it), in order.
std::vector<const MapEntry*> maps_of(const SDFG& s, const std::string& call) {
  std::vector<const MapEntry*> out;
  for (SDFGState* st : s.all_states())
    if (st->label.rfind(call, 0) == 0)
      for (Node* n : st->nodes())
        if (auto* m = n->as<MapEntry>()) out.push_back(m);
  return out;
}

std::vector<std::string> codes_of(const SDFG& s, const std::string& call) {
  std::vector<std::string> out;
  for (SDFGState* st : s.all_states())
    if (st->label.rfind(call, 0) == 0)
      for (Node* n : st->nodes())
        if (auto* t = n->as<Tasklet>()) out.push_back(t->code.code);
  return out;
}

}  // namespace

TEST_CASE("lowering: concat_where splits the domain into one map per region of its condition",
          "[lowering][concat_where]") {
  auto s = lower_text(kSplit, "columns");
  check_valid_and_round_trip(*s, "split_columns");
  // K == 0: the level 0 (empty when o1 is), then 1 .. top; only the branch of each is computed.
  auto m1 = maps_of(*s, "call_0_");
  REQUIRE(m1.size() == 2);
  CHECK(range_text(m1[0]->map->range[0]) == "0 .. Min(__o1_K_size - 1, 0)");
  CHECK(range_text(m1[1]->map->range[0]) == "1 .. __o1_K_size - 1");
  CHECK(codes_of(*s, "call_0_") == std::vector<std::string>{"__out = 0.0", "__out = (__in_u_0 - __in_u_1)"});
  // K < 1 is the same cut.
  auto m2 = maps_of(*s, "call_1_");
  REQUIRE(m2.size() == 2);
  CHECK(range_text(m2[1]->map->range[0]) == "1 .. __o2_K_size - 1");
  // Nested: levels 0, 1 .. 4 and 5 of the domain (0, 6).
  auto m3 = maps_of(*s, "call_2_");
  REQUIRE(m3.size() == 3);
  CHECK(range_text(m3[0]->map->range[0]) == "0 .. 0");
  CHECK(range_text(m3[1]->map->range[0]) == "1 .. 4");
  CHECK(range_text(m3[2]->map->range[0]) == "5 .. 5");
  for (const std::string& code : codes_of(*s, "call_")) {
    INFO(code);
    CHECK(code.find("__all_") == std::string::npos);  // no whole-container (guarded) read
    CHECK(code.find(" if ") == std::string::npos);
  }
  // No outer memlet leaves u, at the sizes of the boundary cases (K == 0 on one level or none;
  // below_one and nested read u(K + 1) at K = 0, so they need two levels and six).
  for (long long n : {0, 1, 2, 6, 7}) {
    INFO("size " << n);
    CHECK(reads_outside(*s, "call_0_", n, {}) == std::vector<std::string>{});
    if (n >= 2) CHECK(reads_outside(*s, "call_1_", n, {}) == std::vector<std::string>{});
    if (n >= 6) CHECK(reads_outside(*s, "call_2_", n, {}) == std::vector<std::string>{});
  }
}

TEST_CASE("lowering: concat_where on two dimensions and on a symbol bound splits both",
          "[lowering][concat_where]") {
  auto s = lower_text(kSplit, "planes");
  check_valid_and_round_trip(*s, "split_planes");
  // (I > 2) & (I < n) over I in [0, n + 2): the band 3 .. n - 1 reads f(I - 3); below it and
  // above it (cut at 3 and at n, in either order since n is unknown) f itself.
  auto band = maps_of(*s, "call_0_");
  REQUIRE(band.size() == 4);
  CHECK(range_text(band[0]->map->range[0]) == "0 .. Min(n - 1, 2)");
  CHECK(range_text(band[1]->map->range[0]) == "Max(n, 0) .. Min(n + 1, 2)");
  CHECK(range_text(band[2]->map->range[0]) == "3 .. n - 1");
  CHECK(range_text(band[3]->map->range[0]) == "Max(n, 3) .. n + 1");
  for (const MapEntry* m : band) CHECK(range_text(m->map->range[1]) == "0 .. 3");
  // (K == 0) | (I == 0): the row I == 0 and the level K == 0 are 0.0, the rest reads f(I-1, K-1).
  auto corner = maps_of(*s, "call_1_");
  REQUIRE(corner.size() == 4);
  CHECK(range_text(corner[3]->map->range[0]) == "1 .. __h_I_size - 1");
  CHECK(range_text(corner[3]->map->range[1]) == "1 .. __h_K_size - 1");
  CHECK(codes_of(*s, "call_1_") ==
        std::vector<std::string>{"__out = 0.0", "__out = 0.0", "__out = 0.0", "__out = __in_f_0"});
  CHECK(tasklet_reads(*s, "f") ==
        std::vector<std::string>{"__I - 1, __K - 1", "__I - 3, __K", "__I, __K", "__I, __K", "__I, __K"});
  for (long long n : {0, 1, 2, 3, 4, 9})
    for (long long size : {0, 1, 2, 5, 11}) {
      if (size < n + 2 || size < 4) continue;  // the domain of band must lie inside f and g
      INFO("n " << n << ", size " << size);
      CHECK(reads_outside(*s, "call_", size, {{"n", n}}) == std::vector<std::string>{});
    }
}

TEST_CASE("lowering: an empty domain with shifted reads has empty outer memlets",
          "[lowering][concat_where]") {
  // Regression: over K: (3, 3) the reads u and u(K - 1) widened the empty range [3, 2] into the
  // one point u[2], and shifted by -1 at K: (0, 0) into u[-1], which the validator refused.
  auto s = lower_text(
      "KF = Field[[K], float64]\n"
      "@gtx.field_operator\n"
      "def d(u: KF) -> KF:\n"
      "    return u - u(K - 1) + u(K + 1)\n"
      "@gtx.field_operator\n"
      "def one(u: KF) -> Field[[I, K], float64]:\n"
      "    return broadcast(u(K - 1), (I, K))\n"
      "@gtx.program\n"
      "def p(u: KF, o: KF, g: Field[[I, K], float64]):\n"
      "    d(u, out=o, domain={K: (0, 0)})\n"
      "    d(u, out=o, domain={K: (3, 3)})\n"
      "    one(u, out=g, domain={I: (0, 0), K: (1, 4)})\n",
      "p");
  check_valid_and_round_trip(*s, "empty_domain");
  for (long long n : {0, 1, 4, 6}) CHECK(reads_outside(*s, "call_", n, {}) == std::vector<std::string>{});
}
