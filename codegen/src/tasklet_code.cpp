// A tasklet's code as C++ lines: Python translated (python_to_cpp.cpp) with the connectors as
// values, pointers or hooked writes; C++ taken as written, with its DaCe environments and its
// trusted global / init / exit code.
#include <cctype>

#include "state_codegen.h"
#include "weir/sdfg/code_rewrite.h"

namespace weir::codegen::detail {

std::vector<std::string> StateGen::python_tasklet_code(const Tasklet& t, const std::vector<Conn>& ins,
                                                       const std::vector<Conn>& outs,
                                                       const std::map<std::string, ScalarType>& syms,
                                                       const std::set<std::string>& symbol_names,
                                                       std::set<std::string>& used, const LoopHoist* hoist) {
  PyContext ctx;
  ctx.hoist = hoist;
  ctx.fault_line = debuginfo_location(t.extra);
  ctx.fault_tasklet = "tasklet '" + t.label + "'";
  // Indices that are entries of tables weir_run checks need no checks here (docs/adr/0051): at
  // the top level only, whose extents are the call's.
  if (sg.top_level && !device_code()) ctx.entry_checked_tables = sg.prog.entry_checked_tables;
  for (const auto& [s, ty] : syms) {
    PyVar v = PyVar::value(cpp_ident(s), ty);
    v.shown = s.rfind("__", 0) == 0 && s.size() > 2 ? s.substr(2) : s;  // as value_origin names it
    ctx.vars[s] = v;
  }
  auto strides_of = [&](const Location& loc, PyVar& v) {
    if (loc.data.empty()) return;
    const DataDescriptor& d = *loc.binding->desc;
    if (loc.binding->scalar) return;
    auto sizes = loc.subset.size();
    for (std::size_t k = 0; k < d.strides.size(); ++k) {
      v.strides.push_back(sym_cpp(d.strides[k]));
      if (!(k < sizes.size() && sizes[k].is_integer() && sizes[k].value() == 1))
        v.squeezed_strides.push_back(v.strides.back());
    }
  };
  for (const auto& cn : ins) {
    PyVar v = PyVar::value(cn.cpp, cn.type);
    v.writable = cn.kind == ConnKind::Value;
    v.pointer = cn.kind == ConnKind::Pointer;
    if (v.pointer) strides_of(cn.locs[0], v);
    if (v.pointer) {
      checks_.index_checks(t, cn.name, cn.locs[0], v);  // (computed indices, bounds_checks.cpp)
      v.data = cn.locs[0].data;
    } else {
      checks_.value_origin(st.edge(st.in_edges_by_connector(t.id(), cn.name)[0]), cn.type, v);
    }
    ctx.vars[cn.name] = v;
  }
  for (const auto& cn : outs) {
    PyVar v = PyVar::value(cn.cpp, cn.type);
    v.writable = true;
    v.pointer = cn.kind == ConnKind::Pointer || (cn.kind == ConnKind::Hooked && cn.multi);
    v.hooked = cn.kind == ConnKind::Hooked;
    if (v.pointer) strides_of(cn.locs[0], v);
    if (v.pointer) checks_.index_checks(t, cn.name, cn.locs[0], v);  // (computed indices, bounds_checks.cpp)
    ctx.vars[cn.name] = v;
  }
  ctx.reserved = symbol_names;
  ctx.is_reserved = [this](const std::string& c) { return container_cpp_name(c); };
  for (const auto& cn : ins) ctx.reserved.insert(cn.cpp);
  for (const auto& cn : outs) ctx.reserved.insert(cn.cpp);
  ctx.write_hook = [&](const std::string& name, const std::string& index, const std::string& value) {
    for (const auto& cn : outs) {
      if (cn.name != name) continue;
      std::string target = "__weir_p_" + sanitize_label(cn.name) + "[" + (index.empty() ? "0" : index) + "]";
      return wcr_update(cn.wcr, target, value, cn.type,
                        ConcurrentAccess(*this).wcr_atomic(cn.locs[0], cn.multi));
    }
    throw GenFailure("no output connector '" + name + "'");
  };
  std::vector<std::string> code = translate_statements(t.code, ctx);
  used = ctx.used;
  if (!ctx.proofs.empty()) {
    std::set<std::string> tables;
    for (const TableProof& p : ctx.proofs) tables.insert(p.table);
    std::string names;
    for (const std::string& n : tables) names += (names.empty() ? "'" : ", '") + n + "'";
    if (opts.emit_comments)
      code.insert(code.begin(), "// bounds of " + std::to_string(ctx.proofs.size()) +
                                    " indices proven by the entry check of table" +
                                    (tables.size() > 1 ? "s " : " ") + names +
                                    " (no check here; docs/adr/0051)");
    sg.prog.table_proofs.insert(sg.prog.table_proofs.end(), ctx.proofs.begin(), ctx.proofs.end());
  }
  return code;
}

std::vector<std::string> cpp_tasklet_code(Program& prog, const Tasklet& t, std::set<std::string>& used) {
  std::vector<std::string> code;
  std::string src = t.code.code;
  while (!src.empty() && (src.back() == '\n' || src.back() == ' ')) src.pop_back();
  std::size_t b = 0;
  while (b <= src.size()) {
    std::size_t e = src.find('\n', b);
    if (e == std::string::npos) e = src.size();
    code.push_back(src.substr(b, e - b));
    b = e + 1;
  }
  used = code_names(t.code).reads;  // C++: its identifiers
  note_algorithm();                 // C++ taken as written may call std::min, std::swap, ...
  use_environments(prog, t);
  return code;
}

// Trusted C++ around the tasklet (check_user_code refused it otherwise), whatever its language.
void hoist_user_code(Program& prog, const Tasklet& t) {
  if (!t.code_global.code.empty()) prog.global_code.push_back(t.code_global.code);
  if (!t.code_init.code.empty()) prog.init_code.push_back(t.code_init.code);
  if (!t.code_exit.code.empty()) prog.exit_code.push_back(t.code_exit.code);
}

// DaCe's library environments a CPP tasklet names (`environments`, e.g. after auto-optimize
// replaced a MatMul by a cblas_dgemm call): BLAS environments (OpenBLAS, MKL, cuBLAS's CPU
// fallback, "cblas") link the system's CBLAS, LAPACK ones its LAPACKE.
void use_environments(Program& prog, const Tasklet& t) {
  // DaCe's OpenBLAS and MKL environments give their tasklets LAPACKE too (its expansions of
  // Solve, Inv, getrf, ... call LAPACKE_?getrf): code that calls LAPACKE gets lapacke.h.
  if (t.code.code.find("LAPACKE_") != std::string::npos) prog.link_libraries.insert("lapacke");
  if (t.code.code.find("cblas_") != std::string::npos) prog.link_libraries.insert("blas");
  const std::string* envs = t.extra.find("environments");
  if (!envs) return;
  std::string lower;
  for (char c : *envs) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower.find("blas") != std::string::npos || lower.find("mkl") != std::string::npos)
    prog.link_libraries.insert("blas");
  if (lower.find("lapack") != std::string::npos) prog.link_libraries.insert("lapacke");
}

}  // namespace weir::codegen::detail
