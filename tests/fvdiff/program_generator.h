// Random, well-typed Cartesian field-view programs for the differential fuzzer: expression trees
// over the inputs of cartesian_universe() with shifts, arithmetic, where, concat_where, powers,
// integer floor division and modulo, comparisons, booleans, astype, tuples and vertical scans,
// written to a random output domain (whole field, sliced out= or domain=). A share of the
// programs read outside their inputs' domain on purpose: gt4py leaves those undefined, so
// every backend must refuse them.
#pragma once

#include <cstdint>
#include <string>

#include "fv_program.h"

namespace weir::fvdiff {

/// What the generator may produce. Each switch names a construct so that one a backend still
/// gets wrong can be left out of a configuration explicitly (never by loosening a comparison).
struct GeneratorOptions {
  double error_rate = 0.04;  ///< share of programs made to read outside the inputs' domain
  bool int_powers = true;    ///< x ** <int literal or int32 scalar>
  /// concat_where(K < 1, ..., u(K - 1)) over the whole field, and any output domain on which
  /// only the branch taken reads inside the inputs.
  bool guarded_boundary_reads = true;
  /// Unstructured programs made to be refused by a direct shift to a -1 neighbour.
  bool missing_neighbour_shifts = true;
  /// Programs writing an input they read at an offset, f(a, out=a): valid, the right-hand side
  /// is computed before anything is written (docs/adr/0043); each runs alone.
  bool aliased_outputs = true;
  /// Valid direct shifts along table columns that hold a -1 in rows outside the output domain.
  bool direct_shifts_near_missing = true;
  /// Unstructured batches whose connectivity tables are int64 (else int32).
  bool int64_tables = true;
  /// `//` and `%` by int32 fields that hold zeros (NumPy gives 0 there, as every backend).
  bool zero_divisors = true;
  /// Programs made to be refused for an integer to a negative integer power (NumPy raises).
  bool negative_int_powers = true;
  bool scans = true;
  bool tuples = true;
  int max_depth = 4;
};

/// The program numbered `number` of the run seeded `seed`: the same pair always gives the same
/// program, whatever else the run generates.
SubProgram generate_program(std::uint64_t seed, std::uint64_t number, const GeneratorOptions& options);

/// Whether evaluating `n` on every point of `box` reads only inside the inputs' domains, with
/// gt4py's meaning of concat_where (each branch is evaluated only where it is taken). When not,
/// `why` says which read leaves which domain.
bool reads_in_bounds(const Node& n, const Box& box, const Universe& u, std::string* why);

}  // namespace weir::fvdiff
