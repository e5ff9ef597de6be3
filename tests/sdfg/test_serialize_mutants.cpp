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

struct Mutant {
  std::string what;  // "delete /nodes/0/label", for the failure message
  json doc;
};

// One mutant per (edit, key path with array indices dropped): the first file where a path occurs
// gets its edits; later files add only paths not seen yet.
void mutants_of(const json& doc, std::set<std::string>& seen, std::vector<Mutant>& out) {
  std::function<void(const json&, const json::json_pointer&, const std::string&)> walk =
      [&](const json& v, const json::json_pointer& at, const std::string& shape) {
        auto edit = [&](const std::string& kind, const std::function<void(json&)>& f) {
          if (!seen.insert(kind + " " + shape).second) return;
          Mutant m{kind + " " + at.to_string(), doc};
          f(m.doc[at]);
          out.push_back(std::move(m));
        };
        if (v.is_string()) {
          edit("empty", [](json& x) { x = ""; });
          edit("non-identifier", [](json& x) { x = "a b["; });
        } else if (v.is_number() && !v.is_boolean()) {
          edit("negate", [](json& x) { x = -x.get<double>() - 1; });
        }
        if (v.is_object()) {
          for (const auto& [k, child] : v.items()) {
            json::json_pointer p = at / k;
            if (seen.insert("delete " + shape + "/" + k).second) {
              Mutant m{"delete " + p.to_string(), doc};
              m.doc[at].erase(k);
              out.push_back(std::move(m));
            }
            walk(child, p, shape + "/" + k);
          }
        } else if (v.is_array()) {
          for (std::size_t i = 0; i < v.size(); ++i) walk(v[i], at / i, shape + "/#");
        }
      };
  walk(doc, json::json_pointer(), "");
}

}  // namespace

TEST_CASE("an SDFG file with one edit loads, saves and loads back the same, or is refused",
          "[serialize][corpus]") {
  std::set<std::string> seen;
  std::size_t tried = 0, refused = 0;
  for (const auto& f : small_files()) {
    std::vector<Mutant> mutants;
    mutants_of(json::parse(weir::test::read_text(f)), seen, mutants);
    for (const auto& m : mutants) {
      INFO(f.filename().string() << ": " << m.what);
      ++tried;
      std::unique_ptr<weir::SDFG> sdfg;
      try {
        sdfg = weir::sdfg_from_json_text(m.doc.dump(), "mutant.sdfg");
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
