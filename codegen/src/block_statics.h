// Block-scope statics of generated code (a parallel map's measured times, a CBLAS call site's)
// where the same code is emitted more than once (docs/adr/0041, "session 36").
#pragma once

#include <string>
#include <vector>

#include "codegen_internal.h"

namespace weir::codegen::detail {

/// The block-scope statics of the code being emitted. A site's static is its record across the
/// program's calls (weir_map_times: which of one thread or many ran faster). Where the code of a
/// map is emitted twice (StreamGen's streamed and plain copies of a map choosing its store kind),
/// a static in each copy would split that record: each copy measured alone, so the one-thread
/// trials of the parallel choice ran twice as often and a short process chose from fewer runs.
/// So the statics declared while such a map is emitted are collected, and share() turns them
/// into references to statics declared once, before the copies.
struct BlockStatics {
  /// One declaration: `qualifiers` ("static", "static thread_local") `type` `name`.
  struct Declared {
    std::string qualifiers, type, name;
    std::string line() const { return qualifiers + " " + type + " " + name + ";"; }
  };
  /// Where declarations are recorded while a map that may be emitted twice is emitted (null: none).
  std::vector<Declared>* collecting = nullptr;
  /// Statics shared so far (their names: weir_shared_<n>, unique in the generated function).
  int shared = 0;

  /// The line declaring `name` of `type` as a static, in place; recorded while collecting.
  std::string declare(const std::string& qualifiers, const std::string& type, const std::string& name);
  /// Each of `declared`, in order, in `code` (its next line of that text) becomes a reference to
  /// a static of its type declared once in `hoisted`. The references are valid whichever line of
  /// the same text is taken, so code emitted twice inside (two copies of a nested map) stays valid.
  void share(const std::vector<Declared>& declared, Writer& code, Writer& hoisted);
};

}  // namespace weir::codegen::detail
