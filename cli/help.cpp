#include "help.h"

#include <CLI/CLI.hpp>
#include <map>
#include <string>

namespace weir::cli {
namespace {

// Command path ("cache info") -> example lines.
const std::map<std::string, std::string>& examples() {
  static const std::map<std::string, std::string> m = {
      {"validate", "weir validate hdiff.sdfg\n  weir validate -q corpus/*.sdfg"},
      {"info", "weir info hdiff.sdfg\n  weir info hdiff.sdfg --json"},
      {"convert", "weir convert hdiff.sdfg -o hdiff.sdfgz\n  weir convert loops.sdfg -o flat.sdfg --flatten"},
      {"run",
       "weir run examples/cartesian/laplacian.py::laplacian --random-inputs --set I=64 --set J=64 --set K=8\n"
       "  weir run examples/cartesian/hdiff.py::hdiff_program --backend cpu --in-dir inputs/ --out results/\n"
       "  weir run hdiff.sdfg --backend cpu --in in_field=u.npy --in coeff=c.npy --set-json symbols.json "
       "--threads 2\n"
       "  weir run examples/cartesian/hdiff.py::hdiff_program --backend cpu --random-inputs --set I=256 "
       "--set J=256 "
       "--set K=64 --repeat 20 --profile=profile.json"},
      {"compile",
       "weir compile examples/cartesian/hdiff.py\n  weir compile hdiff.sdfg model.py::step -I src/ -j 2\n"
       "  weir compile examples/cartesian/laplacian.py::laplacian --emit-cpp generated/"},
      {"cache", "weir cache info\n  weir cache clear"},
      {"cache info", "weir cache info"},
      {"cache clear", "weir cache clear"},
      {"transforms", "weir transforms list\n  weir transforms match hdiff.sdfg MapTiling --applicable"},
      {"transforms list", "weir transforms list"},
      {"transforms match",
       "weir transforms match hdiff.sdfg\n  weir transforms match hdiff.sdfg MapTiling --applicable --json"},
      {"compose", "weir compose step.json -o step.sdfg      # docs/compose.md describes SPEC.json"},
      {"check", "weir check examples/cartesian/hdiff.py\n  weir check model/dycore.py -I src/"},
      {"sdfg",
       "weir sdfg examples/cartesian/hdiff.py::hdiff_program -o hdiff.sdfg\n"
       "  weir sdfg -I src/ src/model/dycore.py::step -o step.sdfgz --indent 2"},
      {"mesh", "weir mesh --nx 8 --ny 6 -o mesh/"},
      {"optimize",
       "weir optimize hdiff.sdfg -o fast.sdfg --auto cpu\n"
       "  weir optimize hdiff.sdfg -o tiled.sdfg --passes \"simplify,map-tiling{tile_sizes=32,8}\"\n"
       "  weir optimize tiled.sdfg --replay -o again.sdfg"},
      {"tune",
       "weir tune examples/cartesian/hdiff.py::hdiff_program --set I=256 --set J=256 --set K=80 --budget "
       "60s\n"
       "  weir tune hdiff.sdfg --in-dir inputs/ --budget 5m --seed 1 -o hdiff.tuned.json --sdfg "
       "hdiff.tuned.sdfg"},
      {"view",
       "weir view fast.sdfg                      # serves on 127.0.0.1, prints the address\n"
       "  weir view examples/cartesian/hdiff.py::hdiff_program --port 8000\n"
       "  weir view fast.sdfg --compare hdiff.sdfg --html diff.html"},
  };
  return m;
}

// CLI11's notation for an option's value -> a word (by the option's name for text).
std::string word_for(const CLI::Option& o) {
  static const std::map<std::string, std::string> by_name = {
      {"backend", "NAME"},    {"include", "DIR"},      {"output", "PATH"}, {"auto", "DEVICE"},
      {"passes", "PIPELINE"}, {"script", "FILE.json"}, {"emit-cpp", "DIR"}};
  for (const auto& n : o.get_lnames())
    if (auto it = by_name.find(n); it != by_name.end()) return it->second;
  const std::string type = o.get_type_name();
  if (type.rfind("UINT", 0) == 0 || type.rfind("INT", 0) == 0) return "N";
  if (type.rfind("FLOAT", 0) == 0) return "X";
  return "VALUE";
}

void adjust(CLI::App& cmd, const std::string& path) {
  if (auto it = examples().find(path); it != examples().end()) cmd.footer("\nExamples:\n  " + it->second);
  for (CLI::Option* o : cmd.get_options()) {
    if (o->get_type_name().empty()) continue;  // flags
    // Validators describe themselves in the same notation ("UINT", "INT in [-1 - 8]").
    for (int i = 0;; ++i) {
      try {
        o->get_validator(i)->description("");
      } catch (const CLI::OptionNotFound&) {
        break;
      }
    }
    if (!o->nonpositional()) {  // the description says what a positional is
      o->type_name("");
      continue;
    }
    // A word the description starts with ("DIR: ...", "NAME=FILE.npy: ...") names the value.
    const std::string& d = o->get_description();
    auto colon = d.find(": ");
    bool named = colon != std::string::npos && colon < 20 && d.find(' ') > colon;
    if (named) {
      o->type_name(d.substr(0, colon));
      o->description(d.substr(colon + 2));
    } else {
      o->type_name(word_for(*o));
    }
  }
  for (CLI::App* sub : cmd.get_subcommands({}))
    adjust(*sub, path.empty() ? sub->get_name() : path + " " + sub->get_name());
}

}  // namespace

void add_help_examples(CLI::App& app) { adjust(app, ""); }

}  // namespace weir::cli
