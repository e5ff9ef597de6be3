// What weir writes for DaCe 2.0 to read back, pinned at the JSON level: while loops with DaCe's
// defaults (no loop variable, null init/update statements), and map scope nodes labelled with
// their ranges as DaCe's str(Map) (what SDFV sizes the node by).
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/state.h"

using json = nlohmann::json;
using namespace weir;

namespace {

/// The first object of `j` (depth first) whose "type" is `type`.
const json* find_type(const json& j, const std::string& type) {
  if (j.is_object()) {
    if (j.value("type", json()).is_string() && j["type"] == type) return &j;
    for (const auto& [k, v] : j.items())
      if (const json* f = find_type(v, type)) return f;
  } else if (j.is_array()) {
    for (const auto& v : j)
      if (const json* f = find_type(v, type)) return f;
  }
  return nullptr;
}

}  // namespace

TEST_CASE("a while loop is written with DaCe's defaults and reads back", "[serialize][dace]") {
  auto s = std::make_unique<SDFG>("wl");
  s->add_array("A", ScalarType::Float64, {sym::Expr(4)});
  s->add_symbol("k");
  auto& init = s->add_state("init", true);
  auto& L = s->add_loop("while_k", "", "", "k < 10", "");
  InterstateEdge start, step_k;
  start.assignments = {{"k", "0"}};
  step_k.assignments = {{"k", "k + 3"}};
  s->add_edge(init.id(), L.id(), start);
  auto& body = L.add_state("body", true);
  auto& step = L.add_state("step");
  L.add_edge(body.id(), step.id(), step_k);
  json j = json::parse(sdfg_to_json_text(*s));
  const json* loop = find_type(j, "LoopRegion");
  REQUIRE(loop);
  const json& a = (*loop)["attributes"];
  CHECK(!a.contains("loop_variable"));  // DaCe's default '' is left out, as DaCe leaves defaults out
  CHECK(a.at("init_statement").is_null());
  CHECK(a.at("update_statement").is_null());
  CHECK(a.at("loop_condition").at("string_data") == "k < 10");
  auto back = sdfg_from_json_text(j.dump(), "back");
  auto* bl = back->blocks()[1]->as<LoopRegion>();
  if (!bl) bl = back->blocks()[0]->as<LoopRegion>();
  REQUIRE(bl);
  CHECK(bl->loop_variable.empty());
  CHECK(bl->init_statement.code.empty());
  CHECK(bl->update_statement.code.empty());
  // DaCe's None written explicitly as null loads as the same while loop.
  json explicit_null = j;
  json* el = const_cast<json*>(find_type(explicit_null, "LoopRegion"));
  (*el)["attributes"]["loop_variable"] = nullptr;
  auto again = sdfg_from_json_text(explicit_null.dump(), "again");
  CHECK(sdfg_difference(*back, *again) == "");
}

TEST_CASE("a for loop keeps its variable and statements", "[serialize][dace]") {
  auto s = std::make_unique<SDFG>("fl");
  s->add_symbol("N");
  auto& L = s->add_loop("for_i", "i", "i = 0", "i < N", "i = i + 1");
  L.add_state("body", true);
  json a = (*find_type(json::parse(sdfg_to_json_text(*s)), "LoopRegion"))["attributes"];
  CHECK(a.at("loop_variable") == "i");
  CHECK(a.at("init_statement").at("string_data") == "i = 0");
  CHECK(a.at("update_statement").at("string_data") == "i = i + 1");
}

TEST_CASE("map scope nodes are labelled with their ranges as DaCe writes them", "[serialize][dace]") {
  auto s = std::make_unique<SDFG>("ml");
  s->add_symbol("N");
  s->add_symbol("M");
  s->add_array("A", ScalarType::Float64, {sym::Expr::symbol("N"), sym::Expr::symbol("M")});
  auto& st = s->add_state("main", true);
  auto& m = st.add_map("compute", {"i", "j"}, Subset::parse("1:N - 1, 0:M:2"));
  auto& t = st.add_tasklet("t", {"o = 1.0", Language::Python}, {}, {"o"});
  auto& a = st.add_access("A");
  st.add_edge(m.id(), "", t.id(), "", Memlet{});
  st.add_memlet_path({t.id(), m.exit, a.id()}, Memlet::simple("A", Subset::parse("i, j")), "o", "");
  json j = json::parse(sdfg_to_json_text(*s));
  const json* entry = find_type(j, "MapEntry");
  const json* exit = find_type(j, "MapExit");
  REQUIRE(entry);
  REQUIRE(exit);
  // As DaCe's str(Map): Python slices, exclusive ends, the step where it is not 1.
  CHECK((*entry)["label"] == "compute[i=1:N - 1, j=0:M:2]");
  CHECK((*exit)["label"] == "compute[i=1:N - 1, j=0:M:2]");
  CHECK((*entry)["attributes"]["label"] == "compute");  // the map's name stays the name
  // Reading it back keeps the map's name.
  auto back = sdfg_from_json_text(j.dump(), "back");
  for (Node* n : back->all_states()[0]->nodes())
    if (auto* me = n->as<MapEntry>()) CHECK(me->map->label == "compute");
}
