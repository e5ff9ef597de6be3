// Which slot (parameter array or local field) each field variable of an orchestration function
// may name at each statement (internal to the frontend). A binding maps every field variable
// bound so far to a slot; the set of bindings possible before a statement is found by running
// the statements over sets (loops to a fixed point). It is finite: Bind statements only permute
// and copy names among the function's slots.
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "weir/frontend/orchestration.h"

namespace weir::frontend::detail {

using Binding = std::map<std::string, std::string>;  // field variable -> slot

/// Interned bindings: ids are indices into `all`.
struct BindingTable {
  std::vector<Binding> all;
  int intern(const Binding& b);
};

/// The slot of every Alloc statement: its variable's name, `_1`, `_2`, ... when several Alloc
/// statements (or a parameter) use the same name.
std::map<const OStmt*, std::string> alloc_slots(const Orchestration& o);

/// Runs `body` over sets of binding ids. `visit` (may be empty) sees each statement with the set
/// possible before it (inside loops possibly several times, with growing sets). Returns the set
/// after the body (fall-through); adds to `*brk` / `*cont` what reaches a break / continue.
class BindingFlow {
 public:
  BindingFlow(const Orchestration& o, BindingTable& table);
  using Visit = std::function<void(const OStmt&, const std::set<int>&)>;
  std::set<int> run(const std::vector<OStmt>& body, std::set<int> cur, std::set<int>* brk,
                    std::set<int>* cont, const Visit& visit = {}) const;
  /// The set at the head of a loop entered with `in` (its fixed point over the body).
  std::set<int> loop_head(const OStmt& loop, const std::set<int>& in, std::set<int>* brk,
                          const Visit& visit = {}) const;
  /// The binding ids after one statement that is a Bind or Alloc, from `in`.
  std::set<int> step(const OStmt& s, const std::set<int>& in) const;
  /// The binding at entry: every field parameter names itself.
  int initial() const;
  const std::map<const OStmt*, std::string>& allocs() const { return allocs_; }
  BindingTable& table() const { return table_; }

 private:
  const Orchestration& o_;
  BindingTable& table_;
  std::map<const OStmt*, std::string> allocs_;
};

/// The field parameters some call may write (through any name bound to them), in parameter
/// order.
std::vector<std::string> written_slots(const Orchestration& o);

}  // namespace weir::frontend::detail
