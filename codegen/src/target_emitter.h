// The target of one generated program as an emitter: what CPU and CUDA code generation emit
// differently, asked by the shared walk (program_frame.cpp, sdfg_codegen.cpp,
// dataflow_codegen.cpp, memlet_codegen.cpp, library_codegen.cpp, ...) instead of testing which
// target it is. As DaCe's target dispatcher (by schedule and storage) and Halide's GPU device
// interface: the CPU (cpu_emitter.cpp) and CUDA (cuda_emitter.cpp) implement it; the walk stays
// shared (docs/adr/0033-codegen-target-emitters.md).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/state_uses.h"

namespace weir::codegen::detail {

class Writer;
class SdfgGen;
class StateGen;
struct Location;

/// One target of code generation. Implementations are stateless singletons (cpu_emitter(),
/// cuda_emitter()); the walk reaches the program's one through Program::target.
class TargetEmitter {
 public:
  virtual ~TargetEmitter() = default;
  /// "CPU", "CUDA": the generated file's first comment names it.
  virtual std::string_view label() const = 0;

  // --- where code and data live ---------------------------------------------------------
  /// Whether code inside a parallel scope (a map whose iterations run concurrently, or a nested
  /// SDFG called from one) runs on the device (CUDA kernels and device functions) rather than
  /// on host threads.
  virtual bool parallel_scopes_on_device() const = 0;
  /// Whether host code reaches memory of storage `s` only through the target's runtime (device
  /// memory: host code allocates, zeroes and copies it with runtime calls, never dereferences).
  virtual bool device_storage(StorageType s) const = 0;
  /// Whether iterations of parallel maps may run at the same time, so that racing
  /// write-conflict-resolved writes need atomics: OpenMP threads (CodegenOptions::openmp) or
  /// device threads.
  virtual bool concurrent_iterations(bool openmp) const = 0;
  /// Why container `d` cannot be generated for this target, nullopt if it can (beyond what every
  /// target refuses: SdfgGen::check_descriptors).
  virtual std::optional<std::string> refuses(const DataDescriptor& d) const = 0;

  // --- the frame (program_frame.cpp) ----------------------------------------------------
  /// What a translation unit holds before the common prelude headers and after the common
  /// helpers (CUDA: the runtime header and device helpers).
  virtual std::string prelude_head() const = 0;
  virtual std::string prelude_tail() const = 0;
  /// Whether the unit always includes the full header set (<string>, <stdexcept>, ...), as it does
  /// for trusted user code.
  virtual bool full_headers() const = 0;
  /// Whether the program's functions may go to several translation units (compiled in
  /// parallel); nvcc compiles a CUDA program as one.
  virtual bool splits_units() const = 0;
  /// Whether the program handle owns target resources (a stream) besides persistent transients:
  /// weir_run then always binds it and it has a destructor.
  virtual bool handle_owns_resources() const = 0;
  /// Members of the handle struct, its destructor's release of them, and weir_init's creation.
  virtual void handle_members(Writer& w) const = 0;
  virtual void handle_release(Writer& w) const = 0;
  virtual void handle_create(Writer& w) const = 0;
  /// weir_run after the arguments are bound (`sdfg`'s arglist): checks of them, and what the
  /// body needs from the handle `h`.
  virtual void run_arguments(Writer& w, const SDFG& sdfg) const = 0;
  virtual void run_start(Writer& w) const = 0;
  /// Entry points beyond program_abi.h's required ones, after weir_run (CUDA: weir_run_host).
  /// `symbol_binding(s)` declares symbol `s` from `args`.
  virtual void extra_entry_points(
      Writer& w, const SDFG& sdfg, const SdfgGen& g, const std::vector<std::string>& arglist,
      const std::function<std::string(const std::string&)>& symbol_binding) const = 0;

