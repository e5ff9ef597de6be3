// Writes the meaning of generated programs as a plain NumPy script, independently of weir:
// every expression is evaluated on explicit index boxes (a shift moves the box, concat_where
// evaluates each branch only on its part of the box, a scan is a Python loop over K), with
// NumPy's own operators (floor division and modulo as in Python, bools, astype casts).
#pragma once

#include <string>
#include <vector>

#include "fv_program.h"

namespace weir::fvdiff {

/// The script `python3 SCRIPT INDIR OUTDIR`: reads every input and the initial value of every
/// output (INDIR/<name>.npy), writes each program's expected outputs to OUTDIR/<name>.npy
/// (the initial values outside the program's box). Programs expected to be refused are left out.
std::string write_numpy_script(const std::vector<const SubProgram*>& programs);

}  // namespace weir::fvdiff
