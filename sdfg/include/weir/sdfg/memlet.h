// Memlets: the data movement carried by a dataflow edge (DaCe's Memlet).
#pragma once

#include <optional>
#include <string>

#include "weir/sdfg/attributes.h"
#include "weir/sdfg/subset.h"

namespace weir {

/// What moves along a dataflow edge. `subset` indexes `data`; `other_subset` (if set) indexes
/// the container at the other end of the edge (copies between access nodes). `volume` is the
/// number of elements moved per execution of the edge, as DaCe's Memlet.volume; `dynamic`
/// means the volume is an upper bound (data-dependent access). `wcr` is the write-conflict
/// resolution as a Python lambda text ("lambda a, b: a + b"); empty means plain write.
/// An empty memlet (`data` empty) only orders nodes.
struct Memlet {
  std::string data;
  Subset subset;
  std::optional<Subset> other_subset;
  sym::Expr volume{0};
  bool dynamic = false;
  std::string wcr;
  bool wcr_nonatomic = false;
  bool allow_oob = false;
  /// Direction hint DaCe saves: true if `subset` refers to the edge's source end.
  std::optional<bool> is_data_src;
  UnknownAttributes extra;

  /// A memlet reading/writing `subset` of `data`, volume = subset's element count.
  static Memlet simple(std::string data, Subset subset, std::string wcr = {});
  bool is_empty() const { return data.empty(); }
  bool operator==(const Memlet&) const = default;
};

/// Which end of a copy between access nodes of `src` and `dst` a memlet's `data`/`subset`
/// describe, by DaCe's Memlet rules: `data` names the container `subset` indexes and
/// `other_subset` indexes the other end. When `data` names exactly one of the two containers,
/// that end; when it names both (a self-copy such as DaCe's `p[0, :] = p[1, :]`), the saved
/// `is_data_src`, the source end when none is saved (DaCe's default). true: the source end.
/// nullopt when `data` names neither container.
std::optional<bool> data_is_source(const Memlet& m, const std::string& src, const std::string& dst);

/// The subsets at both ends of a copy between access nodes of `src` and `dst` (DaCe's
/// src_subset / dst_subset): `subset` on the end data_is_source() picks, `other_subset` (or
/// nullopt when unset) on the other. Both nullopt when `data` names neither container.
struct CopySubsets {
  std::optional<Subset> src, dst;
};
CopySubsets copy_subsets(const Memlet& m, const std::string& src, const std::string& dst);

}  // namespace weir
