// `weir` with test-only passes registered, for the CLI tests of --verify-each
// (tests/cli/test_pass_flags_cli.cpp). The shipped registry never contains them.
//   break-validity  points the first memlet of the first state at a container that does not exist
//   break-results   every tasklet of the first state adds 1 to its first output (weir tune's check)
#include "break_results_pass.h"
#include "break_validity_pass.h"
#include "commands.h"
#include "weir/transforms/registry.h"

int main(int argc, char** argv) {
  weir::transforms::register_pass("break-validity",
                                  [] { return std::make_unique<weir::test::BreakValidity>(); });
  weir::transforms::register_pass("break-results",
                                  [] { return std::make_unique<weir::test::BreakResults>(); });
  return weir::cli::run_cli(argc, argv);
}
