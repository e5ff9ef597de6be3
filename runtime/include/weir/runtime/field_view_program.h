// FieldViewProgram: a gt4py field-view @program (or a @field_operator called directly) ready to
// run, as the frontend loaded and type-checked it. The embedded backend interprets it; a
// compiled backend lowers it to an SDFG first (docs/adr/0009-embedded-backend.md).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "weir/codegen/cpu_codegen.h"
#include "weir/runtime/signature.h"

namespace weir::frontend {
struct TypedDefinition;
struct FieldOffset;
struct Orchestration;
struct Type;
}  // namespace weir::frontend

namespace weir::runtime {

/// A type-checked field-view definition and what keeps it alive. `definition` shares ownership
/// of the module loader and type checker that produced it (an aliasing shared_ptr), so copies
/// of a FieldViewProgram are cheap and the typed IR stays valid as long as any copy exists.
/// The typed IR is never modified after loading: running or lowering it twice gives the same
/// result.
struct FieldViewProgram {
  std::shared_ptr<const frontend::TypedDefinition> definition;
  /// Set instead of `definition` for an orchestration function (a plain Python function calling
  /// programs, docs/adr/0019-orchestration.md); shares ownership like `definition`.
  std::shared_ptr<const frontend::Orchestration> orchestration;
  /// Code generation options used when a compiled backend lowers and compiles the program.
  codegen::CodegenOptions options;
  /// Where the program came from ("examples/cartesian/laplacian.py::laplacian"), for messages.
  std::string origin;

  /// The definition's (or orchestration function's) name.
  const std::string& name() const;
};

/// Loads `file`, finds the @program / @field_operator / @scan_operator called `name` and
/// type-checks it (and everything it calls); a plain function of that name is checked as an
/// orchestration function (frontend::check_orchestration). Imports are searched in `search_path`, then
/// WEIR_PATH, then the file's directory (frontend::ModuleLoader). Throws
/// frontend::FrontendError (located) for source and type errors and for a @scan_operator (its
/// parameters are values of one level, so run alone it has no columns to scan: the message names
/// the definitions of the file that call it, to run instead), weir::Error when the file
/// cannot be read, BackendError "FILE: no @program or @field_operator named 'X' (defined:
/// a, b)" when the name is neither a definition nor a plain function of the file.
FieldViewProgram load_field_view_program(const std::string& file, const std::string& name,
                                         const std::vector<std::string>& search_path = {});

/// The same from source text; `path` is the display name of the text and the directory its
/// relative imports start from.
FieldViewProgram load_field_view_source(const std::string& text, const std::string& name,
                                        const std::string& path = "<source>.py",
                                        const std::vector<std::string>& search_path = {});

/// An unstructured offset a field-view program uses (transitively): its connectivity table is
/// the array argument named `name`, an integer array of shape (size of `from`, max neighbours),
/// row i listing the indices along `to` of the neighbours of point i, -1 where there is none.
struct ConnectivityParameter {
  std::string name;   ///< the offset's name ("E2V")
  std::string from;   ///< the dimension the table's rows are on (the offset's first target, "Edge")
  std::string to;     ///< the dimension its entries index (the offset's source, "Vertex")
  std::string local;  ///< the local dimension of the neighbours ("E2VDim")
};

/// The connectivities `def` and everything it calls use, sorted by name, each once.
std::vector<ConnectivityParameter> connectivities_of(const frontend::TypedDefinition& def);

/// connectivities_of a program's definition, or of everything an orchestration function calls.
std::vector<ConnectivityParameter> connectivities_of(const FieldViewProgram& program);

/// The Cartesian offsets `program` uses (transitively; `Koff[1]`, `as_offset(Koff, f)`), by name,
/// each with the name of the dimension it moves along: gt4py's offset_provider maps such an
/// offset to that Dimension (`{"Koff": KDim}`). A shift written `IDim + 1` counts as an offset
/// named after its dimension ("I" -> "I").
std::map<std::string, std::string> cartesian_offsets_of(const FieldViewProgram& program);

/// The program's parameters as `weir run` and argument checks see them, in the conventions of
/// the SDFG lowering (docs/adr/0008): a field `f` over (I, J) is an array of shape
/// (__f_I_size, __f_J_size) of its dtype; a scalar is a scalar; a @field_operator run directly
/// gets the written output `__out` (`__out_0`, `__out_1`, ... for a tuple result) over the
/// result's dimensions; then every connectivity table `E2V` as an int32 array of shape
/// (__E2V_<from>_size, __E2V_<local>_size) (int64 tables are accepted as well). Fields named
/// in an `out=` are marked written.
Signature field_view_signature(const frontend::TypedDefinition& def);

/// The outputs of the @field_operator `def` run directly, as field_view_signature names them:
/// `__out`, or `__out_0`, `__out_1`, ... for a tuple result, each with its type (the result's
/// leaves in order).
std::vector<std::pair<std::string, frontend::Type>> result_outputs(const frontend::TypedDefinition& def);

/// The same for a FieldViewProgram; for an orchestration function: its parameters (fields
/// marked written when some call may write them, frontend::written_parameters), then the
/// connectivity tables of everything it calls.
Signature field_view_signature(const FieldViewProgram& program);

}  // namespace weir::runtime
