// `weir sdfg FILE.py::NAME -o OUT.sdfg [-I DIR]...`: load a field-view module, type-check the
// named @program, @field_operator or orchestration function and write its SDFG (.sdfgz: gzip-compressed).
#include <CLI/CLI.hpp>
#include <filesystem>
#include <iostream>
#include <memory>

#include "commands.h"
#include "option_values.h"
#include "overwrite_guard.h"
#include "targets.h"
#include "weir/frontend/definition_lookup.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/orchestration.h"
#include "weir/frontend/type_checker.h"
#include "weir/runtime/field_view_program.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"
#include "write_sdfg.h"

namespace weir::cli {

Action add_sdfg_command(CLI::App& app) {
  auto* cmd = app.add_subcommand(
      "sdfg", "Lower a gt4py field-view program or orchestration function (FILE.py::NAME) to an SDFG");
  struct Opts {
    std::string target, out;
    std::vector<std::string> includes;
    int indent = -1;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("target", o->target, kDefinitionReferenceHelp)->required();
  cmd->add_option("-o,--output", o->out, "SDFG file to write (.sdfg, or .sdfgz: gzip)")->required();
  cmd->add_option("-I,--include", o->includes,
                  "Directory searched for imported modules (repeatable; "
                  "WEIR_PATH is searched too)");
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
    TypeChecker checker;
    // A @scan_operator named directly: refused as `weir run` refuses it (naming its callers).
    if (def && def->kind == DefinitionKind::ScanOperator)
      runtime::load_field_view_program(file, name, o->includes);
    auto sdfg = def ? lower_to_sdfg(checker.check(*def))
                    : lower_orchestration(*check_orchestration(*orchestrated, m, checker));
    SaveOptions opts;
    opts.indent = o->indent;
    write_sdfg(*sdfg, o->out, opts);
    std::cout << "wrote " << o->out << "\n";
    return kExitOk;
  };
}

}  // namespace weir::cli
