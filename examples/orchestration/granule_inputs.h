// Inputs of examples/orchestration/diffusion_granule.py and half_level_granule.py on weir's
// periodic triangular mesh, for the tests (tests/orchestration) and the benchmark
// (bench/tools/orchestration_bench.cpp): smooth fields, weights, a mask, the connectivity tables
// and the scalars.
#pragma once

#include <algorithm>
#include <cmath>
#include <string>

#include "weir/mesh/triangular_mesh.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/arguments.h"

namespace weir::examples {

/// A float64 field of `shape` with element i = fn(i).
template <class F>
runtime::Field granule_field(std::vector<std::int64_t> shape, F fn) {
  runtime::Field f = runtime::Allocator::cpu().allocate(ScalarType::Float64, shape);
  for (std::int64_t i = 0; i < f.size(); ++i) static_cast<double*>(f.data())[i] = fn(i);
  return f;
}

/// The C2E divergence weights of both granules (geofac_div).
inline runtime::Field divergence_weights(const mesh::TriangularMesh& m) {
  return granule_field({m.num_cells, 3},
                       [](std::int64_t i) { return 0.3 + 0.05 * static_cast<double>(i % 5); });
}

/// Connectivity table `name` of mesh `m` as an int32 argument of that name.
inline void add_table(runtime::Arguments& a, const mesh::TriangularMesh& m, const std::string& name) {
  const mesh::Connectivity& c = m.table(name);
  runtime::Field f = runtime::Allocator::cpu().allocate(ScalarType::Int32, {c.rows, c.cols});
  std::copy(c.data.begin(), c.data.end(), static_cast<std::int32_t*>(f.data()));
  a.arrays.emplace(name, std::move(f));
}

/// Arguments of diffusion_granule on mesh `m` with `levels` levels.
inline runtime::Arguments granule_args(const mesh::TriangularMesh& m, std::int64_t levels, std::int64_t steps,
                                       bool apply_theta) {
  runtime::Arguments a;
  auto smooth = [](double s) {
    return [s](std::int64_t i) { return std::sin(s * static_cast<double>(i)) + 2.0; };
  };
  auto zero = [](std::int64_t) { return 0.0; };
  a.arrays.emplace("vn", granule_field({m.num_edges, levels}, smooth(0.13)));
  a.arrays.emplace("vn_new", granule_field({m.num_edges, levels}, zero));
  a.arrays.emplace("w", granule_field({m.num_cells, levels}, smooth(0.29)));
  a.arrays.emplace("w_new", granule_field({m.num_cells, levels}, zero));
  a.arrays.emplace("theta", granule_field({m.num_cells, levels}, smooth(0.07)));
  a.arrays.emplace("theta_new", granule_field({m.num_cells, levels}, zero));
  a.arrays.emplace("e_weights", granule_field({m.num_edges, 5}, [](std::int64_t i) {
                     return i % 5 == 0 ? -1.0 : 0.25 + 0.01 * static_cast<double>(i % 3);
                   }));
  a.arrays.emplace("inv_dual", granule_field({m.num_edges}, [](std::int64_t i) {
                     return 1.0 + 0.1 * static_cast<double>(i % 4);
                   }));
  a.arrays.emplace("geofac_div", divergence_weights(m));
  runtime::Field mask = runtime::Allocator::cpu().allocate(ScalarType::Bool, {m.num_cells, levels});
  for (std::int64_t i = 0; i < mask.size(); ++i) static_cast<bool*>(mask.data())[i] = (i % 3) != 0;
  a.arrays.emplace("mask", std::move(mask));
  for (const char* t : {"V2C", "E2C2V", "C2E", "E2C2EO", "E2C"}) add_table(a, m, t);
  a.values["dt"] = 0.02;
  a.values["smag_fac"] = 0.15;
  a.values["n_steps"] = steps;
  a.values["apply_theta"] = apply_theta;
  a.values["n_vertices"] = m.num_vertices;
  a.values["n_edges"] = m.num_edges;
  a.values["n_cells"] = m.num_cells;
  a.values["n_levels"] = levels;
  return a;
}

/// Arguments of half_level_granule on mesh `m` with `nlev` full levels (w and w_new on nlev + 1
/// half levels), `substeps` substeps, over the cells [start, end); w_full is filled with -1 (its
/// cells outside the range keep it), w_new with 7.
inline runtime::Arguments half_level_granule_args(const mesh::TriangularMesh& m, std::int64_t nlev,
                                                  std::int64_t substeps, std::int64_t start,
                                                  std::int64_t end) {
  runtime::Arguments a;
  auto wave = [](double s, double base) {
    return [s, base](std::int64_t i) { return std::sin(s * static_cast<double>(i)) + base; };
  };
  a.arrays.emplace("w", granule_field({m.num_cells, nlev + 1}, wave(0.3, 2.0)));
  a.arrays.emplace("w_new", granule_field({m.num_cells, nlev + 1}, [](std::int64_t) { return 7.0; }));
  a.arrays.emplace("theta", granule_field({m.num_cells, nlev}, wave(0.11, 3.0)));
  a.arrays.emplace("vn", granule_field({m.num_edges, nlev}, wave(0.17, 0.0)));
  a.arrays.emplace("geofac_div", divergence_weights(m));
  a.arrays.emplace("w_full", granule_field({m.num_cells, nlev}, [](std::int64_t) { return -1.0; }));
  add_table(a, m, "C2E");
  a.values["wgt"] = 0.6;
  a.values["dtime"] = 0.3;
  a.values["n_substeps"] = substeps;
  a.values["horizontal_start"] = start;
  a.values["horizontal_end"] = end;
  a.values["n_cells"] = m.num_cells;
  a.values["nlev"] = nlev;
  return a;
}

}  // namespace weir::examples
