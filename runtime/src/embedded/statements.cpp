// The embedded evaluator's calls of field operators and execution of their statements.
#include "internal.h"

#include "weir/runtime/errors.h"

namespace weir::runtime::embedded {

void fail(const frontend::SourceLocation& loc, const std::string& message) {
  throw ProgramError((loc.known() ? loc.str() + ": " : std::string()) + message);
}

Value Evaluator::call(const TypedDefinition& def, const std::vector<Value>& args,
                      const frontend::SourceLocation& loc) {
  if (def.kind == frontend::DefinitionKind::ScanOperator) return scan(def, args, loc);
  if (def.kind != frontend::DefinitionKind::FieldOperator)
    fail(loc, "'" + def.name + "' is a program; only field and scan operators can be called");
  Env env;
  for (std::size_t i = 0; i < def.params.size() && i < args.size(); ++i) env[def.params[i].name] = args[i];
  Value result;
  if (!exec(def.body, env, result)) fail(def.loc, "'" + def.name + "' ended without returning a value");
  return result;
}

bool Evaluator::exec(const std::vector<TStmt>& body, Env& env, Value& result) {
  for (const TStmt& s : body) {
    switch (s.kind) {
      case TStmt::Kind::Return: result = eval(*s.value, env); return true;
      case TStmt::Kind::If: {
        const FieldVal c = leaf(eval(*s.value, env), *s.value);
        if (exec(truthy(c.dtype, (*c.data)[static_cast<std::size_t>(c.base)]) ? s.body : s.orelse, env,
                 result))
          return true;
        break;
      }
      case TStmt::Kind::Assign: {
        Value v = eval(*s.value, env);
        if (!s.tuple_target) {
          env[s.targets[0]] = std::move(v);
          break;
        }
        std::size_t n = s.targets.size(), vi = 0;
        std::size_t rest = v.elements.size() - (n - 1);
        for (std::size_t i = 0; i < n; ++i) {
          if (static_cast<int>(i) == s.starred) {
            std::vector<Value> part(v.elements.begin() + static_cast<long>(vi),
                                    v.elements.begin() + static_cast<long>(vi + rest));
            env[s.targets[i]] = Value::tuple(std::move(part));
            vi += rest;
          } else {
            env[s.targets[i]] = v.elements[vi++];
          }
        }
        break;
      }
    }
  }
  return false;
}

}  // namespace weir::runtime::embedded
