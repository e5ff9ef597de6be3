// The SDFG fuzz target's property (tests/fuzz/sdfg.cpp), checked deterministically on every
// one-edit mutant of small DaCe-written files: a file with one key removed, one string emptied or
// made a non-identifier, or one number negated either fails to load with a weir::Error, or loads,
// saves, and loads back as the same SDFG. (CI's fuzzer found a tasklet without a label that
// loaded, was saved with label '' and then refused; the same held for states, maps, nested SDFGs
// and an empty library-node classpath: a whole kind, so every key of every kind is edited here.)
#include <catch2/catch.hpp>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>
#include "corpus.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"

namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// The files: DaCe's stencil corpus and the npbench kernels' frontend stage, each under 40 KB
// (the mutants of one file share most keys; larger files add time, not kinds of keys).
std::vector<fs::path> small_files() {
  std::vector<fs::path> out;
  for (const auto& f : weir::test::dace_corpus_files())
    if (fs::file_size(f) <= 40000) out.push_back(f);
  for (const auto& e : fs::recursive_directory_iterator(weir::test::npbench_corpus_dir())) {
    std::string name = e.path().filename().string();
    if (name.size() > 14 && name.substr(name.size() - 14) == ".frontend.sdfg" &&
        fs::file_size(e.path()) <= 40000)
      out.push_back(e.path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

// One edit of a document: `kind` at `at` ("delete" removes the key `key` of the object there).
// Edits are applied to the document in place and undone once the mutant's text is written (a
// copy of the whole document per mutant was a fifth of this test's time).
struct Edit {
  std::string kind;
  json::json_pointer at;
  std::string key;
  std::string what() const {
    return kind + " " + (kind == "delete" ? (at / key).to_string() : at.to_string());
  }
};

// One edit per (kind, key path with array indices dropped): the first file where a path occurs
// gets its edits; later files add only paths not seen yet.
void edits_of(const json& doc, std::set<std::string>& seen, std::vector<Edit>& out) {
  std::function<void(const json&, const json::json_pointer&, const std::string&)> walk =
      [&](const json& v, const json::json_pointer& at, const std::string& shape) {
        auto edit = [&](const std::string& kind) {
          if (seen.insert(kind + " " + shape).second) out.push_back({kind, at, ""});
        };
        if (v.is_string()) {
          edit("empty");
          edit("non-identifier");
        } else if (v.is_number() && !v.is_boolean()) {
          edit("negate");
        }
        if (v.is_object()) {
          for (const auto& [k, child] : v.items()) {
            if (seen.insert("delete " + shape + "/" + k).second) out.push_back({"delete", at, k});
            walk(child, at / k, shape + "/" + k);
          }
        } else if (v.is_array()) {
          for (std::size_t i = 0; i < v.size(); ++i) walk(v[i], at / i, shape + "/#");
        }
      };
  walk(doc, json::json_pointer(), "");
}

// The text of `doc` with `e` applied; `doc` is restored before returning.
std::string mutant_text(json& doc, const Edit& e) {
  json& target = doc[e.at];
  json saved;
  if (e.kind == "delete") {
    saved = std::move(target[e.key]);
    target.erase(e.key);
  } else {
    saved = target;
    if (e.kind == "empty")
      target = "";
    else if (e.kind == "non-identifier")
      target = "a b[";
    else
      target = -target.get<double>() - 1;  // negate
  }
  std::string text = doc.dump();
  if (e.kind == "delete")
    target[e.key] = std::move(saved);
  else
    target = std::move(saved);
  return text;
}

}  // namespace

TEST_CASE("an SDFG file with one edit loads, saves and loads back the same, or is refused",
          "[serialize][corpus]") {
  std::set<std::string> seen;
  std::size_t tried = 0, refused = 0;
  for (const auto& f : small_files()) {
    json doc = json::parse(weir::test::read_text(f));
    std::vector<Edit> edits;
    edits_of(doc, seen, edits);
    for (const auto& edit : edits) {
      INFO(f.filename().string() << ": " << edit.what());
      ++tried;
      std::string text = mutant_text(doc, edit);
      std::unique_ptr<weir::SDFG> sdfg;
      try {
        sdfg = weir::sdfg_from_json_text(text, "mutant.sdfg");
      } catch (const weir::Error& e) {
        ++refused;
        // Refusals are located: the file name, then a JSON path or a line.
        CHECK(std::string(e.what()).rfind("mutant.sdfg", 0) == 0);
        continue;
      }
      std::string saved = weir::sdfg_to_json_text(*sdfg);
      std::unique_ptr<weir::SDFG> again;
      try {
        again = weir::sdfg_from_json_text(saved, "saved.sdfg");
      } catch (const weir::Error& e) {
        FAIL("the saved SDFG does not load: " << e.what());
      }
      CHECK(weir::sdfg_difference(*sdfg, *again) == "");
    }
  }
  // Both answers occur: the edits reach the loader's checks and its tolerance.
  CHECK(tried > 1000);
  CHECK(refused > 100);
  CHECK(tried - refused > 100);
}
