// Sizes presets and the helpers shared by the kernel case files.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <stdexcept>

#include "kernel_cases.h"
#include "weir/runtime/allocator.h"
#include "weir/sdfg/serialize.h"
#include "weir_steps.h"

namespace weir::bench {

Sizes Sizes::tiny() {
  Sizes s;
  s.preset = "tiny";
  s.ni = 12, s.nj = 10, s.nk = 6;
  s.n2d = 34, s.tsteps = 3;
  s.mesh_nx = 6, s.mesh_ny = 5, s.mesh_nk = 4;
  s.stream_n = 1 << 14;
  s.repeats = 2, s.warmup = 1;
  return s;
}

Sizes Sizes::full() {
  Sizes s;
  s.preset = "full";
  return s;
}

double max_rel_error(const runtime::Arguments& got, const runtime::Arguments& ref,
                     const std::vector<std::string>& outputs) {
  double diff = 0, scale = 0;
  for (const auto& name : outputs) {
    const runtime::Field& a = got.arrays.at(name);
    const runtime::Field& r = ref.arrays.at(name);
    if (a.size() != r.size()) return INFINITY;
    for (std::int64_t i = 0; i < r.size(); ++i) {
      double x = a.value_as_double(i), y = r.value_as_double(i);
      if (std::isnan(x) != std::isnan(y)) return INFINITY;
      diff = std::max(diff, std::abs(x - y));
      scale = std::max(scale, std::abs(y));
    }
  }
  return scale > 0 ? diff / scale : diff;
}

runtime::Field random_field(const std::vector<std::int64_t>& shape, std::uint64_t seed, double lo,
                            double hi) {
  runtime::Field f = runtime::Allocator::cpu().allocate(ScalarType::Float64, shape);
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  auto* d = static_cast<double*>(f.data());
  for (std::int64_t i = 0; i < f.size(); ++i) d[i] = dist(rng);
  return f;
}

runtime::Field int32_field(const std::vector<std::int64_t>& shape, const std::vector<std::int32_t>& values) {
  runtime::Field f = runtime::Allocator::cpu().allocate(ScalarType::Int32, shape);
  if (static_cast<std::size_t>(f.size()) != values.size())
    throw std::logic_error("int32_field: " + std::to_string(values.size()) + " values for shape " +
                           runtime::shape_str(shape));
  std::memcpy(f.data(), values.data(), values.size() * sizeof(std::int32_t));
  return f;
}

double* f64(runtime::Arguments& a, const std::string& name) {
  auto it = a.arrays.find(name);
  if (it == a.arrays.end() || it->second.dtype() != ScalarType::Float64)
    throw std::logic_error("benchmark arguments have no float64 array '" + name + "'");
  return static_cast<double*>(it->second.data());
}

Variant field_view_variant(const Paths& p, const std::string& rel_file, const std::string& program,
                           const std::string& layout, const std::string& without) {
  if (!without.empty() && without != "plain stores" && without != "no prefetch" &&
      without != "compiler's lanes")
    throw std::invalid_argument("field_view_variant: unknown variant '" + without + "'");
  Variant v;
  v.name = without.empty() ? "weir" : "weir(" + without + ")";
  v.detail = rel_file + "::" + program + " + " + optimization_pipeline_name() +
             (without.empty() ? "" : ", compiled with " + without);
  v.layout = layout;
  v.plain_stores = without == "plain stores";
  v.no_prefetch = without == "no prefetch";
  v.compiler_lanes = without == "compiler's lanes";
  std::string file = p.root + "/" + rel_file;
  if (!std::filesystem::exists(file)) v.skip = rel_file + " does not exist yet";
  // weir tune searches around the `weir` variant only (src/tune_bench.cpp).
  if (without.empty()) v.tune_source = file + "::" + program;
  v.make_sdfg = [file, program] {
    FieldViewModule m = load_field_view(file);
    auto sdfg = lower(m, program);
    optimize(*sdfg);
    return sdfg;
  };
  return v;
}

Variant corpus_variant(const Paths& p, const std::string& kernel, const std::string& stage,
                       bool weir_optimize, const std::string& layout) {
  Variant v;
  std::string short_stage = stage == "auto_optimized_cpu" ? "dace-auto-opt" : "dace-" + stage;
  v.name = weir_optimize ? "weir-opt(" + short_stage + ")" : short_stage;
  std::string rel = kernel + "/" + kernel + "." + stage + ".sdfg";
  v.detail = "corpus " + rel + (weir_optimize ? " + " + optimization_pipeline_name() : "");
  v.layout = layout;
  std::string file = p.corpus + "/" + rel;
  if (weir_optimize) v.tune_source = file;
  if (!std::filesystem::exists(file))
    v.make_sdfg = [file]() -> std::unique_ptr<SDFG> {
      throw std::runtime_error("corpus file " + file +
                               " is missing (the corpus must be at ../shared/corpus)");
    };
  else
    v.make_sdfg = [file, weir_optimize] {
      auto sdfg = load_sdfg(file);
      if (weir_optimize) optimize(*sdfg);
      return sdfg;
    };
  return v;
}

}  // namespace weir::bench
