// DaCe JSON: corpus round trips, key preservation, format rules, gzip, atomic saves and a table
// of malformed inputs with the exact error each must give.
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <nlohmann/json.hpp>

#include "corpus.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/symbolic.h"

using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Keys DaCe derives on save and weir recomputes, or drops (hash, old list ids).
bool derived_key(const std::string& k) {
  return k == "hash" || k == "scope_dict" || k == "cfg_list_id" || k == "sdfg_list_id" ||
         k == "start_state" || k == "src_subset" || k == "dst_subset" || k == "num_accesses" ||
         k == "is_data_src" || k == "source_files";
}

bool same_expression(const std::string& a, const std::string& b) {
  try {
    return weir::sym::Expr::parse(a) == weir::sym::Expr::parse(b);
  } catch (const std::exception&) {
    return false;
  }
}

// Every non-derived key of `orig` must be in `out` with an equal value; strings that are
// symbolic expressions may be printed differently but must be equal expressions.
void check_preserved(const json& orig, const json& out, const std::string& path,
                     std::vector<std::string>& problems) {
  if (problems.size() > 10) return;
  if (orig.is_object()) {
    if (!out.is_object()) {
      problems.push_back(path + ": object became " + out.dump());
      return;
    }
    for (const auto& [k, v] : orig.items()) {
      if (derived_key(k)) continue;
      if (!out.contains(k)) {
        // A null or default-valued key may be left out: DaCe fills the same default.
        if (!v.is_null())
          problems.push_back(path + "/" + k + ": missing after round trip (was " + v.dump() + ")");
        continue;
      }
      check_preserved(v, out[k], path + "/" + k, problems);
    }
  } else if (orig.is_array()) {
    if (!out.is_array() || out.size() != orig.size()) {
      problems.push_back(path + ": array " + orig.dump().substr(0, 200) + " became " +
                         out.dump().substr(0, 200));
      return;
    }
    for (std::size_t i = 0; i < orig.size(); ++i)
      check_preserved(orig[i], out[i], path + "/" + std::to_string(i), problems);
  } else if (orig != out) {
    bool ok = false;
    if (orig.is_string() && out.is_string())
      ok = same_expression(orig.get<std::string>(), out.get<std::string>());
    if (orig.is_number_integer() && out.is_string())
      ok = same_expression(orig.dump(), out.get<std::string>());
    if (orig.is_string() && out.is_number_integer())
      ok = same_expression(orig.get<std::string>(), out.dump());
    if (!ok) problems.push_back(path + ": " + orig.dump() + " became " + out.dump());
  }
}

