// The differential driver (diff_driver.h).
#include "diff_driver.h"

#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <set>
#include <sstream>
#include <stdexcept>

#include "../transforms/support/cpu_run.h"
#include "../transforms/support/interpreter.h"
#include "../transforms/support/random_chain.h"
#include "cuda_emulation.h"
#include "weir/runtime/allocator.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"
#include "weir/transforms/registry.h"
#include "weir/transforms/transformation.h"

namespace weir::test::sdfgdiff {

namespace {

bool is_io(const DataDescriptor& d) { return !d.transient && !d.is_view(); }

long long elements(const DataDescriptor& d, const std::map<std::string, long long>& symbols) {
  long long n = 1;
  for (const auto& e : d.shape) n *= e.evaluate(symbols);
  return n;
}

std::string first_lines(const std::vector<std::string>& lines) {
  std::string s;
  for (const auto& l : lines) s += "  " + l + "\n";
  return s;
}

std::string validation_errors(const SDFG& sdfg) {
  std::string all;
  for (const auto& d : validate(sdfg)) all += d.str() + "\n";
  return all;
}

}  // namespace

Values random_inputs(const SDFG& sdfg, const std::map<std::string, long long>& symbols, unsigned seed) {
  std::mt19937 rng(seed);
  std::uniform_int_distribution<int> dist(-9, 9);
  Values v;
  for (const auto& [name, d] : sdfg.arrays) {
    if (!is_io(d)) continue;
    auto& x = v[name];
    for (long long k = 0; k < elements(d, symbols); ++k) x.push_back(dist(rng));
  }
  return v;
}

Values run_reference(const SDFG& sdfg, const std::map<std::string, long long>& symbols,
                     const Values& inputs) {
  Interpreter in(sdfg, symbols, /*poison_transients=*/true);
  for (const auto& [name, v] : inputs) {
    auto& m = in.mem.at(name);
    if (m.size() != v.size()) throw std::runtime_error("reference: input size of '" + name + "'");
    m = v;  // containers not in `inputs` start as zeros
  }
  in.run();
  Values out;
  for (const auto& [name, d] : sdfg.arrays)
    if (is_io(d)) out[name] = in.mem.at(name);
  return out;
}

namespace {

// The arguments of `sdfg` with `symbols`: every non-transient float64 array from `inputs`
// (zeros where not given) and the free symbols.
runtime::Arguments arguments_of(const SDFG& sdfg, const std::map<std::string, long long>& symbols,
                                const Values& inputs, const char* who) {
  runtime::Arguments args;
  for (const auto& [name, d] : sdfg.arrays) {
    if (!is_io(d)) continue;
    if (d.dtype.base != ScalarType::Float64 || d.kind != DataKind::Array)
      throw std::runtime_error(std::string(who) + ": '" + name + "' is not a float64 array");
    std::vector<std::int64_t> shape;
    for (const auto& e : d.shape) shape.push_back(e.evaluate(symbols));
    runtime::Field f = runtime::Allocator::cpu().allocate(d.dtype.base, shape);
    auto given = inputs.find(name);  // containers not in `inputs` start as zeros
    for (std::int64_t i = 0; i < f.size(); ++i)
      static_cast<double*>(f.data())[i] =
          given == inputs.end() ? 0.0 : given->second.at(static_cast<std::size_t>(i));
    args.arrays.emplace(name, std::move(f));
  }
  auto free = sdfg.free_symbols();
  for (const auto& [k, v] : symbols)
    if (free.count(k)) args.values[k] = static_cast<std::int64_t>(v);
  return args;
}

}  // namespace

Values run_cpu(const SDFG& sdfg, const std::map<std::string, long long>& symbols, const Values& inputs,
               const std::string& opt) {
  runtime::Arguments args = arguments_of(sdfg, symbols, inputs, "run_cpu");
  return run_arguments_on_cpu(sdfg, args, cpu_config(opt));
}

Values run_cuda_emulation(const SDFG& sdfg, const std::map<std::string, long long>& symbols,
                          const Values& inputs) {
  runtime::Arguments args = arguments_of(sdfg, symbols, inputs, "run_cuda_emulation");
  use_scratch_cache();
  runtime::CompilableProgram program{std::shared_ptr<const SDFG>(sdfg.clone_sdfg()), {}, sdfg.name};
  runtime::run(*make_cuda_emulation_backend(), program, args);
  Values out;
  for (const auto& [name, f] : args.arrays) {
    auto& v = out[name];
    for (std::int64_t i = 0; i < f.size(); ++i) v.push_back(f.value_as_double(i));
  }
  return out;
}

std::vector<std::string> differences(const Values& want, const Values& got, std::size_t limit) {
  std::vector<std::string> out;
  auto add = [&](const std::string& s) {
    if (out.size() < limit)
      out.push_back(s);
    else if (out.size() == limit)
      out.push_back("...");
  };
  for (const auto& [name, w] : want) {
    auto it = got.find(name);
    if (it == got.end()) {
      add(name + ": missing");
      continue;
    }
    const auto& g = it->second;
    if (g.size() != w.size()) {
      add(name + ": " + std::to_string(g.size()) + " elements, want " + std::to_string(w.size()));
      continue;
    }
    for (std::size_t i = 0; i < w.size(); ++i)
      if (!(g[i] == w[i])) {
        std::ostringstream s;
        s << name << "[" << i << "] = " << g[i] << ", want " << w[i];
        add(s.str());
      }
  }
  return out;
}

std::string random_chain(SDFG& sdfg, unsigned seed, int steps) {
  std::mt19937 rng(seed);
  return test::random_chain(sdfg, rng, steps, "MapFusion");
}

namespace {

/// What went wrong running `sdfg` (after `chain` transformations with `chain_seed` if `steps` > 0)
/// against `want`; empty if nothing. Stage names as in Finding.
struct Outcome {
  std::string stage, detail;
  std::set<int> parts;  // parts whose containers differ (empty: cannot tell)
};

Outcome compare_all(const Values& want, const Values& got, const std::string& stage) {
  Outcome o;
  auto d = differences(want, got);
  if (d.empty()) return o;
  o.stage = stage;
  o.detail = first_lines(d);
  for (const auto& [name, w] : want)
    if (got.count(name) && got.at(name) != w) o.parts.insert(part_of(name));
  return o;
}

/// Runs the checks of one batch (or one shrunk part). `transformed` receives the SDFG after the chain.
Outcome run_checks(const Batch& b, unsigned seed, int steps, const RunOptions& opts,
                   std::unique_ptr<SDFG>* transformed, Values* ref_out) {
  Outcome o;
  std::string bad = validation_errors(*b.sdfg);
  if (!bad.empty()) return {"generate", bad, {}};
  Values in = random_inputs(*b.sdfg, b.symbols, seed);
  Values ref;
  try {
    ref = run_reference(*b.sdfg, b.symbols, in);
  } catch (const std::exception& e) {
    return {"reference", e.what(), {}};
  }
  for (const auto& [name, v] : ref)
    for (double x : v)
      if (std::isnan(x)) return {"reference", name + " holds NaN (a transient read before written)", {}};
  if (ref_out) *ref_out = ref;
  try {
    o = compare_all(ref, run_cpu(*b.sdfg, b.symbols, in, opts.opt), "cpu");
  } catch (const std::exception& e) {
    return {"cpu", e.what(), {}};
  }
  if (!o.stage.empty()) return o;
  // The same SDFG placed on the GPU and generated as CUDA, run through the host emulation.
  try {
    o = compare_all(ref, run_cuda_emulation(*b.sdfg, b.symbols, in), "cuda-emulation");
  } catch (const std::exception& e) {
    return {"cuda-emulation", e.what(), {}};
  }
  if (!o.stage.empty() || steps <= 0) return o;
  auto t = b.sdfg->clone_sdfg();
  std::string log;
  try {
    log = random_chain(*t, seed, steps);
  } catch (const std::exception& e) {
    return {"transform", e.what(), {}};
  }
  try {
    // What weir writes, read back: the file is what runs (and what DaCe would load).
    t = sdfg_from_json_text(sdfg_to_json_text(*t));
    o = compare_all(ref, run_cpu(*t, b.symbols, in, opts.opt), "cpu-after");
  } catch (const std::exception& e) {
    o = {"cpu-after", e.what(), {}};
  }
  if (o.stage.empty()) {
    try {
      o = compare_all(ref, run_reference(*t, b.symbols, in), "reference-after");
    } catch (const std::exception& e) {
      o = {"reference-after", e.what(), {}};
    }
  }
  if (!o.stage.empty()) o.detail += "applied:\n" + log;
  if (transformed) *transformed = std::move(t);
  return o;
}

std::string write(const SDFG& sdfg, const RunOptions& opts, const std::string& name) {
  std::filesystem::path dir =
      opts.out_dir.empty() ? std::filesystem::path(WEIR_BINARY_DIR) / "test-scratch" / "sdfgdiff-findings"
                           : std::filesystem::path(opts.out_dir);
  std::filesystem::create_directories(dir);
  auto path = dir / (name + ".sdfg");
  save_sdfg(sdfg, path.string());
  return path.string();
}

}  // namespace

std::vector<Finding> check_batch(unsigned seed, const RunOptions& opts) {
  std::vector<Finding> out;
  Batch b = make_batch(seed, opts.parts, opts.gen);
  std::unique_ptr<SDFG> transformed;
  Outcome o = run_checks(b, seed, opts.steps, opts, &transformed, nullptr);
  if (o.stage.empty()) return out;
  // Shrink: the parts the differing containers name, else every part, each alone.
  std::set<int> suspects = o.parts;
  suspects.erase(-1);
  if (suspects.empty())
    for (int k = 0; k < opts.parts; ++k) suspects.insert(k);
  bool before = o.stage == "generate" || o.stage == "reference" || o.stage == "cpu";
  for (int k : suspects) {
    Batch one = make_batch(seed, opts.parts, {k}, opts.gen);
    std::unique_ptr<SDFG> t1;
    Outcome p = run_checks(one, seed, before ? 0 : opts.steps, opts, &t1, nullptr);
    if (p.stage.empty()) continue;
    Finding f{seed, p.stage, one.parts.empty() ? "?" : one.parts.front(), p.detail, {}};
    f.file = write(*one.sdfg, opts, "sdfgdiff_" + std::to_string(seed) + "_g" + std::to_string(k));
    if (t1) write(*t1, opts, "sdfgdiff_" + std::to_string(seed) + "_g" + std::to_string(k) + "_transformed");
    out.push_back(f);
  }
  if (out.empty()) {  // only the whole batch shows it (e.g. a chain that crossed parts)
    Finding f{seed, o.stage, "whole batch", o.detail,
              write(*b.sdfg, opts, "sdfgdiff_" + std::to_string(seed))};
    if (transformed) write(*transformed, opts, "sdfgdiff_" + std::to_string(seed) + "_transformed");
    out.push_back(f);
  }
  return out;
}

}  // namespace weir::test::sdfgdiff
