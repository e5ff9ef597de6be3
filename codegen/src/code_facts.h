// What generated code needs from the program around it, recorded by the emitters when they write
// the code, never read off its text (ADR 0016): whether it can record a run-time fault, whether
// it computes with complex values, whether it needs <algorithm>, and which generated functions
// it calls. A FactRecorder collects the facts of the code emitted on its thread while it records
// (one per generated function and one for the program's body; the innermost one gets them).
#pragma once

#include <set>
#include <string>

namespace weir::codegen::detail {

struct CodeFacts {
  /// It can record a run-time fault (weir_index, weir_ipow, weir_bounds_ok, weir_fault_publish:
  /// the prelude's fault state), which the caller raises after the state (sdfg_codegen.cpp).
  bool may_fault = false;
  /// It computes complex values that no container or connector type shows (an imaginary literal).
  bool complex_numbers = false;
  /// It calls std::max<T> / std::min<T> over an initializer list (<algorithm>).
  bool algorithm = false;
  /// It updates memory atomically (a write-conflict resolution concurrent iterations may meet),
  /// itself or in a function it calls: a parallel map around it may use per-thread copies instead
  /// (parallel_privatization.cpp).
  bool atomics = false;
  /// It stores rows with non-temporal stores (codegen/prelude/weir_stream.h, which the program
  /// then includes; streaming_stores.cpp).
  bool streams = false;
  /// It prefetches gathered rows (codegen/prelude/weir_prefetch.h, which the program then
  /// includes; gather_prefetch.cpp).
  bool prefetches = false;
  /// It asks whether the run was interrupted (weir_poll_interrupt: a top-level loop, ADR 0038):
  /// weir_set_interrupt_poll then tells the caller to watch for Ctrl-C while it runs.
  bool polls_interrupt = false;
  /// The generated functions it calls, by name (program_units.cpp declares them per unit).
  std::set<std::string> calls;

  /// Adds the facts of `other` (code this code contains).
  void merge(const CodeFacts& other);
};

/// Collects the facts of the code emitted on this thread from its construction to finish()
/// (or its destruction); recorders nest: the innermost one records, an outer one resumes when
/// it finishes.
class FactRecorder {
 public:
  FactRecorder();
  ~FactRecorder();
  FactRecorder(const FactRecorder&) = delete;
  FactRecorder& operator=(const FactRecorder&) = delete;
  /// What it recorded so far.
  const CodeFacts& facts() const { return facts_; }
  /// Stops recording (the outer recorder resumes) and returns what was recorded.
  CodeFacts finish();

 private:
  CodeFacts facts_;
  FactRecorder* outer_ = nullptr;
  bool recording_ = true;
  friend CodeFacts* recorded_facts();
};

/// The facts of the innermost recorder of this thread, or nullptr when none records (the
/// translator called on its own).
CodeFacts* recorded_facts();

/// The emitters' notes: the code just emitted can record a fault, computes complex values,
/// needs <algorithm>, calls the generated function `name`; facts of code emitted elsewhere
/// that this code contains.
void note_fault();
void note_complex();
void note_algorithm();
void note_call(const std::string& name);
void note_atomics();
void note_streams();
void note_prefetches();
void note_interrupt_poll();
void note(const CodeFacts& facts);

}  // namespace weir::codegen::detail
