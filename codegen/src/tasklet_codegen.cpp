// A tasklet as a C++ block: declarations that read its inputs through the memlets, its code
// (tasklet_code.cpp), and the write-backs of its outputs (tasklet_connectors.cpp classifies them).
#include "blas_call_work.h"
#include "loop_hoisting.h"
#include "state_codegen.h"
#include "stream_gen.h"
#include "weir/sdfg/code_rewrite.h"

namespace weir::codegen::detail {

namespace {

// `code` (a C++ tasklet's lines that call CBLAS) between the prelude's choice of OpenBLAS threads
// and the record of its time (codegen/prelude/weir_blas_threads.h). `__weir_` names are weir's
// own temporaries, as in python_to_cpp.cpp. Where the call's size is known (blas_call_work.h), a
// call too small for OpenBLAS to split runs as it is, and a larger one goes to the prelude's
// out-of-line weir_blas_chosen: the small calls' path holds the call alone (npbench cholesky's
// 5,050 dots of 0-99 elements ran 7% slower with the choice's code inline beside them, though
// it never ran; docs/adr/0053, "session 36"). Elsewhere the call site's measured times are a
// block-scope static (`statics`: one per call site, also where the code is emitted twice),
// shared by the threads that run the program.
std::vector<std::string> with_blas_thread_choice(const std::vector<std::string>& code,
                                                 BlockStatics& statics) {
  std::string text;
  for (const auto& l : code) text += l + "\n";
  const std::string times = statics.declare("static", "weir_blas_times", "__weir_blas_times");
  if (const std::optional<std::string> work = blas_call_work(text)) {
    std::vector<std::string> out = {
        times, "if (!weir_blas_splits(" + *work + ")) {  // below OpenBLAS's split size: the call as it is"};
    for (const auto& l : code) out.push_back("    " + l);
    out.emplace_back("} else {  // OpenBLAS's threads or one, measured (out of line)");
    out.emplace_back("    weir_blas_chosen(__weir_blas_times, [&] {");
    for (const auto& l : code) out.push_back("        " + l);
    out.emplace_back("    });");
    out.emplace_back("}");
    return out;
  }
  std::vector<std::string> out = {times, "const int __weir_blas = weir_blas_before(__weir_blas_times);",
                                  "const double __weir_blas_t0 = __weir_blas < 0 ? 0.0 : weir_blas_now();"};
  out.insert(out.end(), code.begin(), code.end());
  out.emplace_back("weir_blas_after(__weir_blas_times, __weir_blas, __weir_blas_t0);");
  return out;
}

}  // namespace

void StateGen::emit_tasklet(const Tasklet& t, Writer& w) {
  ElementRef where = ref(t);
  bool python = t.code.language == Language::Python;
  if (!python && t.code.language != Language::CPP)
    throw CodegenError(where, "tasklet code in " + std::string(to_string(t.code.language)) +
                                  " is not supported by the CPU code generator");
  std::set<std::string> subscripted = python ? code_names(t.code).subscripted : std::set<std::string>{};

  std::vector<std::string> pre;  // edge variables declared before the block
  std::vector<Conn> ins = tasklet_inputs(t, python, subscripted);
  std::vector<Conn> outs = tasklet_outputs(t, python, subscripted, pre);

  // Names a connector must not shadow in the statements around the code (reads, write-backs).
  auto syms = visible_symbols();
  std::set<std::string> symbol_names;
  for (const auto& [s, ty] : syms) symbol_names.insert(cpp_ident(s));
  bool indirect = false;
  for (const auto* list : {&ins, &outs})
    for (const auto& cn : *list)
      indirect = indirect || symbol_names.count(cn.cpp) || container_cpp_name(cn.cpp);

  // --- the code ---------------------------------------------------------------------------
  // The hoisted tasklet of a sequential innermost map: its invariant part runs before the loops.
  const bool hoisting = hoist_ && python && !indirect && pre.empty() && t.id() < scopes_.parent.size() &&
                        scopes_.parent[t.id()] == hoist_->entry && t.id() == hoist_->tasklet;
  std::set<std::string> hoisted =
      hoisting ? invariant_connectors(t, ins, outs, hoist_->loops) : std::set<std::string>{};

  std::set<std::string> used;
  std::vector<std::string> code = python ? python_tasklet_code(t, ins, outs, syms, symbol_names, used,
                                                               hoisting ? &hoist_->loops : nullptr)
                                         : cpp_tasklet_code(sg.prog, t, used);
  // Host code's CBLAS calls run on OpenBLAS's threads or on one, measured per call site.
  if (!python && !device_code() && t.code.code.find("cblas_") != std::string::npos)
    code = with_blas_thread_choice(code, statics_);
  hoist_user_code(sg.prog, t);
  emit_tasklet_block(t, ins, outs, pre, code, used, python, indirect, w, hoisted);
}

bool StateGen::container_cpp_name(const std::string& cpp) const {
  return sg.body_cpp_names.count(cpp) || bindings_.spells(cpp);
}

void StateGen::emit_tasklet_block(const Tasklet& t, const std::vector<Conn>& ins,
                                  const std::vector<Conn>& outs, const std::vector<std::string>& pre,
                                  const std::vector<std::string>& code, const std::set<std::string>& used,
                                  bool python, bool indirect, Writer& w,
                                  const std::set<std::string>& hoisted) {
  // A connector that is both an input and an output (a value): declared once, from the input.
  std::set<std::string> inout;
  for (const auto& o : outs)
    for (const auto& i : ins)
      if (o.name == i.name && o.kind == ConnKind::Value && i.kind == ConnKind::Value) inout.insert(o.name);
  auto is_used = [&](const Conn& cn) {
    return inout.count(cn.name) || used.count(python ? cn.name : cn.cpp) > 0;
  };

  // --- emission ---------------------------------------------------------------------------
  for (const auto& p : pre) w.line(p);
  if (opts.emit_comments) w.line("// tasklet " + t.label + " (node " + std::to_string(t.id()) + ")");
  w.open("{");
  std::string T;
  // Declarations in the block: direct, or through temporaries when a connector shadows a name
  // that the reads and write-backs use.
  std::vector<std::string> inner;
  auto declare = [&](const std::string& type, const std::string& tmp_prefix, const Conn& cn,
                     const std::string& value) {
    if (indirect) {
      std::string tmp = tmp_prefix + sanitize_label(cn.name);
      w.line(type + " " + tmp + " = " + value + ";");
      inner.push_back(type + " " + cn.cpp + " = " + tmp + ";");
    } else {
      w.line(type + " " + cn.cpp + " = " + value + ";");
    }
  };
  for (const auto& cn : ins) {
    if (!is_used(cn)) continue;
    T = cpp_name(cn.type);
    const Location& loc = cn.locs[0];
    std::string value = cn.kind == ConnKind::Pointer ? loc.pointer() : loc.element();
    std::string type = cn.kind == ConnKind::Pointer     ? "const " + T + "*"
                       : cn.kind == ConnKind::Reference ? "const " + T + "&"
                                                        : T;
    // Trusted C++ gets an input array as DaCe's code generator gives it, a pointer it may write
    // through (DaCe's LAPACKE getrs expansion solves in place through its input `_rhs_in`).
    if (cn.kind == ConnKind::Pointer && t.code.language == Language::CPP) {
      type = T + "*";
      value = "const_cast<" + T + "*>(" + value + ")";
    }
    if (hoisted.count(cn.name)) {  // (never `indirect`: emit_tasklet does not hoist then)
      hoist_->declarations.push_back(type + " " + cn.cpp + " = " + value + ";");
      continue;
    }
    declare(type, "__weir_in_", cn, value);
  }
  std::vector<std::string> writeback, inner_writeback;
  for (const auto& cn : outs) {
    T = cpp_name(cn.type);
    if (!is_used(cn) && (cn.locs.empty() || cn.kind != ConnKind::Value)) continue;
    switch (cn.kind) {
      case ConnKind::Value: {
        std::string var = cn.cpp;
        bool declared = inout.count(cn.name) > 0;
        if (indirect) {
          var = "__weir_out_" + sanitize_label(cn.name);
          w.line(T + " " + var + "{};");
          if (!declared) inner.push_back(T + " " + cn.cpp + ";");
          inner_writeback.push_back(var + " = " + cn.cpp + ";");
        } else if (!declared) {
          w.line(T + " " + cn.cpp + ";");
        }
        for (const auto& loc : cn.locs) {
          auto part = partials_.find({t.id(), cn.name});
          if (cn.wcr.empty() || loc.data.empty()) {
            // A streamed row (streaming_stores.cpp): into its buffer, stored after the block.
            std::string streamed =
                cn.locs.size() == 1 ? StreamGen(*this).streamed_element(t, loc) : std::string();
            writeback.push_back((streamed.empty() ? loc.element() : streamed) + " = " + var + ";");
          } else if (part != partials_.end() && cn.locs.size() == 1) {
            // A reduction of the map into one element: into this thread's partial.
            Partial& p = part->second;
            p.used = true;
            p.target = loc.element();
            p.wcr = cn.wcr;
            p.type = cn.type;
            writeback.push_back("if (" + p.have + ") " + p.var + " = " +
                                translate_wcr_combine(cn.wcr, p.var, var, cn.type) + "; else { " + p.var +
                                " = " + var + "; " + p.have + " = true; }");
          } else {
            writeback.push_back(wcr_update(cn.wcr, loc.element(), var, cn.type,
                                           ConcurrentAccess(*this).wcr_atomic(loc, false)));
          }
        }
        break;
      }
      case ConnKind::Pointer:
      case ConnKind::Reference: {
        std::string type = cn.kind == ConnKind::Pointer ? T + "*" : T + "&";
        std::string value = cn.kind == ConnKind::Pointer ? cn.locs[0].pointer() : cn.locs[0].element();
        declare(type, "__weir_out_", cn, value);
        break;
      }
      case ConnKind::Hooked:
        w.line(T + "* __weir_p_" + sanitize_label(cn.name) + " = " + cn.locs[0].pointer() + ";");
        break;
    }
  }
  if (indirect) {
    w.open("{");
    for (const auto& l : inner) w.line(l);
  }
  for (const auto& l : code) w.line(l);
  emit_tasklet_fault(t, outs, device_code(), ref(t), w);
  if (indirect) {
    for (const auto& l : inner_writeback) w.line(l);
    w.close();
  }
  for (const auto& l : writeback) w.lines(l);
  w.close();
}

}  // namespace weir::codegen::detail
