// Loading a compiled program: dlopen a shared library that exports program_abi.h's entry
// points, check its ABI version and wrap it in a CompiledProgram.
#pragma once

#include <filesystem>
#include <memory>
#include <optional>
#include <string>

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

/// dlopen(RTLD_NOW | RTLD_LOCAL) `library`, resolve every entry point of program_abi.h and
/// check weir_abi_version() == codegen::kAbiVersion. With `expected` (the SDFG's signature),
/// the library's weir_arglist() must name the same parameters in the same order, and the
/// program's signature is `expected` (with shapes); otherwise it is read from weir_arglist().
/// Throws LoadError naming the library: dlerror()'s text, the missing symbol, the ABI version
/// found, or the argument lists that differ.
std::shared_ptr<CompiledProgram> load_compiled_program(const std::filesystem::path& library,
                                                       std::optional<Signature> expected = std::nullopt);

}  // namespace weir::runtime
