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

TEST_CASE("weir run validates first: memlets of unknown data or with the wrong dimensions",
          "[cli][security]") {
  auto dir = weir::test::scratch_dir("cli-untrusted-memlets");
  SECTION("a memlet of unknown data") {
    auto file = edited_hdiff(dir, "unknown.sdfg", [](nlohmann::json& j) {
      first_of_type(j, "Memlet", [](nlohmann::json& m) { m["attributes"]["data"] = "nosuch"; });
    });
    auto r = run_weir(run_hdiff(file), cache_env(dir));
    CHECK(r.code == 1);
    CHECK_THAT(
        r.out,
        Catch::Contains(
            "weir: error: " + file.string() + ": " +
            "cannot compile an invalid SDFG (`weir validate` lists the same problems): invalid SDFG (1 "
            "problem)\n"
            "  SDFG 'hdiff_simplified', state 'BinOp_12_1', edge 0: edge access node '__tmp0' (node 3) -> "
            "map entry '_Sub__map[__i0=0:I + 2, __i1=0:J + 2, __i2=0:K]' (node 17) [IN___tmp0] has a memlet "
            "of data "
            "container 'nosuch', which does not exist [memlet-unknown-data]\n"));
  }
  SECTION("a memlet with the wrong number of dimensions") {
    auto file = edited_hdiff(dir, "dims.sdfg", [](nlohmann::json& j) {
      first_of_type(j, "Memlet", [](nlohmann::json& m) {
        auto& ranges = m["attributes"]["subset"]["ranges"];
        ranges.erase(ranges.begin());
      });
    });
    auto r = run_weir(run_hdiff(file), cache_env(dir));
    CHECK(r.code == 1);
    CHECK_THAT(
        r.out,
        Catch::Contains(
            "weir: error: " + file.string() + ": " +
            "cannot compile an invalid SDFG (`weir validate` lists the same problems): invalid SDFG (1 "
            "problem)\n"
            "  SDFG 'hdiff_simplified', state 'BinOp_12_1', edge 0: edge access node '__tmp0' (node 3) -> "
            "map entry '_Sub__map[__i0=0:I + 2, __i1=0:J + 2, __i2=0:K]' (node 17) [IN___tmp0]: memlet "
            "subset [0:J + 2, 0:K] "
            "has 2 dimension(s) but '__tmp0' has 3 [memlet-dims]\n"));
  }
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
    CHECK_THAT(v.out,
               Catch::Contains(
                   "has step 0 in dimension 0 of its range (__i0=0:I + 2:0; the loop would never advance) "
                   "[map-step]"));
  }
  SECTION("an interstate condition that does not parse") {
    auto j = nlohmann::json::parse(
        weir::test::read_text(weir::test::dace_corpus_dir() / "doc-samples" / "scalarsym.sdfg"));
    first_of_type(j, "InterstateEdge",
                  [](nlohmann::json& e) { e["attributes"]["condition"]["string_data"] = "scal >"; });
    auto file = dir / "cond.sdfg";
    std::ofstream(file) << j.dump();
    auto v = run_weir("validate " + q(file));
    CHECK(v.code == 1);
    CHECK(v.out ==
          file.string() +
              ": invalid, 1 problem\n  SDFG 'scalar', edge 0: interstate condition `scal >` does not parse "
              "as Python: expected expression, found end of line [code-syntax]\n");
  }
}

