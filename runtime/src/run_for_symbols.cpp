#include "weir/runtime/run_for_symbols.h"

#include "checked_program.h"
#include "weir/runtime/loader.h"

namespace weir::runtime {

void run_for_symbols(Program& program, Arguments& args, std::map<std::string, std::int64_t>& symbols) {
  if (auto* checked = dynamic_cast<detail::CheckedProgram*>(&program)) {
    // The binding of the int32 tables the wrapped program runs on, as run() binds them.
    checked->checked(args, [&] { run_for_symbols(*checked->inner(), args, symbols); });
    return;
  }
  if (auto* compiled = dynamic_cast<CompiledProgram*>(&program)) {
    // CompiledProgram::run, keeping its binding.
    BoundArguments bound = bind_arguments(compiled->signature(), args);
    compiled->run_bound(bound);
    bound.store_written_scalars(compiled->signature(), args);
    symbols = bound.symbols();
    return;
  }
  program.run(args);
  symbols = bind_arguments(program.signature(), args).symbols();
}

}  // namespace weir::runtime
