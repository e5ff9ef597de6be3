// The frame of a generated program, shared by the CPU and CUDA generators: file layout, the C
// entry points of program_abi.h (weir_init allocates persistent transients into a handle,
// weir_run unpacks the arguments and runs the control flow, weir_finalize frees). What differs
// per target (CUDA's stream, device memory, weir_run_host) comes from its emitter.
#include "codegen_internal.h"
#include "weir/codegen/program_abi.h"

namespace weir::codegen::detail {

namespace {
// A program with HaloExchange nodes compiles only with MPI's include folders, which `weir run
// --decompose` adds: compiled any other way, it stops with a message that says so.
constexpr const char* kMpiInclude =
    "#define OMPI_SKIP_MPICXX 1\n#define MPICH_SKIP_MPICXX 1\n"
    "#if !__has_include(<mpi.h>)\n"
    "#error \"this program has HaloExchange nodes (MPI): run it with weir run FILE.py::NAME --decompose I,J "
    "under mpirun (docs/distributed.md)\"\n"
    "#endif\n#include <mpi.h>";

bool complex_type(ScalarType t) { return t == ScalarType::Complex64 || t == ScalarType::Complex128; }

/// Whether `sdfg` or an SDFG nested in it has a complex container, symbol or connector: the
/// generated code then spells std::complex (the <complex> header).
bool uses_complex(const SDFG& sdfg) {
  for (const auto& [name, d] : sdfg.arrays)
    if (complex_type(d.dtype.base)) return true;
  for (const auto& [name, t] : sdfg.symbols)
    if (complex_type(t.base)) return true;
  auto typed = [](const ConnectorMap& m) {
    for (const auto& [c, t] : m)
      if (t && complex_type(t->base)) return true;
    return false;
  };
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* n : st->nodes()) {
      if (typed(n->in_connectors) || typed(n->out_connectors)) return true;
      if (auto* nested = n->as<NestedSDFGNode>(); nested && nested->sdfg && uses_complex(*nested->sdfg))
        return true;
    }
  return false;
}

}  // namespace

