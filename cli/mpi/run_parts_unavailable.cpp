// `weir run --parts` in a weir built without MPI: a usage error that says how to get it.
#include <iostream>

#include "../run_parts.h"
#include "commands.h"

namespace weir::cli {

int run_parts(const RunOptions&) {
  std::cerr << "weir: error: --parts needs weir built with MPI (install Debian's libopenmpi-dev and "
               "openmpi-bin, then configure with -DWEIR_MPI=AUTO or ON)\n";
  return kExitUsage;
}

}  // namespace weir::cli
