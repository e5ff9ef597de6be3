// The fast path of weir.Program calls (docs/adr/0042-python-api.md, "Fast path"): a call whose
// arrays have the dtypes, byte orders and shapes of an earlier call that passed every check
// skips the checks those determine and, on a compiled program, the binding.
#include <pybind11/numpy.h>

#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "program.h"
#include "weir/runtime/scalar_argument.h"

namespace weir::python {

using namespace weir::runtime;

namespace {

// The object of slot `i` is set once; false when it already was (`f(x, f=x)`).
bool put(std::vector<PyObject*>& objects, std::size_t i, PyObject* obj) {
  if (objects[i]) return false;
  objects[i] = obj;
  return true;
}

// The slot named `key` among slots [from, to), or -1.
long slot_named(const PyProgram& prog, PyObject* key, std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to; ++i)
    if (PyUnicode_CompareWithASCIIString(key, prog.slots[i].name.c_str()) == 0) return static_cast<long>(i);
  return -1;
}

// The objects by slot; false when the call is not in a form the cache takes.
bool collect(const PyProgram& prog, const py::args& args, const py::kwargs& kwargs,
             std::vector<PyObject*>& objects) {
  const std::size_t n = prog.slots.size();
  std::size_t users = 0, results = 0;
  for (const CallSlot& s : prog.slots) {
    users += s.kind != CallSlot::Kind::Table && !PyProgram::is_result(s.name);
    results += PyProgram::is_result(s.name);
  }
  objects.assign(n, nullptr);
  if (args.size() > users) return false;
  for (std::size_t i = 0; i < args.size(); ++i) objects[i] = args[i].ptr();
  for (auto [key, value] : kwargs) {
    if (PyUnicode_CompareWithASCIIString(key.ptr(), "out") == 0 && results > 0) {
      if (results == 1) {
        if (!put(objects, users, value.ptr())) return false;
        continue;
      }
      if (!PyTuple_Check(value.ptr()) || PyTuple_GET_SIZE(value.ptr()) != static_cast<Py_ssize_t>(results))
        return false;
      for (std::size_t i = 0; i < results; ++i)
        if (!put(objects, users + i, PyTuple_GET_ITEM(value.ptr(), static_cast<Py_ssize_t>(i)))) return false;
      continue;
    }
    if (PyUnicode_CompareWithASCIIString(key.ptr(), "offset_provider") == 0) {
      if (value.is_none()) continue;
      if (!PyDict_Check(value.ptr())) return false;
      for (auto [name, table] : py::reinterpret_borrow<py::dict>(value)) {
        if (!PyUnicode_Check(name.ptr())) return false;
        long i = slot_named(prog, name.ptr(), users + results, n);
        if (i < 0) {
          // Another program's table, or a Cartesian offset's Dimension: the checked call says
          // whether it may be ignored (PyProgram::cartesian_entry_problem), every call.
          if (!prog.cartesian_entry_problem(py::str(name), table).empty()) return false;
          continue;
        }
        if (!put(objects, static_cast<std::size_t>(i), table.ptr())) return false;
      }
      continue;
    }
    long i = slot_named(prog, key.ptr(), 0, users);
    if (i < 0 || !put(objects, static_cast<std::size_t>(i), value.ptr())) return false;
  }
  return std::all_of(objects.begin(), objects.end(), [](PyObject* o) { return o != nullptr; });
}

// What the checks of an array depend on: dtype, byte order, rank and shape.
bool describe_array(PyObject* obj, const CallSlot& slot, std::vector<std::int64_t>& key) {
  if (!py::isinstance<py::array>(obj)) return false;
  const auto* a = py::detail::array_proxy(obj);
  const auto* d = py::detail::array_descriptor_proxy(a->descr);
  // Everything the checked call refuses goes there, to be refused with its message.
  int need = py::detail::npy_api::NPY_ARRAY_C_CONTIGUOUS_ | py::detail::npy_api::NPY_ARRAY_ALIGNED_;
  if (slot.written) need |= py::detail::npy_api::NPY_ARRAY_WRITEABLE_;
  if ((a->flags & need) != need || static_cast<std::size_t>(a->nd) != slot.ndim) return false;
  key.push_back(d->type_num);
  key.push_back(d->byteorder);
  for (int k = 0; k < a->nd; ++k) key.push_back(a->dimensions[k]);
  return true;
}

// The bytes of array `obj` (checked by describe_array).
std::pair<const char*, std::int64_t> extent(PyObject* obj) {
  const auto* a = py::detail::array_proxy(obj);
  std::int64_t n = py::detail::array_descriptor_proxy(a->descr)->elsize;
  for (int k = 0; k < a->nd; ++k) n *= a->dimensions[k];
  return {a->data, n};
}

// Whether an array the program writes shares bytes with another array (refuse_overlaps).
bool overlaps(const PyProgram& prog, const std::vector<PyObject*>& objects) {
  for (std::size_t w = 0; w < objects.size(); ++w) {
    if (!prog.slots[w].written) continue;
    auto [a, an] = extent(objects[w]);
    for (std::size_t i = 0; i < objects.size(); ++i) {
      if (i == w || prog.slots[i].kind == CallSlot::Kind::Scalar) continue;
      auto [b, bn] = extent(objects[i]);
      if (an != 0 && bn != 0 && a < b + bn && b < a + an) return true;
    }
  }
  return false;
}

// The dtype of a table as the key holds it (int32 or int64, as the checked call took it).
ScalarType table_dtype(PyObject* obj) {
  return py::detail::array_descriptor_proxy(py::detail::array_proxy(obj)->descr)->elsize == 4
             ? ScalarType::Int32
             : ScalarType::Int64;
}

std::vector<std::int64_t> shape_of(PyObject* obj) {
  const auto* a = py::detail::array_proxy(obj);
  return std::vector<std::int64_t>(a->dimensions, a->dimensions + a->nd);
}

}  // namespace

