// The arguments `weir run` passes, from its command line: arrays from --in-dir and --in (.npy
// files), values from --set-json and --set.
#pragma once

#include <filesystem>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "run_options.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/arguments.h"
#include "weir/runtime/signature.h"

namespace weir::cli {

/// The arguments given on the command line, before sizes and random inputs are filled in.
struct GivenArguments {
  runtime::Arguments args;
  std::vector<std::filesystem::path> input_files;    // every .npy read, never overwritten by --out
  std::map<std::string, runtime::Number> from_json;  // values from --set-json (unknown names only warn)
};

/// "NAME=VALUE" of option `opt` split at the first '='; throws UsageError "--set X: expected
/// NAME=VALUE" when either side is empty.
std::pair<std::string, std::string> split_assignment(const std::string& opt, const std::string& s);

/// Reads --in-dir (arrays of `sig` with a DIR/NAME.npy in one of the folders), then --in (which
/// wins), --set-json, then --set (which wins) into arrays allocated by `allocator`. Throws
/// UsageError for a name given twice, a NAME.npy in two --in-dir folders (naming both files), a
/// --set value that is no number or not integral for a symbol, integer argument or dimension, an --in name
/// that is no array parameter of `sig` (with the closest one), an --in-dir that is no directory or a
/// malformed value; weir::Error for files that cannot be read. `program` (may be null): the
/// field-view program's own signature, whose words the messages use (its scalar arguments are
/// symbols of the lowered SDFG).
GivenArguments gather_arguments(const RunOptions& o, const runtime::Signature& sig,
                                const runtime::Allocator& allocator,
                                const runtime::Signature* program = nullptr);

}  // namespace weir::cli
