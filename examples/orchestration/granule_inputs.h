// Inputs of examples/orchestration/diffusion_granule.py on weir's periodic triangular mesh, for
// the tests (tests/orchestration) and the benchmark (bench/tools/orchestration_bench.cpp):
// smooth fields, weights, a mask, the five connectivity tables and the scalars.
#pragma once

#include <algorithm>
#include <cmath>

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
  a.arrays.emplace("geofac_div", granule_field({m.num_cells, 3}, [](std::int64_t i) {
                     return 0.3 + 0.05 * static_cast<double>(i % 5);
                   }));
  runtime::Field mask = runtime::Allocator::cpu().allocate(ScalarType::Bool, {m.num_cells, levels});
  for (std::int64_t i = 0; i < mask.size(); ++i) static_cast<bool*>(mask.data())[i] = (i % 3) != 0;
  a.arrays.emplace("mask", std::move(mask));
  for (const char* t : {"V2C", "E2C2V", "C2E", "E2C2EO", "E2C"}) {
    const mesh::Connectivity& c = m.table(t);
    runtime::Field f = runtime::Allocator::cpu().allocate(ScalarType::Int32, {c.rows, c.cols});
    std::copy(c.data.begin(), c.data.end(), static_cast<std::int32_t*>(f.data()));
    a.arrays.emplace(t, std::move(f));
  }
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

}  // namespace weir::examples
