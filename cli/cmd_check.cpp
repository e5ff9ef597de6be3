// `weir check FILE.py... [-I DIR]... [--max-errors N] [--lower]`: load field-view modules (one
// loader: modules they share are parsed once), type-check every definition (also those nested
// in plain functions) and list their signatures, and the plain functions that check as
// orchestration functions (and the errors of plain functions that call definitions but do not
// check, as `weir run` reports them); report every independent error, up to a limit; with --lower
// also lower every program and orchestration function that checked.
#include <CLI/CLI.hpp>
#include <algorithm>
#include <iostream>
#include <map>
#include <memory>
#include <set>

#include "commands.h"
#include "search_path_hint.h"
#include "targets.h"
#include "weir/frontend/lowering.h"
#include "weir/frontend/module_loader.h"
#include "weir/frontend/orchestration.h"
#include "weir/frontend/type_checker.h"
#include "weir/pycode/names.h"
#include "weir/pycode/parser.h"
#include "weir/pycode/unparse.h"

namespace weir::cli {

namespace {

// Whether the plain function `f` of `m` calls a @program, @field_operator or @scan_operator by
// name, or calls anything with gt4py's `offset_provider=` (a program of a module that is not
// found, by name or through a star import): an orchestration function, not a Python helper.
bool calls_definitions(const frontend::FunctionDef& f, const frontend::LoadedModule& m) {
  std::unique_ptr<frontend::FunctionDef> parsed;
  try {
    parsed = pycode::parse_function_with_loops(m.ast.file, f.loc.line);
  } catch (const weir::Error&) {
    return false;  // not in the orchestration language's syntax at all: a helper
  }
  for (const std::string& name : pycode::names_used(parsed->body).called)
    if (auto it = m.names.find(name); it != m.names.end() && it->second.definition) return true;
  return pycode::unparse(parsed->body).find("offset_provider=") != std::string::npos;
}

// An error of a file as `weir check` lists it: a located diagnostic as a compiler prints it
// ("FILE.py:LINE:COL: error: ..."), any other in the form of every command ("weir: error: ...").
void report(const std::string& message) {
  if (located_error_word(message))
    std::cerr << message << "\n";
  else
    print_error(message, kExitInvalidInput);
}

}  // namespace

Action add_check_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("check", "Load gt4py field-view files and type-check their definitions");
  struct Opts {
    std::vector<std::string> files, includes;
    std::size_t max_errors = 20;
    bool lower = false;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("files", o->files, "Python files")->required();
  cmd->add_option("-I,--include", o->includes,
                  "Directory searched for imported modules (repeatable; "
                  "WEIR_PATH is searched too)");
  cmd->add_option("--max-errors", o->max_errors, "Stop after this many errors per file (default 20)");
  cmd->add_flag("--lower", o->lower,
                "Also lower every checked @program and orchestration function to an SDFG (reports what the "
                "lowering refuses)");
  return [o]() {
    using namespace weir::frontend;
    ModuleLoader loader(LoaderOptions{o->includes, true});
    TypeChecker checker;
    bool ok = true;
    for (const std::string& file : o->files) require_python_file("check", file);
    for (const std::string& file : o->files) {
      try {
        const LoadedModule& m = loader.load_file(file);
        ModuleCheck r = checker.check_all(m, o->max_errors);
        for (const TypedDefinition* d : r.checked)
          std::cout << (d->source->scope.empty() ? "" : "(in " + d->source->scope + ") ") << signature(*d)
                    << "\n";
        // Plain functions that check as orchestration functions (`weir run FILE.py::NAME` runs
        // them), in source order. A plain function that calls a @program, @field_operator or
        // @scan_operator is one whether it checks or not: its errors are reported as `weir run`
        // reports them (and with --lower, what the lowering refuses); other plain functions are
        // Python helpers, not listed.
        std::vector<const FunctionDef*> plain;
        for (const auto& [name, v] : m.names)
          if (const FunctionDef* f = find_plain_function(m, name)) plain.push_back(f);
        std::sort(plain.begin(), plain.end(),
                  [](const FunctionDef* a, const FunctionDef* b) { return a->loc.line < b->loc.line; });
        std::size_t lowered = 0;
        std::size_t orchestrations = 0;  // listed, or failing while calling definitions
        auto failed = [&](const FrontendError& e) {
          if (r.errors.size() < o->max_errors) r.errors.push_back(e);
          ++r.failed;
        };
        for (const FunctionDef* f : plain) {
          std::unique_ptr<Orchestration> orch;
          try {
            orch = check_orchestration(*f, m, checker);
            if (o->lower) {
              lower_orchestration(*orch);
              ++lowered;
            }
          } catch (const FrontendError& e) {
            const bool counts = calls_definitions(*f, m);
            if (counts) failed(e);
            if (!orch) {
              orchestrations += counts ? 1 : 0;
              continue;
            }
          }
          std::string params;
          for (const auto& p : orch->params)
            params += (params.empty() ? "" : ", ") + p.name + ": " + to_string(p.type);
          std::cout << "orchestration " << orch->name << "(" << params << ")\n";
          ++orchestrations;
        }
        if (o->lower)
          for (const TypedDefinition* d : r.checked) {
            if (d->kind != DefinitionKind::Program) continue;
            try {
              lower_to_sdfg(*d);
              ++lowered;
            } catch (const FrontendError& e) {
              failed(e);
            }
          }
        // A missing module fails every definition that uses its names: say it once, with how
        // many errors it causes.
        std::map<std::string, std::size_t> from_module;
        for (const FrontendError& e : r.errors)
          if (auto m = missing_module(e.what()); !m.empty()) ++from_module[m];
        for (const FrontendError& e : r.errors) {
          std::string m = missing_module(e.what());
          if (m.empty()) {
            report(with_search_path_hint(e.what()));
          } else if (auto n = from_module.find(m); n != from_module.end()) {
            report(with_search_path_hint(e.what(), n->second));
            from_module.erase(n);
          }
        }
        // A module that is not found but whose names no definition uses fails nothing: say so,
        // once per module at its first import (a misspelt or unreachable module of the user's
        // would otherwise pass silently until a definition uses it).
        std::set<std::string> failing;
        for (const FrontendError& e : r.errors)
          if (auto mm = missing_module(e.what()); !mm.empty()) failing.insert(mm);
        std::map<std::string, weir::frontend::SourceLocation> unused;
        for (const auto& [name, v] : m.names) {
          if (v.kind != ValueKind::External) continue;
          std::string mm = missing_module(v.error);
          // numpy and cupy need no source: weir reads their names itself (dtypes, constants, the
          // reductions of orchestration functions), whether or not a definition uses them.
          const std::string root = mm.substr(0, mm.find('.'));
          if (mm.empty() || failing.count(mm) || root == "numpy" || root == "cupy") continue;
          // An orchestration's error names a callee of the module ("'lib.step' (from a module
          // not on the search path) ..."): the module is used.
          if (std::any_of(r.errors.begin(), r.errors.end(), [&](const FrontendError& e) {
                return std::string(e.what()).find("'" + mm + ".") != std::string::npos;
              }))
            continue;
          auto [it, fresh] = unused.emplace(mm, v.defined_at);
          if (!fresh && v.defined_at.known() && (!it->second.known() || v.defined_at.line < it->second.line))
            it->second = v.defined_at;
        }
        for (const auto& [mm, at] : unused)
          std::cerr << (at.known() ? at.str() + ": " : file + ": ") << "note: module '" << mm
                    << "' is not on the search path (-I DIR adds a directory); no definition here uses "
                       "it, so nothing fails\n";
        if (r.truncated) std::cerr << file << ": too many errors, stopped after " << r.errors.size() << "\n";
        std::cout << file << ": " << r.definitions << " definition" << (r.definitions == 1 ? "" : "s")
                  << (orchestrations ? " and " + std::to_string(orchestrations) + " orchestration function" +
                                           (orchestrations == 1 ? "" : "s")
                                     : "")
                  << " checked";
        if (r.nested) std::cout << " (" << r.nested << " nested in functions)";
        if (o->lower) std::cout << ", " << lowered << " program" << (lowered == 1 ? "" : "s") << " lowered";
        if (r.failed) std::cout << ", " << r.failed << " with errors";
        std::cout << "\n";
        ok = ok && r.failed == 0;
      } catch (const weir::Error& e) {  // a syntax error, an unreadable file
        report(with_search_path_hint(e.what()));
        ok = false;
      }
    }
    return ok ? kExitOk : kExitInvalidInput;
  };
}

}  // namespace weir::cli
