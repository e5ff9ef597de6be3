// SDFG files are untrusted input (docs/security.md): `weir run` / `weir compile` refuse C++
// written into them unless --trust-code, validate before generating code (names that would
// inject C++, unknown data), and `weir validate` rejects what code generation would reject.
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "cli_run.h"
#include "corpus.h"

namespace fs = std::filesystem;
using weir::test::first_of_type;
using weir::test::run_weir;

namespace {

std::string q(const fs::path& p) { return "'" + p.string() + "'"; }

fs::path hdiff_sdfg() { return weir::test::dace_corpus_dir() / "hdiff" / "hdiff.simplified.sdfg"; }

std::string cache_env(const fs::path& dir) { return "WEIR_CACHE_DIR=" + q(dir / "cache"); }

/// hdiff's simplified SDFG with `edit` applied to its JSON, written to dir/name.
fs::path edited_hdiff(const fs::path& dir, const std::string& name,
                      const std::function<void(nlohmann::json&)>& edit) {
  auto j = nlohmann::json::parse(weir::test::read_text(hdiff_sdfg()));
  edit(j);
  auto p = dir / name;
  std::ofstream(p) << j.dump();
  return p;
}

std::string run_hdiff(const fs::path& file) {
  return "run --backend cpu " + q(file) + " --random-inputs --set I=4 --set J=4 --set K=2";
}

}  // namespace

TEST_CASE("weir run and compile refuse C++ in an SDFG file unless --trust-code", "[cli][security]") {
  auto dir = weir::test::scratch_dir("cli-untrusted-cpp");
  auto marker = dir / "pwned";
  auto file = edited_hdiff(dir, "cpp.sdfg", [&](nlohmann::json& j) {
    first_of_type(j, "Tasklet", [&](nlohmann::json& t) {
      std::string code = t["attributes"]["code"]["string_data"];
      (void)code;
      t["attributes"]["code"] = {{"string_data", "std::system(\"touch " + marker.string() + "\");"},
                                 {"language", "CPP"}};
    });
  });
  for (const std::string& cmd : {run_hdiff(file), "compile " + q(file)}) {
    auto r = run_weir(cmd, cache_env(dir));
    INFO(r.out);
    CHECK(r.code == 1);
    CHECK_THAT(r.out, Catch::Contains("is C++ written into the SDFG (`std::system(\"touch ") &&
                          Catch::Contains(
                              "an SDFG file is untrusted input, so weir refuses user-written C++ unless you "
                              "trust its author: pass --trust-code (weir run, weir compile)"));
    CHECK_THAT(r.out, Catch::Contains("codegen: SDFG 'hdiff_simplified', state '"));
  }
  CHECK_FALSE(fs::exists(marker));
  CHECK_FALSE(fs::exists(dir / "cache"));  // nothing was compiled
  // Trusted, the code is compiled and runs (the tasklet's output is left unset: only the marker matters).
  auto r = run_weir(run_hdiff(file) + " --trust-code", cache_env(dir));
  INFO(r.out);
  CHECK(r.code == 0);
  CHECK(fs::exists(marker));
}

TEST_CASE("weir run validates first: a container name that would inject C++", "[cli][security]") {
  auto dir = weir::test::scratch_dir("cli-untrusted-name");
  auto marker = dir / "pwned";
  std::string evil = "out;std::system(\"touch " + marker.string() + "\");int x";
  auto text = weir::test::read_text(hdiff_sdfg());
  // Every mention of the container, as a JSON string.
  std::string from = "\"out_field\"", to = nlohmann::json(evil).dump();
  for (std::size_t p = text.find(from); p != std::string::npos; p = text.find(from, p + to.size()))
    text.replace(p, from.size(), to);
  auto file = dir / "name.sdfg";
  std::ofstream(file) << text;
  // Refused when the file is read (issue 17), at the name's JSON path, by every command.
  const std::string located = file.string() + ": /attributes/_arrays/" + evil +
                              ": SDFG 'hdiff_simplified': data container name '" + evil +
                              "' is not a valid identifier";
  auto v = run_weir("validate " + q(file));
  INFO(v.out);
  CHECK(v.code == 1);
  CHECK_THAT(v.out, Catch::Contains(located));
  auto r = run_weir(run_hdiff(file) + " --trust-code", cache_env(dir));
  INFO(r.out);
  CHECK(r.code == 1);
  CHECK_THAT(r.out, Catch::Contains(located));
  CHECK_FALSE(fs::exists(marker));
  CHECK_FALSE(fs::exists(dir / "cache"));  // nothing was compiled
}

TEST_CASE("weir validate rejects what code generation would reject", "[cli][security]") {
  auto dir = weir::test::scratch_dir("cli-validate-codegen");
  SECTION("a Python tasklet with a syntax error") {
    auto file = edited_hdiff(dir, "syntax.sdfg", [](nlohmann::json& j) {
      first_of_type(j, "Tasklet",
                    [](nlohmann::json& t) { t["attributes"]["code"]["string_data"] = "__out = (__in1 +"; });
    });
    auto v = run_weir("validate " + q(file));
    INFO(v.out);
    CHECK(v.code == 1);
    CHECK_THAT(v.out, Catch::Contains("`__out = (__in1 +` does not parse as Python: ") &&
                          Catch::Contains("[tasklet-syntax]"));
    auto r = run_weir(run_hdiff(file), cache_env(dir));
    CHECK(r.code == 1);
    CHECK_THAT(r.out,
               Catch::Contains("cannot compile an invalid SDFG") && Catch::Contains("[tasklet-syntax]"));
  }
  SECTION("a map with step 0") {
    auto file = edited_hdiff(dir, "step.sdfg", [](nlohmann::json& j) {
      first_of_type(j, "MapEntry", [](nlohmann::json& m) {
        auto& r = m["attributes"]["range"]["ranges"][0];
        r["step"] = "0";
      });
    });
    auto v = run_weir("validate " + q(file));
    INFO(v.out);
    CHECK(v.code == 1);
    CHECK_THAT(
        v.out,
        Catch::Contains("has step 0 in dimension 0 of its range (the loop would never advance) [map-step]"));
  }
}
