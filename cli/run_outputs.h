// What `weir run` reports and writes: a summary of every output (min, max, mean, NaNs,
// checksum) and the outputs as .npy files in --out.
#pragma once

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

#include "weir/runtime/arguments.h"
#include "weir/runtime/signature.h"

namespace weir::cli {

/// Fails early (before compiling) when `out` cannot become a directory of outputs: makes and
/// removes a probe directory in its nearest existing ancestor, which must be a directory.
/// Throws weir::Error "cannot write --out DIR: ...".
void check_output_dir(const std::filesystem::path& out);

/// The return value of a scalar-returning SDFG (DaCe's `__return`, `__return_0`, ... of shape
/// (1,)) as what NumPy returns: a 0-d array (shape ()), so that --out writes it as NumPy would.
void returned_scalars_as_0d(const runtime::Signature& sig, runtime::Arguments& args);

/// Prints the summary of each array the program writes (and the values of written scalars) to
/// stdout; returns the arrays by name, in call order.
std::vector<std::pair<std::string, const runtime::Field*>> print_outputs(const runtime::Signature& sig,
                                                                         const runtime::Arguments& args);

/// Throws UsageError (exit 2) when OUT/NAME.npy of one of `names` is one of `inputs` (the same
/// file, not only the same name): "--out OUT: would overwrite the input file IN; choose another
/// output directory" (`option` names the option that gave `out`). weir run calls it before
/// compiling, so the mistake shows at once.
void refuse_outputs_over_inputs(const std::filesystem::path& out, const std::vector<std::string>& names,
                                const std::vector<std::filesystem::path>& inputs,
                                const std::string& option = "--out");

/// Writes the outputs as `out`/NAME.npy (creating `out`), each through a temporary file beside its
/// final target (an AtomicOutput: a symbolic link stays a link), all of them before the first
/// is renamed into place, so existing files change only when every one could be written.
/// Refuses as refuse_outputs_over_inputs() when an output would overwrite one of `inputs`.
void write_outputs(const std::filesystem::path& out,
                   const std::vector<std::pair<std::string, const runtime::Field*>>& outputs,
                   const std::vector<std::filesystem::path>& inputs, const std::string& option = "--out");

/// The end of a run: returned scalars as 0-d arrays, the summary of every output of `sig` in
/// `args` on stdout, then (when `out_dir` is not empty) the files, never over one of `inputs`.
void finish_outputs(const runtime::Signature& sig, runtime::Arguments& args, const std::string& out_dir,
                    const std::vector<std::filesystem::path>& inputs);

}  // namespace weir::cli
