// weir's own attributes in files (user31's G22): written `_meta_weir_...`, which DaCe's
// deserializer skips without the "Unused properties" warning; read back under their in-memory
// names `weir_...`, as is the older spelling `weir_...` of files written before session 32.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>
#include <string>

#include "weir/sdfg/errors.h"
#include "weir/sdfg/field_dims.h"
#include "weir/sdfg/private_attributes.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/state.h"

using namespace weir;
using nlohmann::json;

namespace {

/// B[i] = A[i] over a map with weir's records on the map, the tasklet, the state and the SDFG,
/// and DaCe's own attributes beside them.
std::unique_ptr<SDFG> make_recorded() {
  auto s = std::make_unique<SDFG>("rec");
  s->add_symbol("N");
  s->add_array("A", ScalarType::Float64, {sym::Expr::parse("N")});
  s->add_array("B", ScalarType::Float64, {sym::Expr::parse("N")});
  s->extra.set("weir_connectivities", "[]");
  auto& st = s->add_state("main", true);
  st.extra.set("weir_note", "1");
  auto& a = st.add_access("A");
  auto& b = st.add_access("B");
  auto& m = st.add_map("copy", {"i"}, Subset::parse("0:N"));
  m.map->extra.set("weir_threads", "\"measured\"");
  m.map->extra.set("weir_points", "\"N\"");
  auto& t = st.add_tasklet("t", {"o = v", Language::Python}, {"v"}, {"o"});
  t.extra.set("weir_fault", "{\"code\": \"__f\"}");
  t.extra.set("side_note", "2");  // not weir's: kept as it is
  st.add_memlet_path({a.id(), m.id(), t.id()}, Memlet::simple("A", Subset::parse("i")), "", "v");
  st.add_memlet_path({t.id(), m.exit, b.id()}, Memlet::simple("B", Subset::parse("i")), "o", "");
  st.node(m.exit).extra.set("debuginfo", R"({"type": "DebugInfo", "start_line": 3, "filename": "p.py"})");
  return s;
}

const json& map_entry(const json& j) {
  for (const json& n : j["nodes"][0]["nodes"])
    if (n["type"] == "MapEntry") return n;
  FAIL("no map entry");
  return j;
}

const json& node_of_type(const json& j, const std::string& type) {
  for (const json& n : j["nodes"][0]["nodes"])
    if (n["type"] == type) return n;
  FAIL("no node of type " << type);
  return j;
}

}  // namespace

TEST_CASE("private attributes: the key rule", "[sdfg][dace]") {
  CHECK(attribute_key_in_file("weir_threads") == "_meta_weir_threads");
  CHECK(attribute_key_in_file("debuginfo") == "debuginfo");
  CHECK(attribute_key_in_file("_meta_foo") == "_meta_foo");
  CHECK(attribute_key_in_memory("_meta_weir_threads") == "weir_threads");
  CHECK(attribute_key_in_memory("weir_threads") == "weir_threads");  // an older file's
  CHECK(attribute_key_in_memory("_meta_foo") == "_meta_foo");        // DaCe's editor metadata
}

TEST_CASE("private attributes: weir's records are written as _meta_weir_ and read back", "[sdfg][dace]") {
  auto s = make_recorded();
  const std::string text = sdfg_to_json_text(*s);
  const json j = json::parse(text);
  CHECK(j["attributes"]["_meta_weir_connectivities"] == json::array());
  CHECK_FALSE(j["attributes"].contains("weir_connectivities"));
  CHECK(j["nodes"][0]["attributes"]["_meta_weir_note"] == 1);
  const json& entry = map_entry(j)["attributes"];
  CHECK(entry["_meta_weir_threads"] == "measured");
  CHECK(entry["_meta_weir_points"] == "N");
  CHECK_FALSE(entry.contains("weir_threads"));
  const json& tasklet = node_of_type(j, "Tasklet")["attributes"];
  CHECK(tasklet["_meta_weir_fault"]["code"] == "__f");
  CHECK(tasklet["side_note"] == 2);
  // DaCe's MapExit has no debuginfo property: not written.
  CHECK_FALSE(node_of_type(j, "MapExit")["attributes"].contains("debuginfo"));
  // No key starting with "weir_" anywhere: DaCe would warn about each.
  CHECK(text.find("\"weir_") == std::string::npos);

  auto back = sdfg_from_json_text(text);
  CHECK(*back->extra.find("weir_connectivities") == "[]");
  const SDFGState& st = *back->all_states().front();
  CHECK(*st.extra.find("weir_note") == "1");
  for (const Node* n : st.nodes()) {
    if (auto* e = n->as<MapEntry>()) {
      CHECK(*e->map->extra.find("weir_threads") == "\"measured\"");
      CHECK(*e->map->extra.find("weir_points") == "\"N\"");
      CHECK(e->map->extra.find("_meta_weir_threads") == nullptr);
    }
    if (auto* t = n->as<Tasklet>()) CHECK(json::parse(*t->extra.find("weir_fault"))["code"] == "__f");
  }
  CHECK(sdfg_to_json_text(*back) == text);  // a second round trip writes the same file
}

TEST_CASE("private attributes: a file of the old spelling reads the same", "[sdfg][dace]") {
  auto s = make_recorded();
  const std::string text = sdfg_to_json_text(*s);
  // The same file as written before session 32: every `_meta_weir_x` key spelled `weir_x`.
  std::string old = text;
  for (std::size_t at = old.find("\"_meta_weir_"); at != std::string::npos;
       at = old.find("\"_meta_weir_", at))
    old.erase(at + 1, 6);
  REQUIRE(old.find("\"weir_threads\"") != std::string::npos);
  auto back = sdfg_from_json_text(old);
  CHECK(sdfg_to_json_text(*back) == text);  // read as the new spelling is, written in it

  // The mark of weir's own code cannot come from a file, in either spelling.
  for (const char* key : {"weir_written_by_weir", "_meta_weir_written_by_weir"}) {
    json j = json::parse(text);
    j["attributes"][key] = true;
    INFO(key);
    CHECK_THROWS_WITH(sdfg_from_json_text(j.dump()),
                      Catch::Contains(std::string("'") + key + "' is reserved"));
  }
}

TEST_CASE("a field's recorded dimensions survive a file and are ignored when they no longer fit",
          "[sdfg][serialize]") {
  // weir/sdfg/field_dims.h (user29 #12): the frontend names the dimensions of the arrays it
  // makes; a file keeps them under `_meta_weir_dims`, which DaCe skips.
  auto s = make_recorded();
  set_field_dims(s->arrays.at("A"), {"Cell"});
  CHECK(field_dims(s->arrays.at("A")) == std::vector<std::string>{"Cell"});
  CHECK(field_dims(s->arrays.at("B")).empty());  // none recorded
  const std::string text = sdfg_to_json_text(*s);
  CHECK(json::parse(text)["attributes"]["_arrays"]["A"]["attributes"]["_meta_weir_dims"] ==
        json::array({"Cell"}));
  auto back = sdfg_from_json_text(text);
  CHECK(field_dims(back->arrays.at("A")) == std::vector<std::string>{"Cell"});
  // A record that does not match the rank (a transformation reshaped the array) is none.
  set_field_dims(back->arrays.at("A"), {"Cell", "K"});
  CHECK(field_dims(back->arrays.at("A")).empty());
}
