#include "weir/runtime/loader.h"

#include <dlfcn.h>

#include <cstdlib>
#include <mutex>
#include <optional>

#include "weir/codegen/program_abi.h"
#include "weir/codegen/source_locations.h"
#include "weir/runtime/compile_interrupt.h"
#include "weir/runtime/errors.h"

namespace weir::runtime {
namespace fs = std::filesystem;

struct CompiledProgram::Impl {
  std::shared_ptr<void> dl;  // dlclose on release
  codegen::InitFn init = nullptr;
  codegen::RunFn run = nullptr;
  codegen::FinalizeFn finalize = nullptr;
  codegen::LastErrorFn last_error = nullptr;
  bool interruptible = false;                        // its loops poll compile_interrupt_signal
  void* handle = nullptr;                            // weir_init's result
  std::map<std::string, std::int64_t> init_symbols;  // the symbols weir_init saw
  std::vector<std::string> locations;                // the tokens' source locations (ADR 0061)

  std::string error_text() const {
    const char* e = last_error ? last_error() : nullptr;
    if (!e || !*e) return "";
    return locations.empty() ? std::string(e) : codegen::expand_locations(e, locations);
  }
};

namespace {

// The program's own message, or what is known without one (`code`: its nonzero return code).
std::string reason(const std::string& text, int code) {
  if (!text.empty()) return text;
  return "it gave no reason" + (code ? " (error code " + std::to_string(code) + ")" : std::string());
}

}  // namespace

Program::~Program() = default;

CompiledProgram::~CompiledProgram() {
  if (impl_ && impl_->handle) impl_->finalize(impl_->handle);  // errors cannot be reported here
}

void CompiledProgram::set_source_locations(std::vector<std::string> locations) {
  impl_->locations = std::move(locations);
}

void CompiledProgram::run(Arguments& args) {
  BoundArguments bound = bind_arguments(signature_, args);
  run_bound(bound);
  bound.store_written_scalars(signature_, args);
}

void CompiledProgram::run_bound(const BoundArguments& bound) {
  Impl& im = *impl_;
  if (bound.size() != signature_.params.size())
    throw ArgumentError("program '" + name_ + "': " + std::to_string(bound.size()) + " bound arguments for " +
                        std::to_string(signature_.params.size()) + " parameters");
  if (im.handle && im.init_symbols != bound.symbols()) {
    int rc = im.finalize(im.handle);
    im.handle = nullptr;
    if (rc != 0)
      throw ProgramError("program '" + name_ + "' could not release its state before a run with new sizes: " +
                         reason(im.error_text(), rc));
  }
  if (!im.handle) {
    im.handle = im.init(bound.pointers());
    if (!im.handle)
      throw ProgramError("program '" + name_ +
                         "' could not be started (its set-up failed): " + reason(im.error_text(), 0));
    im.init_symbols = bound.symbols();
  }
  // Ctrl-C (SIGINT, SIGTERM) while it runs: the handler records the signal, the program's
  // top-level loops see it and stop between two iterations, and when the scope closes the
  // signal is raised again with the process's own handler (the CLI dies of it, Python raises
  // KeyboardInterrupt), as for an interrupted compile (docs/adr/0038, session 34).
  std::optional<CompileSignalScope> signals;
  if (im.interruptible) signals.emplace();
  if (int rc = im.run(im.handle, bound.pointers()); rc != 0) {
    // In the user's terms: what stopped the program (the generated code's errors start with
    // the entry point's name, "weir_run: ", which says nothing to them).
    std::string text = im.error_text();
    if (text.rfind("weir_run: ", 0) == 0) text.erase(0, 10);
    if (const int signo = compile_interrupt_signal(); im.interruptible && signo != 0)
      throw CompileInterrupted(signo, "program '" + name_ + "' " + text);
    throw ProgramError("program '" + name_ + "' stopped with an error: " + reason(text, rc));
  }
}

void default_openmp_wait_policy() {
  // Idle OpenMP threads spin by default (libgomp: ~300000 iterations before sleeping). On a
  // machine busy with other work, spinning threads take the time slices the working threads
  // need at every barrier: laplace2d took ~400 ms per call instead of 0.05 ms. Passive waiting
  // costs a few microseconds per parallel region when the cores are free. The OpenMP runtime
  // reads its environment once, when the first program library pulls it in, so set it before
  // that; never override what the user chose.
  static std::once_flag once;
  std::call_once(once, [] {
    if (!std::getenv("OMP_WAIT_POLICY") && !std::getenv("GOMP_SPINCOUNT"))
      ::setenv("OMP_WAIT_POLICY", "passive", 0);
  });
}

std::shared_ptr<CompiledProgram> load_compiled_program(const fs::path& library,
                                                       std::optional<Signature> expected) {
  std::string where = library.string();
  // dlerror() is process-global: serialize dlopen/dlsym/dlerror sequences.
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  std::error_code ec;
  if (!fs::is_regular_file(library, ec)) throw LoadError("cannot load " + where + ": no such file");
  // A path without '/' would make dlopen search the library path instead.
  fs::path abs = fs::absolute(library, ec);
  default_openmp_wait_policy();
  void* h = dlopen(abs.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!h) {
    const char* e = dlerror();
    throw LoadError("cannot load " + where + ": " + (e ? e : "dlopen failed"));
  }
  // The OpenMP runtime the program pulled in must outlive it: its worker threads stay alive
  // after the program is unloaded, and unmapping their code would crash them. Pin it.
  for (const char* omp : {"libgomp.so.1", "libomp.so.5", "libomp.so", "libiomp5.so"})
    dlopen(omp, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE);
  std::shared_ptr<void> dl(h, [](void* p) { dlclose(p); });
  auto sym = [&](const char* name) {
    dlerror();
    void* p = dlsym(h, name);
    if (!p)
      throw LoadError("cannot load " + where + ": it exports no '" + name +
                      "' (not a program built by weir)");
    return p;
  };
  auto abi = reinterpret_cast<codegen::AbiVersionFn>(sym(codegen::kSymAbiVersion));
  const char* version = abi();
  if (!version || std::string(version) != codegen::kAbiVersion)
    throw LoadError("cannot load " + where + ": its ABI version is '" + (version ? version : "(null)") +
                    "', this weir needs '" + codegen::kAbiVersion + "' (rebuild it)");
  auto impl = std::make_unique<CompiledProgram::Impl>();
  impl->init = reinterpret_cast<codegen::InitFn>(sym(codegen::kSymInit));
  impl->run = reinterpret_cast<codegen::RunFn>(sym(codegen::kSymRun));
  impl->finalize = reinterpret_cast<codegen::FinalizeFn>(sym(codegen::kSymFinalize));
  impl->last_error = reinterpret_cast<codegen::LastErrorFn>(sym(codegen::kSymLastError));
  // Host arrays reach a program with device array arguments through its copying entry point.
  if (void* run_host = dlsym(h, codegen::kSymRunHost)) impl->run = reinterpret_cast<codegen::RunFn>(run_host);
  // Optional (libraries generated before session 34 lack it): how its loops learn of Ctrl-C.
  // A program without a top-level loop says so: its runs then install no signal handlers.
  if (void* set_poll = dlsym(h, codegen::kSymSetInterruptPoll))
    impl->interruptible =
        reinterpret_cast<codegen::SetInterruptPollFn>(set_poll)(&compile_interrupt_signal) != 0;
  auto name_fn = reinterpret_cast<codegen::ProgramNameFn>(sym(codegen::kSymProgramName));
  auto arglist_fn = reinterpret_cast<codegen::ArglistFn>(sym(codegen::kSymArglist));
  const char* pname = name_fn();
  const char* arglist = arglist_fn();
  Signature from_lib = Signature::from_arglist_json(pname ? pname : "", arglist ? arglist : "[]");
  if (expected) {
    bool same = expected->params.size() == from_lib.params.size();
    for (std::size_t i = 0; same && i < from_lib.params.size(); ++i)
      same = expected->params[i].name == from_lib.params[i].name &&
             expected->params[i].kind == from_lib.params[i].kind;
    if (!same)
      throw LoadError("cannot load " + where + ": it takes (" + from_lib.names() + ") but the SDFG '" +
                      expected->program_name + "' takes (" + expected->names() + ")");
  }
  impl->dl = std::move(dl);
  std::shared_ptr<CompiledProgram> p(new CompiledProgram());
  p->impl_ = std::move(impl);
  p->signature_ = expected ? std::move(*expected) : std::move(from_lib);
  p->name_ =
      p->signature_.program_name.empty() ? std::string(pname ? pname : "") : p->signature_.program_name;
  p->library_ = library;
  return p;
}

}  // namespace weir::runtime
