// `weir run --decompose I,J` on every rank of an mpirun (docs/adr/0057-distributed-memory.md):
// lower and optimize the program, read its halos, split I and J over a process grid, insert
// the HaloExchange nodes, compile once (rank 0 first, the others then load it from the program
// cache), run on each rank's part and gather the outputs on rank 0.
#include <chrono>
#include <cstdlib>
#include <iostream>
#include <sstream>
#include <thread>

#include "../run_distributed.h"
#include "commands.h"
#include "every_rank.h"
#include "run_arguments.h"
#include "run_inputs.h"
#include "run_outputs.h"
#include "run_target.h"
#include "targets.h"
#include "weir/distributed/decomposed_program.h"
#include "weir/distributed/decomposition.h"
#include "weir/distributed/halo_analysis.h"
#include "weir/distributed/mpi_world.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/program_source.h"
#include "write_sdfg.h"

namespace weir::cli {

namespace {

using namespace weir::runtime;
using namespace weir::distributed;
using Windows = std::vector<std::pair<std::int64_t, std::int64_t>>;

// "2x2" -> {2, 2}; throws UsageError otherwise.
std::vector<int> parse_grid(const std::string& text, std::size_t dims, int ranks) {
  std::vector<int> g;
  std::stringstream ss(text);
  for (std::string part; std::getline(ss, part, 'x');) {
    char* end = nullptr;
    long v = std::strtol(part.c_str(), &end, 10);
    if (part.empty() || *end != '\0' || v < 1)
      throw UsageError("--process-grid " + text + ": expected ranks per dimension as AxB (e.g. 2x2)");
    g.push_back(static_cast<int>(v));
  }
  if (g.size() != dims)
    throw UsageError("--process-grid " + text + ": expected " + std::to_string(dims) +
                     " numbers, one per dimension of --decompose");
  long product = 1;
  for (int v : g) product *= v;
  if (product != ranks)
    throw UsageError("--process-grid " + text + " has " + std::to_string(product) +
                     " ranks, but mpirun started " + std::to_string(ranks));
  return g;
}

// The windows of every array of `halos` on rank `r`: [lo, hi) per axis in global indices.
struct Layout {
  std::vector<DecomposedAxis> axes;
  std::vector<int> grid;
  Windows windows(const Field& global, const std::map<std::string, std::size_t>& axis_of, int r,
                  bool own) const {
    Windows w;
    for (auto e : global.shape()) w.emplace_back(0, e);
    std::vector<int> c = grid_coordinates(r, grid);
    for (std::size_t q = 0; q < axes.size(); ++q) {
      auto a = axis_of.find(axes[q].dim);
      if (a == axis_of.end()) continue;
      AxisWindow x = axis_window(axes[q], global.shape()[a->second], c[q]);
      w[a->second] = own ? std::make_pair(x.own_lo, x.own_hi) : std::make_pair(x.local_lo, x.local_hi);
    }
    return w;
  }
};

// Refuses a decomposition that leaves a rank without points, or whose middle ranks hold fewer
// points than a halo their neighbours need from them, naming the field, dimension and sizes.
void check_parts(const Layout& L, const ProgramHalos& halos, const Arguments& args) {
  for (std::size_t q = 0; q < L.axes.size(); ++q) {
    const DecomposedAxis& a = L.axes[q];
    for (const auto& in : halos.inputs) {
      auto ax = in.axis.find(a.dim);
      if (ax == in.axis.end() || !args.arrays.count(in.field)) continue;
      const std::int64_t global = args.arrays.at(in.field).shape()[ax->second];
      const std::int64_t domain = global - a.frame_lo - a.frame_hi;
      const Margin w = in.width.count(a.dim) ? in.width.at(a.dim) : Margin{};
      // Parts differ by at most one point, the first domain % ranks one longer. Only the middle
      // ranks (1 .. ranks - 2) need a part as wide as the halo: the first and the last send
      // their part with the global frame they hold.
      const std::int64_t fewest = domain / a.ranks, longer = domain % a.ranks;
      const std::int64_t smallest = longer >= a.ranks - 1 ? fewest + 1 : fewest;
      auto loc = in.where.find(a.dim);
      const std::string at = loc == in.where.end() ? "" : loc->second;
      std::string where = "'" + in.field + "' along " + a.dim + ": " + std::to_string(domain) +
                          " points of the output domain (" + std::to_string(global) +
                          " with the frame) over " + std::to_string(a.ranks) + " ranks";
      if (fewest < 1)
        throw Error(at + "cannot decompose " + where +
                    " leaves a rank without points; use fewer ranks along " + a.dim);
      const std::int64_t need = std::max(w.lo, w.hi);
      if (a.ranks > 2 && need > smallest)
        throw Error(at + "cannot decompose " + where + ": its halo is " + std::to_string(need) +
                    " points wide, wider than the smallest part a middle rank holds (" +
                    std::to_string(smallest) + (smallest == 1 ? " point" : " points") +
                    "); use fewer ranks along " + a.dim + " or a larger " + a.dim);
    }
  }
}

int run(const RunOptions& o, const MpiWorld& world) {
  if (!is_field_view_reference(o.program))
    throw UsageError("--decompose runs field-view programs (FILE.py::NAME), not SDFG files");
  if (!o.backend.empty() && o.backend != "cpu")
    throw UsageError("--decompose runs on --backend cpu only (the backend is '" + o.backend + "')");
  if (o.repeat != 1 || o.profile || !o.domain.empty() || !o.save_inputs.empty())
    throw UsageError("--decompose does not take --repeat, --profile, --domain or --save-inputs yet");
  RunOptions lo = o;
  lo.backend = "cpu";
  std::unique_ptr<Backend> backend = make_mpi_cpu_backend();
  if (!o.out_dir.empty()) check_output_dir(o.out_dir);
  // Lowered only: an orchestration's exchanges go between its calls, which auto-optimize inlines.
  lo.lowered_only = true;
  RunTarget target = load_target(lo, *backend);
  const std::vector<std::string>& dims = o.decompose;
  Layout L;
  L.grid = o.process_grid.empty() ? balanced_grid(world.size(), static_cast<int>(dims.size()))
                                  : parse_grid(o.process_grid, dims.size(), world.size());
  // The program with its halo exchanges: the same SDFG (and so the same library) on every rank.
  // --overlap: the interior of each map reading an exchanged array runs while its messages fly.
  DecomposedProgram decomposed(target.sdfg, target.orchestration.has_value(), ProcessGrid{dims, L.grid},
                               !o.lowered_only, o.overlap);
  const ProgramHalos& halos = decomposed.halos();
  const int exchanges = decomposed.exchanges();
  L.axes = decomposed.axes();
  const transforms::OverlapReport& overlap = decomposed.overlap();

  // Global arguments (each rank reads the files: the scatter is by file system), checked as a
  // single-rank run checks them.
  GivenArguments given = gather_arguments(lo, target.sig, backend->allocator(), &target.field_view_sig);
  auto [made, allocated] = complete_arguments(lo, target, *backend, given);
  Arguments& global = given.args;
  check_parts(L, halos, global);
  // Every decomposed array must have the same extent along a dimension (one split of it).
  std::map<std::string, std::int64_t> extent;
  auto axes_of = [&](const std::string& name) {
    std::map<std::string, std::size_t> m;
    for (const auto& in : halos.inputs)
      if (in.field == name) m = in.axis;
    if (halos.outputs.count(name)) m = halos.outputs.at(name);
    return m;
  };
  for (const auto& [name, f] : global.arrays)
    for (const auto& [dim, k] : axes_of(name)) {
      auto [it, fresh] = extent.emplace(dim, f.shape()[k]);
      if (!fresh && it->second != f.shape()[k])
        throw Error("cannot decompose '" + name + "' along " + dim + ": it has " +
                    std::to_string(f.shape()[k]) + " points where other fields have " +
                    std::to_string(it->second));
    }

  if (!o.decomposed_sdfg.empty() && world.rank() == 0)
    write_sdfg(*decomposed.compilable().sdfg, o.decomposed_sdfg);
  const bool root = world.rank() == 0;
  if (root) {
    std::cout << "program '" << target.sig.program_name << "' on " << world.size() << " MPI rank"
              << (world.size() == 1 ? "" : "s") << ", grid";
    for (std::size_t q = 0; q < dims.size(); ++q)
      std::cout << (q ? " x " : " ") << dims[q] << ":" << L.grid[q];
    std::cout << "; frame";
    for (const auto& a : L.axes) std::cout << " " << a.dim << ":" << a.frame_lo << "/" << a.frame_hi;
    std::cout << "; " << exchanges << " halo exchange" << (exchanges == 1 ? "" : "s") << " (";
    bool first = true;
    for (const auto& in : halos.inputs)
      for (const auto& [dim, m] : in.width)
        if (m.lo || m.hi) {
          std::cout << (first ? "" : ", ") << in.field << " " << dim << ":" << m.lo << "/" << m.hi;
          first = false;
        }
    std::cout << ")";
    if (const int r = decomposed.reductions(); r > 0)
      std::cout << "; " << r << " global reduction" << (r == 1 ? "" : "s") << " (MPI_Allreduce)";
    std::cout << "\n";
    if (o.overlap) {
      std::cout << "overlap: " << overlap.split << " exchange state" << (overlap.split == 1 ? "" : "s")
                << " split into start, interior, wait and boundary\n";
      for (const auto& r : overlap.refused) std::cout << "overlap: not split: " << r << "\n";
    }
    if (!allocated.empty()) std::cout << "outputs allocated as zeros on every rank's part\n";
  }
  // Rank 0 compiles into the program cache first; the others load what it wrote.
  auto t0 = std::chrono::steady_clock::now();
  if (root) decomposed.prepare(*backend);
  world.barrier();
  if (!root) decomposed.prepare(*backend);
  if (root)
    std::cout << "compiled (or loaded from the cache) in "
              << std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() << " s\n";

  // This rank's arrays: its window of each global array, the owned block copied in.
  Arguments local;
  local.values = global.values;
  for (const auto& [name, f] : global.arrays) {
    auto ax = axes_of(name);
    if (ax.empty()) {
      local.arrays.emplace(name, f.clone());
      continue;
    }
    local.arrays.emplace(
        name, local_part(f, L.windows(f, ax, world.rank(), false), L.windows(f, ax, world.rank(), true)));
  }
  // Sizes follow from the local shapes; values naming a decomposed dimension's sizes would not.
  for (auto it = local.values.begin(); it != local.values.end();) {
    bool size = false;
    for (const auto& d : dims)
      size = size || it->first == d || it->first.find("_" + d + "_size") != std::string::npos;
    it = size ? local.values.erase(it) : std::next(it);
  }
  // The test of the stop (tests/mpi): this rank fails where the others wait in an exchange.
  if (const char* fail = std::getenv("WEIR_TEST_FAIL_RANK"); fail && std::atoi(fail) == world.rank())
    throw Error("WEIR_TEST_FAIL_RANK=" + std::string(fail) +
                " stops this rank on purpose (a test of the stop)");
  auto t1 = std::chrono::steady_clock::now();
  decomposed.run(local, world_comm_handle(), grid_coordinates(world.rank(), L.grid));
  world.barrier();
  const double call_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count();

  // Gather every output's owned blocks into the global array on rank 0.
  for (const auto& [name, ax] : halos.outputs) {
    if (!global.arrays.count(name)) continue;
    Field& g = global.arrays.at(name);
    std::vector<Windows> local_of, own_of;
    for (int r = 0; r < world.size(); ++r) {
      local_of.push_back(L.windows(g, ax, r, false));
      own_of.push_back(L.windows(g, ax, r, true));
    }
    gather_owned(world, local.arrays.at(name), g, local_of, own_of);
  }
  if (!root) return kExitOk;
  std::cout << "call 1: " << call_s * 1e3 << " ms (all ranks)\n";
  finish_outputs(target.sig, global, o.out_dir, given.input_files);
  return kExitOk;
}

}  // namespace

int run_distributed(const RunOptions& o) { return on_every_rank(o, run); }

}  // namespace weir::cli
