// Import resolution: modules and packages on the search path (as Python's path-based finder),
// relative imports, `import` and `from ... import`.
#include "module_loader_internal.h"

#include <algorithm>
#include <sstream>

#include "weir/pycode/parser.h"

namespace weir::frontend {

namespace {

bool is_builtin_module(const std::string& dotted) {
  std::string root = dotted.substr(0, dotted.find('.'));
  return root == "gt4py" || root == "typing" || root == "typing_extensions" || root == "enum" ||
         root == "__future__" || root == "builtins" || root == "math" || root == "sys";
}

}  // namespace

std::string ModuleLoader::Impl::canonical(const fs::path& p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(p, ec);
  return ec ? p.lexically_normal().string() : c.string();
}

// Per directory in order: `part/__init__.py` (a regular package) or `part.py` ends the
// search; a directory `part` without `__init__.py` is a namespace portion, used only when
// no directory has a regular package or module.
std::optional<ModuleLoader::Impl::Spec> ModuleLoader::Impl::find_spec(const std::vector<std::string>& dirs,
                                                                      const std::string& part) {
  std::error_code ec;
  Spec ns;
  for (const std::string& d : dirs) {
    fs::path dir = d.empty() ? fs::path(".") : fs::path(d);
    if (fs::is_regular_file(dir / part / "__init__.py", ec))
      return Spec{(dir / part / "__init__.py").string(), true, {(dir / part).string()}, false};
    if (fs::is_regular_file(dir / (part + ".py"), ec))
      return Spec{(dir / (part + ".py")).string(), false, {}, false};
    if (fs::is_directory(dir / part, ec)) ns.portions.push_back((dir / part).string());
  }
  if (ns.portions.empty()) return std::nullopt;
  ns.file = ns.portions[0];
  ns.package = ns.namespace_package = true;
  return ns;
}

std::string ModuleLoader::Impl::join(const std::vector<std::string>& dirs) {
  std::string s;
  for (const std::string& d : dirs) s += (s.empty() ? "" : ", ") + (d.empty() ? std::string(".") : d);
  return s.empty() ? "no directories" : s;
}

/// The module of `spec` named `name` (loaded and executed on first use; a module still
/// being loaded is returned partially initialised, as Python does in an import cycle).
/// `by_name`: register the module under `name` (false for modules found by directory,
/// outside every import root, whose names are only for messages).
LoadedModule* ModuleLoader::Impl::get(const Spec& spec, const std::string& name, bool register_name) {
  std::string key = spec.namespace_package ? "<namespace>:" + name : canonical(spec.file);
  auto it = cache.find(key);
  if (it != cache.end()) {
    if (register_name) by_name.emplace(name, it->second.get());
    return it->second.get();
  }
  // Bounded nesting (each level recurses through run): refused at the import statement that
  // would load one module too many, naming the ends of the chain.
  if (loading.size() >= kMaxImportDepth)
    throw FrontendError(
        importing_at ? *importing_at : SourceLocation{},
        "imports nested more than " + std::to_string(kMaxImportDepth) + " modules deep ('" +
            loading.front()->name + "' -> ... -> '" + loading.back()->name + "' -> '" + name +
            "'): weir loads imported modules recursively and bounds the nesting, as CPython's "
            "recursion limit does");
  auto mod = std::make_unique<LoadedModule>();
  mod->path = spec.file;
  mod->name = name;
  mod->is_package = spec.package;
  mod->portions = spec.portions;
  LoadedModule* m = mod.get();
  cache.emplace(key, std::move(mod));
  if (register_name) by_name.emplace(name, m);
  // No source: a namespace package, or the directory of a relative import without __init__.py.
  if (std::error_code ec; spec.namespace_package || fs::is_directory(spec.file, ec)) {
    m->ast.file = SourceFile(spec.file, "");
    return m;
  }
  m->ast = parse_module(read_source_file(spec.file));
  run(*m);
  return m;
}

/// The chain of modules of `dotted` (a, a.b, a.b.c), importing each; empty when a part is
/// not found, with `missing` saying which and where it was searched.
std::vector<LoadedModule*> ModuleLoader::Impl::import_name(const std::string& dotted, std::string* missing) {
  std::vector<LoadedModule*> chain;
  std::string name;
  std::stringstream ss(dotted);
  for (std::string part; std::getline(ss, part, '.');) {
    LoadedModule* parent = chain.empty() ? nullptr : chain.back();
    std::string full = name.empty() ? part : name + "." + part;
    LoadedModule* m = nullptr;
    if (auto it = by_name.find(full); it != by_name.end()) {
      m = it->second;
    } else {
      if (parent && !parent->is_package) {
        if (missing) *missing = "no module '" + full + "': '" + name + "' is a module, not a package";
        return {};
      }
      const std::vector<std::string>& dirs = parent ? parent->portions : *search_path;
      auto spec = find_spec(dirs, part);
      if (!spec) {
        if (missing) *missing = "no module '" + full + "' in " + join(dirs);
        return {};
      }
      m = get(*spec, full);
    }
    if (parent) parent->submodules[part] = m;
    chain.push_back(m);
    name = full;
  }
  return chain;
}

/// The dotted name of the package `m` is in (itself for a package); empty when it has none.
std::string ModuleLoader::Impl::package_name(const LoadedModule& m) {
  if (m.is_package) return m.name;
  auto pos = m.name.rfind('.');
  return pos == std::string::npos ? std::string() : m.name.substr(0, pos);
}

// A module relative to `from`: `level` dots then `dotted` (may be empty: the package).
// By name when `from` knows its package (as Python resolves `__package__`), else by
// directory (a file loaded outside every import root).
LoadedModule* ModuleLoader::Impl::resolve_relative(const LoadedModule& from, int level,
                                                   const std::string& dotted, std::string* missing) {
  std::string base = package_name(from);
  bool by_package = !base.empty() && by_name.count(base);
  for (int i = 1; i < level && by_package; ++i) {
    auto pos = base.rfind('.');
    if (pos == std::string::npos)
      by_package = false;
    else
      base = base.substr(0, pos);
  }
  if (by_package) {
    auto chain = import_name(dotted.empty() ? base : base + "." + dotted, missing);
    return chain.empty() ? nullptr : chain.back();
  }
  // A file given as a bare relative name ("a.py") has an empty parent: resolve from the
  // working directory, never from the empty path.
  fs::path dir = from.package_dir();
  if (dir.empty()) dir = fs::current_path();
  std::string base_name = package_name(from);
  for (int i = 1; i < level; ++i) {
    dir = dir.parent_path();
    auto pos = base_name.rfind('.');
    base_name = pos == std::string::npos ? "" : base_name.substr(0, pos);
  }
  if (base_name.empty()) base_name = dir.filename().string();
  std::error_code ec;
  Spec pkg = fs::is_regular_file(dir / "__init__.py", ec)
                 ? Spec{(dir / "__init__.py").string(), true, {dir.string()}, false}
                 : Spec{dir.string(), true, {dir.string()}, false};
  LoadedModule* current = get(pkg, base_name, false);
  std::stringstream ss(dotted);
  for (std::string p; std::getline(ss, p, '.');) {
    auto spec = current->is_package
                    ? find_spec(current->portions.empty() ? std::vector<std::string>{current->package_dir()}
                                                          : current->portions,
                                p)
                    : std::nullopt;
    if (!spec) {
      if (missing) *missing = "no module '" + current->name + "." + p + "' in " + current->package_dir();
      return nullptr;
    }
    LoadedModule* next = get(*spec, current->name + "." + p, false);
    current->submodules[p] = next;
    current = next;
  }
  return current;
}

Value ModuleLoader::Impl::module_value(const LoadedModule* m) {
  Value v;
  v.kind = ValueKind::Module;
  v.module = m;
  return v;
}

bool ModuleLoader::Impl::is_loading(const LoadedModule* m) const {
  return std::find(loading.begin(), loading.end(), m) != loading.end();
}

void ModuleLoader::Impl::import_from(LoadedModule& m, const ImportFrom& imp,
                                     std::map<std::string, Value>& ns) {
  std::string display = std::string(static_cast<std::size_t>(imp.level), '.') + imp.module;
  if (imp.level == 0 && is_builtin_module(imp.module)) {
    for (const Alias& a : imp.names) {
      if (a.name == "*") continue;
      Value v = Value::builtin(a.name);
      if (auto member = stdlib_member(imp.module, a.name)) {
        v = *member;
        if (v.kind == ValueKind::Failed) v.defined_at = a.loc;
      }
      ns[a.asname.empty() ? a.name : a.asname] = v;
    }
    return;
  }
  LoadedModule* src = nullptr;
  std::string missing;
  if (imp.level == 0) {
    auto chain = import_name(imp.module, &missing);
    if (!chain.empty()) src = chain.back();
  } else {
    src = resolve_relative(m, imp.level, imp.module, &missing);
  }
  for (const Alias& a : imp.names) {
    std::string bind = a.asname.empty() ? a.name : a.asname;
    if (!src) {
      if (auto member = imp.level == 0 ? numpy_member(imp.module, a.name) : std::nullopt) {
        ns[bind] = *member;  // `from numpy import int32`
      } else if (imp.level == 0) {
        Value v;
        v.kind = ValueKind::External;
        v.name = imp.module + "." + a.name;
        v.error = missing;
        v.defined_at = a.loc;  // (weir check notes modules no definition uses)
        if (a.name != "*") ns[bind] = v;
      } else if (a.name != "*") {
        ns[bind] = Value::failed("module '" + display + "' was not found (" + missing + ")", a.loc);
      }
      continue;
    }
    if (a.name == "*") {
      for (const auto& [k, v] : src->names)
        if (!k.empty() && k[0] != '_') ns[k] = v;
      continue;
    }
    auto it = src->names.find(a.name);
    if (it != src->names.end()) {
      ns[bind] = it->second;
      continue;
    }
    if (src->is_package) {
      // `from pkg import sub`: the submodule, searched in every directory of the package.
      LoadedModule* sub = nullptr;
      if (!src->name.empty() && by_name.count(src->name)) {
        auto chain = import_name(src->name + "." + a.name, nullptr);
        if (!chain.empty()) sub = chain.back();
      } else {
        if (auto spec = find_spec({src->package_dir()}, a.name))
          sub = get(*spec, src->name + "." + a.name, false);
      }
      if (sub) {
        src->submodules[a.name] = sub;
        ns[bind] = module_value(sub);
        continue;
      }
    }
    std::string why =
        is_loading(src) ? " (a partially initialized module, most likely due to a circular import)" : "";
    ns[bind] = Value::failed("cannot import name '" + a.name + "' from '" + display + "'" + why, a.loc);
  }
}

void ModuleLoader::Impl::import(const Import& imp, std::map<std::string, Value>& ns) {
  for (const Alias& a : imp.names) {
    std::string root = a.name.substr(0, a.name.find('.'));
    if (is_builtin_module(a.name)) {
      ns[a.asname.empty() ? root : a.asname] = Value::builtin(a.asname.empty() ? root : a.name);
      continue;
    }
    std::string missing;
    auto chain = import_name(a.name, &missing);
    if (chain.empty()) {
      Value v;
      v.kind = ValueKind::External;
      v.name = a.asname.empty() ? root : a.name;
      v.error = missing;
      v.defined_at = a.loc;
      ns[a.asname.empty() ? root : a.asname] = v;
      continue;
    }
    ns[a.asname.empty() ? root : a.asname] = module_value(a.asname.empty() ? chain.front() : chain.back());
  }
}

}  // namespace weir::frontend
