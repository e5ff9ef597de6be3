// Copy elision: a transient that is only copied, whole, into another array is not needed: its
// writers write that array directly. Removes the copies the field-view lowering makes when an
// operator returns (a part of) a scan's result: the scan writes a transient, a map copies it into
// the program's output (issue 16: 126 MB of such transients made a first call 2.1 s).
#pragma once

#include "weir/transforms/pipeline.h"

namespace weir::transforms {

/// Pass "copy-elision". In the SDFG's own states (nested SDFGs are not entered): a copy of all of
/// a transient array T onto all of an array O made by an edge between their access nodes, or of
/// all of T onto O at the same indices made by an element-wise copy map (a map over T's whole
/// shape whose only tasklet is `out = in`, reading T and writing O at the map's parameters;
/// other inputs of the tasklet must be unused by its code), is removed and T is renamed O
/// everywhere. A copy map whose tasklet is several such statements (`o1 = a` and `o2 = b`: an
/// operator returning all results of a scan) copies each T onto its own O; it goes as a whole,
/// when every one of its copies may go. A copy may go when
///  * T and O have the same dtype, shape, strides, offsets and storage, neither is a view (for
///    a copy map: the same dtype, storage and number of dimensions, neither a view; O's shape
///    may be spelt with other symbols, the map writes it at T's indices);
///  * the copy is the only reader of T in the SDFG (T has one access node with out-edges, only
///    into the copy) and O is written by the copy and accessed nowhere else (one access node);
///  * neither is named in control flow, tasklet code or a nested SDFG's symbol mapping;
///  * the copy runs after every write of T: its state is in a region R where every state that
///    writes T lies in a block from which unconditional edges lead to it (no branch, loop or
///    edge condition may skip the copy), and its own state has no other node of T.
/// Writing O where T was written is then the same: nothing reads O between (nothing else
/// accesses it), and T's values reach O unchanged. Unlike redundant-array-removal, T may be
/// written in other states (a scan's loop) than the copy. Access nodes left without edges are
/// removed. Returns the number of copies removed (arrays no longer copied: two for a map copying
/// two results).
class CopyElision final : public Pass {
 public:
  CopyElision();

 protected:
  std::size_t run_pass(SDFG& sdfg, Transaction& tx) override;
};

}  // namespace weir::transforms