std::vector<CallSlot> call_slots(const PyProgram& prog) {
  std::vector<CallSlot> slots;
  auto add = [&](const Parameter& p, CallSlot::Kind kind) {
    slots.push_back({p.name, kind, p.dtype, p.shape.size(), p.written || PyProgram::is_result(p.name)});
  };
  for (const Parameter* p : prog.user_params())
    add(*p, p->kind == Parameter::Kind::Array ? CallSlot::Kind::Array : CallSlot::Kind::Scalar);
  for (const Parameter* p : prog.result_params()) add(*p, CallSlot::Kind::Array);
  for (const auto& c : prog.conns)
    if (const Parameter* p = prog.sig.find(c.name)) add(*p, CallSlot::Kind::Table);
  return slots;
}

CallLayout call_layout(const PyProgram& prog, const py::args& args, const py::kwargs& kwargs) {
  CallLayout layout;
  if (!collect(prog, args, kwargs, layout.objects)) return {};
  for (std::size_t i = 0; i < layout.objects.size(); ++i)
    if (prog.slots[i].kind != CallSlot::Kind::Scalar &&
        !describe_array(layout.objects[i], prog.slots[i], layout.key))
      return {};
  return layout;
}

bool run_cached(const PyProgram& prog, const CallLayout& layout) {
  if (layout.objects.empty() || overlaps(prog, layout.objects)) return false;
  std::vector<Number> numbers(layout.objects.size());
  for (std::size_t i = 0; i < layout.objects.size(); ++i) {
    if (prog.slots[i].kind != CallSlot::Kind::Scalar) continue;
    try {
      numbers[i] = number_argument(prog.slots[i].name, layout.objects[i], prog.slots[i].dtype);
      // In the declared type, as the checked call checks it: an orchestration's int32 loop
      // count is an int64 symbol of its SDFG, whose rebinding takes any integer (user32 H10:
      // 2**40 passed on a repeated call and looped that often).
      Parameter declared;
      declared.name = prog.slots[i].name;
      declared.kind = Parameter::Kind::Scalar;
      declared.dtype = prog.slots[i].dtype;
      check_scalar_argument(declared, numbers[i]);
    } catch (const ArgumentError&) {
      return false;
    }
  }
  py::gil_scoped_release nogil;
  std::lock_guard<std::mutex> lock(prog.state->mutex);
  auto& calls = prog.state->calls;
  auto hit =
      std::find_if(calls.begin(), calls.end(), [&](const CachedCall& c) { return c.key == layout.key; });
  if (hit == calls.end()) return false;
  const std::vector<PyObject*>& objects = layout.objects;
  if (hit->compiled) {
    for (std::size_t i = 0; i < objects.size(); ++i) {
      if (prog.slots[i].kind != CallSlot::Kind::Scalar) {
        hit->bound.rebind_array(hit->abi[i], py::detail::array_proxy(objects[i])->data);
        continue;
      }
      try {
        hit->bound.rebind_value(hit->compiled->signature(), hit->abi[i], numbers[i]);
      } catch (const ArgumentError&) {
        return false;  // the checked call says why, in its words
      }
    }
    hit->compiled->run_bound(hit->bound);
    return true;
  }
  // Another program (interpreted, checking its tables, an orchestration): its run, without the
  // checks the layout settles (its own checks of scalar values stay).
  Arguments a;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const CallSlot& s = prog.slots[i];
    if (s.kind == CallSlot::Kind::Scalar) {
      a.values.emplace(s.name, numbers[i]);
      continue;
    }
    ScalarType dtype = s.kind == CallSlot::Kind::Table ? table_dtype(objects[i]) : s.dtype;
    a.arrays.emplace(s.name,
                     Field::borrow(py::detail::array_proxy(objects[i])->data, dtype, shape_of(objects[i])));
  }
  hit->program->run(a);
  // What a backend left in fields of its own goes into the caller's buffers (write_back).
  for (std::size_t i = 0; i < objects.size(); ++i) {
    if (prog.slots[i].kind == CallSlot::Kind::Scalar) continue;
    const Field& f = a.arrays.at(prog.slots[i].name);
    char* buffer = py::detail::array_proxy(objects[i])->data;
    if (f.data() != buffer) std::memcpy(buffer, f.data(), f.nbytes());
  }
  return true;
}

void remember_call(const PyProgram& prog, const CallLayout& layout, const std::shared_ptr<Program>& program,
                   Arguments& args) {
  if (layout.objects.empty()) return;
  auto& calls = prog.state->calls;
  if (std::any_of(calls.begin(), calls.end(), [&](const CachedCall& c) { return c.key == layout.key; }))
    return;
  CachedCall c;
  c.key = layout.key;
  c.program = program;
  if (auto* compiled = dynamic_cast<CompiledProgram*>(program.get())) {
    const Signature& sig = compiled->signature();
    for (const CallSlot& s : prog.slots) {
      auto at = std::find_if(sig.params.begin(), sig.params.end(),
                             [&](const Parameter& p) { return p.name == s.name; });
      if (at == sig.params.end()) break;
      c.abi.push_back(static_cast<std::size_t>(at - sig.params.begin()));
    }
    if (c.abi.size() == prog.slots.size()) {
      c.compiled = compiled;
      c.bound = bind_arguments(sig, args);
    }
  }
  if (calls.size() == kMaxCachedCalls) calls.erase(calls.begin());
  calls.push_back(std::move(c));
}

}  // namespace weir::python
