// The SDFG: a control-flow region plus data descriptors, symbols and arguments (DaCe's SDFG).
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "weir/sdfg/control_flow.h"
#include "weir/sdfg/data.h"
#include "weir/sdfg/state.h"

namespace weir {

/// The DaCe version weir writes into files it creates (the format version it follows).
inline constexpr const char* kDaceFormatVersion = "2.0.0a6";

class SDFG final : public ControlFlowRegion {
 public:
  explicit SDFG(std::string name);
  ~SDFG() override;
  static bool matches(BlockKind k) { return k == BlockKind::SDFG; }

  std::string name;
  /// Data containers by name (DaCe's `_arrays`).
  std::map<std::string, DataDescriptor> arrays;
  /// Symbols and their types (DaCe's `symbols`).
  std::map<std::string, DataType> symbols;
  /// Argument order of the program (DaCe's `arg_names`); other non-transient containers and
  /// free symbols follow in name order in `arglist()`.
  std::vector<std::string> arg_names;
  std::string dace_version = kDaceFormatVersion;
  bool using_explicit_control_flow = true;
  CodeBlock global_code{"", Language::CPP};
  CodeBlock init_code{"", Language::CPP};
  CodeBlock exit_code{"", Language::CPP};

  // --- builder -------------------------------------------------------------------------
  /// Adds a container; throws IRError if the name is taken or not a valid identifier.
  DataDescriptor& add_data(const std::string& name, DataDescriptor desc);
  DataDescriptor& add_array(const std::string& name, ScalarType t, std::vector<sym::Expr> shape,
                            bool transient = false);
  DataDescriptor& add_scalar(const std::string& name, ScalarType t, bool transient = false);
  /// Adds a symbol; an existing symbol of the same type is kept, another type is an IRError.
  void add_symbol(const std::string& name, ScalarType t = ScalarType::Int64);
  /// A name not yet used by a container or symbol: `base`, `base_0`, `base_1`, ...
  std::string unique_data_name(const std::string& base) const;
  void remove_data(const std::string& name);

  // --- queries -------------------------------------------------------------------------
  /// Throws IRError if there is no such container.
  DataDescriptor& data(const std::string& name);
  const DataDescriptor& data(const std::string& name) const;
  bool has_data(const std::string& name) const { return arrays.count(name) != 0; }
  /// Symbols used but not defined by the SDFG itself (interstate assignments, loop variables
  /// and map parameters define symbols), i.e. what a caller must provide.
  std::set<std::string> free_symbols() const;
  /// Call signature: `arg_names`, then remaining non-transient containers, then free symbols.
  std::vector<std::string> arglist() const;

  /// The nested SDFG node that contains this SDFG (nullptr at the top level), its state
  /// and SDFG.
  NestedSDFGNode* parent_node() const { return parent_node_; }
  SDFGState* parent_state() const { return parent_state_; }
  SDFG* parent_sdfg() const;
  /// Sets the back-pointers of every nested SDFG below this one (after building or cloning).
  void relink_nested();

  /// A deep copy that shares nothing with this SDFG.
  std::unique_ptr<SDFG> clone_sdfg() const;
  std::unique_ptr<ControlFlowBlock> clone() const override;

 private:
  friend class SDFGState;  // links a nested SDFG to its node when the node is added or cloned
  NestedSDFGNode* parent_node_ = nullptr;
  SDFGState* parent_state_ = nullptr;
};

}  // namespace weir
