// `weir optimize IN.sdfg -o OUT.sdfg` with one of
//   --auto DEVICE       the named pipeline "auto-optimize-DEVICE" (e.g. cpu)
//   --passes TEXT       a pipeline text: "simplify,map-fusion,map-tiling{tile_sizes=32,8}"
//   --script FILE.json  an optimization script (docs/transformation-scripts.md)
//   --replay            re-apply IN's recorded history to its orig_sdfg
// and, around every pass run (pipelines, script pass steps, replayed pass entries):
//   --verify-each       validate after every pass; the first one that breaks the SDFG is named
//   --print-after NAME  print the SDFG's JSON to stderr after pass NAME (repeatable)
//   --print-after-all   ... after every pass
//   --timing            a table of runs, applications, wall ms and share per pass, on stderr
// Every application is recorded in OUT (orig_sdfg as DaCe, the entries in weir's history attribute). OUT is
// validated and written atomically; on any error nothing is written.
#include <CLI/CLI.hpp>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <sstream>

#include "commands.h"
#include "overwrite_guard.h"
#include "targets.h"
#include "weir/sdfg/input_file.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/suggest.h"
#include "weir/sdfg/text.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/dace_blas_calls.h"
#include "weir/transforms/instrumentation.h"
#include "weir/transforms/pipeline.h"
#include "weir/transforms/registry.h"
#include "weir/transforms/script.h"
#include "write_sdfg.h"

