// Subsets of data containers: DaCe's `subsets.Range` (and the older `Indices`).
#pragma once

#include <string>
#include <vector>

#include "weir/sdfg/symbolic.h"

namespace weir {

/// One dimension of a range. `end` is INCLUSIVE, as DaCe stores it: `0:N` is start 0,
/// end N - 1, step 1. `tile` is DaCe's tile size (1 unless tiled ranges are used).
struct Range {
  sym::Expr start, end, step{1}, tile{1};

  Range() = default;
  Range(sym::Expr s, sym::Expr e, sym::Expr st = 1, sym::Expr t = 1)
      : start(std::move(s)), end(std::move(e)), step(std::move(st)), tile(std::move(t)) {}
  /// The single index `i` (start == end == i).
  static Range index(const sym::Expr& i) { return Range(i, i); }
  /// Number of elements: ceildiv(end - start + 1, step) * tile, as DaCe's Range.size().
  sym::Expr size() const;
  bool operator==(const Range&) const = default;
};

/// A hyper-rectangular subset, one Range per dimension.
class Subset {
 public:
  Subset() = default;
  explicit Subset(std::vector<Range> ranges, bool written_as_indices = false)
      : ranges_(std::move(ranges)), indices_(written_as_indices) {}
  /// The full extent of a container of the given shape: 0:shape[i]-1 in every dimension.
  static Subset full(const std::vector<sym::Expr>& shape);
  /// Parses DaCe's string form "0:N, i, 2:M-1:2" (exclusive end in the string, as in Python).
  /// Throws sym::SymbolicError.
  static Subset parse(std::string_view text);

  std::size_t dims() const { return ranges_.size(); }
  const std::vector<Range>& ranges() const { return ranges_; }
  std::vector<Range>& ranges() { return ranges_; }
  const Range& operator[](std::size_t i) const { return ranges_[i]; }
  /// Element count (product of Range::size), as DaCe's Subset.num_elements().
  sym::Expr num_elements() const;
  /// Sizes per dimension.
  std::vector<sym::Expr> size() const;
  /// True if every dimension is a single index.
  bool is_single_element() const;
  /// Offsets every dimension by `-starts[i]` (DaCe's offset(..., negative=True)).
  Subset offset_by(const std::vector<sym::Expr>& delta, bool negative) const;
  Subset subs(const std::map<std::string, sym::Expr>& m) const;
  std::set<std::string> free_symbols() const;
  /// Python-slice text with exclusive ends: "0:N, i".
  std::string str() const;
  /// Loaded from an `Indices` object (older files); kept for faithful saving.
  bool written_as_indices() const { return indices_; }
  bool operator==(const Subset& o) const { return ranges_ == o.ranges_; }

 private:
  std::vector<Range> ranges_;
  bool indices_ = false;
};

}  // namespace weir
