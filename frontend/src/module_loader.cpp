// ModuleLoader: imports on a search path, module-level evaluation, lazy errors.
#include "module_loader_internal.h"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "weir/pycode/parser.h"
#include "weir/sdfg/input_file.h"

namespace weir::frontend {

// Executes a module's body, then the bodies of the plain functions it defines (for the
// definitions nested in them).
void ModuleLoader::Impl::run(LoadedModule& m) {
  std::size_t first_pending = pending_functions.size();
  // On an error (a syntax error in an imported file) this module's functions are dropped,
  // never attributed to another module later.
  struct Drop {
    std::vector<PendingFunction>& v;
    std::size_t n;
    ~Drop() {
      while (v.size() > n) v.pop_back();
    }
  } drop{pending_functions, first_pending};
  loading.push_back(&m);
  try {
    execute(m, m.ast.body, m.names);
  } catch (...) {
    loading.pop_back();
    throw;
  }
  loading.pop_back();
  for (std::size_t i = first_pending; i < pending_functions.size(); ++i) {
    auto [outer, f, qualname] = pending_functions[i];
    auto scope = std::make_shared<LoadedModule>();
    scope->path = outer->path;
    scope->name = outer->name;
    scope->is_package = outer->is_package;
    scope->portions = outer->portions;
    scope->ast.file = outer->ast.file;
    scope->function = qualname;
    scope->names = outer->names;  // globals as they are once the module has run
    scope->names.erase(f->name);
    execute(*scope, f->body, scope->names);
    for (const auto& d : scope->definitions) m.nested_definitions.push_back(d);
    // Kept by the module: definitions point to it, and so do the entries for the functions
    // nested in this one, which this loop processes next.
    m.scopes.push_back(scope);
  }
}

void ModuleLoader::Impl::execute(LoadedModule& m, const StmtList& body, std::map<std::string, Value>& ns) {
  for (const StmtPtr& s : body) {
    switch (s->kind) {
      case StmtKind::Import:
        importing_at = &s->loc;
        import(static_cast<const Import&>(*s), ns);
        break;
      case StmtKind::ImportFrom:
        importing_at = &s->loc;
        import_from(m, static_cast<const ImportFrom&>(*s), ns);
        break;
      case StmtKind::Assign: {
        auto& a = static_cast<const Assign&>(*s);
        Value v;
        try {
          v = evaluate(*a.value, m);
        } catch (const FrontendError& e) {
          v = Value::failed(e.message(), e.location());
        }
        for (const ExprPtr& t : a.targets) bind_target(*t, v, ns);
        break;
      }
      case StmtKind::AnnAssign: {
        auto& a = static_cast<const AnnAssign&>(*s);
        if (!a.value) break;
        Value v;
        try {
          v = evaluate(*a.value, m);
        } catch (const FrontendError& e) {
          v = Value::failed(e.message(), e.location());
        }
        bind_target(*a.target, v, ns);
        break;
      }
      case StmtKind::AugAssign: {
        auto& a = static_cast<const AugAssign&>(*s);
        auto* n = dyn_cast<Name>(a.target.get());
        if (!n) break;
        Value v;
        try {
          BinOp b(a.target->loc);
          b.op = a.op;
          b.left = clone(a.target.get());
          b.right = clone(a.value.get());
          b.op_loc = a.loc;
          v = evaluate(b, m);
        } catch (const FrontendError& e) {
          v = Value::failed(e.message(), e.location());
        }
        ns[n->id] = v;
        break;
      }
      case StmtKind::FunctionDef: define_function(m, static_cast<const FunctionDef&>(*s), ns); break;
      case StmtKind::If:
        // In a function body both branches may define what a nested definition uses.
        if (!m.function.empty()) {
          execute(m, static_cast<const If&>(*s).body, ns);
          execute(m, static_cast<const If&>(*s).orelse, ns);
        }
        break;
      case StmtKind::ClassDef: define_class(m, static_cast<const ClassDef&>(*s), ns); break;
      default: break;  // skipped statements
    }
  }
}

ModuleLoader::ModuleLoader(const LoaderOptions& options) : impl_(std::make_unique<Impl>()) {
  search_path_ = options.search_path;
  if (options.use_environment) {
    if (const char* env = std::getenv("WEIR_PATH")) {
      std::stringstream ss(env);
      for (std::string p; std::getline(ss, p, ':');)
        if (!p.empty()) search_path_.push_back(p);
    }
  }
  impl_->search_path = &search_path_;
}

ModuleLoader::~ModuleLoader() = default;

const LoadedModule& ModuleLoader::load_file(const std::string& path) {
  std::string dir = fs::path(path).parent_path().string();
  if (dir.empty()) dir = ".";
  if (std::find(search_path_.begin(), search_path_.end(), dir) == search_path_.end())
    search_path_.push_back(dir);
  // (As every file weir reads: "PATH: cannot open: No such file or directory".)
  if (std::error_code ec; fs::is_directory(path, ec))
    throw weir::Error(path + ": is a directory, not a .py file");
  if (std::error_code ec; !fs::exists(path, ec))
    throw weir::Error(path + ": cannot open: " + std::strerror(ENOENT));
  // Regular files only, found out without blocking (a FIFO): named as every input file names it.
  if (InputFile in = open_input_file(path); in.fd < 0)
    throw weir::Error(path + ": cannot open: " + in.error);
  else
    ::close(in.fd);
  bool package = fs::path(path).filename() == "__init__.py";
  Impl::Spec spec{path, package, {}, false};
  if (package) spec.portions = {dir};
  // Under an import root, inside a package found from it: its dotted name (`python -m`).
  std::string file_dir = Impl::canonical(dir);
  for (const std::string& root : search_path_) {
    fs::path rel = fs::path(file_dir).lexically_relative(Impl::canonical(root.empty() ? "." : root));
    if (rel.empty() || rel == "." || *rel.begin() == "..") continue;
    std::string pkg;
    for (const auto& part : rel) pkg += (pkg.empty() ? "" : ".") + part.string();
    auto chain = impl_->import_name(pkg, nullptr);
    if (chain.empty() || !chain.back()->is_package) continue;
    bool here = false;
    for (const std::string& p : chain.back()->portions) here = here || Impl::canonical(p) == file_dir;
    if (!here) continue;
    return *impl_->get(spec, package ? pkg : pkg + "." + fs::path(path).stem().string());
  }
  std::string name =
      package ? fs::path(path).parent_path().filename().string() : fs::path(path).stem().string();
  return *impl_->get(spec, name, false);
}

const LoadedModule& ModuleLoader::load_source(const SourceFile& file) {
  auto mod = std::make_unique<LoadedModule>();
  fs::path p = file.path();
  mod->path = p.is_absolute() ? p.string() : (fs::current_path() / p).string();
  mod->name = p.stem().string();
  mod->ast = parse_module(file);
  LoadedModule* m = mod.get();
  impl_->cache.emplace("<source>:" + std::to_string(impl_->cache.size()) + ":" + file.path(), std::move(mod));
  impl_->run(*m);
  return *m;
}

std::vector<const LoadedModule*> ModuleLoader::modules() const {
  std::vector<const LoadedModule*> out;
  for (const auto& [k, m] : impl_->cache) out.push_back(m.get());
  return out;
}

}  // namespace weir::frontend
