// `weir mesh --nx N --ny M -o DIR`: writes the connectivity tables of a periodic triangular
// mesh (weir/mesh/triangular_mesh.h) as DIR/<TABLE>.npy (int32, shape (rows, neighbours)),
// ready to pass to unstructured programs as their offset providers.
#include <CLI/CLI.hpp>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <stdexcept>

#include "commands.h"
#include "weir/mesh/triangular_mesh.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/npy.h"

namespace weir::cli {

Action add_mesh_command(CLI::App& app) {
  auto* cmd =
      app.add_subcommand("mesh", "Write the connectivity tables of a periodic triangular mesh as .npy files");
  struct Opts {
    int nx = 0, ny = 0;
    std::string out;
  };
  auto o = std::make_shared<Opts>();
  cmd->add_option("--nx", o->nx, "Vertices along x (>= 3)")->required();
  cmd->add_option("--ny", o->ny, "Vertices along y (>= 3)")->required();
  cmd->add_option("-o,--output", o->out, "Directory to write <TABLE>.npy into (created if missing)")
      ->required();
  return [o]() {
    namespace fs = std::filesystem;
    try {
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
