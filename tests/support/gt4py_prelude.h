// The gt4py declarations that field-view test snippets share.
#pragma once

namespace weir::test {

/// Cartesian I, J and vertical K; unstructured V and E with the local E2VDim and the E2V table;
/// the vertical offset Koff (8 lines, each ending in a newline). Snippets put their imports
/// first, so their line numbers stay as the tests expect.
inline constexpr const char kGt4pyDimensions[] =
    "I = gtx.Dimension(\"I\")\n"
    "J = gtx.Dimension(\"J\")\n"
    "K = gtx.Dimension(\"K\", kind=gtx.DimensionKind.VERTICAL)\n"
    "V = gtx.Dimension(\"V\")\n"
    "E = gtx.Dimension(\"E\")\n"
    "E2VDim = gtx.Dimension(\"E2VDim\", kind=gtx.DimensionKind.LOCAL)\n"
    "E2V = gtx.FieldOffset(\"E2V\", source=V, target=(E, E2VDim))\n"
    "Koff = gtx.FieldOffset(\"Koff\", source=K, target=(K,))\n";

}  // namespace weir::test
