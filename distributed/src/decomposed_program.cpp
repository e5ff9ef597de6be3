#include "weir/distributed/decomposed_program.h"

#include "weir/distributed/global_reductions.h"
#include "weir/distributed/halo_analysis.h"
#include "weir/distributed/halo_exchange.h"
#include "weir/distributed/mpi_world.h"
#include "weir/distributed/orchestration_halos.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/lower_for_tables.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/auto_optimize.h"

namespace weir::distributed {

namespace {

std::string grid_text(const std::vector<int>& sizes) {
  std::string s;
  for (std::size_t q = 0; q < sizes.size(); ++q) s += (q ? "x" : "") + std::to_string(sizes[q]);
  return s;
}

void check_grid(const ProcessGrid& g) {
  if (g.dims.empty() || g.dims.size() != g.sizes.size())
    throw Error("process grid: expected one rank count per decomposed dimension, got " +
                std::to_string(g.dims.size()) + " dimensions and " + std::to_string(g.sizes.size()) +
                " counts");
  for (std::size_t q = 0; q < g.dims.size(); ++q)
    for (std::size_t r = 0; r < q; ++r)
      if (g.dims[q] == g.dims[r])
        throw Error("process grid: dimension " + g.dims[q] + " is named twice (split each dimension once)");
  for (std::size_t q = 0; q < g.sizes.size(); ++q)
    if (g.sizes[q] < 1)
      throw Error("process grid: " + std::to_string(g.sizes[q]) + " ranks along " + g.dims[q] +
                  " (at least 1)");
}

std::string coords_text(const std::vector<int>& c) {
  std::string s = "(";
  for (std::size_t q = 0; q < c.size(); ++q) s += (q ? ", " : "") + std::to_string(c[q]);
  return s + ")";
}

}  // namespace

int ProcessGrid::ranks() const {
  int n = 1;
  for (int s : sizes) n *= s;
  return n;
}

DecomposedProgram::DecomposedProgram(const runtime::FieldViewProgram& program, ProcessGrid grid, bool overlap)
    : grid_(std::move(grid)) {
  check_grid(grid_);
  program_ = runtime::lower_for_tables(program, {}, false);
  decompose(program_.sdfg->clone_sdfg(), program.orchestration != nullptr, true, overlap);
}

DecomposedProgram::DecomposedProgram(const runtime::CompilableProgram& lowered, bool orchestration,
                                     ProcessGrid grid, bool optimize, bool overlap)
    : grid_(std::move(grid)), program_(lowered) {
  check_grid(grid_);
  if (!lowered.sdfg) throw Error("DecomposedProgram: no SDFG to decompose");
  decompose(lowered.sdfg->clone_sdfg(), orchestration, optimize, overlap);
}

void DecomposedProgram::decompose(std::unique_ptr<SDFG> sdfg, bool orchestration, bool optimize,
                                  bool overlap) {
  // A scan runs its axis point after point: refused before optimizing (which may nest it).
  check_parallel_along(*sdfg, grid_.dims);
  // Exchanges between an orchestration's calls are placed before auto-optimize inlines them; a
  // single program's go before its start state of the optimized SDFG.
  if (orchestration) {
    OrchestrationHalos oh = analyse_orchestration_halos(*sdfg, grid_.dims);
    halos_ = oh.merged;
    exchanges_ = insert_call_exchanges(*sdfg, oh, grid_.dims, grid_.sizes);
    // Each rank reduces the points it owns; an MPI_Allreduce combines them.
    reductions_ = insert_global_reductions(*sdfg, halos_, grid_.dims);
    if (optimize) transforms::auto_optimize(*sdfg, DeviceType::CPU);
  } else {
    if (optimize) transforms::auto_optimize(*sdfg, DeviceType::CPU);
    halos_ = analyse_halos(*sdfg, grid_.dims);
    exchanges_ = insert_halo_exchanges(*sdfg, halos_, grid_.dims, grid_.sizes);
  }
  // The interior of each map reading an exchanged array runs while its messages fly.
  if (overlap) overlap_ = transforms::overlap_halo_exchanges(*sdfg);
  validate_or_throw(*sdfg);
  axes_.clear();
  for (std::size_t q = 0; q < grid_.dims.size(); ++q)
    axes_.push_back(DecomposedAxis{grid_.dims[q], grid_.sizes[q], halos_.frame.at(grid_.dims[q]).lo,
                                   halos_.frame.at(grid_.dims[q]).hi});
  program_.sdfg = std::shared_ptr<const SDFG>(std::move(sdfg));
}

std::map<std::string, std::size_t> DecomposedProgram::decomposed_axes(const std::string& name) const {
  auto out = halos_.outputs.find(name);
  if (out != halos_.outputs.end()) return out->second;
  for (const auto& in : halos_.inputs)
    if (in.field == name) return in.axis;
  return {};
}

std::vector<std::pair<std::int64_t, std::int64_t>> DecomposedProgram::window(
    const std::string& name, const std::vector<std::int64_t>& global_shape, const std::vector<int>& coords,
    bool own) const {
  if (coords.size() != axes_.size())
    throw Error("coordinates of " + std::to_string(coords.size()) + " entries for a process grid of " +
                std::to_string(axes_.size()) + " dimensions");
  for (std::size_t q = 0; q < axes_.size(); ++q)
    if (coords[q] < 0 || coords[q] >= axes_[q].ranks)
      throw Error("coordinate " + std::to_string(coords[q]) + " along " + axes_[q].dim +
                  " is outside the grid " + grid_text(grid_.sizes));
  std::vector<std::pair<std::int64_t, std::int64_t>> w;
  for (auto e : global_shape) w.emplace_back(0, e);
  const auto axes = decomposed_axes(name);
  for (std::size_t q = 0; q < axes_.size(); ++q) {
    auto a = axes.find(axes_[q].dim);
    if (a == axes.end() || a->second >= global_shape.size()) continue;
    AxisWindow x = axis_window(axes_[q], global_shape[a->second], coords[q]);
    w[a->second] = own ? std::make_pair(x.own_lo, x.own_hi) : std::make_pair(x.local_lo, x.local_hi);
  }
  return w;
}

void DecomposedProgram::prepare(const runtime::Backend& backend) {
  runnable_ = runtime::prepare(backend, program_);
}

void DecomposedProgram::run(runtime::Arguments& local, std::int64_t comm,
                            const std::vector<int>& coords) const {
  const std::string what = "decomposed program '" + program_.sdfg->name + "'";
  if (!runnable_) throw Error(what + " is not prepared (call prepare() first)");
  const CommPlace place = comm_place(comm);
  if (place.size != grid_.ranks())
    throw Error(what + ": the communicator has " + std::to_string(place.size) + " rank" +
                (place.size == 1 ? "" : "s") + ", the process grid " + grid_text(grid_.sizes) + " needs " +
                std::to_string(grid_.ranks()));
  const std::vector<int> mine = grid_coordinates(place.rank, grid_.sizes);
  if (coords != mine)
    throw Error(what + ": coordinates " + coords_text(coords) + " given on rank " +
                std::to_string(place.rank) + " of the communicator, whose coordinates in the grid " +
                grid_text(grid_.sizes) + " are " + coords_text(mine));
  // One split per dimension: every array holds the same extent along it.
  std::map<std::string, std::pair<std::string, std::int64_t>> extent;
  for (const auto& [name, f] : local.arrays)
    for (const auto& [dim, k] : decomposed_axes(name)) {
      if (k >= f.shape().size()) continue;  // the program's own shape check names it
      auto [it, fresh] = extent.emplace(dim, std::make_pair(name, f.shape()[k]));
      if (!fresh && it->second.second != f.shape()[k])
        throw Error(what + ": local array '" + name + "' has " + std::to_string(f.shape()[k]) +
                    " points along " + dim + ", '" + it->second.first + "' has " +
                    std::to_string(it->second.second) +
                    " (every array holds the same window of a decomposed dimension)");
    }
  // The communicator (and where the rank sits for its reductions) are arguments of this call
  // only: `local` is left as it was given.
  std::vector<std::string> added;
  struct DropComm {
    std::map<std::string, runtime::Number>& values;
    std::vector<std::string>& names;
    ~DropComm() {
      for (const std::string& n : names) values.erase(n);
    }
  } drop{local.values, added};
  auto set = [&](const std::string& name, std::int64_t v) {
    local.values[name] = runtime::Number(v);
    added.push_back(name);
  };
  if (exchanges_ > 0 || reductions_ > 0) set(kCommArgument, comm);
  if (reductions_ > 0)
    for (std::size_t q = 0; q < grid_.dims.size(); ++q) {
      set(first_symbol(grid_.dims[q]), coords[q] == 0 ? 1 : 0);
      set(last_symbol(grid_.dims[q]), coords[q] == grid_.sizes[q] - 1 ? 1 : 0);
    }
  runnable_->run(local);
}

std::unique_ptr<runtime::CompiledBackend> make_mpi_cpu_backend(runtime::CompiledBackendConfig config) {
  for (const auto& f : mpi_compile_flags()) config.flags.push_back(f);
  return runtime::make_cpu_backend(config);
}

}  // namespace weir::distributed
