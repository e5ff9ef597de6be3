// `weir sdfg FILE.py::NAME -o OUT.sdfg [-I DIR]... [--neighbors OFFSET=N]...`: load a field-view
// module, type-check the named @program, @field_operator or orchestration function and write its
// SDFG (.sdfgz: gzip-compressed). The neighbours per row of each connectivity table are fixed in
// the SDFG (its second extent): the conventional counts by name, or --neighbors.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "commands.h"
#include "option_values.h"
#include "overwrite_guard.h"
#include "run_arguments.h"
#include "targets.h"
#include "weir/frontend/definition_lookup.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/orchestration.h"
#include "weir/frontend/type_checker.h"
#include "weir/runtime/connectivity_check.h"
#include "weir/runtime/field_view_program.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/suggest.h"
#include "weir/sdfg/text.h"
#include "weir/sdfg/validate.h"
#include "write_sdfg.h"

namespace weir::cli {

namespace {

/// The largest --neighbors N (ICON's widest connectivities have 9 to 12 neighbours).
constexpr std::int64_t kMaxNeighbors = 4096;

/// --neighbors OFFSET=N..., each N a whole number in [1, kMaxNeighbors], each OFFSET once.
std::map<std::string, std::int64_t> parse_neighbors(const std::vector<std::string>& given) {
  std::map<std::string, std::int64_t> out;
  for (const auto& s : given) {
    auto [name, value] = split_assignment("--neighbors", s);
    std::int64_t n = 0;
    const char* end = value.data() + value.size();
    auto [stop, ec] = std::from_chars(value.data(), end, n);
    if (ec != std::errc() || stop != end || n < 1 || n > kMaxNeighbors)
      throw UsageError("--neighbors " + s + ": expected OFFSET=N, N a whole number from 1 to " +
                       std::to_string(kMaxNeighbors));
    if (!out.emplace(name, n).second) throw UsageError("--neighbors " + name + " is given twice");
  }
  return out;
}

/// A --neighbors OFFSET the program reads no table of is a mistake (a misspelt name, an offset
/// of another program): said, not ignored.
void refuse_unknown_tables(const SDFG& sdfg, const std::map<std::string, std::int64_t>& given) {
  std::vector<std::string> tables;
  for (const auto& c : runtime::recorded_connectivities(sdfg)) tables.push_back(c.name);
  for (const auto& [name, n] : given)
    if (std::find(tables.begin(), tables.end(), name) == tables.end())
      throw UsageError("--neighbors " + name + "=" + std::to_string(n) +
                       ": the program reads no connectivity '" + name + "'" + did_you_mean(name, tables) +
                       (tables.empty() ? " (it reads none)" : " (it reads " + join(tables) + ")"));
}

}  // namespace

Action add_sdfg_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "sdfg", "Lower a gt4py field-view program or orchestration function (FILE.py::NAME) to an SDFG");
  struct Opts {
    std::string target, out;
    std::vector<std::string> includes, neighbors;
    int indent = -1;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("target", o->target, kDefinitionReferenceHelp)->required();
  cmd->add_option("-o,--output", o->out, "SDFG file to write (.sdfg, or .sdfgz: gzip)")->required();
  cmd->add_option("-I,--include", o->includes,
                  "Directory searched for imported modules (repeatable; "
                  "WEIR_PATH is searched too)");
  cmd->add_option(
      "--neighbors", o->neighbors,
      "OFFSET=N: the neighbours per row of connectivity OFFSET's table, its second extent (repeatable; "
      "default: the conventional count of the name, E2V 2, C2E 3, V2E 6, ...: `weir help "
      "sdfg`). `weir run` of a .py program takes it from the table it is given");
  cmd->add_option("--indent", o->indent, "Indent the JSON by N spaces (default: compact, as DaCe)")
      ->check(integer_in(-1, 8));
  return [o]() {
    using namespace weir::frontend;
    require_definition_reference("sdfg", o->target);
    auto sep = o->target.rfind("::");
    std::string file = o->target.substr(0, sep), name = o->target.substr(sep + 2);
    refuse_overwriting_input("-o " + o->out, o->out, {file});
    // Errors (FrontendError: located) are printed by run_cli, in the form of every command.
    ModuleLoader loader(LoaderOptions{o->includes, true});
    const LoadedModule& m = loader.load_file(file);
    std::vector<std::filesystem::path> modules;  // the modules it imports are inputs too
    for (const LoadedModule* lm : loader.modules()) modules.emplace_back(lm->path);
    refuse_overwriting_input("-o " + o->out, o->out, modules);
    NamedDefinition named = find_named_definition(m, name, file);
    const Definition* def = named.definition;
    const FunctionDef* orchestrated = named.plain_function;
    LoweringOptions lowering;
    lowering.max_neighbors = parse_neighbors(o->neighbors);
    TypeChecker checker;
    // A @scan_operator named directly: refused as `weir run` refuses it (naming its callers).
    if (def && def->kind == DefinitionKind::ScanOperator)
      runtime::load_field_view_program(file, name, o->includes);
    auto sdfg = def ? lower_to_sdfg(checker.check(*def), lowering)
                    : lower_orchestration(*check_orchestration(*orchestrated, m, checker), lowering);
    refuse_unknown_tables(*sdfg, lowering.max_neighbors);
    SaveOptions opts;
    opts.indent = o->indent;
    write_sdfg(*sdfg, o->out, opts);
    std::cout << "wrote " << o->out << "\n";
    return kExitOk;
  };
}

}  // namespace weir::cli
