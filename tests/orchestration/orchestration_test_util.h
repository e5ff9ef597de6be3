// Helpers of the orchestration tests: a prelude of dimensions and stencils, loading an
// orchestration function from source, running it on a backend.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "weir/frontend/python_syntax.h"
#include "weir/runtime/allocator.h"
#include "weir/runtime/dispatch.h"
#include "weir/runtime/field_view_program.h"

namespace weir::test::orchestration {

/// Dimensions I, J and K; stencils on (I, J) float64 fields: `lap` (5-point Laplacian) and
/// `axpy` (u + a * l) as field operators and as programs writing the interior `out[1:-1, 1:-1]`
/// (`laplace`, `update`), and `copy_prog` (the whole field).
inline const std::string kPrelude =
    "import gt4py.next as gtx\n"
    "from gt4py.next import Field, float64, int32, int64\n"
    "I = gtx.Dimension(\"I\")\n"
    "J = gtx.Dimension(\"J\")\n"
    "IJ = Field[[I, J], float64]\n"
    "@gtx.field_operator\n"
    "def lap(u: IJ) -> IJ:\n"
    "    return -4.0 * u + u(I + 1) + u(I - 1) + u(J + 1) + u(J - 1)\n"
    "@gtx.field_operator\n"
    "def axpy(u: IJ, l: IJ, a: float64) -> IJ:\n"
    "    return u + a * l\n"
    "@gtx.field_operator\n"
    "def scale(u: IJ, a: float64) -> IJ:\n"
    "    return a * u\n"
    "@gtx.program\n"
    "def laplace(u: IJ, out: IJ):\n"
    "    lap(u, out=out[1:-1, 1:-1])\n"
    "@gtx.program\n"
    "def update(u: IJ, l: IJ, a: float64, out: IJ):\n"
    "    axpy(u, l, a, out=out[1:-1, 1:-1])\n"
    "@gtx.program\n"
    "def scale_prog(u: IJ, a: float64, out: IJ):\n"
    "    scale(u, a, out=out)\n";

/// Number of lines of kPrelude (the body's first line is kPreludeLines + 1).
inline std::uint32_t prelude_lines() {
  std::uint32_t n = 0;
  for (char c : kPrelude) n += c == '\n';
  return n;
}

inline runtime::FieldViewProgram load(const std::string& body, const std::string& name) {
  return runtime::load_field_view_source(kPrelude + body, name, "orch.py");
}

}  // namespace weir::test::orchestration