namespace weir::cli {
namespace {

// "applied 3 transformations (MapFusion x2, MapTiling) and 1 pass (simplify)" from the history
// entries after `before`, each name once in the order first applied: a pass that is not one
// transformation is recorded as one entry {"type": "Pass", "pass": NAME}.
std::string applied_text(const std::vector<std::string>& history, std::size_t before) {
  struct Named {
    std::vector<std::string> order;
    std::map<std::string, std::size_t> count;
    std::size_t total = 0;
    void add(const std::string& name) {
      if (!count[name]++) order.push_back(name);
      ++total;
    }
    std::string text(const char* one, const char* many) const {
      std::string names;
      for (const auto& n : order)
        names +=
            (names.empty() ? "" : ", ") + n + (count.at(n) > 1 ? " x" + std::to_string(count.at(n)) : "");
      return std::to_string(total) + " " + (total == 1 ? one : many) + " (" + names + ")";
    }
  } passes, transformations;
  for (std::size_t i = before; i < history.size(); ++i) {
    auto j = nlohmann::json::parse(history[i], nullptr, false);
    if (j.value("type", "") == "Pass")
      passes.add(j.value("pass", "?"));
    else
      transformations.add(j.value("transformation", "?"));
  }
  if (passes.total + transformations.total == 0)
    return "applied nothing (no pass or transformation changed the SDFG)";
  if (passes.total == 0) return "applied " + transformations.text("transformation", "transformations");
  if (transformations.total == 0) return "applied " + passes.text("pass", "passes");
  return "applied " + transformations.text("transformation", "transformations") + " and " +
         passes.text("pass", "passes");
}

}  // namespace

Action add_optimize_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "optimize", "Optimize an SDFG (auto pipeline, pass list or script) and record the history");
  struct Opts {
    std::string in, out, device, passes, script;
    bool replay = false, verify_each = false, print_after_all = false, timing = false, verbose = false;
    std::vector<std::string> print_after, pass_lists;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("input", o->in, "SDFG file to read (.sdfg/.sdfgz)")->required();
  cmd->add_option("-o,--output", o->out, "File to write (.sdfgz: gzip)")->required();
  cmd->add_option("--auto", o->device, "Run the auto-optimize pipeline for a device: cpu or gpu");
  cmd->add_option(
      "--passes", o->pass_lists,
      "Pipeline text, e.g. \"simplify,map-tiling{tile_sizes=32,8}\" (repeatable: the pipelines run "
      "in the order given)");
  cmd->add_option("--script", o->script, "Optimization script (JSON list of steps)");
  cmd->add_flag("--replay", o->replay, "Replay the input's recorded history on its orig_sdfg");
  cmd->add_flag("--verify-each", o->verify_each,
                "Validate the SDFG after every pass; the first pass that leaves it invalid is named with the "
                "validator's message, and nothing is written (on by default in debug builds and with "
                "WEIR_VERIFY_EACH=1)");
  cmd->add_option(
         "--print-after", o->print_after,
         "Print the SDFG as JSON to stderr after every run of the pass NAME (a pass or pipeline name of "
         "`weir transforms list`); repeatable")
      ->type_name("NAME");
  cmd->add_flag("--verbose", o->verbose, kVerboseHelp);
  cmd->add_flag("--print-after-all", o->print_after_all, "Print the SDFG as JSON to stderr after every pass");
  cmd->add_flag("--timing", o->timing,
                "Print a table to stderr: per pass its runs, applications (changes), wall time in ms and "
                "share of the total");
  return [o]() {
    for (const auto& p : o->pass_lists) o->passes += (o->passes.empty() ? "" : ",") + p;
    require_sdfg_file("optimize", o->in);
    refuse_overwriting_input("-o " + o->out, o->out, {o->in, o->script});
    refuse_unwritable_output("-o " + o->out, o->out);
    int modes = !o->device.empty() + !o->passes.empty() + !o->script.empty() + o->replay;
    if (modes != 1) {
      std::cerr << "weir: error: give exactly one of --auto, --passes, --script, --replay\n";
      return kExitUsage;
    }
    std::set<std::string> known;
    for (const auto& n : transforms::pass_names()) known.insert(n);
    for (const auto& n : o->print_after)
      if (!known.count(n)) {
        std::cerr << "weir: error: unknown pass '" << n << "' for --print-after"
                  << did_you_mean(n, transforms::pass_names()) << " (see `weir transforms list`)\n";
        return kExitUsage;
      }
    std::unique_ptr<transforms::Pass> pipeline;
    std::vector<transforms::ScriptStep> steps;
    // Read and check everything the user gave before touching the SDFG.
    if (!o->device.empty()) {
      std::string device = o->device;  // CPU, Cpu: cpu
      for (char& c : device) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      std::string name = "auto-optimize-" + device;
      pipeline = transforms::make_pass(name);
      if (!pipeline) {
        std::vector<std::string> devices;
        const std::string prefix = "auto-optimize-";
        for (const auto& n : transforms::pass_names())
          if (n.rfind(prefix, 0) == 0) devices.push_back(n.substr(prefix.size()));
        std::cerr << "weir: error: unknown device '" << o->device << "' for --auto: no pipeline '" << name
                  << "' is registered" << did_you_mean(device, devices) << " (devices: " << join(devices)
                  << ")\n";
        return kExitUsage;
      }
    } else if (!o->passes.empty()) {
      try {
        pipeline = transforms::parse_pipeline(o->passes);
      } catch (const transforms::PipelineParseError& e) {
        throw UsageError("--passes: " + std::string(e.what()));  // the text given is wrong, not the SDFG
      }
    } else if (!o->script.empty()) {
      std::ifstream f(o->script, std::ios::binary);
      if (!f) {
        std::cerr << "weir: error: cannot read script '" << o->script << "': " << std::strerror(errno)
                  << "\n";
        return kExitInvalidInput;
      }
      protect_input_file(o->script);
      std::stringstream ss;
      ss << f.rdbuf();
      steps = transforms::parse_script(ss.str(), o->script);
    }
    auto sdfg = load_sdfg(o->in);
    // DaCe's CBLAS tasklets back to library nodes, as `weir run` loads the file (not for
    // --replay, which re-applies the history to the SDFG it recorded).
    if (!o->replay) {
      transforms::BlasRecognition found = transforms::recognize_dace_blas_calls(*sdfg);
      for (const auto& r : found.recognized)
        if (o->verbose) std::cerr << "weir: " << o->in << ": recognised " << r.str() << "\n";
      for (const auto& k : found.kept)
        if (o->verbose) std::cerr << "weir: " << o->in << ": " << k.str() << "\n";
    }
    if (o->verify_each) transforms::set_verify_each(true);
    std::optional<transforms::PrintAfter> print;
    if (!o->print_after.empty() || o->print_after_all)
      print.emplace(std::set<std::string>(o->print_after.begin(), o->print_after.end()), o->print_after_all,
                    std::cerr);
    std::optional<transforms::PassTiming> timing;
    if (o->timing) timing.emplace();
    std::size_t before = transforms::transformation_history(*sdfg).size();
    if (o->replay) {
      sdfg = transforms::replay_history(*sdfg);
    } else if (pipeline) {
      transforms::run_recorded(*sdfg, *pipeline);
    } else {
      transforms::apply_script(*sdfg, steps, o->script);
    }
    if (print)
      for (const auto& n : print->unseen())
        std::cerr << "weir: warning: --print-after " << n << ": no such pass ran\n";
    if (timing) timing->report(std::cerr);
    write_sdfg(*sdfg, o->out);
    std::size_t after = transforms::transformation_history(*sdfg).size();
    if (o->replay)
      std::cout << "replayed " << after << " history entr" << (after == 1 ? "y" : "ies");
    else
      std::cout << applied_text(transforms::transformation_history(*sdfg), before);
    std::cout << "; wrote " << o->out << "\n";
    return kExitOk;
  };
}

}  // namespace weir::cli
