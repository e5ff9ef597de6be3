// Structural identity of lowering scopes (scope_key in lowering_internal.h).
#include <cstdio>
#include <map>

#include "lowering_internal.h"

namespace weir::frontend::lowering {

namespace {

std::string key_of(const EnvPtr& env, std::map<const Env*, std::string>& seen);

std::string key_of(const ValuePtr& v, std::map<const Env*, std::string>& seen) {
  if (!v) return "-";
  std::string k = std::to_string(static_cast<int>(v->kind)) + ":" + v->name + "#" + std::to_string(v->index);
  if (v->expr) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "@%p", static_cast<const void*>(v->expr.get()));
    k += buf;
  }
  if (v->env) k += "{" + key_of(v->env, seen) + "}";
  k += "[";
  for (const ValuePtr& e : v->elems) k += key_of(e, seen) + ",";
  return k + "]";
}

std::string key_of(const EnvPtr& env, std::map<const Env*, std::string>& seen) {
  if (!env) return "";
  if (auto it = seen.find(env.get()); it != seen.end()) return it->second;
  std::string k = key_of(env->parent, seen) + ";" + env->name + "=" + key_of(env->value, seen);
  seen.emplace(env.get(), k);
  return k;
}

}  // namespace

std::string scope_key(const EnvPtr& env) {
  std::map<const Env*, std::string> seen;
  return key_of(env, seen);
}

}  // namespace weir::frontend::lowering
