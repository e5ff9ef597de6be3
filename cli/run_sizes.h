// Sizes of what `weir run` passes: which --set names are dimensions (`--set K=8`) rather than
// parameters, the extent of each dimension, and checks of --set names against the program.
#pragma once

#include <cstdint>
#include <map>
#include <set>
#include <string>

#include "run_options.h"
#include "run_target.h"
#include "weir/runtime/arguments.h"

namespace weir::cli {

/// Whether `symbol` is the size symbol of some field along `dim` (`__f_K_size` for K).
bool is_size_of(const std::string& symbol, const std::string& dim);

/// The dimension a size symbol `__f_K_size` is along ("K"), or "" for other names.
std::string size_dimension(const std::string& symbol);

/// Values given with --set that name a dimension of a field-view program (`--set K=8`) rather
/// than a parameter: with --random-inputs each is the extent of that dimension in every array
/// that has it (size symbols `__f_K_size`). Returns the dimension names so used.
std::set<std::string> size_hints(const runtime::Signature& sig, const runtime::Arguments& args);

/// The extent of each dimension: `--set DIM=N` first, then what the arrays given say (a field's
/// extent along DIM, a connectivity table's rows and neighbours), then the neighbours per row a
/// compiled program fixes (V2E: int32[__V2E_rows, 6]).
std::map<std::string, std::int64_t> dimension_extents(const RunTarget& t, const runtime::Arguments& args,
                                                      const std::set<std::string>& hints);

/// The value of every symbol the shapes of `t`'s arrays may use, from what is given: integral
/// --set values, symbols the given arrays' extents determine (runtime::known_symbols), each
/// size symbol `__f_K_size` as the extent of its dimension (dimension_extents), and the rows
/// of connectivity tables as the extent of the dimension they are on. Sizes the arrays weir
/// makes (--random-inputs, outputs).
std::map<std::string, long long> shape_symbols(const RunTarget& t, const runtime::Arguments& args,
                                               const std::set<std::string>& hints);

/// --set names the program lacks are errors (UsageError with the closest name: a typo must not
/// run with a default); names from a --set-json file (often shared between programs) only warn
/// on stderr and are removed from `args`.
void check_value_names(const RunTarget& t, runtime::Arguments& args,
                       const std::map<std::string, runtime::Number>& from_json);

/// `--set K=8` sizes only the fields weir makes (--random-inputs, outputs it allocates): throws
/// UsageError "--set K=9: 'f' is 4 long along K; ..." when a field given is another size along
/// that dimension (the run would fail on a domain its inputs do not cover), and warns on stderr
/// when no field is left for it to size.
void check_size_hints(const RunOptions& o, const RunTarget& t, const runtime::Arguments& args,
                      const std::set<std::string>& hints);

/// `--set t.K=6` sizes one field along one dimension (a @program's full-level `t` beside its
/// half-level `w` of `--set K=7`): replaced in `args` by the field's size symbol (`__t_K_size`),
/// which sizes it where weir makes it and wins over `--set K=N`. Returns the symbols so given.
/// UsageError for a field the program lacks, a dimension the field lacks, or an extent that is
/// not an integer of 0 or more.
std::set<std::string> take_field_extents(const RunTarget& t, runtime::Arguments& args);

/// `--set V2E=6` names the neighbours per row of table V2E (its local dimension) on every
/// backend: a compiled program fixes that number, so it is checked (UsageError when it differs)
/// and removed from `args`, not passed.
void take_neighbour_counts(const RunTarget& t, runtime::Arguments& args);

}  // namespace weir::cli
