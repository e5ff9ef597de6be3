// Program: something a backend made ready to run (a loaded compiled library, or an
// interpreted field-view program on the embedded backend).
#pragma once

#include <string>

#include "weir/runtime/arguments.h"
#include "weir/runtime/signature.h"

namespace weir::runtime {

/// A runnable program. Not thread-safe: one call at a time per object.
class Program {
 public:
  virtual ~Program();
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;

  /// The program's name (the SDFG's name).
  virtual const std::string& name() const = 0;
  /// Its parameters in call order.
  virtual const Signature& signature() const = 0;
  /// Runs once. Arrays in `args` are read and written in place; scalars the program writes
  /// are updated in `args.values`. Throws ArgumentError when `args` do not fit the signature
  /// (nothing runs then) and ProgramError when the program reports a runtime error.
  virtual void run(Arguments& args) = 0;

 protected:
  Program() = default;
};

}  // namespace weir::runtime
