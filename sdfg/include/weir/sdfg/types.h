// Enumerations of the SDFG IR (dtypes, storage, schedules, lifetimes, languages) and their
// DaCe names. Enums are always serialized by name (as DaCe's dtypes module spells them),
// never by number, so that reordering an enum never breaks a saved file.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

namespace weir::pycode {
class Code;
}

namespace weir {

/// Element type of a data container or connector, as DaCe's `dtypes.typeclass` names.
enum class ScalarType : std::uint8_t {
  Bool,
  Int8,
  Int16,
  Int32,
  Int64,
  UInt8,
  UInt16,
  UInt32,
  UInt64,
  Float16,
  Float32,
  Float64,
  Complex64,
  Complex128,
  Void,
};

/// DaCe name ("float64", "int32", "bool", ...).
std::string_view to_string(ScalarType t);
/// Parses a DaCe/NumPy dtype name; accepts "float", "int", "bool_" aliases. nullopt if unknown.
std::optional<ScalarType> scalar_type_from_string(std::string_view name);
/// Size in bytes (Bool is 1, Void is 0).
std::size_t size_of(ScalarType t);
/// The C++ spelling used by the code generator ("double", "int64_t", ...).
std::string_view cpp_name(ScalarType t);

/// Where a data container lives, as DaCe's `dtypes.StorageType`.
enum class StorageType : std::uint8_t {
  Default,
  Register,
  CPU_Pinned,
  CPU_Heap,
  CPU_ThreadLocal,
  GPU_Global,
  GPU_Shared,
  FPGA_Global,
  FPGA_Local,
  FPGA_Registers,
  FPGA_ShiftRegister,
  SVE_Register,
  Snitch_TCDM,
  Snitch_L2,
  Snitch_SSR,
};
std::string_view to_string(StorageType s);
std::optional<StorageType> storage_type_from_string(std::string_view name);

/// How a map or consume scope runs, as DaCe's `dtypes.ScheduleType`.
enum class ScheduleType : std::uint8_t {
  Default,
  Sequential,
  MPI,
  CPU_Multicore,
  CPU_Persistent,
  Unrolled,
  SVE_Map,
  GPU_Default,
  GPU_Device,
  GPU_ThreadBlock,
  GPU_ThreadBlock_Dynamic,
  GPU_Persistent,
  FPGA_Device,
  FPGA_Multi_Pumped,
  Snitch,
  Snitch_Multicore,
};
std::string_view to_string(ScheduleType s);
std::optional<ScheduleType> schedule_type_from_string(std::string_view name);

/// When a transient is allocated and freed, as DaCe's `dtypes.AllocationLifetime`.
enum class AllocationLifetime : std::uint8_t { Scope, State, Persistent, Global, External };
std::string_view to_string(AllocationLifetime l);
std::optional<AllocationLifetime> allocation_lifetime_from_string(std::string_view name);

/// Language of a code block, as DaCe's `dtypes.Language`.
enum class Language : std::uint8_t { Python, CPP, OpenCL, SystemVerilog, MLIR };
std::string_view to_string(Language l);
std::optional<Language> language_from_string(std::string_view name);

/// Device a backend or allocator targets; kept here so storage and schedules can be checked
/// against it (`DeviceType` in DaCe).
enum class DeviceType : std::uint8_t { CPU, GPU };
std::string_view to_string(DeviceType d);

/// Source text with its language: tasklet code, interstate conditions, loop statements (DaCe's
/// CodeBlock). Python code carries its syntax tree: parsed once, on first use, into an immutable
/// pycode::Code that copies of the block share, and parsed again only after `code` was assigned
/// other text. Operations on the tree (pycode/rewrite.h) give a new tree; `set_parsed` stores it
/// and re-prints `code`, so code nothing changed keeps its text byte for byte (comments included).
/// Other languages are text only. Equality compares text and language.
struct CodeBlock {
  CodeBlock() = default;
  CodeBlock(std::string code_text, Language lang = Language::Python);
  /// So that `{"i", "0"}` makes a (target, value) pair of an interstate assignment.
  CodeBlock(const char* code_text, Language lang = Language::Python);
  CodeBlock(const CodeBlock& other);
  /// Moves the text and the cached tree (no copy, no re-parse); `other` is left empty.
  CodeBlock(CodeBlock&& other) noexcept;
  CodeBlock& operator=(const CodeBlock& other);
  CodeBlock& operator=(CodeBlock&& other) noexcept;
  ~CodeBlock();

  std::string code;
  Language language = Language::Python;

  /// The syntax tree of Python code (statements; a condition is one expression statement), or
  /// null for another language. Throws pycode::SourceError, located in "<code>", when the text
  /// is not valid Python (the validator reports it with the element, see validate()).
  std::shared_ptr<const pycode::Code> parsed() const;
  /// Replaces Python code by `tree` (the result of a rewrite); `code` becomes its printed form.
  void set_parsed(std::shared_ptr<const pycode::Code> tree);

  bool operator==(const CodeBlock& o) const { return code == o.code && language == o.language; }

 private:
  // Shared, immutable, filled lazily by const readers (which may run on several threads).
  mutable std::atomic<std::shared_ptr<const pycode::Code>> parsed_;
};

}  // namespace weir
