// Source file names in a lowered SDFG made independent of how the program's path was spelt
// (internal): the program cache keys compiled programs by their generated source, whose
// bounds-check messages name the `.py` file of each access, so `weir run cartesian/x.py::p`
// and `weir run /abs/examples/cartesian/x.py::p` must generate the same source.
#pragma once

namespace weir {
class SDFG;
}

namespace weir::runtime::detail {

/// Replaces the `filename` of every DebugInfo (`extra["debuginfo"]` of nodes and memlets, in
/// nested SDFGs too) by its canonical absolute path (std::filesystem::weakly_canonical: `..`,
/// `.` and symbolic links resolved). Names that are not paths of existing files are kept.
void canonicalize_source_files(SDFG& sdfg);

}  // namespace weir::runtime::detail
