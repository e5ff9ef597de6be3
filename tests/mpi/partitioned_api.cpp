// The ctest entry `mpi: the C++ API of unstructured programs on a split communicator ...`
// (tests/mpi/CMakeLists.txt), run as `mpirun -np 4 weir_mpi_parts_api_test SOURCE`:
// weir::distributed::PartitionedProgram with local arrays, send/receive lists and an MPI_Comm
// (weir/distributed/mpi_comm.h). MPI_COMM_WORLD's 4 ranks are split into two groups of 2; each
// group runs examples/unstructured/cell_laplacian.py on a ring of N cells whose C2E2CO lists a
// cell, its two ring neighbours and the cell 5 further on, partitioned here by hand (not by METIS):
// cell c belongs to part (c / 2) % 2, so every part's cells are pairs scattered around the ring.
// Local numbering: owned cells, then halo cells, each by increasing global id; the halo rows of
// the inputs start as NaN (only the exchange can fill them). Each group's rank 0 gathers the owned
// rows and compares them byte for byte with the single-rank compiled program and with the
// Laplacian computed here (neighbours added in table order, as neighbor_sum does). Also refused,
// on one rank before any message: missing lists, a peer that is the rank itself, a row outside
// the local arrays, a handle that is no communicator's.
// Exit 0 when every check passes; 1 (MPI_Abort) otherwise.
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <limits>
#include <map>
#include <string>
#include <vector>

#include "weir/distributed/mpi_comm.h"
#include "weir/runtime/dispatch.h"

