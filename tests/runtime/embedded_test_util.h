// Helpers of the embedded-backend tests: field-view sources with a common prelude, fields filled
// by a function of their index, element access by multi-index.
#pragma once

#include <catch2/catch.hpp>
#include <cmath>
#include <functional>
#include <string>
#include <vector>

#include "gt4py_prelude.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/embedded.h"
#include "weir/runtime/errors.h"
#include "weir/runtime/field_view_program.h"

namespace weir::test::embedded {

using runtime::Arguments;
using runtime::Field;
using runtime::FieldViewProgram;

inline const std::string kPrelude =
    std::string(
        "import gt4py.next as gtx\n"
        "from gt4py.next import Field, Dims, float64, float32, int32, int64, neighbor_sum, max_over, "
        "min_over\n"
        "from gt4py.next import where, broadcast, astype, sqrt, exp, minimum, maximum\n"
        "from gt4py.next.experimental import concat_where, as_offset\n") +
    weir::test::kGt4pyDimensions;

/// `body` after the prelude, as module "test.py"; `name` its definition to run.
inline FieldViewProgram load(const std::string& body, const std::string& name) {
  return runtime::load_field_view_source(kPrelude + body, name, "test.py");
}

/// Row-major flat index of `idx` in `shape`.
inline std::int64_t flat(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& idx) {
  std::int64_t f = 0;
  for (std::size_t d = 0; d < shape.size(); ++d) f = f * shape[d] + idx[d];
  return f;
}

/// A field of `shape` whose element at flat index i is fn(i), stored as `dtype`.
inline Field make(std::vector<std::int64_t> shape, const std::function<double(std::int64_t)>& fn,
                  ScalarType dtype = ScalarType::Float64) {
  Field f = runtime::Allocator::cpu().allocate(dtype, shape);
  for (std::int64_t i = 0; i < f.size(); ++i) {
    double v = fn(i);
    void* p = static_cast<char*>(f.data()) + i * static_cast<std::int64_t>(f.itemsize());
    switch (dtype) {
      case ScalarType::Float64: *static_cast<double*>(p) = v; break;
      case ScalarType::Float32: *static_cast<float*>(p) = static_cast<float>(v); break;
      case ScalarType::Int32: *static_cast<std::int32_t*>(p) = static_cast<std::int32_t>(v); break;
      case ScalarType::Int64: *static_cast<std::int64_t*>(p) = static_cast<std::int64_t>(v); break;
      case ScalarType::Bool: *static_cast<bool*>(p) = v != 0; break;
      default: FAIL("unsupported dtype in test helper");
    }
  }
  return f;
}

/// A one-dimensional field holding `v`, stored as `dtype`.
inline Field from_values(const std::vector<double>& v, ScalarType dtype = ScalarType::Float64) {
  return make(
      {static_cast<std::int64_t>(v.size())}, [&](std::int64_t i) { return v[static_cast<std::size_t>(i)]; },
      dtype);
}

/// The elements of `f` in flat order, as doubles.
inline std::vector<double> values(const Field& f) {
  std::vector<double> v;
  for (std::int64_t i = 0; i < f.size(); ++i) v.push_back(f.value_as_double(i));
  return v;
}

/// A field of `shape` filled with `v`.
inline Field full(std::vector<std::int64_t> shape, double v, ScalarType dtype = ScalarType::Float64) {
  return make(
      std::move(shape), [v](std::int64_t) { return v; }, dtype);
}

/// Deterministic, irregular test values in [-1, 1): different for every index and seed.
inline double wave(std::int64_t i, int seed = 0) {
  return std::sin(0.7 * static_cast<double>(i) + 1.3 * seed) * 0.9 + 0.05 * seed;
}

/// The element of `f` at `idx`, as double.
inline double at(const Field& f, const std::vector<std::int64_t>& idx) {
  return f.value_as_double(flat(f.shape(), idx));
}

/// Runs `p` on the embedded backend.
inline void run_embedded(const FieldViewProgram& p, Arguments& args) {
  auto backend = runtime::make_backend("embedded");
  runtime::run(*backend, p, args);
}

/// |a - b| <= 1e-12 * max(1, |b|).
inline bool close(double a, double b, double rtol = 1e-12) {
  return std::abs(a - b) <= rtol * std::max(1.0, std::abs(b));
}

}  // namespace weir::test::embedded
