// Definitions in a module body: decorated functions (field_operator, scan_operator, program),
// plain functions, classes (enums, named collections) and assignment targets.
#include "module_loader_internal.h"

#include <algorithm>

#include "weir/sdfg/suggest.h"

namespace weir::frontend {

void ModuleLoader::Impl::bind_target(const Expr& target, const Value& v, std::map<std::string, Value>& ns) {
  if (auto* n = dyn_cast<Name>(&target)) {
    ns[n->id] = v;
    return;
  }
  const ExprList* elts = nullptr;
  if (auto* t = dyn_cast<Tuple>(&target)) elts = &t->elts;
  if (auto* l = dyn_cast<List>(&target)) elts = &l->elts;
  if (!elts) return;  // attribute / subscript targets: not tracked
  for (std::size_t i = 0; i < elts->size(); ++i) {
    const Expr& e = *(*elts)[i];
    if (v.kind == ValueKind::Failed) {
      bind_target(e, v, ns);
    } else if (v.kind == ValueKind::Sequence && v.elements.size() == elts->size() && !isa<Starred>(&e)) {
      bind_target(e, v.elements[i], ns);
    } else {
      bind_target(isa<Starred>(&e) ? *static_cast<const Starred&>(e).value : e,
                  Value::failed("cannot unpack " + v.describe(), target.loc), ns);
    }
  }
}

// Whether a plain function's body may hold definitions (a nested function, maybe in an if).
bool ModuleLoader::Impl::has_nested_functions(const StmtList& body) {
  for (const StmtPtr& s : body) {
    if (s->kind == StmtKind::FunctionDef) return true;
    if (auto* i = dyn_cast<If>(s.get());
        i && (has_nested_functions(i->body) || has_nested_functions(i->orelse)))
      return true;
  }
  return false;
}

namespace {

// "gtx.field_operatr" for a decorator `@gtx.field_operatr` (names and attributes only).
std::string dotted(const Expr& e) {
  if (auto* n = dyn_cast<Name>(&e)) return n->id;
  if (auto* a = dyn_cast<Attribute>(&e)) return dotted(*a->value) + "." + a->attr;
  return "...";
}

}  // namespace

// The gt4py decorator a misspelt one stands for (`@gtx.field_operatr`, which Python refuses
// with an AttributeError at import): the definition kind it is closest to, or nullopt for a
// decorator that is no gt4py name (`@functools.cache`) or too far from every one. `message`:
// "unknown decorator 'gtx.field_operatr': gt4py.next has no 'field_operatr' (did you mean
// 'gtx.field_operator'?)".
std::optional<DefinitionKind> ModuleLoader::Impl::misspelt_decorator(LoadedModule& m, const Expr& head,
                                                                     const Value& dv, std::string& message) {
  if (dv.kind != ValueKind::Builtin) return std::nullopt;
  bool from_gt4py = false;
  if (auto* a = dyn_cast<Attribute>(&head)) {
    try {
      Value base = evaluate(*a->value, m);
      from_gt4py =
          base.kind == ValueKind::Builtin && (base.name == "next" || base.name.rfind("gt4py", 0) == 0);
    } catch (const FrontendError&) {
    }
  }
  const std::pair<const char*, DefinitionKind> kinds[] = {{"field_operator", DefinitionKind::FieldOperator},
                                                          {"scan_operator", DefinitionKind::ScanOperator},
                                                          {"program", DefinitionKind::Program}};
  std::size_t best = std::string::npos;
  std::optional<DefinitionKind> kind;
  std::string meant;
  for (const auto& [name, k] : kinds)
    if (std::size_t d = edit_distance(dv.name, name); d < best) {
      best = d;
      kind = k;
      meant = name;
    }
  // An attribute of gt4py.next is a mistake whatever it is; a name imported from elsewhere
  // only when it is one or two slips from a decorator.
  if (!from_gt4py && best > 2) return std::nullopt;
  std::string text = dotted(head);
  message = "unknown decorator '" + text + "'" + (from_gt4py ? ": gt4py.next has no '" + dv.name + "'" : "") +
            " (did you mean '" + text.substr(0, text.size() - dv.name.size()) + meant + "'?)";
  return kind;
}

void ModuleLoader::Impl::define_function(LoadedModule& m, const FunctionDef& f,
                                         std::map<std::string, Value>& ns) {
  std::shared_ptr<Definition> def;
  for (const ExprPtr& d : f.decorators) {
    const Expr* head = d.get();
    const Call* call = dyn_cast<Call>(head);
    if (call) head = call->func.get();
    Value dv;
    try {
      dv = evaluate(*head, m);
    } catch (const FrontendError&) {
      continue;
    }
    if (dv.kind != ValueKind::Builtin) continue;
    DefinitionKind kind;
    if (dv.name == "field_operator") {
      kind = DefinitionKind::FieldOperator;
    } else if (dv.name == "scan_operator") {
      kind = DefinitionKind::ScanOperator;
    } else if (dv.name == "program") {
      kind = DefinitionKind::Program;
    } else if (std::string message; auto k = misspelt_decorator(m, *head, dv, message)) {
      // A definition that reports the decorator wherever it is checked or called.
      def = std::make_shared<Definition>();
      def->kind = *k;
      def->name = f.name;
      def->def = &f;
      def->module = &m;
      def->scope = m.function;
      def->error = message;
      def->error_loc = head->loc;
      break;
    } else {
      continue;
    }
    def = std::make_shared<Definition>();
    def->kind = kind;
    def->name = f.name;
    def->def = &f;
    def->module = &m;
    def->scope = m.function;
    if (kind == DefinitionKind::ScanOperator) {
      try {
        if (!call) throw FrontendError(d->loc, "scan_operator needs axis=, forward= and init=");
        const Expr* axis = nullptr;
        for (const Keyword& k : call->keywords) {
          if (k.arg == "axis")
            axis = k.value.get();
          else if (k.arg == "init")
            def->init = k.value.get();
          else if (k.arg == "forward") {
            Value fw = evaluate(*k.value, m);
            if (fw.kind != ValueKind::Constant || fw.constant.kind != ConstantValue::Kind::Bool)
              throw FrontendError(k.value->loc, "forward= must be True or False");
            def->forward = fw.constant.bool_value;
          }
        }
        if (!axis) throw FrontendError(call->loc, "scan_operator needs axis=");
        if (!def->init) throw FrontendError(call->loc, "scan_operator needs init=");
        Value av = evaluate(*axis, m);
        if (av.kind != ValueKind::Dimension)
          throw FrontendError(axis->loc,
                              "the axis of a scan_operator must be a dimension, got " + av.describe());
        def->axis = av.dim;
      } catch (const FrontendError& e) {
        def->error = e.message();
        def->error_loc = e.location();
      }
    }
    break;
  }
  if (def) {
    m.definitions.push_back(def);
    Value v;
    v.kind = ValueKind::Definition;
    v.definition = def;
    ns[f.name] = v;
  } else {
    if (has_nested_functions(f.body))
      pending_functions.push_back({&m, &f, m.function.empty() ? f.name : m.function + "." + f.name});
    Value v = Value::failed("'" + f.name +
                                "' is a plain Python function (not a field_operator, "
                                "scan_operator or program)",
                            f.loc);
    v.plain_function = &f;
    v.module = &m;
    ns[f.name] = v;
  }
}

// A class body runs in its own namespace that sees the module's (earlier attributes are
// visible to later ones); methods, properties and nested classes are not members.
// A NamedTuple subclass or a @dataclass whose body annotates its elements: a named
// collection type (elements in order); nullopt for any other class.
std::optional<Value> ModuleLoader::Impl::named_collection(LoadedModule& m, const ClassDef& c,
                                                          std::map<std::string, Value>& ns) {
  bool collection = false;
  auto named = [](const Value& v, const std::string& what) {
    const std::string& n = v.name;
    return (v.kind == ValueKind::Builtin || v.kind == ValueKind::External) &&
           (n == what || (n.size() > what.size() &&
                          n.compare(n.size() - what.size() - 1, std::string::npos, "." + what) == 0));
  };
  for (const ExprPtr& b : c.bases) {
    try {
      collection = collection || named(evaluate(*b, m, &ns), "NamedTuple");
    } catch (const FrontendError&) {
    }
  }
  for (const ExprPtr& d : c.decorators) {
    const Expr* head = d.get();
    if (auto* call = dyn_cast<Call>(head)) head = call->func.get();
    try {
      collection = collection || named(evaluate(*head, m, &ns), "dataclass");
    } catch (const FrontendError&) {
    }
  }
  if (!collection) return std::nullopt;
  Type t;
  t.kind = Type::Kind::Tuple;
  t.collection = c.name;
  try {
    for (const StmtPtr& s : c.body) {
      auto* a = dyn_cast<AnnAssign>(s.get());
      auto* n = a ? dyn_cast<Name>(a->target.get()) : nullptr;
      if (!n) continue;
      t.elements.push_back(value_to_type(evaluate(*a->annotation, m, &ns), a->annotation->loc));
      t.names.push_back(n->id);
    }
  } catch (const FrontendError& e) {
    return Value::failed(e.message(), e.location());
  }
  return make_type(std::move(t));
}

void ModuleLoader::Impl::define_class(LoadedModule& m, const ClassDef& c, std::map<std::string, Value>& ns) {
  if (auto v = named_collection(m, c, ns)) {
    ns[c.name] = *v;
    return;
  }
  bool is_enum = false;
  for (const ExprPtr& b : c.bases) {
    try {
      Value bv = evaluate(*b, m, &ns);
      if (bv.kind == ValueKind::Builtin &&
          (bv.name == "Enum" || bv.name == "IntEnum" || bv.name == "StrEnum" || bv.name == "Flag" ||
           bv.name == "IntFlag"))
        is_enum = true;
      if (bv.kind == ValueKind::Enum && bv.enum_class->is_enum) is_enum = true;
    } catch (const FrontendError&) {
    }
  }
  Value v;
  v.kind = ValueKind::Enum;
  v.enum_class = std::make_shared<EnumClass>();
  v.enum_class->name = c.name;
  v.enum_class->is_enum = is_enum;
  std::map<std::string, Value> cls;
  std::int64_t next_auto = 1;  // enum.auto(): one more than the last integer member
  auto is_auto = [&](const Expr& e) {
    auto* call = dyn_cast<Call>(&e);
    if (!call || !call->args.empty()) return false;
    try {
      Value f = evaluate(*call->func, m, &ns);
      return f.kind == ValueKind::Builtin && f.name == "auto";
    } catch (const FrontendError&) {
      return false;
    }
  };
  auto member = [&](const std::string& name, const Expr& value) {
    Value mv;
    try {
      if (is_enum && is_auto(value)) {
        mv = make_int(next_auto);
      } else {
        mv = evaluate(value, m, &cls);  // `ns` is `m.names`: the class's names first
      }
      if (is_enum && mv.kind != ValueKind::Constant)
        mv = Value::failed("enum member '" + name + "' is not a literal", value.loc);
    } catch (const FrontendError& e) {
      mv = Value::failed(e.message(), e.location());
    }
    if (mv.kind == ValueKind::Constant && mv.constant.kind == ConstantValue::Kind::Int)
      next_auto = mv.constant.int_value + 1;
    cls[name] = mv;
  };
  for (const StmtPtr& s : c.body) {
    // Methods (of test classes) may define programs too; their globals are the module's.
    if (auto* f = dyn_cast<FunctionDef>(s.get()); f && has_nested_functions(f->body))
      pending_functions.push_back({&m, f, c.name + "." + f->name});
    if (auto* a = dyn_cast<Assign>(s.get())) {
      for (const ExprPtr& t : a->targets)
        if (auto* n = dyn_cast<Name>(t.get())) member(n->id, *a->value);
    } else if (auto* a = dyn_cast<AnnAssign>(s.get()); a && a->value) {
      if (auto* n = dyn_cast<Name>(a->target.get())) member(n->id, *a->value);
    }
  }
  for (auto& [k, x] : cls)
    if (!is_enum || (k.size() < 2 || k.substr(0, 2) != "__")) v.enum_class->members[k] = x;
  ns[c.name] = v;
}

}  // namespace weir::frontend
