// Backends: where and how a program runs. A CompiledBackend generates code, compiles it into a
// shared library and loads it; an EmbeddedBackend interprets field-view programs in-process.
// Both are configured by their members, never by subclassing (ADR 0006).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "weir/runtime/allocator.h"
#include "weir/runtime/signature.h"

#include "weir/codegen/cpu_codegen.h"

namespace weir {
class SDFG;
}

namespace weir::runtime {

class CompiledProgram;

/// A program ready to be compiled: the SDFG and the compile-time options of code generation.
struct CompilableProgram {
  std::shared_ptr<const SDFG> sdfg;
  codegen::CodegenOptions options;
  /// Where the program came from (a file name), for messages.
  std::string origin;
};

/// What compiling a program produced.
struct CompilationArtifact {
  /// The shared library exporting program_abi.h's entry points.
  std::filesystem::path library;
  /// Fingerprint of everything that determines the library (hex SHA-256); the cache key.
  std::string fingerprint;
  /// The generated source the library was compiled from (may be empty for custom compilers).
  std::filesystem::path source;
  /// The program's signature (from the SDFG, with shapes).
  Signature signature;
  /// Whether the library came from the program cache without running the compiler.
  bool cache_hit = false;
  /// Why a library the cache had was not used and the program was compiled again (a corrupt
  /// entry: "the cached entry DIR was not used: its library's SHA-256 differs from its
  /// manifest's", or a library that failed to load); empty when nothing was rebuilt.
  std::string cache_problem;
  /// The code generator's notes (codegen::GeneratedCode::notes), also on a cache hit.
  std::vector<std::string> notes;
  /// The source locations ("file.py:12:16") the program's code refers to by token
  /// (codegen::GeneratedCode::locations, ADR 0061), from this compile's code generation, also on
  /// a cache hit; the loader gives them to the CompiledProgram, whose errors name them.
  std::vector<std::string> locations;
  /// Removes the library from where it is kept so that the next compile rebuilds it (used when
  /// a cached library fails to load); empty when there is nothing to remove.
  std::function<void()> evict;
};

/// The compile step: program -> artifact. Throws CompileError (and RuntimeError/CacheError for
/// an unusable compiler or cache directory).
using CompilerStep = std::function<CompilationArtifact(const CompilableProgram&)>;
/// The load step: artifact -> callable program. Throws LoadError.
using LoaderStep = std::function<std::shared_ptr<CompiledProgram>(const CompilationArtifact&)>;

/// Where and how programs run. Abstract: only CompiledBackend and EmbeddedBackend (or classes
/// derived from them) can be created. Which kind a backend is decides how it runs programs
/// (see dispatch.h); name() is only a label for messages, never used to decide anything.
class Backend {
 public:
  virtual ~Backend() = 0;
  Backend(const Backend&) = delete;
  Backend& operator=(const Backend&) = delete;

  /// A label for messages and listings ("cpu", "embedded").
  const std::string& name() const { return name_; }
  /// Where the backend's arrays live (device, alignment).
  const Allocator& allocator() const { return allocator_; }

 protected:
  Backend(std::string name, Allocator allocator);

 private:
  std::string name_;
  Allocator allocator_;
};

/// A backend that compiles programs to native code. Customize it by replacing its members
/// (for example a `compiler` that counts invocations or uses another code generator), never by
/// overriding: dispatch always calls `compiler`, then `loader`.
class CompiledBackend : public Backend {
 public:
  /// `loader` defaults to default_loader() when empty.
  CompiledBackend(std::string name, Allocator allocator, CompilerStep compiler, LoaderStep loader = {});
  ~CompiledBackend() override;

  /// Program -> compiled shared library (code generation, cache lookup, compiler run).
  CompilerStep compiler;
  /// Artifact -> loaded program.
  LoaderStep loader;

  /// dlopen the artifact's library (load_compiled_program with the artifact's signature).
  static LoaderStep default_loader();
};

/// A backend that interprets field-view programs in the weir process (weir/runtime/embedded.h:
/// the reference semantics). SDFGs are not interpreted (dispatching one throws BackendError).
class EmbeddedBackend : public Backend {
 public:
  explicit EmbeddedBackend(std::string name = "embedded", Allocator allocator = Allocator{});
  ~EmbeddedBackend() override;
};

/// The embedded (interpreting) backend.
std::unique_ptr<EmbeddedBackend> make_embedded_backend();

}  // namespace weir::runtime
