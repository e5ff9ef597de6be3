// `weir mesh --nx N --ny M -o DIR`: writes the connectivity tables of a periodic triangular
// mesh (weir/mesh/triangular_mesh.h) as DIR/<TABLE>.npy (int32, shape (rows, neighbours)),
// ready to pass to unstructured programs as their offset providers.
// `weir mesh --parts N --program FILE.py::NAME (--nx N --ny M | --tables DIR) -o DIR`: partitions
// that mesh (or the user's own tables) for `weir run --parts` (partition_files.h, docs/adr/0060).
#include <CLI/CLI.hpp>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "backend_choice.h"
#include "commands.h"
#include "mesh_program.h"
#include "partition_files.h"
#include "run_target.h"
#include "weir/mesh/partition.h"
#include "weir/mesh/triangular_mesh.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/npy.h"

namespace weir::cli {
namespace {

namespace fs = std::filesystem;

struct MeshOpts {
  int nx = 0, ny = 0, parts = 0;
  std::string out, program, tables;
  std::vector<std::string> includes;  // -I: module search path of --program (as `weir run -I`)
};

// Table `c` from the user's DIR/<NAME>.npy: a 2-d int32 or int64 array.
mesh::PartitionTable user_table(const fs::path& dir, const runtime::ConnectivityParameter& c) {
  const fs::path file = dir / (c.name + ".npy");
  if (!fs::exists(file))
    throw Error(file.string() + ": missing connectivity table '" + c.name + "' the program reads (rows " +
                c.from + ", entries " + c.to + ")");
  runtime::Field f = runtime::read_npy(file);
  if (f.shape().size() != 2 || (f.dtype() != ScalarType::Int32 && f.dtype() != ScalarType::Int64))
    throw Error(file.string() + ": connectivity table '" + c.name +
                "' must be a 2-d int32 or int64 array (rows " + c.from + ", one column per neighbour), got " +
                f.describe());
  mesh::PartitionTable t{c.name, c.from, c.to, f.shape()[0], f.shape()[1], {}};
  t.data.resize(static_cast<std::size_t>(f.size()));
  for (std::size_t k = 0; k < t.data.size(); ++k) {
    const std::int64_t v = f.dtype() == ScalarType::Int32 ? static_cast<const std::int32_t*>(f.data())[k]
                                                          : static_cast<const std::int64_t*>(f.data())[k];
    if (v != static_cast<std::int32_t>(v))
      throw Error(file.string() + ": entry " + std::to_string(v) + " of '" + c.name + "' does not fit int32");
    t.data[k] = static_cast<std::int32_t>(v);
  }
  return t;
}

int write_partition_of(const MeshOpts& o) {
  if (o.program.empty())
    throw std::invalid_argument(
        "--parts needs --program FILE.py::NAME: the program's outputs and connectivity chains decide what is "
        "split and how wide the halos are");
  if ((o.nx || o.ny) == !o.tables.empty())
    throw std::invalid_argument(
        "--parts partitions either a generated mesh (--nx N --ny M) or your tables "
        "(--tables DIR): give one of them");
  RunOptions ro;
  ro.program = o.program;
  ro.includes = o.includes;
  ro.backend = "embedded";
  std::unique_ptr<runtime::Backend> backend = choose_backend("embedded", "", false);
  RunTarget target = load_target(ro, *backend);
  const std::string primary = primary_entity(target);
  std::vector<mesh::PartitionTable> tables;
  std::optional<mesh::TriangularMesh> generated;
  if (o.tables.empty()) generated = mesh::make_triangular_mesh(o.nx, o.ny);
  for (const auto& c : target.connectivities) {
    if (!generated) {
      tables.push_back(user_table(o.tables, c));
      continue;
    }
    const mesh::Connectivity& g = generated->table(c.name);
    tables.push_back(mesh::PartitionTable{c.name, c.from, c.to, g.rows, g.cols, g.data});
  }
  std::int64_t cut = 0;
  std::vector<int> owner = mesh::metis_parts(tables, primary, o.parts, &cut);
  // An orchestration's calls write fields on every entity: each part computes all it owns, from
  // the rows each call's own tables reach.
  mesh::MeshPartition m =
      mesh::partition_mesh(tables, primary, owner, o.parts, is_orchestration(target), call_chains(target));
  m.edge_cut = cut;
  write_partition(o.out, m, o.program);
  std::cout << "partitioned " << m.counts.at(primary) << " " << primary << " entities of '"
            << target.field_view_sig.program_name << "' into " << o.parts << " part"
            << (o.parts == 1 ? "" : "s") << " with METIS (edge cut " << cut << "), halos through";
  for (const auto& t : tables) std::cout << " " << t.name;
  if (m.every_entity) std::cout << " from the owned rows of every entity";
  if (!m.calls.empty()) std::cout << " a call writes, through that call's tables";
  std::cout << "; wrote " << o.out << "\n";
  for (std::size_t p = 0; p < m.parts.size(); ++p) {
    std::cout << "  part " << p << ":";
    for (const auto& [entity, e] : m.parts[p].entities)
      std::cout << " " << entity << " " << e.owned << " owned + " << (e.global.size() - e.owned) << " halo;";
    std::cout << "\n";
  }
  return kExitOk;
}

}  // namespace

Action add_mesh_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("mesh",
                                 "Write the connectivity tables of a periodic triangular mesh as .npy files, "
                                 "or (--parts N) partition a mesh "
                                 "for `weir run --parts` (docs/distributed.md)");
  auto o = std::make_shared<MeshOpts>();
  cmd->add_option("--nx", o->nx, "Vertices along x (>= 3)");
  cmd->add_option("--ny", o->ny, "Vertices along y (>= 3)");
  cmd->add_option("-o,--output,--out", o->out,
                  "Directory to write <TABLE>.npy (or the partition) into (created if missing)")
      ->required();
  cmd->add_option(
      "--parts", o->parts,
      "N: partition the mesh into N parts with METIS for `mpirun -np N weir run --parts DIR` (needs "
      "--program)");
  cmd->add_option(
      "--program", o->program,
      "FILE.py::NAME: the unstructured program the partition is for (its outputs' entity is split, "
      "its connectivity chains decide the halos)");
  cmd->add_option("-I,--include", o->includes,
                  "Directory searched for modules the --program file imports (repeatable; WEIR_PATH is "
                  "searched too), as for `weir run -I`");
  cmd->add_option(
      "--tables", o->tables,
      "DIR: partition your own tables DIR/<TABLE>.npy (int32 or int64, one row per entity) instead "
      "of a generated --nx x --ny mesh");
  auto* parts = cmd->get_option("--parts");
  auto* nx = cmd->get_option("--nx");
  auto* ny = cmd->get_option("--ny");
  return [o, parts, nx, ny]() {
    try {
      if (parts->count()) {
        if (o->parts < 1)
          throw std::invalid_argument("--parts " + std::to_string(o->parts) + ": expected at least 1");
        return write_partition_of(*o);
      }
      if (!o->includes.empty())
        throw std::invalid_argument("-I " + o->includes.front() +
                                    ": a module search path for --program, which only --parts N reads");
      // Given but too small (`--nx 0`) is make_triangular_mesh's "needs nx, ny >= 3, got 0 x 4".
      if (!nx->count() || !ny->count())
        throw std::invalid_argument("--nx and --ny are required (the vertices of the mesh along x and y)");
      mesh::TriangularMesh m = mesh::make_triangular_mesh(o->nx, o->ny);
      fs::create_directories(o->out);
      for (const mesh::Connectivity* c : m.tables()) {
        runtime::Field f = runtime::Allocator::cpu().allocate(ScalarType::Int32, {c->rows, c->cols});
        std::memcpy(f.data(), c->data.data(), c->data.size() * sizeof(std::int32_t));
        // Atomically (write_file_atomically): an existing table is replaced whole or not at all.
        runtime::write_npy(fs::path(o->out) / (c->name + ".npy"), f);
      }
      std::cout << "wrote " << m.tables().size() << " tables of a " << o->nx << " x " << o->ny << " mesh ("
                << m.num_vertices << " vertices, " << m.num_edges << " edges, " << m.num_cells
                << " cells) to " << o->out << "\n";
      return kExitOk;
    } catch (const std::invalid_argument& e) {
      return print_error(e.what(), kExitUsage);
    } catch (const std::exception& e) {
      return print_error(e.what(), kExitInvalidInput);
    }
  };
}

}  // namespace weir::cli
