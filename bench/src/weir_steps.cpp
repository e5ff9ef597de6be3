#include "weir_steps.h"

#include "measure.h"

#include <stdexcept>

#include "weir/frontend/lowering.h"
#include "weir/pycode/source.h"
#include "weir/runtime/connectivity_check.h"
#include "weir/runtime/cpu_backend.h"
#include "weir/runtime/dispatch.h"
#include "weir/transforms/analysis.h"
#include "weir/transforms/instrumentation.h"
#include "weir/transforms/registry.h"

namespace weir::bench {

const std::string& optimization_pipeline_name() {
  static const std::string name = "auto-optimize-cpu";
  return name;
}

std::size_t optimize(SDFG& sdfg) {
  auto pass = transforms::make_pass(optimization_pipeline_name());
  transforms::AnalysisCache cache;
  return pass->run(sdfg, cache);
}

namespace {

/// Adds each pass's wall time to the total of its path ("simplify/state-fusion": the names of
/// the pipelines it runs in below the outermost one, then its own).
class PathTiming final : public transforms::PassInstrumentation {
 public:
  explicit PathTiming(std::map<std::string, double>& seconds) : seconds_(seconds) {}
  void before_pass(const transforms::Pass& p, const SDFG&) override { stack_.push_back(p.name()); }
  void after_pass(const transforms::Pass& p, const SDFG&, std::size_t, double wall_ms) override {
    if (!transforms::is_pipeline(p)) {
      std::string path;
      for (std::size_t k = 1; k < stack_.size(); ++k) path += (k > 1 ? "/" : "") + stack_[k];
      seconds_[path] += wall_ms / 1000;
    }
    stack_.pop_back();
  }
  void after_failed_pass(const transforms::Pass&) override { stack_.pop_back(); }

 private:
  std::map<std::string, double>& seconds_;
  std::vector<std::string> stack_;
};

}  // namespace

std::size_t optimize_profiled(SDFG& sdfg, std::map<std::string, double>& seconds_by_pass) {
  auto pass = transforms::make_pass(optimization_pipeline_name());
  PathTiming timing(seconds_by_pass);
  transforms::AnalysisCache cache;
  return pass->run(sdfg, cache);
}

const frontend::Definition& FieldViewModule::definition(const std::string& name) const {
  for (const auto& d : module->definitions)
    if (d->name == name) return *d;
  throw std::runtime_error(module->path + ": no definition '" + name + "'");
}

std::vector<std::string> FieldViewModule::programs() const {
  std::vector<std::string> out;
  for (const auto& d : module->definitions)
    if (d->kind == frontend::DefinitionKind::Program) out.push_back(d->name);
  return out;
}

namespace {
FieldViewModule make_module(const std::vector<std::string>& search_path) {
  FieldViewModule m;
  m.loader = std::make_unique<frontend::ModuleLoader>(frontend::LoaderOptions{search_path, false});
  m.checker = std::make_unique<frontend::TypeChecker>();
  return m;
}
}  // namespace

FieldViewModule load_field_view(const std::string& file, const std::vector<std::string>& search_path) {
  FieldViewModule m = make_module(search_path);
  m.module = &m.loader->load_file(file);
  return m;
}

FieldViewModule load_field_view_source(const std::string& name, const std::string& text) {
  FieldViewModule m = make_module({});
  m.module = &m.loader->load_source(frontend::SourceFile(name, text));
  return m;
}

std::unique_ptr<SDFG> lower(FieldViewModule& m, const std::string& program) {
  return frontend::lower_to_sdfg(m.checker->check(m.definition(program)));
}

bool is_not_supported_yet(const std::exception& e) {
  return std::string(e.what()).find("not supported yet") != std::string::npos;
}

std::shared_ptr<runtime::Program> compile_cpu(std::shared_ptr<const SDFG> sdfg, const std::string& origin,
                                              bool streaming_stores, bool gather_prefetch,
                                              bool full_width_simd) {
  static auto backend = runtime::make_cpu_backend();
  runtime::CompilableProgram p;
  p.sdfg = std::move(sdfg);
  p.origin = origin;
  p.options.streaming_stores = streaming_stores;
  p.options.gather_prefetch = gather_prefetch;
  p.options.full_width_simd = full_width_simd;
  // The compiled kernel alone: the tables' per-call checks are not what is measured (the
  // inputs are valid by construction).
  return runtime::without_connectivity_checks(runtime::prepare(*backend, p));
}

}  // namespace weir::bench