// A small valid SDFG: B[i] = 2 * A[i] for i in 0:N, in one state.
const char* kBase = R"json({
 "type": "SDFG", "dace_version": "2.0.0a6",
 "attributes": {"name": "scale", "arg_names": ["A", "B"], "symbols": {"N": "int64"},
  "_arrays": {
   "A": {"type": "Array", "attributes": {"dtype": "float64", "shape": ["$N"], "strides": ["1"], "total_size": "$N", "offset": ["0"]}},
   "B": {"type": "Array", "attributes": {"dtype": "float64", "shape": ["symbol($N, dtype=dace.int64)"], "strides": ["1"], "total_size": "N", "offset": ["0"]}}}},
 "nodes": [{"type": "SDFGState", "label": "main", "id": 0,
  "nodes": [
   {"type": "AccessNode", "label": "A", "id": 0, "attributes": {"data": "A"}},
   {"type": "MapEntry", "label": "m", "id": 1, "scope_entry": null, "scope_exit": "4",
    "attributes": {"label": "m", "params": ["i"], "range": {"type": "Range", "ranges": [{"start": "0", "end": "N - 1", "step": "1", "tile": "1"}]},
     "in_connectors": {"IN_A": null}, "out_connectors": {"OUT_A": null}}},
   {"type": "Tasklet", "label": "t", "id": 2, "attributes": {"code": {"string_data": "b = 2 * a", "language": "Python"},
     "in_connectors": {"a": null}, "out_connectors": {"b": null}}},
   {"type": "AccessNode", "label": "B", "id": 3, "attributes": {"data": "B"}},
   {"type": "MapExit", "label": "m", "id": 4, "scope_entry": "1", "scope_exit": "4",
    "attributes": {"in_connectors": {"IN_B": null}, "out_connectors": {"OUT_B": null}}}],
  "edges": [
   {"type": "MultiConnectorEdge", "src": "0", "dst": "1", "src_connector": null, "dst_connector": "IN_A",
    "attributes": {"data": {"type": "Memlet", "attributes": {"data": "A", "volume": "N", "subset": {"type": "Range", "ranges": [{"start": "0", "end": "N - 1", "step": "1", "tile": "1"}]}}}}},
   {"type": "MultiConnectorEdge", "src": "1", "dst": "2", "src_connector": "OUT_A", "dst_connector": "a",
    "attributes": {"data": {"type": "Memlet", "attributes": {"data": "A", "volume": "1", "subset": {"type": "Range", "ranges": [{"start": "i", "end": "i", "step": "1", "tile": "1"}]}}}}},
   {"type": "MultiConnectorEdge", "src": "2", "dst": "4", "src_connector": "b", "dst_connector": "IN_B",
    "attributes": {"data": {"type": "Memlet", "attributes": {"data": "B", "volume": "1", "subset": {"type": "Range", "ranges": [{"start": "i", "end": "i", "step": "1", "tile": "1"}]}}}}},
   {"type": "MultiConnectorEdge", "src": "4", "dst": "3", "src_connector": "OUT_B", "dst_connector": null,
    "attributes": {"data": {"type": "Memlet", "attributes": {"data": "B", "volume": "N", "subset": {"type": "Range", "ranges": [{"start": "0", "end": "N - 1", "step": "1", "tile": "1"}]}}}}}],
  "attributes": {}}],
 "edges": [], "start_block": 0})json";