GeneratedCode generate_program(const SDFG& sdfg, const CodegenOptions& options, const TargetEmitter& target) {
  GeneratedCode out;
  out.program_name = sdfg.name;
  Program prog(options, sdfg, target);
  ElementRef top_ref;
  top_ref.sdfg = sdfg.name;

  const bool user_code = check_user_code(sdfg, options);
  if (!prog.timed.empty() && target.parallel_scopes_on_device()) {
    ElementRef where = top_ref;
    where.block_path = prog.timed.front().state->path();
    throw CodegenError(where,
                       "Timer instrumentation is generated for the CPU only (CUDA events are not "
                       "implemented yet, docs/adr/0048-profiling.md)");
  }
  try {
    // What the body and the entry points need (code_facts.h); each generated function records its own.
    FactRecorder body_facts;
    // --- arguments --------------------------------------------------------------------------
    std::vector<std::string> arglist = sdfg.arglist();
    std::set<std::string> free = sdfg.free_symbols();
    std::vector<std::string> data_args;
    for (const auto& name : arglist) {
      ArgInfo a;
      a.name = name;
      auto it = sdfg.arrays.find(name);
      if (it != sdfg.arrays.end()) {
        a.kind = it->second.is_scalar() ? ArgKind::Scalar : ArgKind::Array;
        a.dtype = it->second.dtype.base;
        data_args.push_back(name);
      } else {
        a.kind = ArgKind::Symbol;
        a.dtype = ScalarType::Int64;
        free.insert(name);
      }
      out.args.push_back(a);
    }

    // --- the program body -------------------------------------------------------------------
    SdfgGen g(prog, sdfg, true, false, "weir_");
    g.analyse(data_args, free);
    Writer body;
    g.emit_body(body);
    body.line("return 0;");

    // Persistent arrays (the handle) and the symbols their sizes depend on.
    std::vector<std::string> persistent = g.body_arrays();
    std::set<std::string> size_symbols;
    for (const auto& name : persistent) {
      size_symbols.merge(sdfg.arrays.at(name).total_size.free_symbols());
      for (const auto& s : sdfg.arrays.at(name).shape) size_symbols.merge(s.free_symbols());
    }
    for (const auto& s : size_symbols)
      if (!free.count(s))
        throw CodegenError(top_ref, "persistent transient size depends on non-argument symbol '" + s + "'");

    // Recorded while the code was emitted, never read off its text (ADR 0016): complex numbers
    // from the IR's types (uses_complex) or the translator (an imaginary literal); std::max/min
    // over initializer lists (BLAS leading dimensions: cblas_codegen.cpp).
    const CodeFacts& facts = body_facts.facts();
    const bool complex_numbers =
        uses_complex(sdfg) || facts.complex_numbers || prog.functions.any(&CodeFacts::complex_numbers);
    const bool algorithm = facts.algorithm || prog.functions.any(&CodeFacts::algorithm);
    if (!sdfg.global_code.code.empty())
      prog.global_code.insert(prog.global_code.begin(), sdfg.global_code.code);
    // What every translation unit starts with, up to the functions (`prelude`: one unit's or
    // several units' helpers).
    auto file_head = [&](const std::string& prelude) {
      Writer w;
      w.line("// Generated by weir's " + std::string(target.label()) + " code generator from SDFG '" +
             sdfg.name + "'. Do not edit.");
      w.line("// Entry points: weir_init, weir_run, weir_finalize (" + std::string(kAbiVersion) +
             ", codegen/include/weir/codegen/program_abi.h).");
      const std::string head = target.prelude_head(), tail = target.prelude_tail();
      if (!head.empty()) w.lines(head);
      const bool full_headers = user_code || target.full_headers();
      w.lines(prelude_headers(complex_numbers, full_headers));
      if (algorithm && !full_headers) w.line("#include <algorithm>");
      w.lines(prelude);
      if (!prog.timed.empty()) w.lines(timer_globals(prog.timed.size()));
      if (!tail.empty()) w.lines(tail);
      w.blank();
      for (const auto& lib : prog.link_libraries) {
        w.line("// links -l" + lib +
               (lib == "mpi" ? " (a HaloExchange node)" : " (a DaCe environment of a CPP tasklet)"));
        w.lines(lib == "blas" ? "#include <cblas.h>" : lib == "mpi" ? kMpiInclude : "#include <lapacke.h>");
      }
      if (!prog.link_libraries.empty()) w.blank();
      for (const auto& gc : prog.global_code) {
        w.line("// global code");
        w.lines(gc);
        w.blank();
      }
      w.line("// --- SDFG '" + sdfg.name +
             "' ---------------------------------------------------------------");
      w.blank();
      return w.str();
    };

    // --- the entry points (generated last, after all functions are known) -------------------
    Writer entry;
    entry.line("// --- entry points (program_abi.h) -------------------------------------------------------");
    entry.line("namespace {");
    entry.open("struct weir_handle {");
    if (!size_symbols.empty())
      entry.line("// symbol values at weir_init (the persistent transients' sizes depend on them)");
    for (const auto& s : size_symbols)
      entry.line(std::string(cpp_name(g.symbols.at(s))) + " " + cpp_ident(s) + " = 0;");
    if (!persistent.empty()) entry.line("// persistent transients");
    for (const auto& name : persistent)
      entry.line(cpp_type(sdfg.arrays.at(name)) + "* " + cpp_ident(name) + " = nullptr;");
    target.handle_members(entry);
    entry.line("weir_handle() = default;");
    entry.line("weir_handle(const weir_handle&) = delete;");
    entry.line("weir_handle& operator=(const weir_handle&) = delete;");
    if (persistent.empty() && !target.handle_owns_resources()) {
      entry.line("~weir_handle() = default;");
    } else {
      entry.open("~weir_handle() {");
      for (const auto& name : persistent) entry.line(target.release(sdfg.arrays.at(name), cpp_ident(name)));
      target.handle_release(entry);
      entry.close();
    }
    entry.close("};");
    entry.line("}  // namespace");
    entry.blank();
    entry.line("extern \"C\" const char* weir_abi_version(void) { return \"" + std::string(kAbiVersion) +
               "\"; }");
    entry.line("extern \"C\" const char* weir_program_name(void) { return \"" + c_escape(sdfg.name) +
               "\"; }");
    entry.line("extern \"C\" const char* weir_arglist(void) {");
    entry.line("    return \"" + c_escape(arglist_json(out.args)) + "\";");
    entry.line("}");
    entry.line("extern \"C\" const char* weir_last_error(void) { return weir_error_text; }");
    entry.blank();

    auto arg_index = [&](const std::string& name) {
      for (std::size_t i = 0; i < arglist.size(); ++i)
        if (arglist[i] == name) return i;
      return arglist.size();
    };
    auto symbol_binding = [&](const std::string& s) {
      std::string t(cpp_name(g.symbols.count(s) ? g.symbols.at(s) : ScalarType::Int64));
      std::string read = "*static_cast<const int64_t*>(args[" + std::to_string(arg_index(s)) + "])";
      if (t != "int64_t") read = "static_cast<" + t + ">(" + read + ")";
      return "const " + t + " " + cpp_ident(s) + " = " + read + ";";
    };

    // weir_init
    entry.open("extern \"C\" void* weir_init(void* const* args) {");
    bool needs_args = !size_symbols.empty();
    if (!needs_args) entry.line("(void)args;");
    entry.open("try {");
    if (needs_args) entry.line("if (args == nullptr) weir_throw(\"no argument array\");");
    entry.line("weir_handle* h = new weir_handle();");
    entry.open("try {");
    target.handle_create(entry);
    for (const auto& s : size_symbols) {
      entry.line(symbol_binding(s));
      entry.line("h->" + cpp_ident(s) + " = " + cpp_ident(s) + ";");
    }
    for (const auto& name : persistent) {
      const DataDescriptor& d = sdfg.arrays.at(name);
      entry.line("h->" + cpp_ident(name) + " = " + target.allocate(d, g.alloc_size(d), name) + ";");
    }
    if (!sdfg.init_code.code.empty()) prog.init_code.insert(prog.init_code.begin(), sdfg.init_code.code);
    for (const auto& code : prog.init_code) {
      entry.open("{  // init code (trusted)");
      entry.lines(code);
      entry.close();
    }
    entry.dedent();
    entry.line("} catch (...) {");
    entry.indent();
    entry.line("delete h;");
    entry.line("throw;");
    entry.close();
    entry.line("return h;");
    entry.dedent();
    entry.line("} catch (const std::exception& e) {");
    entry.indent();
    entry.line("weir_fail(\"weir_init: %s\", e.what());");
    entry.line("return nullptr;");
    entry.close();
    entry.close();
    entry.blank();

    // weir_run
    entry.open("extern \"C\" int weir_run(void* handle, void* const* args) {");
    entry.line(
        "if (handle == nullptr) return weir_fail(\"weir_run: no program handle (did weir_init fail?)\");");
    bool uses_handle = !size_symbols.empty() || !persistent.empty() || target.handle_owns_resources();
    if (uses_handle) entry.line("weir_handle* h = static_cast<weir_handle*>(handle);");
    if (!arglist.empty())
      entry.line("if (args == nullptr) return weir_fail(\"weir_run: no argument array\");");
    else
      entry.line("(void)args;");
    entry.open("try {");
    // Every argument of the SDFG's arglist is bound (the IR's list, not the names the emitted body
    // happens to contain); `(void)` keeps the ones the body does not read warning-free.
    std::vector<std::string> bound;
    for (std::size_t i = 0; i < arglist.size(); ++i) {
      const std::string& name = arglist[i];
      std::string c = cpp_ident(name);
      bool is_data = sdfg.arrays.count(name) > 0;
      bound.push_back(c);
      if (!is_data) {
        entry.line(symbol_binding(name));
        continue;
      }
      const DataDescriptor& d = sdfg.arrays.at(name);
      std::string t = cpp_type(d);
      if (d.is_scalar())
        entry.line(t + "& " + c + " = *static_cast<" + t + "*>(args[" + std::to_string(i) + "]);");
      else
        entry.line(t + "* __restrict__ " + c + " = static_cast<" + t + "*>(args[" + std::to_string(i) +
                   "]);");
    }
    target.run_arguments(entry, sdfg);
    for (const auto& s : size_symbols) {
      std::string c = cpp_ident(s);
      entry.line("if (" + c + " != h->" + c + ")");
      entry.line("    return weir_fail(\"weir_run: symbol " + c_escape(s) +
                 " = %lld differs from its value at weir_init (%lld)\", static_cast<long long>(" + c +
                 "), static_cast<long long>(h->" + c + "));");
    }
    for (const auto& name : persistent) {
      std::string c = cpp_ident(name);
      entry.line(cpp_type(sdfg.arrays.at(name)) + "* __restrict__ " + c + " = h->" + c + ";");
      bound.push_back(c);
    }
    if (!bound.empty()) {
      std::string unused;
      for (const auto& c : bound) unused += (unused.empty() ? "(void)" : ", (void)") + c;
      entry.line(unused + ";");
    }
    const bool faults = facts.may_fault || prog.functions.any(&CodeFacts::may_fault);
    target.run_start(entry);
    if (!prog.timed.empty()) entry.line("std::memset(weir_profile_slots, 0, sizeof weir_profile_slots);");
    if (faults) entry.line("weir_clear_fault();");
    emit_table_entry_checks(sdfg, prog.table_proofs, entry);
    entry.append(body);
    if (faults) entry.line("weir_raise_fault(\"\");");
    entry.dedent();
    entry.line("} catch (const std::exception& e) {");
    entry.indent();
    entry.line("return weir_fail(\"weir_run: %s\", e.what());");
    entry.close();
    entry.close();
    entry.blank();

    target.extra_entry_points(entry, sdfg, g, arglist, symbol_binding);
    if (!prog.timed.empty()) entry.lines(timer_entry_points(prog.timed));

    // weir_finalize
    entry.open("extern \"C\" int weir_finalize(void* handle) {");
    if (!sdfg.exit_code.code.empty()) prog.exit_code.push_back(sdfg.exit_code.code);
    for (const auto& code : prog.exit_code) {
      entry.open("{  // exit code (trusted)");
      entry.lines(code);
      entry.close();
    }
    entry.line("delete static_cast<weir_handle*>(handle);");
    entry.line("return 0;");
    entry.close();

    for (const auto& lib : prog.link_libraries) out.link_libraries.push_back(lib);
    out.notes = table_proof_notes(prog.table_proofs);
    const std::string entry_text = entry.str();
    const CodeFacts entry_facts = body_facts.finish();
    out.source = file_head(prelude_text()) + prog.functions.str() + entry_text;
    // Several units only where file-scope code need not exist once (no trusted user C++) and
    // for the CPU (nvcc compiles the CUDA program as one unit).
    if (target.splits_units() && !user_code && prog.global_code.empty())
      out.units = split_units(prog.functions, file_head(unit_prelude_text()), entry_text, entry_facts.calls,
                              options.unit_bytes);
  } catch (const GenFailure& e) {
    throw CodegenError(top_ref, e.what());
  } catch (const PythonTranslationError& e) {
    throw CodegenError(top_ref, e.what());
  } catch (const sym::SymbolicError& e) {
    throw CodegenError(top_ref, e.what());
  }
  return out;
}

}  // namespace weir::codegen::detail
