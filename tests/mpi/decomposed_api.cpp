// The ctest entry `mpi: the C++ API on a split communicator ...` (tests/mpi/CMakeLists.txt), run
// as `mpirun -np 4 weir_mpi_api_test SOURCE`: weir::distributed::DecomposedProgram with local
// arrays and an MPI_Comm (weir/distributed/mpi_comm.h). MPI_COMM_WORLD's 4 ranks are split into
// two groups of 2 (odd and even ranks); each group runs examples/cartesian/laplacian.py on a 1x2
// grid (J split) on its own input. Each group's rank 0 gathers the owned blocks and compares them
// byte for byte with the single-rank compiled program and with the Laplacian computed here
// (the program's order of operations: -4 f + f(I+1) + f(I-1) + f(J+1) + f(J-1)). The halos of
// the local input start as NaN (only the exchange can fill them). Also refused, on one rank
// before any message: coordinates that are not the rank's, a communicator of the wrong size, a
// handle that is no communicator's.
// Exit 0 when every check passes; 1 (MPI_Abort) otherwise.
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <vector>

#include "weir/distributed/mpi_comm.h"
#include "weir/runtime/dispatch.h"

namespace {

using weir::distributed::DecomposedProgram;
using weir::runtime::Arguments;
using weir::runtime::Field;
constexpr std::int64_t NI = 9, NJ = 12, NK = 2;

std::size_t at(std::int64_t i, std::int64_t j, std::int64_t k, std::int64_t nj) {
  return static_cast<std::size_t>((i * nj + j) * NK + k);
}

int failures = 0;
void fail(int rank, const std::string& what) {
  std::printf("rank %d: FAIL %s\n", rank, what.c_str());
  ++failures;
}

// Expects `f()` to throw weir::Error containing `text`.
template <class F>
void expect_error(int rank, const std::string& what, F f, const std::string& text) {
  try {
    f();
    fail(rank, what + " was not refused");
  } catch (const weir::Error& e) {
    if (std::string(e.what()).find(text) == std::string::npos) fail(rank, what + " says: " + e.what());
  }
}

int check(int world_rank, const std::string& source) {
  MPI_Comm group = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &group);
  int rank = 0;
  MPI_Comm_rank(group, &rank);
  auto fv = weir::runtime::load_field_view_program(source + "/examples/cartesian/laplacian.py", "laplacian");
  DecomposedProgram dp(fv, weir::distributed::ProcessGrid{{"I", "J"}, {1, 2}});
  auto backend = weir::distributed::make_mpi_cpu_backend();
  if (world_rank == 0) dp.prepare(*backend);  // rank 0 compiles into the cache, the others load
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank != 0) dp.prepare(*backend);

  // Each group's global input: a different pattern per group (exact in binary).
  std::vector<double> f(NI * NJ * NK);
  for (std::int64_t i = 0; i < NI; ++i)
    for (std::int64_t j = 0; j < NJ; ++j)
      for (std::int64_t k = 0; k < NK; ++k)
        f[at(i, j, k, NJ)] = static_cast<double>((i * 7 + j * 3 + k * 5 + world_rank % 2 * 11) % 17) * 0.125;
  const std::vector<int> coords = weir::distributed::grid_coordinates(dp, group);
  if (coords != std::vector<int>{0, rank}) fail(world_rank, "coordinates in the group's 1x2 grid");
  const auto win = dp.window("f", {NI, NJ, NK}, coords), own = dp.window("out", {NI, NJ, NK}, coords, true);
  const std::int64_t lj = win[1].second - win[1].first;
  std::vector<double> lf(NI * lj * NK, std::numeric_limits<double>::quiet_NaN()), lout(NI * lj * NK, 0.0);
  for (std::int64_t i = 0; i < NI; ++i)
    for (std::int64_t j = own[1].first; j < own[1].second; ++j)
      for (std::int64_t k = 0; k < NK; ++k) lf[at(i, j - win[1].first, k, lj)] = f[at(i, j, k, NJ)];
  Arguments local;
  local.arrays.emplace("f", Field::borrow(lf.data(), weir::ScalarType::Float64, {NI, lj, NK}));
  local.arrays.emplace("out", Field::borrow(lout.data(), weir::ScalarType::Float64, {NI, lj, NK}));
  expect_error(
      world_rank, "coordinates not the rank's",
      [&] {
        weir::distributed::run(dp, local, group, {0, 1 - rank});
      },
      "whose coordinates in the grid 1x2 are (0, " + std::to_string(rank) + ")");
  expect_error(
      world_rank, "a communicator of 1 rank", [&] { weir::distributed::run(dp, local, MPI_COMM_SELF); },
      "the communicator has 1 rank, the process grid 1x2 needs 2");
  expect_error(
      world_rank, "a handle that is no communicator's", [&] { dp.run(local, 123456, coords); },
      "communicator handle 123456 is MPI_COMM_NULL or no communicator's");
  weir::distributed::run(dp, local, group);

  // Gather the owned columns [own_lo, own_hi) of J on the group's rank 0.
  std::vector<double> out(NI * NJ * NK, 0.0);
  const int lo = static_cast<int>(own[1].first), hi = static_cast<int>(own[1].second);
  std::vector<double> mine;
  for (std::int64_t i = 0; i < NI; ++i)
    for (std::int64_t j = lo; j < hi; ++j)
      for (std::int64_t k = 0; k < NK; ++k) mine.push_back(lout[at(i, j - win[1].first, k, lj)]);
  if (rank == 1) {
    int range[2] = {lo, hi};
    MPI_Send(range, 2, MPI_INT, 0, 1, group);
    MPI_Send(mine.data(), static_cast<int>(mine.size()), MPI_DOUBLE, 0, 2, group);
    return failures;
  }
  auto put = [&](const std::vector<double>& block, int j0, int j1) {
    std::size_t n = 0;
    for (std::int64_t i = 0; i < NI; ++i)
      for (std::int64_t j = j0; j < j1; ++j)
        for (std::int64_t k = 0; k < NK; ++k) out[at(i, j, k, NJ)] = block[n++];
  };
  put(mine, lo, hi);
  int range[2] = {0, 0};
  MPI_Recv(range, 2, MPI_INT, 1, 1, group, MPI_STATUS_IGNORE);
  std::vector<double> theirs(static_cast<std::size_t>(NI * (range[1] - range[0]) * NK));
  MPI_Recv(theirs.data(), static_cast<int>(theirs.size()), MPI_DOUBLE, 1, 2, group, MPI_STATUS_IGNORE);
  put(theirs, range[0], range[1]);
  if (lo != 0 || range[0] != hi || range[1] != NJ) fail(world_rank, "the owned blocks do not cover J once");

  // The single-rank compiled program and the Laplacian computed here.
  std::vector<double> one(NI * NJ * NK, 0.0), want(NI * NJ * NK, 0.0);
  Arguments global;
  global.arrays.emplace("f", Field::borrow(f.data(), weir::ScalarType::Float64, {NI, NJ, NK}));
  global.arrays.emplace("out", Field::borrow(one.data(), weir::ScalarType::Float64, {NI, NJ, NK}));
  weir::runtime::prepare(*backend, fv)->run(global);
  for (std::int64_t i = 1; i < NI - 1; ++i)
    for (std::int64_t j = 1; j < NJ - 1; ++j)
      for (std::int64_t k = 0; k < NK; ++k)
        want[at(i, j, k, NJ)] = -4.0 * f[at(i, j, k, NJ)] + f[at(i + 1, j, k, NJ)] + f[at(i - 1, j, k, NJ)] +
                                f[at(i, j + 1, k, NJ)] + f[at(i, j - 1, k, NJ)];
  if (std::memcmp(out.data(), one.data(), out.size() * sizeof(double)) != 0)
    fail(world_rank, "the decomposed laplacian differs from the single-rank run");
  if (out != want) fail(world_rank, "the decomposed laplacian differs from the one computed here");
  return failures;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  int bad = 1;
  try {
    if (size != 4 || argc != 2) throw weir::Error("run as mpirun -np 4 weir_mpi_api_test SOURCE_DIR");
    bad = check(rank, argv[1]);
  } catch (const std::exception& e) {
    std::printf("rank %d: FAIL %s\n", rank, e.what());
    std::fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) std::printf("C++ API with a split communicator: %s\n", any ? "FAILED" : "ok");
  MPI_Finalize();
  return any ? 1 : 0;
}
