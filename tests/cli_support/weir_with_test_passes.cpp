// `weir` with test-only passes registered, for the CLI tests of --verify-each
// (tests/cli/test_pass_flags_cli.cpp). The shipped registry never contains them.
//   break-validity  points the first memlet of the first state at a container that does not exist
#include "break_validity_pass.h"
#include "commands.h"
#include "weir/transforms/registry.h"

int main(int argc, char** argv) {
  weir::transforms::register_pass("break-validity",
                                  [] { return std::make_unique<weir::test::BreakValidity>(); });
  return weir::cli::run_cli(argc, argv);
}
