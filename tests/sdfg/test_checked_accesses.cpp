// The record of accesses a fusion removed whose bounds the map still checks (checked_accesses.h):
// adding keeps order and skips duplicates, the record survives a JSON round trip of the SDFG, and
// malformed text is an error that names the attribute.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "weir/sdfg/checked_accesses.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/state.h"

using namespace weir;
using Catch::Matchers::Contains;

namespace {

CheckedAccess access(const std::string& data, const std::string& subset, const std::string& shape,
                     bool write = false) {
  return CheckedAccess{data, Subset::parse(subset), {sym::Expr::parse(shape)}, {}, write, "map 'p'", "", {}};
}

}  // namespace

TEST_CASE("checked accesses: added in order, without duplicates, read back", "[sdfg][checked-accesses]") {
  MapInfo m;
  CHECK(checked_accesses(m).empty());
  add_checked_accesses(m, {});
  CHECK(m.extra.find(kCheckedAccessesAttribute) == nullptr);
  CheckedAccess t = access("T", "0:M", "N"), a = access("A", "1:N + 1", "K", true);
  a.offset = {sym::Expr::parse("-1")};
  a.debuginfo = R"({"type": "DebugInfo", "start_line": 3, "filename": "g.py"})";
  add_checked_accesses(m, {t, a});
  add_checked_accesses(m, {a, t});
  std::vector<CheckedAccess> got = checked_accesses(m);
  REQUIRE(got.size() == 2);
  CHECK(got[0] == t);
  CHECK(got[1] == a);
  CHECK(got[1].subset.str() == "1:N + 1");
  CHECK(got[1].write);
}

TEST_CASE("checked accesses: the record survives a JSON round trip of the SDFG", "[sdfg][checked-accesses]") {
  SDFG s("rt");
  s.add_symbol("N");
  s.add_symbol("M");
  s.add_array("C", ScalarType::Float64, {sym::Expr::symbol("M")});
  SDFGState& st = s.add_state("main", true);
  auto& m = st.add_map("m", {"i"}, Subset::parse("0:M"));
  auto& t = st.add_tasklet("t", {"y = 1.0", Language::Python}, {}, {"y"});
  auto& c = st.add_access("C");
  st.add_edge(m.id(), "", t.id(), "", Memlet());
  st.add_memlet_path({t.id(), m.exit, c.id()}, Memlet::simple("C", Subset::parse("i")), "y", "");
  add_checked_accesses(*m.map, {access("T", "0:M", "N")});
  auto back = sdfg_from_json_text(sdfg_to_json_text(s));
  const MapEntry* e = nullptr;
  for (const Node* n : back->all_states()[0]->nodes())
    if (n->as<MapEntry>()) e = n->as<MapEntry>();
  REQUIRE(e != nullptr);
  CHECK(checked_accesses(*e->map) == std::vector<CheckedAccess>{access("T", "0:M", "N")});
}

TEST_CASE("checked accesses: malformed records name the attribute", "[sdfg][checked-accesses]") {
  for (const char* text : {R"({"data": "T"})", R"([{"data": "T", "subset": "0:N"}])",
                           R"([{"data": "T", "subset": "0:N", "shape": ["N", "M"]}])",
                           R"([{"data": "T", "subset": "0:N", "shape": ["N"], "write": 1}])",
                           R"([{"data": "T", "subset": "0:N:", "shape": ["N +"]}])"}) {
    INFO(text);
    MapInfo m;
    m.extra.set(kCheckedAccessesAttribute, text);
    CHECK_THROWS_WITH(checked_accesses(m), Contains("weir_checked_accesses is "));
  }
}
