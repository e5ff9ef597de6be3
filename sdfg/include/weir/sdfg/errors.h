// Typed, located errors of the SDFG layer. Every error names the element it is about.
#pragma once

#include <string>

#include "weir/pycode/error.h"

namespace weir {

/// Where in an SDFG something is: the SDFG name, the path of control-flow blocks (labels,
/// '/'-separated), the state, a node id and/or an edge index. Unset parts are empty / -1.
struct ElementRef {
  std::string sdfg;
  std::string block_path;
  long node = -1;
  long edge = -1;
  std::string node_label;
  /// e.g. "SDFG 'hdiff', state 'main/s0', node 3 ('lap_map')".
  std::string describe() const;
};

/// A structural misuse of the IR API (unknown node id, removing a node still in use, ...).
class IRError : public Error {
 public:
  IRError(ElementRef where, const std::string& message);
  const ElementRef& where() const { return where_; }

 private:
  ElementRef where_;
};

}  // namespace weir
