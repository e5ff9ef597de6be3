// weir: an optimizer and code generator for stateful dataflow graphs (SDFGs).
#include <CLI/CLI.hpp>
#include <iostream>
#include <vector>

#include "commands.h"
#include "weir/sdfg/errors.h"

int main(int argc, char** argv) {
  using namespace weir::cli;
  CLI::App app{"weir: an optimizer and code generator for stateful dataflow graphs (SDFGs)", "weir"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("weir 0.1.0"));

  std::vector<std::pair<CLI::App*, Action>> commands;
  auto add = [&](Action (*reg)(CLI::App&)) {
    std::size_t before = app.get_subcommands({}).size();
    Action a = reg(app);
    commands.emplace_back(app.get_subcommands({})[before], std::move(a));
  };
  add(add_validate_command);
  add(add_info_command);
  add(add_convert_command);
  add(add_run_command);
  add(add_compile_command);
  add(add_cache_command);
  add(add_transforms_command);
  add(add_check_command);
  add(add_sdfg_command);
  add(add_mesh_command);
  add(add_optimize_command);

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);  // prints the message and usage hint
    return kExitUsage;
  }
  try {
    for (auto& [sub, action] : commands)
      if (sub->parsed()) return action();
  } catch (const weir::Error& e) {
    std::cerr << "weir: error: " << e.what() << "\n";
    return kExitInvalidInput;
  } catch (const std::exception& e) {
    std::cerr << "weir: internal error: " << e.what() << "\n";
    return kExitInvalidInput;
  }
  return kExitUsage;
}
