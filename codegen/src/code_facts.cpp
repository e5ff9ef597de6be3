// The facts of emitted code (code_facts.h): a recorder per thread, innermost first.
#include "code_facts.h"

namespace weir::codegen::detail {

namespace {
thread_local FactRecorder* innermost = nullptr;
}  // namespace

void CodeFacts::merge(const CodeFacts& other) {
  may_fault = may_fault || other.may_fault;
  complex_numbers = complex_numbers || other.complex_numbers;
  algorithm = algorithm || other.algorithm;
  atomics = atomics || other.atomics;
  streams = streams || other.streams;
  prefetches = prefetches || other.prefetches;
  polls_interrupt = polls_interrupt || other.polls_interrupt;
  calls.insert(other.calls.begin(), other.calls.end());
}

FactRecorder::FactRecorder() : outer_(innermost) { innermost = this; }

FactRecorder::~FactRecorder() {
  if (recording_) finish();
}

CodeFacts FactRecorder::finish() {
  if (recording_) {
    recording_ = false;
    // Recorders finish innermost first (scopes); one finished out of order leaves the chain intact.
    if (innermost == this) innermost = outer_;
  }
  return facts_;
}

CodeFacts* recorded_facts() { return innermost ? &innermost->facts_ : nullptr; }

void note_fault() {
  if (CodeFacts* f = recorded_facts()) f->may_fault = true;
}

void note_complex() {
  if (CodeFacts* f = recorded_facts()) f->complex_numbers = true;
}

void note_algorithm() {
  if (CodeFacts* f = recorded_facts()) f->algorithm = true;
}

void note_atomics() {
  if (CodeFacts* f = recorded_facts()) f->atomics = true;
}

void note_streams() {
  if (CodeFacts* f = recorded_facts()) f->streams = true;
}

void note_prefetches() {
  if (CodeFacts* f = recorded_facts()) f->prefetches = true;
}

void note_interrupt_poll() {
  if (CodeFacts* f = recorded_facts()) f->polls_interrupt = true;
}

void note_call(const std::string& name) {
  if (CodeFacts* f = recorded_facts()) f->calls.insert(name);
}

void note(const CodeFacts& facts) {
  if (CodeFacts* f = recorded_facts()) f->merge(facts);
}

}  // namespace weir::codegen::detail
