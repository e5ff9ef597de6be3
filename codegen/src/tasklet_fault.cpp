// The fault a tasklet declares (weir/sdfg/tasklet_fault.h) as C++ after its code: where the code
// connector is not 0, the message it selects is recorded as the run's fault (the first one wins,
// the tasklet may run in a parallel loop) and the state's caller raises it.
#include <stdexcept>

#include "state_codegen.h"
#include "weir/sdfg/tasklet_fault.h"

namespace weir::codegen::detail {

namespace {

bool integer_type(ScalarType t) {
  using S = ScalarType;
  return t == S::Int8 || t == S::Int16 || t == S::Int32 || t == S::Int64 || t == S::UInt8 || t == S::UInt16 ||
         t == S::UInt32 || t == S::UInt64;
}

/// The C++ name of output connector `name` of the tasklet, which must be an integer value.
std::string fault_connector(const std::vector<Conn>& outs, const std::string& name, const std::string& role,
                            const ElementRef& where) {
  for (const Conn& cn : outs)
    if (cn.name == name) {
      if (cn.kind != ConnKind::Value || !integer_type(cn.type))
        throw CodegenError(where, "the fault's " + role + " connector '" + name +
                                      "' must be an integer value connector, not " +
                                      std::string(to_string(cn.type)) +
                                      (cn.kind == ConnKind::Value ? "" : " through a pointer"));
      return cn.cpp;
    }
  throw CodegenError(
      where, "the fault's " + role + " connector '" + name + "' is not an output connector of the tasklet");
}

/// `message` as a printf format with its arguments: '%' doubled, each "{}" the argument.
std::string fault_format(const std::string& message, const std::string& argument) {
  std::string format, args;
  std::size_t from = 0;
  for (std::size_t at = message.find("{}"); at != std::string::npos; at = message.find("{}", from)) {
    format += message.substr(from, at - from) + "{}";
    args += ", static_cast<long long>(" + argument + ")";
    from = at + 2;
  }
  format += message.substr(from);
  std::string escaped;
  for (char c : c_escape(format)) escaped += c == '%' ? std::string("%%") : std::string(1, c);
  std::string out;
  for (std::size_t at = 0; at < escaped.size(); ++at)
    if (escaped.compare(at, 2, "{}") == 0) {
      out += "%lld";
      ++at;
    } else {
      out += escaped[at];
    }
  return "\"" + out + "\"" + args;
}

}  // namespace

void emit_tasklet_fault(const Tasklet& t, const std::vector<Conn>& outs, bool device, const ElementRef& where,
                        Writer& w) {
  std::optional<TaskletFault> fault;
  try {
    fault = declared_fault(t);
  } catch (const std::invalid_argument& e) {
    throw CodegenError(where, e.what());
  }
  if (!fault) return;
  if (device)
    throw CodegenError(where, "a tasklet that declares a fault ('" + std::string(kTaskletFaultAttribute) +
                                  "') cannot run in GPU code");
  const std::string code = fault_connector(outs, fault->code, "code", where);
  const std::string arg =
      fault->argument.empty() ? "" : fault_connector(outs, fault->argument, "argument", where);
  w.open("if (" + code + " != 0 && weir_fault_claim()) {");
  w.line("weir_fault_located = false;");
  w.open("switch (" + code + ") {");
  for (std::size_t k = 0; k < fault->messages.size(); ++k)
    w.line("case " + std::to_string(k + 1) + ": std::snprintf(weir_fault_text, sizeof weir_fault_text, " +
           fault_format(fault->messages[k], arg) + "); break;");
  w.line("default: std::snprintf(weir_fault_text, sizeof weir_fault_text, " +
         fault_format("tasklet '" + t.label + "' reported fault {}", code) + "); break;");
  w.close();
  w.line("weir_fault_publish();");
  note_fault();
  w.close();
}

}  // namespace weir::codegen::detail
