// The domain= of a compiled @program's calls checked against their output fields before it runs,
// as the embedded backend checks it (docs/adr/0014).
#pragma once

#include <memory>

#include "weir/runtime/field_view_program.h"
#include "weir/runtime/program.h"

namespace weir::runtime {

/// `compiled`, the @program `program` compiled, run after the domain= of each of its calls is
/// checked against its output fields as the embedded backend checks it, with its ProgramError
/// ("FILE:LINE:COL: domain= gives K: [-2, 3), outside the output field 'o' (K: [0, 10))")
/// instead of the compiled code's report in SDFG terms. Bounds the scalar arguments do not
/// determine are left to argument binding. Every scalar argument is first checked in the type the
/// program declares, as the embedded backend checks it (ArgumentError "argument 'n': expected
/// int32 scalar, got 4294967299 (out of range)"): the SDFG holds a domain bound as an int64 symbol. prepare()
/// adds it; `weir run` and the Python API add it to a program they lower themselves. `compiled` itself for a
/// program without domain= and for anything but a @program.
std::shared_ptr<Program> with_call_domain_checks(std::shared_ptr<Program> compiled,
                                                 const FieldViewProgram& program);

}  // namespace weir::runtime
