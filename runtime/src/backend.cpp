#include "weir/runtime/backend.h"

#include "weir/runtime/loader.h"

namespace weir::runtime {

Backend::Backend(std::string name, Allocator allocator) : name_(std::move(name)), allocator_(allocator) {}
Backend::~Backend() = default;

CompiledBackend::CompiledBackend(std::string name, Allocator allocator, CompilerStep compiler_step,
                                 LoaderStep loader_step)
    : Backend(std::move(name), allocator),
      compiler(std::move(compiler_step)),
      loader(loader_step ? std::move(loader_step) : default_loader()) {}
CompiledBackend::~CompiledBackend() = default;

LoaderStep CompiledBackend::default_loader() {
  return [](const CompilationArtifact& a) {
    auto p = load_compiled_program(a.library, a.signature);
    p->set_source_locations(a.locations);
    return p;
  };
}

EmbeddedBackend::EmbeddedBackend(std::string name, Allocator allocator)
    : Backend(std::move(name), allocator) {}
EmbeddedBackend::~EmbeddedBackend() = default;

std::unique_ptr<EmbeddedBackend> make_embedded_backend() { return std::make_unique<EmbeddedBackend>(); }

}  // namespace weir::runtime
