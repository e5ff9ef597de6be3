// `weir view FILE.sdfg|FILE.sdfgz|FILE.py::NAME [--compare B] [--report PROFILE.json]
// [--set N=V] [--port N | --html OUT.html]`: the SDFG viewer (viewer/, docs/adr/0018-viewer.md)
// served on 127.0.0.1 (a free port unless --port; nothing opens a browser), or written as one
// self-contained HTML file; overlays of static costs and of a profile report (ADR 0048).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.h"
#include "option_values.h"
#include "overwrite_guard.h"
#include "run_arguments.h"
#include "targets.h"
#include "view/page.h"
#include "view/server.h"
#include "view_sets.h"
#include "weir/sdfg/output_file.h"

namespace weir::cli {

Action add_view_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("view",
                                 "Show an SDFG in the browser: control flow, dataflow, source lines, "
                                 "transformation history, differences");
  struct Opts {
    view::PageOptions page;
    std::string html;
    int port = 0;
    std::vector<std::string> sets;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("target", o->page.target,
                  "FILE.sdfg, FILE.sdfgz or FILE.py::NAME (a @program, @field_operator or orchestration "
                  "function of the file, lowered as 'weir sdfg' does); optional with --report (the SDFG the "
                  "report was made from)");
  cmd->add_option("--compare", o->page.compare,
                  "B: a second SDFG (or FILE.py::NAME) to show the differences with");
  cmd->add_option(
         "--report", o->page.report,
         "PROFILE.json: overlay a profile report of `weir run --profile=FILE` (time, bandwidth, arithmetic "
         "intensity per element; the page's overlay menu chooses)")
      ->check(CLI::ExistingFile);
  cmd->add_option(
      "--set", o->sets,
      "NAME=N: a symbol's value, or a dimension's extent (I=64 sizes every field along I, as `weir run "
      "--set` does), for the static overlays (bytes moved, FLOPs; repeatable; wins over the report's "
      "values)");
  cmd->add_option("--html", o->html, "OUT.html: write one self-contained HTML file instead of serving");
  cmd->add_option("--port", o->port, "Port on 127.0.0.1 to serve on (default 0: a free port)")
      ->check(integer_in(0, 65535));
  cmd->add_option("-I,--include", o->page.includes,
                  "Directory searched for imported modules (repeatable; "
                  "WEIR_PATH is searched too)");
  return [o, cmd]() {
    if (o->page.target.empty() && o->page.report.empty())
      throw UsageError(
          "weir view: give the SDFG to show (FILE.sdfg or FILE.py::NAME), or --report PROFILE.json");
    for (const std::string& s : o->sets) split_assignment("--set", s);  // the form, before loading
    o->page.symbols = [sets = o->sets](const SDFG& sdfg) { return view_symbol_values(sdfg, sets); };
    if (!o->html.empty() && cmd->count("--port"))
      throw UsageError("weir view: give --html OUT.html or --port N, not both");
    if (!o->html.empty()) {
      std::vector<std::filesystem::path> inputs;
      for (const std::string* t : {&o->page.target, &o->page.compare, &o->page.report})
        if (!t->empty()) inputs.emplace_back(t->substr(0, t->rfind("::")));
      refuse_overwriting_input("--html " + o->html, o->html, inputs);
      refuse_python_source_output("--html " + o->html, o->html, "page");
    }
    // Built (and checked) before serving, so that a file that does not load fails here.
    view::Page page = view::build_page(o->page);
    for (const std::string& n : page.notes) std::cout << n << "\n";
    if (!o->html.empty()) {
      write_file_atomically(o->html, page.html);
      std::cout << "wrote " << o->html << " (" << page.html.size() / 1024 << " KiB, self-contained)\n";
      return kExitOk;
    }
    view::serve(
        o->port, [o]() { return view::build_page(o->page).html; },
        [o](int port) {
          std::cout << "weir view: serving " << (o->page.target.empty() ? o->page.report : o->page.target)
                    << " at http://127.0.0.1:" << port << "/ (Ctrl-C stops)" << std::endl;
        });
    return kExitOk;
  };
}

}  // namespace weir::cli
