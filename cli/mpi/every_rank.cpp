// on_every_rank (every_rank.h).
#include "every_rank.h"

#include <chrono>
#include <iostream>
#include <thread>

#include "commands.h"
#include "targets.h"

namespace weir::cli {

int on_every_rank(const RunOptions& o,
                  const std::function<int(const RunOptions&, const distributed::MpiWorld&)>& body) {
  distributed::MpiWorld world;
  const std::string who =
      "rank " + std::to_string(world.rank()) + " of " + std::to_string(world.size()) + ": ";
  int code = kExitOk;
  try {
    code = body(o, world);
  } catch (const UsageError& e) {
    // One rank: nothing to stop, so no MPI_Abort (and no banner of Open MPI's).
    if (world.size() == 1) {
      std::cout.flush();
      std::cerr << "weir: error: " << e.what() << "\n";
      return kExitUsage;
    }
    // The same command line on every rank: rank 0 says it, the others give it time to.
    if (world.rank() != 0) std::this_thread::sleep_for(std::chrono::seconds(2));
    world.abort("weir: error: " + std::string(e.what()) + "\n", kExitUsage, world.rank() == 0);
  } catch (const std::exception& e) {
    world.abort("weir: error: " + who + e.what() + "\n", kExitInvalidInput, true);
  }
  std::cout.flush();
  return code;
}

}  // namespace weir::cli