std::string load_error(const std::string& text) {
  try {
    weir::sdfg_from_json_text(text, "bad.sdfg");
  } catch (const weir::SdfgLoadError& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace

TEST_CASE("every corpus SDFG loads and round-trips semantically", "[serialize][corpus]") {
  for (const auto& f : weir::test::dace_corpus_files()) {
    INFO(f.string());
    auto a = weir::load_sdfg(f.string());
    REQUIRE(a);
    auto text = weir::sdfg_to_json_text(*a);
    auto b = weir::sdfg_from_json_text(text, "roundtrip");
    CHECK(weir::sdfg_difference(*a, *b) == "");
    // Saving again gives byte-identical text: the writer is deterministic.
    CHECK(weir::sdfg_to_json_text(*b) == text);
  }
}

TEST_CASE("load + save keeps every non-derived key of the corpus files", "[serialize][corpus]") {
  for (const auto& f : weir::test::dace_corpus_files()) {
    INFO(f.string());
    auto orig = json::parse(weir::test::read_text(f));
    auto out = json::parse(weir::sdfg_to_json_text(*weir::load_sdfg(f.string())));
    std::vector<std::string> problems;
    check_preserved(orig, out, "", problems);
    for (const auto& p : problems) UNSCOPED_INFO(p);
    CHECK(problems.empty());
  }
}

namespace {
std::vector<fs::path> npbench_files() {
  std::vector<fs::path> files;
  for (const auto& e : fs::recursive_directory_iterator(weir::test::npbench_corpus_dir()))
    if (e.is_regular_file() && e.path().extension() == ".sdfg") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() >= 45);
  return files;
}
}  // namespace

TEST_CASE("every npbench SDFG loads, keeps its keys, and round-trips", "[serialize][corpus][npbench]") {
  // DaCe 2.0's block types (FunctionCallRegion, ...), library nodes, int32 containers whose
  // dtype DaCe leaves out, complex128 and Register storage.
  for (const auto& f : npbench_files()) {
    INFO(f.string());
    auto a = weir::load_sdfg(f.string());
    auto text = weir::sdfg_to_json_text(*a);
    std::vector<std::string> problems;
    check_preserved(json::parse(weir::test::read_text(f)), json::parse(text), "", problems);
    for (const auto& p : problems) UNSCOPED_INFO(p);
    CHECK(problems.empty());
    CHECK(weir::sdfg_difference(*a, *weir::sdfg_from_json_text(text, "roundtrip")) == "");
  }
}

TEST_CASE("DaCe's defaults fill what its files leave out", "[serialize][npbench]") {
  auto dir = weir::test::npbench_corpus_dir();
  // floyd_warshall's int32 `path` has no dtype key: int32 is DaCe's default.
  auto fw = weir::load_sdfg((dir / "floyd_warshall" / "floyd_warshall.simplified.sdfg").string());
  CHECK(fw->data("path").dtype.base == weir::ScalarType::Int32);
  // azimint_hist: FunctionCallRegion blocks (frontend), Reduce nodes written as type
  // LibraryNode (at the top level once simplified).
  auto az = weir::load_sdfg((dir / "azimint_hist" / "azimint_hist.frontend.sdfg").string());
  auto azs = weir::load_sdfg((dir / "azimint_hist" / "azimint_hist.simplified.sdfg").string());
  int calls = 0, reduces = 0;
  std::function<void(const weir::ControlFlowRegion&)> walk = [&](const weir::ControlFlowRegion& r) {
    for (auto* b : r.blocks()) {
      if (auto* cr = b->as<weir::ControlFlowRegion>()) {
        calls += cr->dace_class == "FunctionCallRegion";
        walk(*cr);
      }
      if (auto* st = b->as<weir::SDFGState>())
        for (auto* n : st->nodes())
          if (auto* ln = n->as<weir::LibraryNode>(); ln && ln->is_reduce()) {
            ++reduces;
            CHECK(!ln->wcr.empty());
            CHECK(!ln->axes);  // all axes
          }
    }
  };
  walk(*az);
  CHECK(calls >= 1);
  calls = 0;
  reduces = 0;
  walk(*azs);
  CHECK(reduces == 4);
  // The region class is written back as the block's type.
  CHECK(weir::sdfg_to_json_text(*az).find("\"FunctionCallRegion\"") != std::string::npos);
}

TEST_CASE("the corpus's control-flow regions are kept as regions", "[serialize][corpus]") {
  auto dir = weir::test::dace_corpus_dir();
  auto lap = weir::load_sdfg((dir / "laplace2d" / "laplace2d.simplified.sdfg").string());
  REQUIRE(lap->num_blocks() == 1);
  auto* loop = lap->blocks()[0]->as<weir::LoopRegion>();
  REQUIRE(loop);
  CHECK(loop->loop_variable == "t");
  CHECK(loop->loop_condition.code == "(t < TSTEPS)");
  CHECK(loop->init_statement.code == "t = 0");
  CHECK(lap->data("A").shape ==
        std::vector<weir::sym::Expr>{weir::sym::Expr::symbol("NL"), weir::sym::Expr::symbol("NL")});
  CHECK(lap->data("TSTEPS").is_scalar());
  CHECK(lap->arg_names == std::vector<std::string>{"A", "B", "TSTEPS"});

  auto ex = weir::load_sdfg((dir / "doc-samples" / "example.sdfg").string());
  CHECK(ex->blocks().size() >= 2);  // old style: plain states and interstate edges
  for (auto* b : ex->blocks()) CHECK(b->kind() == weir::BlockKind::State);
}

TEST_CASE("written JSON follows DaCe's rules", "[serialize]") {
  auto sdfg = weir::sdfg_from_json_text(kBase);
  auto j = json::parse(weir::sdfg_to_json_text(*sdfg));
  CHECK(j["dace_version"] == "2.0.0a6");
  CHECK(j["type"] == "SDFG");
  const auto& st = j["nodes"][0];
  CHECK(st["type"] == "SDFGState");
  // Inclusive range ends with $-prefixed symbols: 0:N is written start 0, end $N - 1.
  const auto& map = st["nodes"][1];
  CHECK(map["type"] == "MapEntry");
  auto end = map["attributes"]["range"]["ranges"][0]["end"].get<std::string>();
  CHECK(end.find("$N") != std::string::npos);
  CHECK(weir::sym::Expr::parse(end) == weir::sym::Expr::symbol("N") - 1);
  CHECK(j["attributes"]["_arrays"]["B"]["attributes"]["shape"][0] == "$N");
  // Endpoints as strings, connectors null or names, every object typed.
  for (const auto& e : st["edges"]) {
    CHECK(e["src"].is_string());
    CHECK(e["dst"].is_string());
    CHECK(e["type"] == "MultiConnectorEdge");
    CHECK(e["attributes"]["data"]["type"] == "Memlet");
  }
  CHECK(st["edges"][0]["src_connector"].is_null());
  CHECK(st["scope_dict"]["-1"] == json({0, 1, 3}));
  CHECK(st["scope_dict"]["1"] == json({2, 4}));
  CHECK(st["nodes"][2]["scope_entry"] == "1");
  CHECK(st["nodes"][2]["scope_exit"] == "4");
  // The viewer reads src/dst subsets: A -> entry reads A, so the subset is the source's.
  CHECK(st["edges"][0]["attributes"]["data"]["attributes"]["is_data_src"] == true);
  CHECK(st["edges"][3]["attributes"]["data"]["attributes"]["is_data_src"] == false);
}

TEST_CASE("unknown attributes survive a round trip", "[serialize]") {
  auto j = json::parse(kBase);
  j["attributes"]["my_tool_setting"] = {{"level", 3}};
  j["nodes"][0]["nodes"][2]["attributes"]["instrument"] = "Timer";
  j["nodes"][0]["edges"][0]["attributes"]["data"]["attributes"]["debuginfo"] = {{"type", "DebugInfo"},
                                                                                {"start_line", 7}};
  auto out = json::parse(weir::sdfg_to_json_text(*weir::sdfg_from_json_text(j.dump())));
  CHECK(out["attributes"]["my_tool_setting"] == json({{"level", 3}}));
  CHECK(out["nodes"][0]["nodes"][2]["attributes"]["instrument"] == "Timer");
  CHECK(out["nodes"][0]["edges"][0]["attributes"]["data"]["attributes"]["debuginfo"]["start_line"] == 7);
}

TEST_CASE("sdfgz files are gzip and load like plain files", "[serialize]") {
  auto dir = weir::test::scratch_dir("serialize-gz");
  auto sdfg = weir::sdfg_from_json_text(kBase);
  weir::save_sdfg(*sdfg, (dir / "k.sdfgz").string());
  weir::save_sdfg(*sdfg, (dir / "k.sdfg").string(), {.indent = 1, .compress = std::nullopt});
  auto gz = weir::test::read_text(dir / "k.sdfgz");
  REQUIRE(gz.size() > 2);
  CHECK(static_cast<unsigned char>(gz[0]) == 0x1f);
  CHECK(static_cast<unsigned char>(gz[1]) == 0x8b);
  CHECK(weir::test::read_text(dir / "k.sdfg").find("\n") != std::string::npos);  // indented
  CHECK(weir::sdfg_difference(*sdfg, *weir::load_sdfg((dir / "k.sdfgz").string())) == "");
  CHECK(weir::sdfg_difference(*sdfg, *weir::load_sdfg((dir / "k.sdfg").string())) == "");

  std::ofstream(dir / "corrupt.sdfgz", std::ios::binary)
      << std::string("\x1f\x8b\x08\x00garbage-garbage", 19);
  CHECK_THROWS_AS(weir::load_sdfg((dir / "corrupt.sdfgz").string()), weir::SdfgLoadError);
  CHECK_THROWS_WITH(weir::load_sdfg((dir / "corrupt.sdfgz").string()), Catch::Contains("corrupt gzip data"));
  // Cut in the middle of the deflate stream: a gzip error, not a JSON one.
  std::ofstream(dir / "trunc.sdfgz", std::ios::binary) << gz.substr(0, gz.size() / 2);
  CHECK_THROWS_WITH(weir::load_sdfg((dir / "trunc.sdfgz").string()),
                    Catch::Contains("truncated gzip data") && !Catch::Contains("JSON"));
  // The size limit on the decompressed text (a gzip bomb fails before exhausting memory).
  ::setenv("WEIR_MAX_SDFG_BYTES", "100", 1);
  CHECK_THROWS_WITH(weir::load_sdfg((dir / "k.sdfgz").string()),
                    Catch::Contains("decompressed size exceeds the limit of 100 bytes") &&
                        Catch::Contains("WEIR_MAX_SDFG_BYTES"));
  CHECK_THROWS_WITH(weir::load_sdfg((dir / "k.sdfg").string()),
                    Catch::Contains("size exceeds the limit of 100 bytes"));
  ::unsetenv("WEIR_MAX_SDFG_BYTES");
  CHECK_NOTHROW(weir::load_sdfg((dir / "k.sdfgz").string()));
}

TEST_CASE("a failed save leaves the previous file and no temporary behind", "[serialize]") {
  auto dir = weir::test::scratch_dir("serialize-atomic");
  auto sdfg = weir::sdfg_from_json_text(kBase);
  // The target is a directory with content: rename fails, the directory stays as it was.
  fs::create_directories(dir / "target.sdfg" / "keep");
  CHECK_THROWS_AS(weir::save_sdfg(*sdfg, (dir / "target.sdfg").string()), weir::Error);
  CHECK(fs::is_directory(dir / "target.sdfg" / "keep"));
  CHECK_THROWS_AS(weir::save_sdfg(*sdfg, (dir / "no-such-dir" / "x.sdfg").string()), weir::Error);
  int entries = 0;
  for (const auto& e : fs::directory_iterator(dir)) {
    (void)e;
    ++entries;
  }
  CHECK(entries == 1);  // only target.sdfg: no temporary files left
  // Overwriting an existing file replaces it whole.
  weir::save_sdfg(*sdfg, (dir / "ok.sdfg").string());
  weir::save_sdfg(*sdfg, (dir / "ok.sdfg").string());
  CHECK(weir::sdfg_difference(*sdfg, *weir::load_sdfg((dir / "ok.sdfg").string())) == "");
}

// DaCe reads `start_block` only where a region has no unique source block, and its
// simplification leaves the index stale (a loop's body of one block with start_block 1).
TEST_CASE("a stale start block of a region with one source block loads, as in DaCe", "[serialize]") {
  auto j = json::parse(kBase);
  j["start_block"] = 1;
  std::unique_ptr<weir::SDFG> s;
  REQUIRE_NOTHROW(s = weir::sdfg_from_json_text(j.dump(), "stale.sdfg"));
  // What weir writes of it reads back.
  CHECK_NOTHROW(weir::sdfg_from_json_text(weir::sdfg_to_json_text(*s), "stale-written.sdfg"));
}

TEST_CASE("malformed SDFG files give located errors", "[serialize][errors]") {
  struct Case {
    const char* name;
    std::function<std::string()> make;
    std::vector<std::string> expected;  // substrings of the message
  };
  auto mutate = [](std::function<void(json&)> f) {
    return [f]() {
      auto j = json::parse(kBase);
      f(j);
      return j.dump();
    };
  };
  auto text = [](std::string t) { return [t]() { return t; }; };
  std::string base = kBase;
  std::vector<Case> cases = {
      {"not JSON", text("hello world"), {"bad.sdfg:1:1: invalid JSON: invalid literal 'h'"}},
      {"empty file", text(""), {"bad.sdfg:1:1: invalid JSON: the text is empty"}},
      {"truncated", text(base.substr(0, base.size() / 2)), {"bad.sdfg:17:", ": invalid JSON: "}},
      {"top level is an array",
       text("[1, 2]"),
       {"bad.sdfg: /: not an SDFG: expected a JSON object with \"type\": \"SDFG\", found an array"}},
      {"missing dace_version",
       mutate([](json& j) { j.erase("dace_version"); }),
       {"missing required key 'dace_version'"}},
      {"wrong root type",
       mutate([](json& j) { j["type"] = "SDFGState"; }),
       {"/type", "expected type 'SDFG'"}},
      {"missing SDFG name",
       mutate([](json& j) { j["attributes"].erase("name"); }),
       {"/attributes", "missing required key 'name'"}},
      {"dangling edge endpoint",
       mutate([](json& j) { j["nodes"][0]["edges"][1]["dst"] = "7"; }),
       {"/nodes/0/edges/1/dst", "state 'main', edge 1", "edge destination node 7 does not exist (5 nodes)"}},
      {"unknown node type",
       mutate([](json& j) { j["nodes"][0]["nodes"][2]["type"] = "FancyNode"; }),
       {"/nodes/0/nodes/2/type", "node 2 (FancyNode 't')", "unknown node type 'FancyNode'"}},
      {"tasklet without code",
       mutate([](json& j) { j["nodes"][0]["nodes"][2]["attributes"].erase("code"); }),
       {"/nodes/0/nodes/2", "state 'main', node 2 (Tasklet 't')", "tasklet has no code"}},
      {"memlet without subset",
       mutate([](json& j) { j["nodes"][0]["edges"][2]["attributes"]["data"]["attributes"].erase("subset"); }),
       {"/nodes/0/edges/2/attributes/data/attributes", "edge 2", "memlet of 'B' has no subset"}},
      {"map without params",
       mutate([](json& j) { j["nodes"][0]["nodes"][1]["attributes"].erase("params"); }),
       {"node 1 (MapEntry 'm')", "missing required key 'params'"}},
      {"range without tile",
       mutate([](json& j) { j["nodes"][0]["nodes"][1]["attributes"]["range"]["ranges"][0].erase("tile"); }),
       {"/nodes/0/nodes/1/attributes/range/ranges/0", "missing required key 'tile'"}},
      {"map range and params disagree",
       mutate([](json& j) { j["nodes"][0]["nodes"][1]["attributes"]["params"].push_back("j"); }),
       {"map has 2 parameters but its range has 1 dimensions"}},
      {"descriptor without shape",
       mutate([](json& j) { j["attributes"]["_arrays"]["A"]["attributes"].erase("shape"); }),
       {"/attributes/_arrays/A/attributes", "container 'A'", "missing required key 'shape'"}},
      {"bad expression",
       mutate([](json& j) { j["attributes"]["_arrays"]["A"]["attributes"]["shape"][0] = "N +"; }),
       {"/attributes/_arrays/A/attributes/shape/0", "invalid expression 'N +'"}},
      {"unknown storage",
       mutate([](json& j) { j["attributes"]["_arrays"]["A"]["attributes"]["storage"] = "CPU_Hype"; }),
       {"unknown storage type 'CPU_Hype'"}},
      {"unknown dtype",
       mutate([](json& j) { j["attributes"]["_arrays"]["A"]["attributes"]["dtype"] = "float65"; }),
       {"/attributes/_arrays/A/attributes/dtype", "unknown dtype 'float65'"}},
      {"unknown block type",
       mutate([](json& j) { j["nodes"][0]["type"] = "WhileRegion"; }),
       {"/nodes/0/type", "unknown control-flow block type 'WhileRegion'"}},
      // Out of range and needed: two blocks without incoming edges (with one, DaCe ignores it).
      {"start block out of range",
       mutate([](json& j) {
         j["nodes"].push_back(j["nodes"][0]);
         j["nodes"][1]["id"] = 1;
         j["nodes"][1]["label"] = "second";
         j["start_block"] = 3;
       }),
       {"/start_block", "start block 3 does not exist (2 blocks)"}},
      {"interstate edge to nowhere",
       mutate([](json& j) {
         j["edges"].push_back(
             {{"type", "Edge"},
              {"src", "0"},
              {"dst", "5"},
              {"attributes", {{"data", {{"type", "InterstateEdge"}, {"attributes", json::object()}}}}}});
       }),
       {"/edges/0/dst", "interstate edge 0", "edge destination 5 does not exist (1 blocks)"}},
      {"map exit without entry",
       mutate([](json& j) {
         j["nodes"][0]["nodes"][4].erase("scope_entry");
         j["nodes"][0]["nodes"][1]["scope_exit"] = nullptr;
       }),
       {"node 4 (MapExit 'm')", "map exit has no scope_entry"}},
      {"connector of the wrong type",
       mutate([](json& j) { j["nodes"][0]["edges"][1]["src_connector"] = 5; }),
       {"/nodes/0/edges/1/src_connector", "expected a connector name or null"}},
      {"edge without memlet",
       mutate([](json& j) { j["nodes"][0]["edges"][0]["attributes"].erase("data"); }),
       {"/nodes/0/edges/0/attributes", "missing required key 'data'"}},
      {"state without nodes",
       mutate([](json& j) { j["nodes"][0].erase("nodes"); }),
       {"/nodes/0", "state 'main'", "missing required key 'nodes'"}},
      // Present but null is not "missing" (user31 G18).
      {"state whose nodes are null",
       mutate([](json& j) { j["nodes"][0]["nodes"] = nullptr; }),
       {"/nodes/0/nodes", "state 'main'", "'nodes' is null; it needs a value"}},
      {"non-boolean flag",
       mutate([](json& j) { j["attributes"]["_arrays"]["A"]["attributes"]["transient"] = "yes"; }),
       {"/attributes/_arrays/A/attributes/transient", "expected true or false, found string"}},
  };
  // An unknown attribute whose value is `raw` JSON text (kept verbatim by the reader).
  auto with_raw = [](std::string raw) {
    return [raw]() {
      auto j = json::parse(kBase);
      j["attributes"]["unknown_attr"] = "@@";
      std::string t = j.dump();
      return t.replace(t.find("\"@@\""), 4, raw);
    };
  };
  cases.push_back({"nested 100000 levels deep",
                   with_raw(std::string(100000, '[') + std::string(100000, ']')),
                   {"bad.sdfg:1:", ": invalid JSON: nested deeper than 600 levels"}});
  cases.push_back({"number overflow",
                   with_raw("[1, 1e400]"),
                   {"bad.sdfg:1:", ": invalid JSON: number 1e400 is outside the range of a double"}});
  cases.push_back({"integer overflow",
                   with_raw("-1" + std::string(400, '0')),
                   {"bad.sdfg:1:", ": invalid JSON: number -1000", "is outside the range of a double"}});
  cases.push_back({"overflow on line 2",
                   text("{\n  \"a\": 2e999}"),
                   {"bad.sdfg:2:8: invalid JSON: number 2e999 is outside the range of a double"}});
  REQUIRE(cases.size() >= 15);
  for (const auto& c : cases) {
    INFO(c.name);
    auto msg = load_error(c.make());
    INFO(msg);
    // "bad.sdfg: /json/path: ..." or, for text that is not JSON, "bad.sdfg:LINE:COL: invalid JSON: ...".
    CHECK_THAT(msg,
               Catch::StartsWith("bad.sdfg: ") || Catch::Matches("bad.sdfg:[0-9]+:[0-9]+: invalid JSON: .*"));
    for (const auto& e : c.expected) CHECK_THAT(msg, Catch::Contains(e));
  }
}

TEST_CASE("an unreadable path is a load error naming the file", "[serialize][errors]") {
  try {
    weir::load_sdfg("/nonexistent/dir/x.sdfg");
    FAIL("no error");
  } catch (const weir::SdfgLoadError& e) {
    CHECK_THAT(e.what(), Catch::StartsWith("/nonexistent/dir/x.sdfg: cannot open"));
  }
}

TEST_CASE("nesting up to the limit and brackets or numbers inside strings load", "[serialize][errors]") {
  auto j = json::parse(kBase);
  j["attributes"]["unknown_attr"] = "@@";
  std::string t = j.dump();
  // kMaxJsonDepth (600) levels in all: the root object, the attributes object and 598 arrays
  // (test_json_depth_stack.cpp runs this on an 8 MiB stack).
  std::string deep = std::string(598, '[') + std::string(598, ']');
  t.replace(t.find("\"@@\""), 4, deep);
  CHECK_NOTHROW(weir::sdfg_from_json_text(t, "ok.sdfg"));
  // one more level is rejected
  auto j2 = json::parse(kBase);
  j2["attributes"]["unknown_attr"] = "@@";
  std::string t2 = j2.dump();
  t2.replace(t2.find("\"@@\""), 4, "[" + deep + "]");
  CHECK_THROWS_WITH(weir::sdfg_from_json_text(t2, "bad.sdfg"),
                    Catch::Contains("nested deeper than 600 levels"));
  // brackets, quotes and huge numbers inside strings are text, not structure
  auto j3 = json::parse(kBase);
  j3["attributes"]["unknown_attr"] = std::string(5000, '[') + "\" 1e400 \\" + std::string(5000, '{');
  CHECK_NOTHROW(weir::sdfg_from_json_text(j3.dump(), "ok.sdfg"));
}

TEST_CASE("names that reach generated C++ are identifiers, refused at load with their JSON path",
          "[serialize][errors][security]") {
  // Each name is pasted into generated C++ (issue 17: a container `out;std::system("...");`
  // produced that line); the loader refuses what the validator would, before anything reads it.
  auto bad = [](std::function<void(json&)> f) {
    auto j = json::parse(kBase);
    f(j);
    return load_error(j.dump());
  };
  const std::string evil = "x;std::system(\"id\");int y";
  CHECK(bad([&](json& j) { j["attributes"]["_arrays"][evil] = j["attributes"]["_arrays"]["A"]; }) ==
        "bad.sdfg: /attributes/_arrays/" + evil + ": SDFG 'scale': data container name '" + evil +
            "' is not a valid identifier");
  CHECK(bad([&](json& j) { j["attributes"]["symbols"]["2N"] = "int64"; }) ==
        "bad.sdfg: /attributes/symbols/2N: SDFG 'scale': symbol name '2N' is not a valid identifier");
  CHECK(bad([&](json& j) { j["attributes"]["name"] = "scale-it"; }) ==
        "bad.sdfg: /attributes/name: SDFG name 'scale-it' is not a valid identifier");
  CHECK(
      bad([&](json& j) {
        j["nodes"][0]["nodes"][2]["attributes"]["in_connectors"] = {{"a b", nullptr}};
      }) ==
      "bad.sdfg: /nodes/0/nodes/2/attributes/in_connectors/a b: SDFG 'scale', state 'main', node 2 (Tasklet "
      "'t'): connector 'a b' is not a valid identifier");
  CHECK(bad([&](json& j) { j["nodes"][0]["nodes"][1]["attributes"]["params"][0] = "i+1"; }) ==
        "bad.sdfg: /nodes/0/nodes/1/attributes/params/0: SDFG 'scale', state 'main', node 1 (MapEntry 'm'): "
        "map "
        "parameter 'i+1' is not a valid identifier");
  CHECK(bad([&](json& j) { j["nodes"][0]["nodes"][1]["attributes"]["label"] = "m\n#include <x>"; }) ==
        "bad.sdfg: /nodes/0/nodes/1/attributes/label: SDFG 'scale', state 'main', node 1 (MapEntry 'm'): map "
        "label 'm\n#include <x>' is not a valid identifier");
  CHECK(bad([&](json& j) { j["nodes"][0]["nodes"][2]["label"] = "t()"; }) ==
        "bad.sdfg: /nodes/0/nodes/2/label: SDFG 'scale', state 'main', node 2 (Tasklet 't()'): tasklet label "
        "'t()' is not a valid identifier");
  CHECK(bad([&](json& j) { j["nodes"][0]["label"] = "main state"; }) ==
        "bad.sdfg: /nodes/0/label: SDFG 'scale', state 'main state': state label 'main state' is not a valid "
        "identifier");
  CHECK(bad([&](json& j) {
          j["edges"].push_back(
              {{"type", "Edge"},
               {"src", "0"},
               {"dst", "0"},
               {"attributes",
                {{"data", {{"type", "InterstateEdge"}, {"attributes", {{"assignments", {{"N;", "1"}}}}}}}}}});
        }) ==
        "bad.sdfg: /edges/0/attributes/data/attributes/assignments/N;: SDFG 'scale', interstate edge 0: "
        "interstate assignment target 'N;' is not a valid identifier");
  // Python keywords are not identifiers either (DaCe's rule).
  CHECK(bad([&](json& j) { j["attributes"]["symbols"]["lambda"] = "int64"; }) ==
        "bad.sdfg: /attributes/symbols/lambda: SDFG 'scale': symbol name 'lambda' is not a valid identifier");
}
