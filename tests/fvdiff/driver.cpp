#include "driver.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <map>
#include <random>
#include <sstream>

#include "../transforms/support/cpu_run.h"
#include "cuda_emulation.h"
#include "gt4py_writer.h"
#include "numpy_writer.h"
#include "unstructured_generator.h"
#include "weir/frontend/lowering.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/field_view_program.h"
#include "weir/runtime/npy.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/auto_optimize.h"

namespace fs = std::filesystem;

namespace weir::fvdiff {

namespace {

ScalarType scalar_type(DType t) {
  switch (t) {
    case DType::Float64: return ScalarType::Float64;
    case DType::Int32: return ScalarType::Int32;
    case DType::Bool: return ScalarType::Bool;
  }
  return ScalarType::Void;
}

std::vector<std::int64_t> shape_of(const Universe& u, unsigned dims, const std::string& local) {
  std::vector<std::int64_t> s;
  for (int d = 0; d < kNumDims; ++d)
    if (dims & (1u << d)) s.push_back(u.sizes[d]);
  for (const Table& t : u.tables)
    if (!local.empty() && t.local == local) s.push_back(t.cols);
  return s;
}

runtime::Field random_field(const std::vector<std::int64_t>& shape, DType t, double lo, double hi,
                            bool nonzero, std::mt19937_64& rng) {
  runtime::Field f = runtime::Allocator::cpu().allocate(scalar_type(t), shape);
  for (std::int64_t i = 0; i < f.size(); ++i) {
    if (t == DType::Float64) {
      static_cast<double*>(f.data())[i] = std::uniform_real_distribution<double>(lo, hi)(rng);
    } else if (t == DType::Int32) {
      std::int32_t v = 0;
      do v = std::uniform_int_distribution<std::int32_t>(static_cast<int>(lo), static_cast<int>(hi))(rng);
      while (nonzero && v == 0);
      static_cast<std::int32_t*>(f.data())[i] = v;
    } else {
      static_cast<std::uint8_t*>(f.data())[i] = static_cast<std::uint8_t>(rng() & 1);
    }
  }
  return f;
}

std::size_t num_results(const SubProgram& sp) { return sp.is_scan ? sp.scan.body.size() : sp.results.size(); }
DType result_dtype(const SubProgram& sp, std::size_t r) {
  return sp.is_scan ? DType::Float64 : sp.results[r]->dtype;
}

// Values agree: exactly for integers and bools (and equal dtypes); within a few ulps relative
// for float64, NaN matching NaN.
bool same_value(ScalarType t, double g, double w) {
  if (t != ScalarType::Float64) return g == w;
  if (std::isnan(g) || std::isnan(w)) return std::isnan(g) && std::isnan(w);
  return g == w ||
         std::abs(g - w) <= 4 * std::numeric_limits<double>::epsilon() * std::max(std::abs(g), std::abs(w));
}

std::string first_mismatch(const runtime::Field& got, const runtime::Field& want) {
  if (got.dtype() != want.dtype())
    return "dtype " + std::string(to_string(got.dtype())) + ", expected " +
           std::string(to_string(want.dtype()));
  if (got.shape() != want.shape())
    return "shape " + runtime::shape_str(got.shape()) + ", expected " + runtime::shape_str(want.shape());
  std::int64_t bad = 0, first = -1;
  for (std::int64_t i = 0; i < want.size(); ++i)
    if (!same_value(want.dtype(), got.value_as_double(i), want.value_as_double(i)) && bad++ == 0) first = i;
  if (!bad) return "";
  std::ostringstream o;
  o << std::setprecision(17) << bad << " of " << want.size() << " values differ; first at index (";
  std::int64_t rest = first;
  std::vector<std::int64_t> idx(want.shape().size());
  for (std::size_t d = want.shape().size(); d-- > 0;)
    idx[d] = rest % want.shape()[d], rest /= want.shape()[d];
  for (std::size_t d = 0; d < idx.size(); ++d) o << (d ? ", " : "") << idx[d];
  o << "): got " << got.value_as_double(first) << ", expected " << want.value_as_double(first);
  return o.str();
}

void write_file(const fs::path& p, const std::string& text) {
  std::ofstream f(p);
  f << text;
}

Finding finding(const SubProgram& sp, std::string variant, std::string what) {
  Finding f;
  f.seed = sp.seed;
  f.number = sp.number;
  f.variant = std::move(variant);
  f.what = std::move(what);
  f.source = write_gt4py_module({&sp});
  f.numpy = write_numpy_script({&sp});
  return f;
}

/// The cpu backend with its optimization flag replaced by `opt` (e.g. "-O1"); as configured by
/// default when `opt` is empty.
std::unique_ptr<runtime::CompiledBackend> cpu_backend(const std::string& opt) {
  return runtime::make_cpu_backend(test::cpu_config(opt));
}

}  // namespace

std::string run_variant(const std::string& variant, const runtime::FieldViewProgram& fv,
                        runtime::Arguments& args, const std::string& opt) {
  try {
    if (variant == "cpu-lowered") {
      std::shared_ptr<SDFG> sdfg = frontend::lower_to_sdfg(*fv.definition);
      for (const Diagnostic& d : validate(*sdfg)) return "lowered SDFG does not validate: " + d.str();
      runtime::run(*cpu_backend(opt), runtime::CompilableProgram{sdfg, fv.options, fv.origin}, args);
    } else if (variant == "cpu-gpu") {
      // auto_optimize for the GPU; the cpu backend runs its kernels as host loops.
      std::shared_ptr<SDFG> sdfg = frontend::lower_to_sdfg(*fv.definition);
      transforms::auto_optimize(*sdfg, DeviceType::GPU);
      for (const Diagnostic& d : validate(*sdfg)) return "GPU-optimized SDFG does not validate: " + d.str();
      runtime::run(*cpu_backend(opt), runtime::CompilableProgram{sdfg, fv.options, fv.origin}, args);
    } else if (variant == "cpu") {
      runtime::run(*cpu_backend(opt), fv, args);
    } else if (variant == "cuda-emulation") {
      // The CUDA code generator's program (GPU placement, kernels, device faults) compiled as
      // host C++ with codegen/emulation's runtime: what nvcc would be given, run without a GPU.
      runtime::run(*test::make_cuda_emulation_backend(), fv, args);
    } else {
      runtime::run(*runtime::make_backend(variant), fv, args);
    }
  } catch (const std::exception& e) {
    std::string m = e.what();
    return m.empty() ? "(error without message)" : m;
  }
  return "";
}

bool is_unstructured(std::uint64_t number) { return number % 4 == 3; }

const std::vector<std::string>& variants() {
  static const std::vector<std::string> v = {"embedded", "cpu-lowered", "cpu", "cpu-gpu", "cuda-emulation"};
  return v;
}

std::string Finding::str() const {
  std::ostringstream o;
  o << "program " << number << " of seed " << seed << " on " << variant << ": " << what
    << "\n  reproduce: WEIR_FVFUZZ_SEED=" << seed << " WEIR_FVFUZZ_FIRST=" << number
    << " WEIR_FVFUZZ_PROGRAMS=1\n"
    << "--- gt4py source ---\n"
    << source << "--- NumPy meaning ---\n"
    << numpy;
  return o.str();
}

std::vector<Finding> run_programs(const std::vector<const SubProgram*>& programs, const fs::path& dir,
                                  bool isolate, RunSummary* summary, const std::string& opt) {
  std::vector<Finding> out;
  const Universe& u = *programs.front()->universe;
  fs::remove_all(dir);
  fs::create_directories(dir / "in");
  const std::string source = write_gt4py_module(programs);
  write_file(dir / "fuzz.py", source);

  // Inputs and initial outputs: random, seeded by the first program.
  std::mt19937_64 rng(programs.front()->seed * 31 + programs.front()->number);
  std::map<std::string, runtime::Field> arrays;
  std::map<std::string, runtime::Number> values;
  for (const Input* i : inputs_used(programs)) {
    if (i->dims == 0) {
      if (i->dtype == DType::Float64)
        values[i->name] = i->scalar;
      else
        values[i->name] = static_cast<std::int64_t>(i->scalar);
      continue;
    }
    arrays.emplace(i->name,
                   random_field(shape_of(u, i->dims, i->local), i->dtype, i->lo, i->hi, i->nonzero, rng));
  }
  // The README promises int32 and int64 tables; a batch has one or the other.
  const bool wide = programs.front()->int64_tables;
  for (const Table* t : tables_used(programs)) {
    runtime::Field f =
        runtime::Allocator::cpu().allocate(wide ? ScalarType::Int64 : ScalarType::Int32, {t->rows, t->cols});
    for (std::size_t i = 0; i < t->data.size(); ++i)
      if (wide)
        static_cast<std::int64_t*>(f.data())[i] = t->data[i];
      else
        static_cast<std::int32_t*>(f.data())[i] = t->data[i];
    arrays.emplace(t->name, std::move(f));
  }
  for (const SubProgram* sp : programs)
    for (std::size_t r = 0; r < num_results(*sp) && sp->out_alias.empty(); ++r)
      arrays.emplace(sp->out_name(r),
                     random_field(shape_of(u, sp->out_dims, ""), result_dtype(*sp, r), -9, 9, false, rng));
  for (const auto& [name, f] : arrays) runtime::write_npy(dir / "in" / (name + ".npy"), f);

  bool any_valid = false, all_refused = true;
  for (const SubProgram* sp : programs) any_valid |= !sp->expect_error, all_refused &= sp->expect_error;
  if (any_valid) {
    write_file(dir / "reference.py", write_numpy_script(programs));
    std::string cmd = "/usr/bin/python3 '" + (dir / "reference.py").string() + "' '" + (dir / "in").string() +
                      "' '" + (dir / "expected").string() + "' > '" + (dir / "reference.log").string() +
                      "' 2>&1";
    if (std::system(cmd.c_str()) != 0) {
      std::ifstream log(dir / "reference.log");
      std::string text((std::istreambuf_iterator<char>(log)), {});
      for (const SubProgram* sp : programs)
        out.push_back(finding(*sp, "numpy", "the NumPy meaning failed: " + text));
      return out;
    }
  }

  // A batch that fails as a whole is split in halves until each finding names one program; when
  // no half fails alone, the programs fail only together, and the batch is the finding.
  auto bisect = [&](const std::string& variant, const std::string& error) {
    std::vector<const SubProgram*> lo(programs.begin(),
                                      programs.begin() + static_cast<long>(programs.size() / 2));
    std::vector<const SubProgram*> hi(programs.begin() + static_cast<long>(programs.size() / 2),
                                      programs.end());
    for (auto* half : {&lo, &hi})
      for (Finding& f : run_programs(*half, dir.string() + "-" + std::to_string(half->front()->number), true,
                                     summary, opt))
        out.push_back(std::move(f));
    if (out.empty()) {
      Finding f =
          finding(*programs.front(), variant,
                  "programs " + std::to_string(programs.front()->number) + ".." +
                      std::to_string(programs.back()->number) + " fail together, none alone: " + error);
      f.source = source;
      out.push_back(std::move(f));
    }
    return out;
  };
  const bool split = isolate && programs.size() > 1;

  runtime::FieldViewProgram fv;
  try {
    fv = runtime::load_field_view_source(source, kProgramName, (dir / "fuzz.py").string());
  } catch (const std::exception& e) {
    if (split) return bisect("frontend", e.what());
    // Refused by the frontend: right only where every backend has to refuse.
    if (!all_refused)
      out.push_back(finding(*programs.front(), "frontend", std::string("refused: ") + e.what()));
    return out;
  }

  ::setenv("WEIR_CACHE_DIR", (dir.parent_path() / "cache").c_str(), 1);
  if (summary) summary->compiled_modules += 1;
  std::vector<const SubProgram*> wrong;
  for (const std::string& variant : variants()) {
    runtime::Arguments args;
    for (const auto& [name, f] : arrays) args.arrays.emplace(name, f.clone());
    args.values = values;
    std::string error = run_variant(variant, fv, args, opt);
    if (all_refused) {
      if (error.empty())
        for (const SubProgram* sp : programs)
          out.push_back(finding(*sp, variant, "ran, but must be refused: " + sp->why));
      continue;
    }
    if (!error.empty()) {
      if (split) return bisect(variant, error);
      out.push_back(finding(*programs.front(), variant, "refused a valid program: " + error));
      continue;
    }
    for (const SubProgram* sp : programs) {
      for (std::size_t r = 0; r < num_results(*sp); ++r) {
        runtime::Field want = runtime::read_npy(dir / "expected" / (sp->out_name(r) + ".npy"));
        std::string m = first_mismatch(args.arrays.at(sp->out_name(r)), want);
        if (m.empty()) continue;
        if (split) {
          if (std::find(wrong.begin(), wrong.end(), sp) == wrong.end()) wrong.push_back(sp);
        } else {
          out.push_back(finding(*sp, variant, "output " + sp->out_name(r) + ": " + m));
        }
        break;
      }
    }
  }
  // Confirmed alone, for a minimal report.
  for (const SubProgram* sp : wrong)
    for (Finding& f :
         run_programs({sp}, dir.string() + "-" + std::to_string(sp->number), false, summary, opt))
      out.push_back(std::move(f));
  return out;
}

RunSummary run_fuzz(const DriverOptions& o) {
  auto t0 = std::chrono::steady_clock::now();
  RunSummary s;
  std::vector<SubProgram> all;
  all.reserve(o.count);
  for (std::uint64_t n = o.first; n < o.first + o.count; ++n)
    all.push_back(is_unstructured(n) ? generate_unstructured_program(o.seed, n, o.generator)
                                     : generate_program(o.seed, n, o.generator));
  // Batches of one kind each (one module has one set of dimensions).
  std::vector<const SubProgram*> batch, mesh_batch, mesh64_batch;
  auto flush_one = [&](std::vector<const SubProgram*>& batch) {
    if (batch.empty()) return;
    s.batches += 1;
    for (Finding& f :
         run_programs(batch, o.dir / ("batch" + std::to_string(batch.front()->number)), true, &s, o.opt))
      s.findings.push_back(std::move(f));
    batch.clear();
  };
  for (const SubProgram& sp : all) {
    s.programs += 1;
    if (sp.expect_error || !sp.out_alias.empty()) {
      // Alone: a refusal stops the whole module; an out= that is an input changes what the
      // other programs of a batch would read.
      if (sp.expect_error) s.refused += 1;
      std::vector<const SubProgram*> one = {&sp};
      s.batches += 1;
      const std::string dir = (sp.expect_error ? "refused" : "aliased") + std::to_string(sp.number);
      for (Finding& f : run_programs(one, o.dir / dir, false, &s, o.opt)) s.findings.push_back(std::move(f));
      continue;
    }
    auto& b = !sp.universe->unstructured ? batch : sp.int64_tables ? mesh64_batch : mesh_batch;
    b.push_back(&sp);
    if (b.size() >= o.batch) flush_one(b);
  }
  flush_one(batch);
  flush_one(mesh_batch);
  flush_one(mesh64_batch);
  s.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return s;
}

}  // namespace weir::fvdiff