  // --- storage: allocation, release, zeroing --------------------------------------------
  /// An expression allocating `count` (C++) elements of `d` named `name` for the whole run
  /// (weir_init's persistent transients), and the statement freeing `ptr`.
  virtual std::string allocate(const DataDescriptor& d, const std::string& count,
                               const std::string& name) const = 0;
  virtual std::string release(const DataDescriptor& d, const std::string& ptr) const = 0;
  /// The statement setting the `count` (C++) elements at `ptr` (C++; a scalar's variable) of
  /// container `d` named `name` to zero, in host code (`device_code` false) or device code.
  virtual std::string zero(const DataDescriptor& d, const std::string& ptr, const std::string& count,
                           const std::string& name, bool device_code) const = 0;
  /// Declares (into `w`) host code's buffer `cpp` of `count` (C++) elements for a transient
  /// `d` named `name` whose home is one scope, when the target owns that memory (device
  /// storage); returns false (declaring nothing) where the walk's host memory applies.
  virtual bool declare_device_buffer(Writer& w, const DataDescriptor& d, const std::string& cpp,
                                     const std::string& count, const std::string& name,
                                     bool device_code) const = 0;
  /// The prelude's class of a heap buffer freed at scope end (weir_local_buffer on the CPU:
  /// small sizes stay on the stack).
  virtual std::string_view scope_buffer_class() const = 0;
  /// A nested SDFG body's array `cpp` of `d` (elements `count`): declared into `w` and true when
  /// the target places it (device memory of host code, a device function's per-call heap);
  /// false where the walk's host placement (stack or a thread's scratch) applies.
  virtual bool declare_body_array(Writer& w, const DataDescriptor& d, const std::string& cpp,
                                  const std::string& count, const std::string& name,
                                  bool device_code) const = 0;
  /// The scratch class of a body array sized per state (weir_scratch, weir_device_scratch).
  virtual std::string_view scratch_class(const DataDescriptor& d) const = 0;

  // --- functions and states ---------------------------------------------------------------
  /// Declaration specifiers of a generated function: `device_code` (called from a kernel),
  /// `inlined` (small enough to be inlined where the walk calls it).
  virtual std::string function_specifiers(bool device_code, bool inlined) const = 0;
  /// What ends a state function of host code that may use the device (`uses`): CUDA waits
  /// for its kernels and copies (ADR 0020). Empty when nothing does.
  virtual std::string state_end(const SDFG& sdfg, const SDFGState& st, const StateUses& uses) const = 0;

  // --- dataflow, dispatched per schedule and storage ------------------------------------
  /// Emits map `e` (in `g`'s state) when this target generates its schedule itself (CUDA: a
  /// GPU_Device map of host code as a kernel and its launch); false where the walk's loops apply.
  virtual bool emit_map(StateGen& g, const MapEntry& e, Writer& w) const = 0;
  /// Emits a copy `src` -> `dst` (dims `sd`/`dd` of their subsets that are not one element)
  /// when this target moves the storage pair itself (CUDA: host code copying to, from or within
  /// device memory); false where the walk's host copy applies. `wcr`: the memlet's resolution.
  /// `what` describes the copy for errors. Throws GenFailure for a copy it cannot make.
  virtual bool emit_copy(StateGen& g, const Location& src, const Location& dst,
                         const std::vector<std::size_t>& sd, const std::vector<std::size_t>& dd,
                         const std::string& wcr, const std::string& what, Writer& w) const = 0;
  /// Checks that library node `n` can run where it is (CUDA host code cannot touch device
  /// memory); throws CodegenError otherwise.
  virtual void check_library_node(const StateGen& g, const LibraryNode& n) const = 0;
};

/// The CPU target: host memory, OpenMP threads.
const TargetEmitter& cpu_emitter();
/// The CUDA target: GPU_Device maps of host code as kernels, GPU storage as device memory, the
/// program's stream.
const TargetEmitter& cuda_emitter();

}  // namespace weir::codegen::detail
