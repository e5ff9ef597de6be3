#include "weir/distributed/mpi_world.h"

// The C API only (Open MPI's and MPICH's C++ bindings need libraries of their own).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <cstring>
#include <iostream>
#include <limits>
#include <sstream>

#include "weir/runtime/allocator.h"
#include "weir/sdfg/errors.h"

namespace weir::distributed {

namespace {

using Windows = std::vector<std::pair<std::int64_t, std::int64_t>>;

// Calls `f(src_offset, dst_offset, bytes)` for every contiguous row of the block `block`
// (global indices) between an array with window `a` and one with window `b` (row-major, the
// last axis contiguous).
template <class F>
void for_rows(const Windows& a, const Windows& b, const Windows& block, std::size_t item, F f) {
  const std::size_t n = block.size();
  for (const auto& [lo, hi] : block)
    if (hi <= lo) return;
  std::vector<std::int64_t> idx(n);
  for (std::size_t k = 0; k < n; ++k) idx[k] = block[k].first;
  auto offset = [&](const Windows& w) {
    std::int64_t o = 0;
    for (std::size_t k = 0; k < n; ++k) o = o * (w[k].second - w[k].first) + (idx[k] - w[k].first);
    return static_cast<std::size_t>(o) * item;
  };
  const std::size_t bytes = static_cast<std::size_t>(block[n - 1].second - block[n - 1].first) * item;
  while (true) {
    f(offset(a), offset(b), bytes);
    std::size_t k = n - 1;
    while (k-- > 0) {
      if (++idx[k] < block[k].second) break;
      idx[k] = block[k].first;
    }
    if (k == static_cast<std::size_t>(-1)) return;
  }
}

Windows whole(const runtime::Field& f) {
  Windows w;
  for (auto e : f.shape()) w.emplace_back(0, e);
  return w;
}

}  // namespace

MpiWorld::MpiWorld() {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) MPI_Init(nullptr, nullptr);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank_);
  MPI_Comm_size(MPI_COMM_WORLD, &size_);
}

MpiWorld::~MpiWorld() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

void MpiWorld::barrier() const { MPI_Barrier(MPI_COMM_WORLD); }

void MpiWorld::abort(const std::string& message, int code, bool print) const {
  if (print) {
    std::cout.flush();
    std::cerr << message << std::flush;
  }
  MPI_Abort(MPI_COMM_WORLD, code);
  std::_Exit(code);  // MPI_Abort does not return; in case it does
}

std::int64_t world_comm_handle() { return static_cast<std::int64_t>(MPI_Comm_c2f(MPI_COMM_WORLD)); }

CommPlace comm_place(std::int64_t comm) {
  int initialized = 0, finalized = 0;
  MPI_Initialized(&initialized);
  MPI_Finalized(&finalized);
  if (!initialized || finalized)
    throw Error(std::string("MPI is ") + (finalized ? "already finalized" : "not initialized") +
                ": a decomposed program runs between MPI_Init and MPI_Finalize (from Python: import "
                "MPI from mpi4py first)");
  if (comm < std::numeric_limits<MPI_Fint>::min() || comm > std::numeric_limits<MPI_Fint>::max())
    throw Error("communicator handle " + std::to_string(comm) +
                " is not an MPI_Fint (pass MPI_Comm_c2f(comm))");
  MPI_Comm c = MPI_Comm_f2c(static_cast<MPI_Fint>(comm));
  bool null = c == MPI_COMM_NULL;
#ifdef OPEN_MPI
  null = null || c == nullptr;  // Open MPI's answer to a handle no communicator has
#endif
  if (null)
    throw Error(
        "communicator handle " + std::to_string(comm) +
        " is MPI_COMM_NULL or no communicator's (pass MPI_Comm_c2f(comm), or comm.py2f() from mpi4py)");
  CommPlace p;
  MPI_Comm_rank(c, &p.rank);
  MPI_Comm_size(c, &p.size);
  return p;
}

std::vector<std::string> mpi_compile_flags() {
  std::vector<std::string> flags;
  std::stringstream dirs(WEIR_MPI_INCLUDE_DIRS);
  for (std::string d; std::getline(dirs, d, ':');)
    if (!d.empty()) flags.push_back("-I" + d);
  return flags;
}

runtime::Field local_part(const runtime::Field& global, const Windows& local, const Windows& own) {
  std::vector<std::int64_t> shape;
  for (const auto& [lo, hi] : local) shape.push_back(hi - lo);
  runtime::Field f = runtime::Allocator::cpu().allocate(global.dtype(), shape);
  const auto* src = static_cast<const std::byte*>(global.data());
  auto* dst = static_cast<std::byte*>(f.data());
  for_rows(whole(global), local, own, global.itemsize(),
           [&](std::size_t s, std::size_t d, std::size_t n) { std::memcpy(dst + d, src + s, n); });
  return f;
}

void gather_owned(const MpiWorld& world, const runtime::Field& local, runtime::Field& global,
                  const std::vector<Windows>& local_of, const std::vector<Windows>& own_of) {
  const std::size_t item = local.itemsize();
  auto block_bytes = [&](const Windows& own) {
    std::size_t n = item;
    for (const auto& [lo, hi] : own) n *= static_cast<std::size_t>(std::max<std::int64_t>(0, hi - lo));
    return n;
  };
  const int me = world.rank();
  if (me != 0) {
    std::vector<std::byte> buf(block_bytes(own_of[me]));
    const auto* src = static_cast<const std::byte*>(local.data());
    std::size_t at = 0;
    for_rows(local_of[me], own_of[me], own_of[me], item, [&](std::size_t s, std::size_t, std::size_t n) {
      std::memcpy(buf.data() + at, src + s, n);
      at += n;
    });
    MPI_Send(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, 0, 7, MPI_COMM_WORLD);
    return;
  }
  auto* dst = static_cast<std::byte*>(global.data());
  for (int r = 0; r < world.size(); ++r) {
    std::vector<std::byte> buf(block_bytes(own_of[r]));
    if (r == 0) {
      const auto* src = static_cast<const std::byte*>(local.data());
      std::size_t at = 0;
      for_rows(local_of[0], own_of[0], own_of[0], item, [&](std::size_t s, std::size_t, std::size_t n) {
        std::memcpy(buf.data() + at, src + s, n);
        at += n;
      });
    } else {
      MPI_Recv(buf.data(), static_cast<int>(buf.size()), MPI_BYTE, r, 7, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    }
    std::size_t at = 0;
    for_rows(whole(global), own_of[r], own_of[r], item, [&](std::size_t d, std::size_t, std::size_t n) {
      std::memcpy(dst + d, buf.data() + at, n);
      at += n;
    });
  }
}

}  // namespace weir::distributed
