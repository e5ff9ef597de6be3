// The symbol values a set of arguments determines, as argument binding infers them (defined in
// arguments.cpp beside bind_arguments), for sizing arrays the caller does not give.
#pragma once

#include <map>
#include <string>

#include "weir/runtime/arguments.h"
#include "weir/runtime/signature.h"

namespace weir::runtime {

/// The symbol values `args` determine, without checking anything: integral values given for
/// symbols, then each symbol that a given array's extent determines through an affine
/// dimension (shape [I+4, J+4, K] and an array of shape (20, 20, 8): I=16, J=16, K=8; the first
/// array that determines a symbol wins, conflicts are bind_arguments' to report). `weir run`
/// sizes the outputs it allocates and the arrays of --random-inputs with them.
std::map<std::string, long long> known_symbols(const Signature& sig, const Arguments& args);

}  // namespace weir::runtime
