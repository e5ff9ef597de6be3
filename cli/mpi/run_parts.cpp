// `weir run --parts DIR` on every rank of an mpirun (docs/adr/0060-unstructured-partitioning.md):
// read this rank's part, keep the owned rows of the global inputs, run the program with its
// UnstructuredHaloExchange nodes (PartitionedProgram, compiled once: rank 0 first, the others
// load it from the program cache) on the local numbering with the part's send/receive lists,
// gather the owned rows of the outputs on rank 0.
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <limits>
#include <set>
#include <variant>

#include "../run_parts.h"
#include "backend_choice.h"
#include "commands.h"
#include "every_rank.h"
#include "mesh_program.h"
#include "partition_files.h"
#include "run_arguments.h"
#include "run_inputs.h"
#include "run_outputs.h"
#include "run_target.h"
#include "targets.h"
#include "weir/distributed/decomposed_program.h"
#include "weir/distributed/domain_bounds.h"
#include "weir/distributed/mpi_world.h"
#include "weir/distributed/orchestration_rows.h"
#include "weir/distributed/partitioned_program.h"
#include "weir/distributed/row_exchange.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/program_source.h"
#include "write_sdfg.h"

namespace weir::cli {
namespace {

using namespace weir::runtime;
using namespace weir::distributed;

double since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

// The rows of `global` this part holds: its owned rows copied by global id, the halo rows NaN
// (zero for integers and booleans) until an exchange fills those the program reads, so that a
// missing exchange shows in the owned results rather than passing unseen.
Field local_rows(const Field& global, const mesh::PartEntity& e) {
  std::vector<std::int64_t> shape = global.shape();
  shape[0] = static_cast<std::int64_t>(e.global.size());
  Field f = Allocator::cpu().allocate(global.dtype(), shape);
  const std::size_t rb =
      global.shape()[0] ? global.nbytes() / static_cast<std::size_t>(global.shape()[0]) : 0;
  std::memset(f.data(), 0, f.nbytes());
  if (f.dtype() == ScalarType::Float64)
    std::fill_n(static_cast<double*>(f.data()), f.size(), std::numeric_limits<double>::quiet_NaN());
  if (f.dtype() == ScalarType::Float32)
    std::fill_n(static_cast<float*>(f.data()), f.size(), std::numeric_limits<float>::quiet_NaN());
  for (std::int64_t k = 0; k < e.owned; ++k)
    std::memcpy(static_cast<char*>(f.data()) + static_cast<std::size_t>(k) * rb,
                static_cast<const char*>(global.data()) +
                    static_cast<std::size_t>(e.global[static_cast<std::size_t>(k)]) * rb,
                rb);
  return f;
}

// Scalar arguments bounding ranges along a partitioned entity, given for the whole mesh, on this
// part: a range from 0 to the entity's global count covers all of the part's rows, so a scalar
// set to that count takes the part's row count; 0 stays 0; any other value (a range of the
// global numbering) names other entities in the part's local numbering and is refused at its
// line (localize_partition_bounds). A single program's bounds are the ranges of its memlets
// (domain={Cell: (0, n_cells)}); an orchestration's calls are nested SDFGs, whose extents and
// domains are symbols the calls map from the orchestration's scalars (entity_bound_symbols:
// `n_cells`, `horizontal_end`), each a range [0, scalar) of its entity.
void localize_bounds(const RunTarget& target, const LoadedPart& lp, const Arguments& global,
                     Arguments& local) {
  std::vector<std::string> split;
  std::map<std::string, std::int64_t> part_rows;
  for (const auto& [entity, e] : lp.part.entities) {
    split.push_back(entity);
    part_rows[entity] = static_cast<std::int64_t>(e.global.size());
  }
  const SDFG& sdfg = *target.sdfg.sdfg;
  std::vector<ScalarBound> bounds = scalar_bounds(sdfg, split);
  if (target.orchestration.has_value()) {
    std::set<std::string> entities;
    for (const auto& [entity, n] : lp.counts) entities.insert(entity);
    for (const auto& [name, entity] : entity_bound_symbols(sdfg, entities)) {
      auto v = global.values.find(name);
      const auto* i = v == global.values.end() ? nullptr : std::get_if<std::int64_t>(&v->second);
      if (!i || *i == 0 || !part_rows.count(entity)) continue;
      bounds.push_back(ScalarBound{"", entity, sym::Expr(0), sym::Expr::symbol(name), false,
                                   "orchestration '" + target.sig.program_name + "': "});
    }
  }
  for (auto& [name, v] : localize_partition_bounds(bounds, global.values, lp.counts, part_rows))
    local.values[name] = v;
}

int run(const RunOptions& o, const MpiWorld& world) {
  if (!is_field_view_reference(o.program))
    throw UsageError("--parts runs field-view programs (FILE.py::NAME), not SDFG files");
  if (!o.backend.empty() && o.backend != "cpu")
    throw UsageError("--parts runs on --backend cpu only (the backend is '" + o.backend + "')");
  if (!o.decompose.empty())
    throw UsageError("--parts (unstructured) and --decompose (Cartesian) exclude each other");
  if (o.repeat != 1 || o.profile || !o.domain.empty() || !o.save_inputs.empty())
    throw UsageError("--parts does not take --repeat, --profile, --domain or --save-inputs yet");
  RunOptions lo = o;
  lo.backend = "cpu";
  std::unique_ptr<Backend> backend = choose_backend("cpu", "", o.exact_math);
  if (!o.out_dir.empty()) check_output_dir(o.out_dir);
  LoadedPart lp = read_part(o.parts_dir, 0);
  if (lp.parts != world.size())
    throw Error(o.parts_dir + " has " + std::to_string(lp.parts) + " part" + (lp.parts == 1 ? "" : "s") +
                ", but mpirun started " + std::to_string(world.size()) + " rank" +
                (world.size() == 1 ? "" : "s") + ": run with -np " + std::to_string(lp.parts) +
                " or partition again with --parts " + std::to_string(world.size()));
  if (world.rank() != 0) lp = read_part(o.parts_dir, world.rank());
  RunTarget target = load_target(lo, *backend);
  const bool orchestration = target.orchestration.has_value();
  if (orchestration) {
    // Lowered only: the exchanges go between the calls, which auto-optimize inlines.
    lo.lowered_only = true;
    target = load_target(lo, *backend);
    if (!lp.every_entity)
      throw Error(o.parts_dir + " was partitioned for the single program '" + lp.program +
                  "' (halos from its primary entity only), but '" + target.sig.program_name +
                  "' is an orchestration function whose calls write fields on every entity: partition again "
                  "with --program naming it");
  }
  const std::string primary = primary_entity(target);
  if (primary != lp.primary)
    throw Error(o.parts_dir + " splits " + lp.primary + " entities (made for '" + lp.program + "'), but '" +
                target.sig.program_name + "' writes its outputs on " + primary);
  for (const auto& c : target.connectivities) {
    auto t = lp.part.tables.find(c.name);
    if (t == lp.part.tables.end() || t->second.from != c.from || t->second.to != c.to)
      throw Error(o.parts_dir + " was made for '" + lp.program + "', which does not read connectivity '" +
                  c.name + "' (" + c.from + " to " + c.to + ") as '" + target.sig.program_name +
                  "' does: partition again with --program");
  }

  GivenArguments given = gather_arguments(lo, target.sig, backend->allocator(), &target.field_view_sig);
  complete_arguments(lo, target, *backend, given);
  Arguments& global = given.args;
  Arguments local;
  for (const auto& [name, f] : global.arrays) {
    if (lp.part.tables.count(name)) {
      const mesh::PartitionTable& t = lp.part.tables.at(name);
      Field lt = Allocator::cpu().allocate(ScalarType::Int32, {t.rows, t.cols});
      if (!t.data.empty()) std::memcpy(lt.data(), t.data.data(), t.data.size() * sizeof(std::int32_t));
      local.arrays.emplace(name, std::move(lt));
      continue;
    }
    const std::string entity = first_dimension(target.field_view_sig, name);
    auto e = lp.part.entities.find(entity);
    if (e == lp.part.entities.end()) {
      local.arrays.emplace(name, f.clone());
      continue;
    }
    if (f.shape()[0] != lp.counts.at(entity))
      throw Error("'" + name + "' has " + std::to_string(f.shape()[0]) + " rows along " + entity +
                  ", but the mesh of " + o.parts_dir + " has " + std::to_string(lp.counts.at(entity)) + " " +
                  entity + " entities");
    local.arrays.emplace(name, local_rows(f, e->second));
  }
  // Sizes follow from the local shapes; values naming a partitioned entity's sizes would not.
  local.values = global.values;
  for (auto it = local.values.begin(); it != local.values.end();) {
    bool size = false;
    for (const auto& [entity, n] : lp.counts)
      size = size || it->first == entity || it->first.find("_" + entity + "_size") != std::string::npos;
    it = size ? local.values.erase(it) : std::next(it);
  }
  // Domain bounds given as scalars over a partitioned entity (domain={Cell: (0, n_cells)}).
  localize_bounds(target, lp, global, local);
  // Every array the program reads at halo rows on an entity of the partition gets them from
  // their owners, by UnstructuredHaloExchange nodes: before the program's first state, or for an
  // orchestration before every call that reads them after a write.
  std::map<std::string, std::string> exchanged;
  if (!orchestration)
    for (const auto& [name, entity] :
         rows_to_exchange(target.field_view_sig, target.connectivities, *target.sdfg.sdfg))
      if (lp.part.entities.count(entity)) exchanged.emplace(name, entity);
  // For the test that a needed exchange cannot be dropped: its halo rows stay NaN.
  if (const char* drop = std::getenv("WEIR_TEST_DROP_EXCHANGE"); drop && !orchestration) {
    if (!exchanged.erase(drop))
      throw Error("WEIR_TEST_DROP_EXCHANGE=" + std::string(drop) + ": '" + target.sig.program_name +
                  "' exchanges no array of that name");
    if (world.rank() == 0) std::cout << "dropped the exchange of " << drop << " (WEIR_TEST_DROP_EXCHANGE)\n";
  }
  PartitionedProgram program = orchestration ? PartitionedProgram(target.sdfg, target.connectivities)
                                             : PartitionedProgram(target.sdfg, exchanged);
  if (orchestration) exchanged = program.exchanged();
  if (!o.decomposed_sdfg.empty() && world.rank() == 0)
    write_sdfg(*program.compilable().sdfg, o.decomposed_sdfg);
  RowLists lists;
  for (const std::string& entity : program.entities()) {
    std::vector<PeerRows>& peers = lists[entity];
    for (const auto& l : lp.part.entities.at(entity).peers) peers.push_back(PeerRows{l.peer, l.send, l.recv});
  }
  const bool root = world.rank() == 0;
  if (root) {
    std::cout << "program '" << target.sig.program_name << "' on " << world.size() << " MPI rank"
              << (world.size() == 1 ? "" : "s") << ", partition " << o.parts_dir << " (" << primary
              << " split by METIS); " << program.exchanges() << " halo exchange"
              << (program.exchanges() == 1 ? "" : "s") << " of:";
    for (const auto& [n, entity] : exchanged) std::cout << " " << n << "(" << entity << ")";
    std::cout << "\n";
    if (program.reductions() > 0)
      std::cout << program.reductions() << " global reduction" << (program.reductions() == 1 ? "" : "s")
                << " over owned rows with MPI_Allreduce\n";
  }
  auto t0 = std::chrono::steady_clock::now();
  std::unique_ptr<runtime::CompiledBackend> mpi_backend = make_mpi_cpu_backend();
  if (root) program.prepare(*mpi_backend);
  world.barrier();
  if (!root) program.prepare(*mpi_backend);
  if (root) std::cout << "compiled (or loaded from the cache) in " << since(t0) << " s\n";

  world.barrier();
  auto t1 = std::chrono::steady_clock::now();
  std::map<std::string, std::int64_t> owned;
  for (const std::string& entity : program.reduced_entities())
    owned[entity] = lp.part.entities.at(entity).owned;
  program.run(local, lists, world_comm_handle(), owned);
  const double call_s = since(t1);
  world.barrier();

  // Each output's owned rows, by the global ids of its entity.
  for (const auto& p : target.sig.params) {
    if (!p.written || p.kind != Parameter::Kind::Array || !global.arrays.count(p.name)) continue;
    auto e = lp.part.entities.find(first_dimension(target.field_view_sig, p.name));
    if (e == lp.part.entities.end()) continue;
    const std::vector<std::int32_t> owned(e->second.global.begin(),
                                          e->second.global.begin() + e->second.owned);
    gather_rows(world, local.arrays.at(p.name), owned, global.arrays.at(p.name));
  }
  if (!root) return kExitOk;
  std::cout << "call 1 (its halo exchanges included): " << call_s * 1e3 << " ms (rank 0)\n";
  finish_outputs(target.sig, global, o.out_dir, given.input_files);
  return kExitOk;
}

}  // namespace

int run_parts(const RunOptions& o) { return on_every_rank(o, run); }

}  // namespace weir::cli
