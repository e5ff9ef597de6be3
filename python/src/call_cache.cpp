// The fast path of weir.Program calls (docs/adr/0042-python-api.md, "Fast path"): a call whose
// arrays have the dtypes, byte orders and shapes of an earlier call that passed every check
// skips the checks those determine and, on a compiled program, the binding.
#include <pybind11/numpy.h>

#include <algorithm>
#include <chrono>
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
long slot_named(const std::vector<CallSlot>& slots, PyObject* key, std::size_t from, std::size_t to) {
  for (std::size_t i = from; i < to; ++i)
    if (PyUnicode_CompareWithASCIIString(key, slots[i].name.c_str()) == 0) return static_cast<long>(i);
  return -1;
}

// offset_provider='s entries into their table slots; false when the call is not in a form the
// cache takes.
bool collect_tables(const CallSite& site, py::handle value, std::vector<PyObject*>& objects) {
  if (value.is_none()) return true;
  if (!PyDict_Check(value.ptr())) return false;
  for (auto [name, table] : py::reinterpret_borrow<py::dict>(value)) {
    if (!PyUnicode_Check(name.ptr())) return false;
    long i = slot_named(*site.slots, name.ptr(), site.users + site.results, site.slots->size());
    if (i < 0) {
      // Another program's table, or a Cartesian offset's Dimension: the checked call says
      // whether it may be ignored (PyProgram::cartesian_entry_problem), every call.
      if (!site.program->cartesian_entry_problem(py::str(name), table).empty()) return false;
      continue;
    }
    if (!put(objects, static_cast<std::size_t>(i), table.ptr())) return false;
  }
  return true;
}

// The objects by slot; false when the call is not in a form the cache takes.
bool collect(const CallSite& site, const py::args& args, const py::kwargs& kwargs,
             std::vector<PyObject*>& objects) {
  const std::vector<CallSlot>& slots = *site.slots;
  objects.assign(slots.size(), nullptr);
  if (args.size() > site.users) return false;
  for (std::size_t i = 0; i < args.size(); ++i) objects[i] = args[i].ptr();
  for (auto [key, value] : kwargs) {
    if (site.results > 0 && PyUnicode_CompareWithASCIIString(key.ptr(), "out") == 0) {
      if (site.results == 1) {
        if (!put(objects, site.users, value.ptr())) return false;
        continue;
      }
      if (!PyTuple_Check(value.ptr()) ||
          PyTuple_GET_SIZE(value.ptr()) != static_cast<Py_ssize_t>(site.results))
        return false;
      for (std::size_t i = 0; i < site.results; ++i)
        if (!put(objects, site.users + i, PyTuple_GET_ITEM(value.ptr(), static_cast<Py_ssize_t>(i))))
          return false;
      continue;
    }
    if (site.program && PyUnicode_CompareWithASCIIString(key.ptr(), "offset_provider") == 0) {
      if (!collect_tables(site, value, objects)) return false;
      continue;
    }
    long i = slot_named(slots, key.ptr(), 0, site.users);
    if (i < 0 || !put(objects, static_cast<std::size_t>(i), value.ptr())) return false;
  }
  // A symbol left out takes its value from the arrays' shapes, as in the checked call.
  for (std::size_t i = 0; i < slots.size(); ++i)
    if (!objects[i] && slots[i].kind != CallSlot::Kind::Symbol) return false;
  return true;
}