TEST_CASE("every place C++ hides in an SDFG file is refused, none is dropped", "[cli][security]") {
  auto dir = weir::test::scratch_dir("cli-untrusted-frame");
  auto frame = [](const std::string& code) {
    return nlohmann::json{{"frame", {{"string_data", code}, {"language", "CPP"}}}};
  };
  const std::string how =
      ", which would be compiled and run as it is; an SDFG file is untrusted input, so weir refuses "
      "user-written C++ unless you trust its author: pass --trust-code (weir run, weir compile) or set "
      "CodegenOptions::trust_code (C++ API)\n";
  SECTION("the SDFG's global_code including a local file") {
    auto file = edited_hdiff(dir, "global.sdfg", [&](nlohmann::json& j) {
      j["attributes"]["global_code"] = frame("#include \"/etc/passwd\"");
    });
    auto r = run_weir(run_hdiff(file), cache_env(dir));
    CHECK(r.code == 1);
    CHECK_THAT(
        r.out,
        Catch::Contains(
            "weir: error: codegen: SDFG 'hdiff_simplified': the SDFG's global_code is C++ written into "
            "the SDFG (`#include \"/etc/passwd\"`)" +
            how));
  }
  SECTION("frame code for another location than 'frame' (DaCe's {location: code})") {
    auto file = edited_hdiff(dir, "cuda.sdfg", [&](nlohmann::json& j) {
      j["attributes"]["init_code"] = frame("");
      j["attributes"]["init_code"]["cuda"] = {{"string_data", "cudaDeviceReset();"}, {"language", "CPP"}};
    });
    auto r = run_weir(run_hdiff(file), cache_env(dir));
    CHECK(r.code == 1);
    CHECK_THAT(
        r.out,
        Catch::Contains(
            "weir: error: codegen: SDFG 'hdiff_simplified': the SDFG's init_code for location 'cuda' is "
            "C++ written into the SDFG (`cudaDeviceReset();`)" +
            how));
    r = run_weir(run_hdiff(file) + " --trust-code", cache_env(dir));
    CHECK(r.code == 1);
    CHECK_THAT(
        r.out,
        Catch::Contains(
            "weir: error: codegen: SDFG 'hdiff_simplified': the SDFG's init_code for location 'cuda' is not "
            "supported: weir's code generators emit frame code of the location 'frame' only, given as the "
            "field's one location\n"));
  }
  SECTION("a Python tasklet's code_init") {
    std::string label;
    auto file = edited_hdiff(dir, "init.sdfg", [&](nlohmann::json& j) {
      first_of_type(j, "Tasklet", [&](nlohmann::json& t) {
        label = t["attributes"]["label"];
        t["attributes"]["code_init"] = {{"string_data", "std::abort();"}, {"language", "CPP"}};
      });
    });
    auto r = run_weir(run_hdiff(file), cache_env(dir));
    CHECK(r.code == 1);
    CHECK_THAT(r.out,
               Catch::Contains("weir: error: codegen: SDFG 'hdiff_simplified', state '") &&
                   Catch::Contains("the tasklet '" + label +
                                   "''s code_init is C++ written into the SDFG (`std::abort();`)" + how));
  }
  CHECK_FALSE(fs::exists(dir / "cache"));  // nothing was compiled
}

TEST_CASE("trusted tasklet code_init and code_exit run, and are part of the program cache key",
          "[cli][security]") {
  // The same SDFG with two different code_init / code_exit: each run must run its own code (a
  // cache key without them would load the first program for the second).
  auto dir = weir::test::scratch_dir("cli-trusted-init");
  for (const std::string tag : {"a", "b"}) {
    auto init = dir / ("init_" + tag), exit = dir / ("exit_" + tag);
    auto file = edited_hdiff(dir, tag + ".sdfg", [&](nlohmann::json& j) {
      first_of_type(j, "Tasklet", [&](nlohmann::json& t) {
        t["attributes"]["code_init"] = {{"string_data", "std::system(\"touch " + init.string() + "\");"},
                                        {"language", "CPP"}};
        t["attributes"]["code_exit"] = {{"string_data", "std::system(\"touch " + exit.string() + "\");"},
                                        {"language", "CPP"}};
      });
    });
    auto r = run_weir(run_hdiff(file) + " --trust-code", cache_env(dir));
    INFO(r.out);
    CHECK(r.code == 0);
    CHECK(fs::exists(init));
    CHECK(fs::exists(exit));
  }
}
