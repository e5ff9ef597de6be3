// weir.view: the page `weir view --html` writes (the viewer with the SDFG, its history replayed
// step by step, a second SDFG to compare with, the program's source), for a weir.SDFG, an SDFG
// file or a field-view reference (docs/adr/0042-python-api.md, "SDFGs").
#include <pybind11/stl.h>
#include <unistd.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <vector>

#include "bindings.h"
#include "targets.h"
#include "view/page.h"
#include "weir/sdfg/output_file.h"
#include "weir/sdfg/sdfg.h"
#include "weir/sdfg/serialize.h"

namespace weir::python {

namespace fs = std::filesystem;

namespace {

// A folder of its own under the system's temporary folder, removed with the object: where a
// weir.SDFG is written for the page builder, which reads files (as `weir view` does).
class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<unsigned> counter{0};
    fs::path base = fs::temp_directory_path();
    for (;;) {
      path_ = base / ("weir-view-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
      if (fs::create_directory(path_)) break;
    }
  }
  ~ScratchDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;
  const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

// What the page builder takes for `obj`: a weir.SDFG written as NAME.sdfg into `scratch` (the
// page's title is the file's name), a weir.Program's SDFG likewise, or a path or FILE.py::NAME.
std::string target_of(py::handle obj, const ScratchDir& scratch, const std::string& what) {
  if (py::isinstance<PySDFG>(obj)) {
    const PySDFG& s = obj.cast<const PySDFG&>();
    if (!s.sdfg) throw py::value_error(what + ": empty weir.SDFG");
    // NAME.sdfg in a folder per role, so that the page is titled by the SDFG's name.
    std::string name = s.sdfg->name + ".sdfg";
    if (s.sdfg->name.empty() || fs::path(name).filename() != name) name = "sdfg.sdfg";
    fs::create_directory(scratch.path() / what);
    const fs::path file = scratch.path() / what / name;
    save_sdfg(*s.sdfg, file.string(), SaveOptions{});
    return file.string();
  }
  // A weir.Program: its SDFG (what `weir view FILE.py::NAME` shows; the page takes the source
  // from its debuginfo), so that the folders it was loaded with need not be given again.
  if (py::hasattr(obj, "reference") && py::hasattr(obj, "__sdfg__"))
    return target_of(obj.attr("__sdfg__")(py::arg("dace") = false), scratch, what);
  if (py::isinstance<py::str>(obj) || py::hasattr(obj, "__fspath__"))
    return py::str(py::module_::import("os").attr("fspath")(obj));
  throw py::type_error(
      what +
      ": expected a weir.SDFG, a weir.Program, an SDFG file (.sdfg, .sdfgz) or 'FILE.py::NAME', "
      "got " +
      type_name(obj));
}

std::vector<std::string> view(py::object sdfg, py::object html, py::object compare,
                              std::vector<std::string> include) {
  if (html.is_none())
    throw py::type_error(
        "view(): give html= (the HTML file to write); `weir view` serves the page in the browser instead");
  const std::string out = py::str(py::module_::import("os").attr("fspath")(html));
  ScratchDir scratch;
  cli::view::PageOptions o;
  o.target = target_of(sdfg, scratch, "sdfg");
  if (!compare.is_none()) o.compare = target_of(compare, scratch, "compare");
  o.includes = std::move(include);
  for (const std::string* t : {&o.target, &o.compare}) {
    std::error_code ec;
    if (!t->empty() && fs::equivalent(out, t->substr(0, t->rfind("::")), ec))
      throw py::value_error("view(): html='" + out + "' is the input " + *t + ": refusing to write over it");
  }
  try {
    py::gil_scoped_release nogil;
    cli::view::Page page = cli::view::build_page(o);
    write_file_atomically(out, page.html);
    return page.notes;
  } catch (const cli::UsageError& e) {  // a reference of the wrong kind ("x.py" without ::NAME)
    std::string message = e.what();
    if (const std::string cli = "weir view: "; message.rfind(cli, 0) == 0)
      message = message.substr(cli.size());
    throw py::value_error("view(): " + message);
  }
}

}  // namespace

void bind_view(py::module_& m) {
  m.def("view", &view, py::arg("sdfg"), py::kw_only(), py::arg("html") = py::none(),
        py::arg("compare") = py::none(), py::arg("include") = std::vector<std::string>{},
        "Writes the viewer's page as `weir view --html` does: one self-contained HTML file showing `sdfg` (a "
        "weir.SDFG, a weir.Program, an SDFG file or 'FILE.py::NAME'), its history step by step and, with "
        "compare=, a second SDFG beside it. Returns the notes `weir view` prints (history, validation).");
}

}  // namespace weir::python
