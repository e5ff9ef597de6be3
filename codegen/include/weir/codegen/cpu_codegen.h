// The CPU code generator: an SDFG -> one C++/OpenMP translation unit that exports the C entry
// points of program_abi.h (ADR 0005). The runtime compiles it into a shared library.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "weir/codegen/code_target.h"
#include "weir/sdfg/errors.h"
#include "weir/sdfg/sdfg.h"

namespace weir::codegen {

/// An SDFG element the code generator cannot generate (an unsupported node, a tasklet whose
/// code cannot be translated, an unsupported descriptor, ...). what() reads
/// "codegen: SDFG 'x', state 'a/b', node 3 ('t'): <message>".
class CodegenError : public weir::Error {
 public:
  CodegenError(ElementRef where, const std::string& message);
  const ElementRef& where() const { return where_; }
  /// The message without the location.
  const std::string& message() const { return message_; }

 private:
  ElementRef where_;
  std::string message_;
};

/// How an argument is passed (program_abi.h): arrays by pointer to the first element, scalars
/// by pointer to the value, symbols by pointer to an int64_t.
enum class ArgKind { Array, Scalar, Symbol };
/// "array", "scalar", "symbol".
std::string_view to_string(ArgKind k);

/// One entry of SDFG::arglist().
struct ArgInfo {
  std::string name;
  ArgKind kind = ArgKind::Array;
  /// Element type of an array / type of a scalar; Int64 for symbols (the ABI type).
  ScalarType dtype = ScalarType::Float64;
  bool operator==(const ArgInfo&) const = default;
};

struct CodegenOptions {
  /// Emit OpenMP pragmas (parallel maps, atomics). Without them the code is sequential.
  bool openmp = true;
  /// Comments naming the SDFG element each block comes from.
  bool emit_comments = true;
  /// Generate GPU storage (GPU_Global, ...) as host memory and GPU schedules (GPU_Device) as
  /// parallel loops, GPU_ThreadBlock as sequential loops. When false these are CodegenErrors.
  bool gpu_as_cpu = true;
  /// Transients local to a map scope are stack arrays up to this size (bytes), heap above.
  std::size_t max_stack_bytes = 16384;
  /// Before each top-level map, tasklet, copy, nested SDFG or library node runs, check that the
  /// subsets of its outer (propagated) memlets lie inside the containers' shapes, with the
  /// symbols' run-time values; on a violation weir_run fails and weir_last_error() names the
  /// state, the scope, the container, the dimension, the range and the shape (ADR 0005). Dynamic
  /// memlets and memlets inside nested SDFGs are not checked.
  bool bounds_checks = true;
  /// Compile user-written C++ from the SDFG: CPP tasklets, tasklets' code_global / code_init /
  /// code_exit and the SDFG's global_code / init_code / exit_code, pasted verbatim. Off by default
  /// because an SDFG (a file) is untrusted input: such code is a CodegenError naming the element
  /// and the opt-in (`weir run/compile --trust-code`). Python tasklets are translated, never
  /// pasted, and need no trust. See docs/security.md.
  bool trust_code = false;
  /// The target whose spellings the translated code uses (math functions, atomics); the CPU's.
  const CodeTarget* target = &cpu_target();
  /// Sequential innermost maps that write rows of non-transient outputs once per point store
  /// them through buffers with non-temporal stores (no write-allocate; decided per row at run
  /// time by the output's size, codegen/prelude/weir_stream.h; docs/adr/0041). False: plain
  /// stores, for measuring what streaming gains (the values are the same either way).
  bool streaming_stores = true;
  /// Sequential innermost maps that gather rows through tables (a pointer connector read at
  /// invariant indices and the map's parameter) prefetch the rows an iteration of the enclosing
  /// loop weir_prefetch_distance ahead reads (codegen/prelude/weir_prefetch.h; docs/adr/0041);
  /// a nested SDFG with a loop called in a map prefetches the argument blocks of the map's next
  /// iteration (ScanColumnBlocking's column blocks; block_prefetch.cpp). False: no prefetch, for
  /// measuring what it gains (the values are the same either way).
  bool gather_prefetch = true;
  /// Innermost SIMD loops whose accesses are all contiguous or invariant ask for every lane of
  /// the target's widest registers (`#pragma omp simd WEIR_SIMD_FULL(bytes)`: 512-bit vectors
  /// under AVX-512, where GCC's tuning for Intel's cores stops at 256; codegen/src/simd_width.h,
  /// docs/adr/0055). False: the compiler's own width, for measuring what it gains (the values are
  /// the same either way).
  bool full_width_simd = true;
  /// Bytes of generated functions per translation unit (GeneratedCode::units): a program whose
  /// functions exceed it is split into several units that compile in parallel (ADR 0024); 0
  /// never splits. 256 KiB keeps one unit's compile time near a second at -O3.
  std::size_t unit_bytes = 256 * 1024;
};

struct GeneratedCode {
  /// The C++ translation unit (C++17, compiles warning-free with -Wall -Wextra).
  std::string source;
  /// The same program as several translation units for parallel compilation, empty when
  /// `source` is compiled alone (functions under CodegenOptions::unit_bytes; CUDA; trusted
  /// user-written C++, whose file-scope code must exist once). units[0] holds the entry points,
  /// the others the state and nested-SDFG functions (hidden visibility, declared where called);
  /// each starts with the prelude, whose fault state is shared through inline variables.
  /// Linked together they behave as `source`.
  std::vector<std::string> units;
  /// The SDFG's name (what weir_program_name() returns).
  std::string program_name;
  /// Arguments in SDFG::arglist() order (what weir_arglist() describes).
  std::vector<ArgInfo> args;
  /// System libraries the program links ("blas" for CBLAS, "lapacke"), from the DaCe
  /// environments of its CPP tasklets; their headers are included in `source`, and a comment
  /// there names them so that the source determines the link line.
  std::vector<std::string> link_libraries;
  /// Decisions of the code generator a user may want to know (`weir compile --verbose` prints
  /// them): "bounds of 24 indices read through table 'V2E' proven by its entry check in
  /// weir_run, no check in the loops (docs/adr/0051)".
  std::vector<std::string> notes;
};

/// Generates the C++/OpenMP program for `sdfg`. The output is deterministic: the same SDFG gives
/// a byte-identical source. Throws CodegenError naming the SDFG element (state, node) it cannot
/// generate, or that carries user-written C++ without `options.trust_code`. Names reaching the
/// C++ must be identifiers (validate() checks them; a non-identifier is a CodegenError here).
GeneratedCode generate_cpu(const SDFG& sdfg, const CodegenOptions& options = {});

/// The JSON weir_arglist() returns: [{"name": ..., "kind": "array|scalar|symbol", "dtype": ...}].
std::string arglist_json(const std::vector<ArgInfo>& args);

}  // namespace weir::codegen
