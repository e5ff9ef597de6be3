// A LoopRegion read as a counted for loop: its variable, first value, last bound and constant
// step, from the init statement, the condition and the update (LoopToMap, LoopMapInterchange,
// the static costs, the memlet propagation out of nested SDFGs in nested_access.h).
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "weir/sdfg/control_flow.h"
#include "weir/sdfg/symbolic.h"

namespace weir::pycode {
class Code;
struct Expr;
}  // namespace weir::pycode

namespace weir {

/// A loop over an integer range: `var` from `start` to `end` (inclusive, in the direction of
/// the constant `step`).
struct ForLoop {
  std::string var;
  sym::Expr start, end, step;
};

/// The loop as a for loop (`v = a`, `v < b` / `v <= b`, `v = v + c`, c > 0 constant; with
/// `downward` also c < 0 with `v > b` / `v >= b`), or the reason it is not one.
std::variant<ForLoop, std::string> parse_loop(const LoopRegion& L, bool downward = false);

/// The lowest and the highest value the loop variable of a for loop (up or down) takes, or
/// nullopt for any other loop.
std::optional<std::pair<sym::Expr, sym::Expr>> loop_variable_bounds(const LoopRegion& L);

/// The one statement `name = value` of Python code, on its cached tree (`keep` holds the tree
/// the value points into): {name, value}; nullopt for any other code or code that does not parse.
std::optional<std::pair<std::string, const pycode::Expr*>> single_assignment(
    const CodeBlock& code, std::shared_ptr<const pycode::Code>& keep);

}  // namespace weir
