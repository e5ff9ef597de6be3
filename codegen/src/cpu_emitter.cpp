// The CPU target of code generation: host memory, OpenMP threads, several translation units.
#include "codegen_internal.h"
#include "target_emitter.h"

namespace weir::codegen::detail {

namespace {

class CpuEmitter final : public TargetEmitter {
 public:
  std::string_view label() const override { return "CPU"; }

  bool parallel_scopes_on_device() const override { return false; }
  bool device_storage(StorageType /*s*/) const override { return false; }
  bool concurrent_iterations(bool openmp) const override { return openmp; }
  std::optional<std::string> refuses(const DataDescriptor& /*d*/) const override { return std::nullopt; }

  std::string prelude_head() const override { return {}; }
  std::string prelude_tail() const override { return {}; }
  bool full_headers() const override { return false; }
  bool splits_units() const override { return true; }
  bool handle_owns_resources() const override { return false; }
  void handle_members(Writer& /*w*/) const override {}
  void handle_release(Writer& /*w*/) const override {}
  void handle_create(Writer& /*w*/) const override {}
  void run_arguments(Writer& /*w*/, const SDFG& /*sdfg*/) const override {}
  void run_start(Writer& /*w*/) const override {}
  void extra_entry_points(
      Writer& /*w*/, const SDFG& /*sdfg*/, const SdfgGen& /*g*/, const std::vector<std::string>& /*arglist*/,
      const std::function<std::string(const std::string&)>& /*symbol_binding*/) const override {}

  std::string allocate(const DataDescriptor& d, const std::string& count,
                       const std::string& name) const override {
    return "weir_alloc<" + cpp_type(d) + ">(" + count + ", \"" + c_escape(name) + "\")";
  }
  std::string release(const DataDescriptor& /*d*/, const std::string& ptr) const override {
    return "std::free(" + ptr + ");";
  }
  std::string zero(const DataDescriptor& d, const std::string& ptr, const std::string& count,
                   const std::string& /*name*/, bool /*device_code*/) const override {
    if (d.is_scalar()) return ptr + " = 0;";
    return "std::memset(" + ptr + ", 0, sizeof(" + cpp_type(d) + ") * (" + count + "));";
  }
  bool declare_device_buffer(Writer& /*w*/, const DataDescriptor& /*d*/, const std::string& /*cpp*/,
                             const std::string& /*count*/, const std::string& /*name*/,
                             bool /*device_code*/) const override {
    return false;
  }
  // Small sizes stay on the stack: a state in a loop body would otherwise allocate per iteration.
  std::string_view scope_buffer_class() const override { return "weir_local_buffer"; }
  bool declare_body_array(Writer& /*w*/, const DataDescriptor& /*d*/, const std::string& /*cpp*/,
                          const std::string& /*count*/, const std::string& /*name*/,
                          bool /*device_code*/) const override {
    return false;
  }
  std::string_view scratch_class(const DataDescriptor& /*d*/) const override { return "weir_scratch"; }

  std::string function_specifiers(bool /*device_code*/, bool inlined) const override {
    return inlined ? "static inline __attribute__((always_inline)) " : "static ";
  }
  std::string state_end(const SDFG& /*sdfg*/, const SDFGState& /*st*/,
                        const StateUses& /*uses*/) const override {
    return {};
  }

  bool emit_map(StateGen& /*g*/, const MapEntry& /*e*/, Writer& /*w*/) const override { return false; }
  bool emit_copy(StateGen& /*g*/, const Location& /*src*/, const Location& /*dst*/,
                 const std::vector<std::size_t>& /*sd*/, const std::vector<std::size_t>& /*dd*/,
                 const std::string& /*wcr*/, const std::string& /*what*/, Writer& /*w*/) const override {
    return false;
  }
  void check_library_node(const StateGen& /*g*/, const LibraryNode& /*n*/) const override {}
};

}  // namespace

const TargetEmitter& cpu_emitter() {
  static const CpuEmitter emitter;
  return emitter;
}

}  // namespace weir::codegen::detail
