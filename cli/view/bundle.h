// The viewer page (viewer/: one self-contained HTML file, scripts and styles inlined), embedded
// into the weir binary at build time (cmake/WeirViewer.cmake, docs/adr/0018-viewer.md).
#pragma once

namespace weir::cli {

/// The page's HTML, with the marker `<!--WEIR_DATA-->` where the documents go; nullptr when
/// weir was built without the bundle (no node/npm at configure time).
const char* viewer_html();

/// Why the bundle is missing (empty when it is embedded), for `weir view`'s error.
const char* viewer_missing_reason();

}  // namespace weir::cli
