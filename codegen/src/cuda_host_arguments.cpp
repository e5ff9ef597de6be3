// Arguments in device memory (ADR 0020). A CUDA program whose SDFG keeps array arguments in
// GPU_Global storage (DaCe's use_gpu_storage, weir's `gpu-transform` default) takes device
// pointers in weir_run; weir_run checks that it got them (a host pointer would make every kernel
// fault). weir_run_host is the runtime's entry point for host arrays: it allocates a device
// buffer per such argument, copies the host array in, calls weir_run with the device pointers
// and copies back the arguments the program writes.
#include <functional>

#include "cuda_codegen_internal.h"

namespace weir::codegen::detail {

std::vector<std::string> device_array_arguments(const SDFG& sdfg) {
  std::vector<std::string> out;
  for (const auto& name : sdfg.arglist()) {
    auto it = sdfg.arrays.find(name);
    if (it != sdfg.arrays.end() && !it->second.is_scalar() && !it->second.transient &&
        is_device_storage(it->second.storage))
      out.push_back(name);
  }
  return out;
}

void emit_device_argument_checks(Writer& w, const SDFG& sdfg) {
  for (const auto& name : device_array_arguments(sdfg))
    w.line("weir_cuda_require_device(" + cpp_ident(name) + ", \"" + c_escape(name) + "\");");
}

namespace {

// Arguments some state of the SDFG writes (an access node with in-edges; a nested SDFG's writes
// reach the outer access node too): only those are copied back.
std::set<std::string> written_containers(const SDFG& sdfg) {
  std::set<std::string> out;
  for (const SDFGState* st : sdfg.all_states())
    for (const Node* n : st->nodes())
      if (const auto* a = n->as<AccessNode>(); a && !st->in_edges(n->id()).empty()) out.insert(a->data);
  return out;
}

}  // namespace

void emit_run_host(Writer& entry, const SDFG& sdfg, const SdfgGen& g, const std::vector<std::string>& arglist,
                   const std::function<std::string(const std::string&)>& symbol_binding) {
  std::vector<std::string> device = device_array_arguments(sdfg);
  if (device.empty()) return;
  std::set<std::string> symbols;
  for (const auto& name : device) {
    const DataDescriptor& d = sdfg.arrays.at(name);
    symbols.merge(d.total_size.free_symbols());
    for (const auto& s : d.shape) symbols.merge(s.free_symbols());
  }
  const std::set<std::string> written = written_containers(sdfg);
  auto index = [&](const std::string& name) {
    for (std::size_t i = 0; i < arglist.size(); ++i)
      if (arglist[i] == name) return std::to_string(i);
    throw GenFailure("the size of device argument depends on '" + name + "', which is not an argument");
  };

  entry.line("// The runtime's entry point for host arrays (ADR 0020): device copies of the GPU_Global");
  entry.line("// arguments around weir_run.");
  entry.open("extern \"C\" int weir_run_host(void* handle, void* const* args) {");
  entry.line(
      "if (handle == nullptr) return weir_fail(\"weir_run: no program handle (did weir_init fail?)\");");
  entry.line("if (args == nullptr) return weir_fail(\"weir_run: no argument array\");");
  entry.open("try {");
  entry.line("weir_stream = static_cast<weir_handle*>(handle)->stream;");
  for (const auto& s : symbols) {
    index(s);
    entry.line(symbol_binding(s));
  }
  entry.line("void* device_args[" + std::to_string(arglist.size()) + "];");
  entry.line("for (int i = 0; i < " + std::to_string(arglist.size()) + "; ++i) device_args[i] = args[i];");
  for (const auto& name : device) {
    const DataDescriptor& d = sdfg.arrays.at(name);
    sym::Expr elements = 1;
    for (const auto& s : d.shape) elements *= s;
    std::string i = index(name), c = "arg_" + cpp_ident(name);
    entry.line("weir_device_argument<" + cpp_type(d) + "> " + c + "(static_cast<" + cpp_type(d) + "*>(args[" +
               i + "]), " + sym_cpp(elements) + ", " + g.alloc_size(d) + ", \"" + c_escape(name) + "\");");
    entry.line("device_args[" + i + "] = " + c + ".device;");
  }
  entry.line("if (int rc = weir_run(handle, device_args); rc != 0) return rc;");
  for (const auto& name : device)
    if (written.count(name)) entry.line("arg_" + cpp_ident(name) + ".copy_back();");
  entry.line("return 0;");
  entry.dedent();
  entry.line("} catch (const std::exception& e) {");
  entry.indent();
  entry.line("return weir_fail(\"weir_run: %s\", e.what());");
  entry.close();
  entry.close();
  entry.blank();
}

}  // namespace weir::codegen::detail