namespace {

using weir::distributed::PartitionedProgram;
using weir::runtime::Arguments;
using weir::runtime::Field;
constexpr int N = 14, K = 2, NB = 4;

int failures = 0;
void fail(int rank, const std::string& what) {
  std::printf("rank %d: FAIL %s\n", rank, what.c_str());
  ++failures;
}

template <class F>
void expect_error(int rank, const std::string& what, F f, const std::string& text) {
  try {
    f();
    fail(rank, what + " was not refused");
  } catch (const weir::Error& e) {
    if (std::string(e.what()).find(text) == std::string::npos) fail(rank, what + " says: " + e.what());
  }
}

int neighbour(int c, int j) {
  const int step[NB] = {0, 1, N - 1, 5};
  return (c + step[j]) % N;
}
int owner(int c) { return (c / 2) % 2; }

// Part `p`'s cells in local numbering (owned, then halo, each by global id).
std::vector<int> local_cells(int p) {
  std::vector<int> cells, halo;
  for (int c = 0; c < N; ++c)
    if (owner(c) == p) cells.push_back(c);
  for (int c : std::vector<int>(cells))
    for (int j = 0; j < NB; ++j)
      if (owner(neighbour(c, j)) != p) halo.push_back(neighbour(c, j));
  std::sort(halo.begin(), halo.end());
  halo.erase(std::unique(halo.begin(), halo.end()), halo.end());
  cells.insert(cells.end(), halo.begin(), halo.end());
  return cells;
}

int check(int world_rank, const std::string& source) {
  MPI_Comm group = MPI_COMM_NULL;
  MPI_Comm_split(MPI_COMM_WORLD, world_rank % 2, world_rank, &group);
  int rank = 0;
  MPI_Comm_rank(group, &rank);
  auto fv = weir::runtime::load_field_view_program(source + "/examples/unstructured/cell_laplacian.py",
                                                   "cell_laplacian");
  PartitionedProgram pp(fv);
  const std::map<std::string, std::string> want_exchanged{{"psi", "Cell"}, {"weights", "Cell"}};
  if (pp.exchanged() != want_exchanged) fail(world_rank, "exchanged arrays are not psi and weights on Cell");
  auto backend = weir::distributed::make_mpi_cpu_backend();
  if (world_rank == 0) pp.prepare(*backend);  // rank 0 compiles into the cache, the others load
  MPI_Barrier(MPI_COMM_WORLD);
  if (world_rank != 0) pp.prepare(*backend);

  // Each group's global inputs (a different pattern per group, exact in binary).
  std::vector<double> psi(N * K), weights(N * NB);
  for (int c = 0; c < N; ++c) {
    for (int k = 0; k < K; ++k) psi[c * K + k] = ((c * 7 + k * 5 + world_rank % 2 * 3) % 13) * 0.25;
    for (int j = 0; j < NB; ++j) weights[c * NB + j] = ((c * 3 + j * 11 + world_rank % 2) % 9) * 0.125 - 0.5;
  }
  const std::vector<int> cells = local_cells(rank), theirs = local_cells(1 - rank);
  std::map<int, int> local_of;
  for (std::size_t i = 0; i < cells.size(); ++i) local_of[cells[i]] = static_cast<int>(i);
  const int n = static_cast<int>(cells.size());
  int owned = 0;
  while (owned < n && owner(cells[owned]) == rank) ++owned;
  const double nan = std::numeric_limits<double>::quiet_NaN();
  std::vector<double> lpsi(n * K, nan), lw(n * NB, nan), lap(n * K, 0.0);
  std::vector<std::int32_t> table(n * NB, 0);  // halo rows: 0, as weir mesh writes them
  for (int i = 0; i < owned; ++i) {
    for (int k = 0; k < K; ++k) lpsi[i * K + k] = psi[cells[i] * K + k];
    for (int j = 0; j < NB; ++j) {
      lw[i * NB + j] = weights[cells[i] * NB + j];
      table[i * NB + j] = local_of.at(neighbour(cells[i], j));
    }
  }
  // The lists with the other part: both in increasing global id, so they match.
  weir::distributed::PeerRows peer{1 - rank, {}, {}};
  for (int c : theirs)
    if (owner(c) == rank) peer.send.push_back(local_of.at(c));
  for (int i = owned; i < n; ++i) peer.recv.push_back(i);
  const weir::distributed::RowLists lists{{"Cell", {peer}}};

  Arguments local;
  local.arrays.emplace("psi", Field::borrow(lpsi.data(), weir::ScalarType::Float64, {n, K}));
  local.arrays.emplace("weights", Field::borrow(lw.data(), weir::ScalarType::Float64, {n, NB}));
  local.arrays.emplace("lap", Field::borrow(lap.data(), weir::ScalarType::Float64, {n, K}));
  local.arrays.emplace("C2E2CO", Field::borrow(table.data(), weir::ScalarType::Int32, {n, NB}));
  expect_error(
      world_rank, "missing lists", [&] { weir::distributed::run(pp, local, {}, group); },
      "no send/receive lists for Cell");
  expect_error(
      world_rank, "a peer that is the rank itself",
      [&] {
        weir::distributed::run(pp, local, {{"Cell", {{rank, {}, {}}}}}, group);
      },
      "the Cell lists name peer " + std::to_string(rank) + " on rank " + std::to_string(rank) +
          " of a communicator of 2 ranks");
  expect_error(
      world_rank, "a row outside the local arrays",
      [&] {
        weir::distributed::run(pp, local, {{"Cell", {{1 - rank, {0}, {n}}}}}, group);
      },
      "name row " + std::to_string(n) + ", outside the " + std::to_string(n) + " local rows of 'psi'");
  expect_error(
      world_rank, "a handle that is no communicator's", [&] { pp.run(local, lists, 123456); },
      "communicator handle 123456 is MPI_COMM_NULL or no communicator's");
  weir::distributed::run(pp, local, lists, group);

  // Gather the owned rows on the group's rank 0 (global ids, then rows).
  std::vector<double> out(N * K, nan);
  std::vector<int> ids(cells.begin(), cells.begin() + owned);
  if (rank == 1) {
    MPI_Send(&owned, 1, MPI_INT, 0, 1, group);
    MPI_Send(ids.data(), owned, MPI_INT, 0, 2, group);
    MPI_Send(lap.data(), owned * K, MPI_DOUBLE, 0, 3, group);
    return failures;
  }
  for (int i = 0; i < owned; ++i)
    for (int k = 0; k < K; ++k) out[ids[i] * K + k] = lap[i * K + k];
  int m = 0;
  MPI_Recv(&m, 1, MPI_INT, 1, 1, group, MPI_STATUS_IGNORE);
  std::vector<int> rids(m);
  std::vector<double> rows(m * K);
  MPI_Recv(rids.data(), m, MPI_INT, 1, 2, group, MPI_STATUS_IGNORE);
  MPI_Recv(rows.data(), m * K, MPI_DOUBLE, 1, 3, group, MPI_STATUS_IGNORE);
  for (int i = 0; i < m; ++i)
    for (int k = 0; k < K; ++k) out[rids[i] * K + k] = rows[i * K + k];
  if (owned + m != N) fail(world_rank, "the owned rows do not cover the cells once");

  // The single-rank compiled program (no lists: the plain program) and the Laplacian here.
  std::vector<double> one(N * K, 0.0), want(N * K, 0.0);
  std::vector<std::int32_t> gtable(N * NB);
  for (int c = 0; c < N; ++c)
    for (int j = 0; j < NB; ++j) gtable[c * NB + j] = neighbour(c, j);
  Arguments global;
  global.arrays.emplace("psi", Field::borrow(psi.data(), weir::ScalarType::Float64, {N, K}));
  global.arrays.emplace("weights", Field::borrow(weights.data(), weir::ScalarType::Float64, {N, NB}));
  global.arrays.emplace("lap", Field::borrow(one.data(), weir::ScalarType::Float64, {N, K}));
  global.arrays.emplace("C2E2CO", Field::borrow(gtable.data(), weir::ScalarType::Int32, {N, NB}));
  weir::runtime::prepare(*backend, fv)->run(global);
  for (int c = 0; c < N; ++c)
    for (int k = 0; k < K; ++k) {
      double acc = psi[neighbour(c, 0) * K + k] * weights[c * NB];
      for (int j = 1; j < NB; ++j) acc = acc + psi[neighbour(c, j) * K + k] * weights[c * NB + j];
      want[c * K + k] = acc;
    }
  if (std::memcmp(out.data(), one.data(), out.size() * sizeof(double)) != 0)
    fail(world_rank, "the partitioned cell_laplacian differs from the single-rank run");
  if (out != want) fail(world_rank, "the partitioned cell_laplacian differs from the one computed here");
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
    if (size != 4 || argc != 2) throw weir::Error("run as mpirun -np 4 weir_mpi_parts_api_test SOURCE_DIR");
    bad = check(rank, argv[1]);
  } catch (const std::exception& e) {
    std::printf("rank %d: FAIL %s\n", rank, e.what());
    std::fflush(stdout);
    MPI_Abort(MPI_COMM_WORLD, 1);
  }
  int any = 0;
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0)
    std::printf("C++ API of unstructured programs with a split communicator: %s\n", any ? "FAILED" : "ok");
  MPI_Finalize();
  return any ? 1 : 0;
}
