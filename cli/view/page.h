// The page `weir view` serves and `weir view --html` writes: the embedded viewer (bundle.h)
// with the documents it shows inlined as JSON — the SDFG, its transformation history replayed
// step by step, a second SDFG to compare with, the source files its debuginfo names and the
// problems `weir validate` finds.
#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

namespace weir {
class SDFG;
}

namespace weir::cli::view {

struct PageOptions {
  /// FILE.sdfg, FILE.sdfgz or FILE.py::NAME (lowered as `weir sdfg` does).
  std::string target;
  /// With --compare: the second SDFG (same kinds of reference); empty: none.
  std::string compare;
  /// Import directories for field-view references (-I).
  std::vector<std::string> includes;
  /// With --report: a profile report (`weir run --profile=FILE`) to overlay; with no `target`
  /// the page shows the SDFG the report was made from.
  std::string report;
  /// Symbol values for the static overlay from the SDFG shown (--set NAME=VALUE resolved by
  /// view_symbol_values, which may throw UsageError; they win over the report's); may be empty.
  std::function<std::map<std::string, long long>(const SDFG&)> symbols;
};

struct Page {
  std::string html;
  /// What the page holds, for the command's output ("history: 12 steps", replay problems).
  std::vector<std::string> notes;
};

/// Loads the documents and builds the page. Throws UsageError (targets.h) for a reference of
/// the wrong kind, a report that does not read or was made from another SDFG (overlays.h), what load_sdfg /
/// the frontend throw for input that does not load, and weir::Error "this weir was built without the viewer
/// bundle: WHY" when it has none. A history that no longer replays is not an error: the page shows the steps
/// up to it and the notes say where it stopped.
Page build_page(const PageOptions& options);

}  // namespace weir::cli::view
