// Loading a compiled program: dlopen a shared library that exports program_abi.h's entry
// points, check its ABI version and wrap it in a CompiledProgram.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "weir/runtime/program.h"
#include "weir/runtime/signature.h"

namespace weir::runtime {

/// A generated program loaded from its shared library. weir_init is called on the first run
/// (and again, after weir_finalize, when symbol values change, since persistent transients are
/// sized by them); weir_finalize when the object is destroyed. The library stays loaded while
/// the object lives.
class CompiledProgram final : public Program {
 public:
  ~CompiledProgram() override;
  const std::string& name() const override { return name_; }
  const Signature& signature() const override { return signature_; }
  void run(Arguments& args) override;
  /// The library this program was loaded from.
  const std::filesystem::path& library() const { return library_; }

  /// Runs with arguments already bound to signature() (for repeated timed calls without
  /// re-binding). Throws ProgramError with weir_last_error()'s text.
  void run_bound(const BoundArguments& bound);

  /// The source locations the program's messages refer to by token
  /// (codegen::GeneratedCode::locations, ADR 0061): its errors read with them expanded. The
  /// code generator hands them over with every compile, cache hits included, so they are the
  /// current file's paths and lines, never those of the run that filled the cache.
  void set_source_locations(std::vector<std::string> locations);

  struct Impl;

 private:
  friend std::shared_ptr<CompiledProgram> load_compiled_program(const std::filesystem::path&,
                                                                std::optional<Signature>);
  CompiledProgram() = default;
  std::unique_ptr<Impl> impl_;
  std::string name_;
  Signature signature_;
  std::filesystem::path library_;
};

/// Makes OpenMP threads of programs loaded later wait passively (OMP_WAIT_POLICY=passive) unless
/// the user set OMP_WAIT_POLICY or GOMP_SPINCOUNT. Spinning idle threads made programs thousands
/// of times slower on a loaded machine (laplace2d: ~400 ms instead of 0.05-0.2 ms per call);
/// passive waiting costs microseconds per parallel region on idle cores (set
/// OMP_WAIT_POLICY=active on dedicated nodes). Effective only if the OpenMP runtime is not
/// loaded in the process yet (it reads its environment once). Called by load_compiled_program.
void default_openmp_wait_policy();

/// dlopen(RTLD_NOW | RTLD_LOCAL) `library`, resolve every entry point of program_abi.h and
/// check weir_abi_version() == codegen::kAbiVersion. With `expected` (the SDFG's signature),
/// the library's weir_arglist() must name the same parameters in the same order, and the
/// program's signature is `expected` (with shapes); otherwise it is read from weir_arglist().
/// Throws LoadError naming the library: dlerror()'s text, the missing symbol, the ABI version
/// found, or the argument lists that differ. A library that exports weir_run_host (CUDA programs
/// with device array arguments, ADR 0020) is run through it: the program's arguments are host
/// arrays, copied to the device and back.
std::shared_ptr<CompiledProgram> load_compiled_program(const std::filesystem::path& library,
                                                       std::optional<Signature> expected = std::nullopt);

}  // namespace weir::runtime
