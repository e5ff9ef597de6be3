// The rules DaCe 2.0 applies when it loads, validates and compiles an SDFG, encoded without
// DaCe (CI has none), to check what weir writes: DaCe runs it with weir's meaning or refuses it.
#pragma once

#include <string>
#include <vector>

namespace weir::test {

/// Every way the SDFG JSON text `json_text` (as weir writes it) breaks a rule of DaCe's, each
/// naming the SDFG and element; empty when none. The rules:
///  - a library node's `implementation` is null or one DaCe registers for its class
///    (library_implementations.h);
///  - a nested SDFG's free symbols as DaCe computes them (dace_symbols.h) are connectors or in
///    its symbol mapping (DaCe: "Missing symbols on nested SDFG");
///  - Python tasklet code parses and names no module DaCe's C++ lacks: not `np.` / `numpy.`,
///    and `math.f` only for the functions of DaCe's `dace::math`;
///  - every node of a state and block of a region has a type DaCe has a serializer for (a
///    library node's is "LibraryNode"; DaCe finds its class by `classpath`);
///  - connector and symbol names are identifiers;
///  - a library node has a name (DaCe expands a node without one into a tasklet without a
///    label, which its code generator emits without its code; weir's reader refuses tasklet
///    labels that are not identifiers).
/// Throws what loading the text throws (weir's JSON errors).
std::vector<std::string> dace_rule_problems(const std::string& json_text);

}  // namespace weir::test
