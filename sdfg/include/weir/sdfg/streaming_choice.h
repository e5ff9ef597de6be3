// Whether the CPU code generator may use streaming (non-temporal) stores inside a parallel map:
// a weir extension recorded on the map (MapInfo::extra kStreamingStoresAttribute, the JSON
// string "off" or "on") by cpu-schedules' `streaming_stores` option (docs/adr/0056-weir-tune.md,
// session 31) and read by the code generator's streaming plan (codegen/src/streaming_stores.cpp,
// docs/adr/0041). "off": no row inside the map's scope streams, whatever the plan would choose;
// "on" or no attribute: the plan decides per row (its run-time test included). The values
// computed are the same either way; only the stores' cache behaviour differs. DaCe ignores it.
#pragma once

#include <optional>

#include "weir/sdfg/nodes.h"

namespace weir {

/// The map attribute holding the choice ("off", "on").
inline constexpr const char* kStreamingStoresAttribute = "weir_streaming_stores";

/// The choice recorded on `m`: false for "off", true for "on", nullopt without the attribute.
/// Throws std::invalid_argument naming the attribute and its value when the value is not the
/// JSON string "off" or "on".
std::optional<bool> recorded_streaming_stores(const MapInfo& m);

/// Records `allowed` on `m` ("on" or "off", as a JSON string).
void record_streaming_stores(MapInfo& m, bool allowed);

}  // namespace weir
