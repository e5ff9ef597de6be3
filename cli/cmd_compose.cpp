// `weir compose SPEC.json -o OUT.sdfg`: one SDFG from several SDFG files and a JSON description
// of the sequence of calls and their argument bindings (docs/compose.md).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "option_values.h"
#include "overwrite_guard.h"
#include "weir/sdfg/input_file.h"
#include "weir/sdfg/serialize.h"
#include "weir/transforms/compose.h"
#include "write_sdfg.h"

namespace weir::cli {

namespace {

// The SDFG files the description's "stages" name (relative to the description's directory, as
// compose_sdfgs reads them); none for a description compose_sdfgs will refuse anyway.
std::vector<std::filesystem::path> stage_files(const std::string& text, const std::string& spec) {
  std::vector<std::filesystem::path> files;
  auto j = nlohmann::json::parse(text, nullptr, false);
  if (!j.is_object() || !j.contains("stages") || !j.at("stages").is_object()) return files;
  for (const auto& [name, f] : j.at("stages").items())
    if (f.is_string()) {
      std::filesystem::path p = f.get<std::string>();
      files.push_back(p.is_relative() ? std::filesystem::path(spec).parent_path() / p : p);
    }
  return files;
}

}  // namespace

Action add_compose_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "compose", "Build one SDFG from SDFG files and a JSON sequence of calls (docs/compose.md)");
  struct Opts {
    std::string spec, out;
    int indent = -1;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("spec", o->spec, "Composition description (.json): arrays, stages (SDFG files), sequence")
      ->required();
  cmd->add_option("-o,--output", o->out, "SDFG file to write (.sdfg, or .sdfgz: gzip)")->required();
  cmd->add_option("--indent", o->indent, "Indent the JSON by N spaces (default: compact, as DaCe)")
      ->check(integer_in(-1, 8));
  return [o]() {
    refuse_overwriting_input("-o " + o->out, o->out, {o->spec});
    std::ifstream in(o->spec, std::ios::binary);
    if (!in) return print_error(o->spec + ": cannot be read", kExitInvalidInput);
    protect_input_file(o->spec);
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    refuse_overwriting_input("-o " + o->out, o->out, stage_files(text, o->spec));
    std::unique_ptr<SDFG> sdfg;
    try {
      sdfg = transforms::compose_sdfgs(text, std::filesystem::path(o->spec).parent_path().string(), o->spec);
    } catch (const InvalidJsonError& e) {  // located in the file already
      return print_error(e.what(), kExitInvalidInput);
    } catch (const Error& e) {
      return print_error(o->spec + ": " + e.what(), kExitInvalidInput);
    }
    SaveOptions opts;
    opts.indent = o->indent;
    write_sdfg(*sdfg, o->out, opts);
    std::cout << "wrote " << o->out << "\n";
    return kExitOk;
  };
}

}  // namespace weir::cli
