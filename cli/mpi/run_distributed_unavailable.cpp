// `weir run --decompose` in a weir built without MPI (WEIR_MPI=OFF, or no MPI found): a usage
// error that says how to get it.
#include <iostream>

#include "../run_distributed.h"
#include "commands.h"

namespace weir::cli {

int run_distributed(const RunOptions&) {
  std::cerr << "weir: error: --decompose needs weir built with MPI (install Debian's libopenmpi-dev and "
               "openmpi-bin, then configure with -DWEIR_MPI=AUTO or ON)\n";
  return kExitUsage;
}

}  // namespace weir::cli
