// `weir convert IN -o OUT`: load and save an SDFG (round trip), optionally flattening
// control-flow regions into plain states for older tools. `.sdfgz` output is gzip-compressed.
#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "commands.h"
#include "option_values.h"
#include "overwrite_guard.h"
#include "targets.h"
#include "weir/sdfg/serialize.h"
#include "weir/transforms/flatten_control_flow.h"
#include "write_sdfg.h"

namespace weir::cli {

Action add_convert_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("convert", "Load an SDFG and write it back (.sdfg or .sdfgz by extension)");
  struct Opts {
    std::string in, out;
    bool flatten = false;
    int indent = -1;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("input", o->in, "SDFG file to read (.sdfg/.sdfgz)")->required();
  cmd->add_option("-o,--output", o->out, "File to write (.sdfgz: gzip)")->required();
  cmd->add_flag("--flatten", o->flatten,
                "Rewrite control-flow regions (loops, conditionals) into plain states");
  cmd->add_option("--indent", o->indent, "Indent the JSON by N spaces (default: compact, as DaCe)")
      ->check(integer_in(-1, 8));
  return [o]() {
    require_sdfg_file("convert", o->in);
    refuse_overwriting_input("-o " + o->out, o->out, {o->in});
    auto sdfg = load_sdfg(o->in);
    // A file weir's validator rejects is still converted (a round trip as read), but no
    // conversion may make a valid file invalid (write_sdfg refuses then).
    const std::vector<Diagnostic> input_problems = validate(*sdfg);
    if (o->flatten) {
      auto n = transforms::flatten_control_flow(*sdfg);
      std::cerr << "flattened " << n << " control-flow region" << (n == 1 ? "" : "s") << "\n";
    }
    SaveOptions opts;
    opts.indent = o->indent;
    write_sdfg(*sdfg, o->out, opts, input_problems);
    std::cout << "wrote " << o->out << "\n";
    return kExitOk;
  };
}

}  // namespace weir::cli