// A symbol's part of the key: whether it was given and its value (a Python int; anything else,
// a NumPy integer included, goes to the checked call).
bool describe_symbol(PyObject* obj, std::vector<std::int64_t>& key) {
  if (!obj) {
    key.push_back(0);
    return true;
  }
  if (!PyLong_Check(obj) || PyBool_Check(obj)) return false;
  int overflow = 0;
  const long long v = PyLong_AsLongLongAndOverflow(obj, &overflow);
  if (overflow != 0 || (v == -1 && PyErr_Occurred())) {
    PyErr_Clear();
    return false;
  }
  key.push_back(1);
  key.push_back(v);
  return true;
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
bool overlaps(const std::vector<CallSlot>& slots, const std::vector<PyObject*>& objects) {
  auto is_array = [](const CallSlot& s) {
    return s.kind != CallSlot::Kind::Scalar && s.kind != CallSlot::Kind::Symbol;
  };
  for (std::size_t w = 0; w < objects.size(); ++w) {
    if (!slots[w].written || !is_array(slots[w])) continue;
    auto [a, an] = extent(objects[w]);
    for (std::size_t i = 0; i < objects.size(); ++i) {
      if (i == w || !is_array(slots[i])) continue;
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

CallSite PyProgram::call_site() const {
  CallSite site;
  site.slots = &slots;
  for (const CallSlot& s : slots) {
    site.users += s.kind != CallSlot::Kind::Table && !is_result(s.name);
    site.results += is_result(s.name);
  }
  site.mutex = &state->mutex;
  site.calls = &state->calls;
  site.program = this;
  return site;
}

CallLayout call_layout(const CallSite& site, const py::args& args, const py::kwargs& kwargs) {
  CallLayout layout;
  if (!collect(site, args, kwargs, layout.objects)) return {};
  for (std::size_t i = 0; i < layout.objects.size(); ++i) {
    const CallSlot& slot = (*site.slots)[i];
    if (slot.kind == CallSlot::Kind::Scalar) continue;
    const bool described = slot.kind == CallSlot::Kind::Symbol
                               ? describe_symbol(layout.objects[i], layout.key)
                               : describe_array(layout.objects[i], slot, layout.key);
    if (!described) return {};
  }
  return layout;
}

namespace {

// The call's scalars converted and checked as the checked call checks them; false when one
// fails (the checked call then gives its message).
bool scalar_numbers(const std::vector<CallSlot>& slots, const CallLayout& layout,
                    std::vector<Number>& numbers) {
  numbers.resize(layout.objects.size());
  for (std::size_t i = 0; i < layout.objects.size(); ++i) {
    if (slots[i].kind != CallSlot::Kind::Scalar) continue;
    try {
      numbers[i] = number_argument(slots[i].name, layout.objects[i], slots[i].dtype);
      // In the declared type, as the checked call checks it: an orchestration's int32 loop
      // count is an int64 symbol of its SDFG, whose rebinding takes any integer (user32 H10:
      // 2**40 passed on a repeated call and looped that often).
      Parameter declared;
      declared.name = slots[i].name;
      declared.kind = Parameter::Kind::Scalar;
      declared.dtype = slots[i].dtype;
      check_scalar_argument(declared, numbers[i]);
    } catch (const ArgumentError&) {
      return false;
    }
  }
  return true;
}

}  // namespace

bool run_cached(const CallSite& site, const CallLayout& layout) {
  const std::vector<CallSlot>& slots = *site.slots;
  if (layout.objects.empty() || overlaps(slots, layout.objects)) return false;
  std::vector<Number> numbers;
  if (!scalar_numbers(slots, layout, numbers)) return false;
  py::gil_scoped_release nogil;
  std::lock_guard<std::mutex> lock(*site.mutex);
  auto& calls = *site.calls;
  auto hit =
      std::find_if(calls.begin(), calls.end(), [&](const CachedCall& c) { return c.key == layout.key; });
  if (hit == calls.end()) return false;
  const std::vector<PyObject*>& objects = layout.objects;
  if (hit->compiled) {
    for (std::size_t i = 0; i < objects.size(); ++i) {
      // A symbol's value is the key's: the binding remembered holds it.
      if (slots[i].kind == CallSlot::Kind::Symbol) continue;
      if (slots[i].kind != CallSlot::Kind::Scalar) {
        hit->bound.rebind_array(hit->abi[i], py::detail::array_proxy(objects[i])->data);
        continue;
      }
      try {
        hit->bound.rebind_value(hit->compiled->signature(), hit->abi[i], numbers[i]);
      } catch (const ArgumentError&) {
        return false;  // the checked call says why, in its words
      }
    }
    const auto t0 = std::chrono::steady_clock::now();
    hit->compiled->run_bound(hit->bound);
    if (site.after_run)
      site.after_run(hit->bound.symbols(),
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
    return true;
  }
  if (site.after_run) return false;
  // Another program (interpreted, checking its tables, an orchestration): its run, without the
  // checks the layout settles (its own checks of scalar values stay).
  Arguments a;
  for (std::size_t i = 0; i < objects.size(); ++i) {
    const CallSlot& s = slots[i];
    if (s.kind == CallSlot::Kind::Symbol) {
      if (objects[i]) a.values.emplace(s.name, number_argument(s.name, objects[i], s.dtype));
      continue;
    }
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
    if (slots[i].kind == CallSlot::Kind::Scalar || slots[i].kind == CallSlot::Kind::Symbol) continue;
    const Field& f = a.arrays.at(slots[i].name);
    char* buffer = py::detail::array_proxy(objects[i])->data;
    if (f.data() != buffer) std::memcpy(buffer, f.data(), f.nbytes());
  }
  return true;
}

void remember_call(const CallSite& site, const CallLayout& layout, const std::shared_ptr<Program>& program,
                   Arguments& args) {
  if (layout.objects.empty()) return;
  auto& calls = *site.calls;
  if (std::any_of(calls.begin(), calls.end(), [&](const CachedCall& c) { return c.key == layout.key; }))
    return;
  CachedCall c;
  c.key = layout.key;
  c.program = program;
  if (auto* compiled = dynamic_cast<CompiledProgram*>(program.get())) {
    const Signature& sig = compiled->signature();
    for (const CallSlot& s : *site.slots) {
      auto at = std::find_if(sig.params.begin(), sig.params.end(),
                             [&](const Parameter& p) { return p.name == s.name; });
      if (at == sig.params.end()) break;
      c.abi.push_back(static_cast<std::size_t>(at - sig.params.begin()));
    }
    if (c.abi.size() == site.slots->size()) {
      c.compiled = compiled;
      c.bound = bind_arguments(sig, args);
    }
  }
  if (calls.size() == kMaxCachedCalls) calls.erase(calls.begin());
  calls.push_back(std::move(c));
}

}  // namespace weir::python
