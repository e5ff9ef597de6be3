// Random, well-typed unstructured field-view programs on mesh_universe(): vertex and edge
// fields over K, direct neighbour shifts `v(E2V[1])`, neighbour reductions (neighbor_sum,
// max_over, min_over, with weights over the local dimension) over tables with -1 entries,
// vertical shifts and concat_where on K, arithmetic and where. Direct shifts to a missing
// neighbour inside the output domain are undefined in gt4py: such programs must be refused.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "fv_program.h"
#include "program_generator.h"

namespace weir::fvdiff {

/// The unstructured program numbered `number` of the run seeded `seed` (deterministic).
SubProgram generate_unstructured_program(std::uint64_t seed, std::uint64_t number,
                                         const GeneratorOptions& options);

/// Whether `n`, evaluated at the horizontal points `rows` (of its location) and the K range of
/// `kbox`, reads only defined values: no direct shift to a -1 neighbour, K inside the fields.
bool reads_defined(const Node& n, const std::vector<std::int32_t>& rows, const Box& kbox, const Universe& u,
                   std::string* why);

}  // namespace weir::fvdiff
