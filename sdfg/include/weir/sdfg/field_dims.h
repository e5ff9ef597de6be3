// The dimensions of a field-view array: the frontend records the name of the dimension each
// axis of an array it makes stands for (a parameter, a local field of gtx.zeros, a temporary of
// a field-operator call, an orchestration's local), so a message can say "along K" where only
// an extent expression (`nlev + 1`) is known. Kept as the descriptor's attribute `weir_dims`
// (a JSON list of names; `_meta_weir_dims` in files, which DaCe skips).
#pragma once

#include <string>
#include <vector>

#include "weir/sdfg/data.h"

namespace weir {

/// Records `dims` (one name per axis of `d`) as `d`'s dimensions.
void set_field_dims(DataDescriptor& d, const std::vector<std::string>& dims);

/// The dimensions recorded for `d`: one name per axis, or empty when none were recorded (or
/// the record does not match its rank, e.g. after a transformation reshaped it).
std::vector<std::string> field_dims(const DataDescriptor& d);

}  // namespace weir
