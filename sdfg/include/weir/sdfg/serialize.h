// Reading and writing SDFGs in DaCe's JSON schema (DaCe 2.x `dace.serialize`; older files with
// plain states and interstate edges load too). `.sdfgz` files are gzip-compressed JSON.
#pragma once

#include <memory>
#include <string>
#include <string_view>

#include "weir/sdfg/errors.h"
#include "weir/sdfg/json_limits.h"
#include "weir/sdfg/json_text.h"
#include "weir/sdfg/sdfg.h"

namespace weir {

/// A file that is not a readable SDFG: not JSON, truncated, a required key missing, a dangling
/// edge endpoint, an unknown node type, a tasklet without code, a memlet without subset, ...
/// `what()` reads "<file>: <json path>[ (element)]: <message>", e.g.
/// "hdiff.sdfg: /nodes/0/nodes/3/attributes/code: state 'main', node 3 (Tasklet 'add'): tasklet has no code".
class SdfgLoadError : public Error {
 public:
  SdfgLoadError(std::string file, std::string json_path, std::string element, std::string message);
  /// Text that is not JSON: `what()` is "<file>:<line>:<column>: invalid JSON: <message>".
  explicit SdfgLoadError(const InvalidJsonError& e);
  const std::string& file() const { return file_; }
  const std::string& json_path() const { return json_path_; }
  const std::string& element() const { return element_; }
  const std::string& message() const { return message_; }

 private:
  std::string file_, json_path_, element_, message_;
};

/// Parses SDFG JSON text. `origin` names the input in errors. Throws SdfgLoadError, also for
/// nesting deeper than kMaxJsonDepth and numbers outside the range of a double (e.g. 1e400).
std::unique_ptr<SDFG> sdfg_from_json_text(std::string_view text, const std::string& origin = "<string>");
/// Reads a `.sdfg` or `.sdfgz` file (gzip detected by content). Throws SdfgLoadError
/// (including for unreadable files).
std::unique_ptr<SDFG> load_sdfg(const std::string& path);

struct SaveOptions {
  /// Indentation of the JSON text; -1 writes compact JSON on one line, as DaCe does.
  int indent = -1;
  /// Gzip the output (default: when the path ends in `.sdfgz`).
  std::optional<bool> compress;
};

/// DaCe JSON text of the SDFG. Throws Error "SDFG 'name' nests N levels deep in JSON; weir reads at
/// most kMaxJsonDepth" rather than write a file that no weir can load again.
std::string sdfg_to_json_text(const SDFG& sdfg, int indent = -1);
/// Writes the SDFG to `path` atomically (temporary file + rename): on any error the file at
/// `path`, if one existed, is unchanged. Throws Error on I/O failure.
void save_sdfg(const SDFG& sdfg, const std::string& path, const SaveOptions& options = {});

/// Semantic equality of two SDFGs: same blocks, nodes, edges, memlets, descriptors, symbols
/// and unknown attributes (ids, guids and derived keys such as scope_dict are not compared).
/// Returns an empty string if equal, else a description of the first difference.
std::string sdfg_difference(const SDFG& a, const SDFG& b);

}  // namespace weir
