#include "weir/distributed/partitioned_program.h"

#include <cstring>

#include "weir/distributed/halo_exchange.h"
#include "weir/distributed/halo_rows.h"
#include "weir/distributed/mpi_world.h"
#include "weir/distributed/orchestration_rows.h"
#include "weir/distributed/row_reductions.h"
#include "weir/distributed/unstructured_exchange.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/lower_for_tables.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/auto_optimize.h"

namespace weir::distributed {

namespace {

// The dimension of a field-view size symbol `__<param>_<DIM>_size` ("" for other extents).
std::string first_entity(const runtime::Parameter& p) {
  if (p.kind != runtime::Parameter::Kind::Array || p.shape.empty()) return "";
  const std::string s = p.shape[0].str(), prefix = "__" + p.name + "_", suffix = "_size";
  if (s.size() <= prefix.size() + suffix.size() || s.rfind(prefix, 0) != 0 ||
      s.compare(s.size() - suffix.size(), std::string::npos, suffix) != 0)
    return "";
  return s.substr(prefix.size(), s.size() - prefix.size() - suffix.size());
}

// A list as a borrowed-free int32 array argument of `rows` rows of `cols` columns (cols 0: 1-d).
runtime::Field int32_array(const std::vector<std::int32_t>& v, std::int64_t rows, std::int64_t cols) {
  std::vector<std::int64_t> shape{rows};
  if (cols) shape.push_back(cols);
  runtime::Field f = runtime::Allocator::cpu().allocate(ScalarType::Int32, shape);
  if (!v.empty()) std::memcpy(f.data(), v.data(), v.size() * sizeof(std::int32_t));
  return f;
}

}  // namespace

std::map<std::string, std::string> rows_to_exchange(const runtime::Signature& sig,
                                                    const std::vector<runtime::ConnectivityParameter>& tables,
                                                    const SDFG& sdfg) {
  std::set<std::string> entities, names;
  for (const auto& t : tables) {
    entities.insert(t.from);
    entities.insert(t.to);
    names.insert(t.name);
  }
  // Only arrays read at halo rows (through a table, or to compute rows read so): an array read
  // at the row being written needs none, its halo rows only feed halo rows.
  const std::set<std::string> halo = halo_rows_read(sdfg);
  std::map<std::string, std::string> out;
  for (const auto& p : sig.params) {
    const std::string e = first_entity(p);
    if (!e.empty() && entities.count(e) && !names.count(p.name) && sdfg.has_data(p.name) &&
        reads_array(sdfg, p.name) && halo.count(p.name))
      out.emplace(p.name, e);
  }
  return out;
}

PartitionedProgram::PartitionedProgram(const runtime::FieldViewProgram& program) {
  const auto tables = runtime::connectivities_of(program);
  if (tables.empty())
    throw Error("'" + program.name() +
                "' reads no connectivity table: only unstructured programs are partitioned");
  if (program.orchestration) {
    // Exchanges go between the calls, placed before auto-optimize inlines them.
    program_ = runtime::lower_for_tables(program, {}, false);
    partition_orchestration(tables);
    return;
  }
  program_ = runtime::lower_for_tables(program, {}, true);
  exchanged_ = rows_to_exchange(runtime::field_view_signature(program), tables, *program_.sdfg);
  insert();
}

PartitionedProgram::PartitionedProgram(const runtime::CompilableProgram& lowered,
                                       const std::vector<runtime::ConnectivityParameter>& tables)
    : program_(lowered) {
  if (!lowered.sdfg) throw Error("PartitionedProgram: no SDFG to partition");
  partition_orchestration(tables);
}

void PartitionedProgram::partition_orchestration(const std::vector<runtime::ConnectivityParameter>& tables) {
  std::set<std::string> entities, names;
  for (const auto& t : tables) {
    entities.insert(t.from);
    entities.insert(t.to);
    names.insert(t.name);
  }
  std::unique_ptr<SDFG> sdfg = program_.sdfg->clone_sdfg();
  const OrchestrationRows rows = analyse_orchestration_rows(*sdfg, entities, names);
  exchanges_ = insert_call_row_exchanges(*sdfg, rows);
  for (const auto& [array, entity] : rows.once) exchanged_.emplace(array, entity);
  for (const auto& call : rows.calls)
    for (const auto& [array, entity] : call.exchanged) exchanged_.emplace(array, entity);
  on_entity_ = rows.entity;
  // Each rank reduces its owned rows; an MPI_Allreduce combines them.
  const RowReductions reduced = insert_row_reductions(*sdfg, entities);
  reductions_ = reduced.count;
  reduced_ = reduced.entities;
  transforms::auto_optimize(*sdfg, DeviceType::CPU);
  validate_or_throw(*sdfg);
  program_.sdfg = std::shared_ptr<const SDFG>(std::move(sdfg));
}

PartitionedProgram::PartitionedProgram(const runtime::CompilableProgram& compiled,
                                       std::map<std::string, std::string> exchanged)
    : exchanged_(std::move(exchanged)), program_(compiled) {
  if (!compiled.sdfg) throw Error("PartitionedProgram: no SDFG to partition");
  insert();
}

void PartitionedProgram::insert() {
  std::unique_ptr<SDFG> sdfg = program_.sdfg->clone_sdfg();
  exchanges_ = insert_unstructured_exchanges(*sdfg, exchanged_);
  on_entity_ = exchanged_;
  validate_or_throw(*sdfg);
  program_.sdfg = std::shared_ptr<const SDFG>(std::move(sdfg));
}

std::set<std::string> PartitionedProgram::entities() const {
  std::set<std::string> s;
  for (const auto& [array, entity] : exchanged_) s.insert(entity);
  return s;
}

void PartitionedProgram::prepare(const runtime::Backend& backend) {
  runnable_ = runtime::prepare(backend, program_);
}

void PartitionedProgram::run(runtime::Arguments& local, const RowLists& lists, std::int64_t comm,
                             const std::map<std::string, std::int64_t>& owned) const {
  const std::string what = "partitioned program '" + program_.sdfg->name + "'";
  if (!runnable_) throw Error(what + " is not prepared (call prepare() first)");
  const CommPlace place = comm_place(comm);
  // The lists and the communicator are arguments of this call only: `local` is left as given.
  std::vector<std::string> arrays, values;
  struct Drop {
    runtime::Arguments& args;
    std::vector<std::string>&arrays, &values;
    ~Drop() {
      for (const auto& n : arrays) args.arrays.erase(n);
      for (const auto& n : values) args.values.erase(n);
    }
  } drop{local, arrays, values};
  for (const std::string& entity : entities()) {
    auto it = lists.find(entity);
    if (it == lists.end())
      throw Error(what + ": no send/receive lists for " + entity + " (its arrays' halo rows are exchanged)");
    // The extent of the entity's local arrays, for the rows' check.
    std::int64_t rows = -1;
    std::string first;
    for (const auto& [array, e] : on_entity_) {
      auto f = local.arrays.find(array);
      if (e == entity && f != local.arrays.end() && !f->second.shape().empty()) {
        rows = f->second.shape()[0];
        first = array;
        break;
      }
    }
    std::vector<std::int32_t> peers, send, recv;
    std::set<int> seen;
    for (const PeerRows& p : it->second) {
      if (p.peer < 0 || p.peer >= place.size || p.peer == place.rank || !seen.insert(p.peer).second)
        throw Error(what + ": the " + entity + " lists name peer " + std::to_string(p.peer) + " on rank " +
                    std::to_string(place.rank) + " of a communicator of " + std::to_string(place.size) +
                    " ranks (each peer must be another rank, listed once)");
      for (const auto* l : {&p.send, &p.recv})
        for (std::int32_t r : *l)
          if (r < 0 || (rows >= 0 && r >= rows))
            throw Error(what + ": the " + entity + " lists with peer " + std::to_string(p.peer) +
                        " name row " + std::to_string(r) + ", outside the " + std::to_string(rows) +
                        " local rows of '" + first + "'");
      peers.insert(peers.end(), {p.peer, static_cast<std::int32_t>(p.send.size()),
                                 static_cast<std::int32_t>(p.recv.size())});
      send.insert(send.end(), p.send.begin(), p.send.end());
      recv.insert(recv.end(), p.recv.begin(), p.recv.end());
    }
    auto add = [&](const std::string& name, runtime::Field f) {
      local.arrays.insert_or_assign(name, std::move(f));
      arrays.push_back(name);
    };
    add(peers_argument(entity), int32_array(peers, static_cast<std::int64_t>(it->second.size()), 3));
    add(send_argument(entity), int32_array(send, static_cast<std::int64_t>(send.size()), 0));
    add(recv_argument(entity), int32_array(recv, static_cast<std::int64_t>(recv.size()), 0));
  }
  for (const std::string& entity : reduced_) {
    auto it = owned.find(entity);
    if (it == owned.end())
      throw Error(what + ": no count of the owned " + entity + " rows (its reductions reduce over them)");
    std::int64_t rows = -1;
    for (const auto& [array, e] : on_entity_)
      if (auto f = local.arrays.find(array);
          e == entity && f != local.arrays.end() && !f->second.shape().empty())
        rows = f->second.shape()[0];
    if (it->second < 0 || (rows >= 0 && it->second > rows))
      throw Error(what + ": " + std::to_string(it->second) + " owned " + entity + " rows on rank " +
                  std::to_string(place.rank) + ", but its " + entity + " arrays have " +
                  std::to_string(rows) + " local rows");
    local.values[owned_symbol(entity)] = runtime::Number(it->second);
    values.push_back(owned_symbol(entity));
  }
  if (!exchanged_.empty() || reductions_ > 0) {
    local.values[kCommArgument] = runtime::Number(comm);
    values.push_back(kCommArgument);
  }
  runnable_->run(local);
}

}  // namespace weir::distributed
