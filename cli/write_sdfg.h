// Writing an SDFG from a command (-o): every command that writes one (convert, compose, optimize,
// sdfg) validates it first, so that no command leaves an invalid file behind.
#pragma once

#include <string>
#include <vector>

#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"
#include "weir/sdfg/validate.h"

namespace weir::cli {

/// Validates `sdfg` and writes it to `path` (atomically, as save_sdfg(); warns first when the
/// name does not end in .sdfg/.sdfgz/.json; refuses a .py name: refuse_python_source_output). An invalid SDFG
/// is not written: throws weir::Error
///   "OUT: not written: invalid SDFG (1 problem)\n  SDFG 'x', state 'a': ... [code]"
/// with every problem and its element. `input_problems` are the problems of the file the command
/// read (weir convert of a file weir's validator rejects): an output whose problems are all of
/// kinds (codes) the input had already is written, with a warning on stderr, since the command
/// did not make it invalid.
void write_sdfg(const SDFG& sdfg, const std::string& path, const SaveOptions& opts = {},
                const std::vector<Diagnostic>& input_problems = {});

}  // namespace weir::cli
