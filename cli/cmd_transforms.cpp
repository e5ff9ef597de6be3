// `weir transforms list`: registered transformations with options and a one-line description.
// `weir transforms match IN.sdfg [NAME] [--json]`: every candidate match of every (or one)
// transformation, with a stable id, the elements it touches, and the reason when it refuses.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <set>

#include "commands.h"
#include "targets.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/suggest.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/registry.h"
#include "weir/transforms/simplify.h"
#include "weir/transforms/transformation.h"

namespace weir::cli {

Action add_transforms_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("transforms", "List transformations, or list where they apply in an SDFG");
  cmd->require_subcommand(1);
  auto* list = cmd->add_subcommand("list", "Transformations and passes: names, options, descriptions");
  auto* match =
      cmd->add_subcommand("match", "Every candidate match (applicable or refused, with the reason)");
  struct Opts {
    std::string file, name;
    bool json = false, applicable_only = false;
  };
  auto o = std::make_shared<Opts>();
  match->add_option("input", o->file, "SDFG file (.sdfg/.sdfgz)")->required();
  match->add_option("name", o->name, "Only this transformation (class name, e.g. MapTiling)");
  match->add_flag("--json", o->json, "Print DaCe transformation records, one JSON object per line");
  match->add_flag("--applicable", o->applicable_only, "Only matches that apply");
  return [list, match, o]() {
    if (list->parsed()) {
      for (const auto& n : transforms::transformation_names()) {
        auto t = transforms::make_transformation(n);
        std::cout << n << " (" << transforms::pass_name_of(n) << "): " << t->description() << "\n";
        for (const auto& s : t->options().specs())
          std::cout << "    " << s.name << " = " << transforms::option_value_text(s.default_value) << "  "
                    << s.description << "\n";
      }
      // Passes that are not one transformation: whole-graph passes and named pipelines.
      std::set<std::string> listed;
      for (const auto& n : transforms::transformation_names()) listed.insert(transforms::pass_name_of(n));
      for (const auto& p : transforms::pass_names()) {
        if (listed.count(p)) continue;
        auto pass = transforms::make_pass(p);
        if (!pass) continue;
        auto* pipeline = dynamic_cast<transforms::Pipeline*>(pass.get());
        std::cout << p << (pipeline ? " (pipeline)" : " (pass)") << ": " << pass->description() << "\n";
        if (pipeline) std::cout << "    passes: " << pipeline->str_passes() << "\n";
        for (const auto& s : pass->options().specs())
          std::cout << "    " << s.name << " = " << transforms::option_value_text(s.default_value) << "  "
                    << s.description << "\n";
      }
      return kExitOk;
    }
    if (!match->parsed()) return kExitUsage;
    std::vector<std::string> names;
    if (!o->name.empty()) {
      if (!transforms::make_transformation(o->name)) {
        std::vector<std::string> known = transforms::transformation_names();  // class or pass names
        for (const auto& n : transforms::transformation_names()) known.push_back(transforms::pass_name_of(n));
        std::cerr << "weir: error: unknown transformation '" << o->name << "'" << did_you_mean(o->name, known)
                  << " (see `weir transforms list`)\n";
        return kExitUsage;
      }
      names.push_back(o->name);
    } else {
      names = transforms::transformation_names();
    }
    require_sdfg_file("transforms match", o->file);
    auto sdfg = load_sdfg(o->file);
    transforms::AnalysisCache cache;
    std::size_t ok = 0, refused = 0;
    for (const auto& n : names) {
      auto t = transforms::make_transformation(n);
      for (const auto& c : transforms::find_matches(*sdfg, *t, cache)) {
        if (!c.result && o->applicable_only) continue;
        (c.result ? ok : refused)++;
        if (o->json) {
          if (c.result) std::cout << transforms::match_to_json(*sdfg, *t, c.match) << "\n";
          continue;
        }
        std::cout << n << "@" << c.match.id() << "  [" << transforms::describe_match(*sdfg, *t, c.match)
                  << "]  ";
        if (c.result)
          std::cout << "applies\n";
        else
          std::cout << "refused: " << c.result.reason() << "\n";
      }
    }
    if (!o->json) std::cout << ok << " applicable, " << refused << " refused\n";
    return kExitOk;
  };
}

}  // namespace weir::cli
