// Internal: a cursor over a JSON document that knows its JSON path and the SDFG element it is
// reading, so every load error can say where it is. Not a public header.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "weir/sdfg/serialize.h"
#include "weir/sdfg/symbolic.h"
#include "weir/sdfg/types.h"

namespace weir::detail {

using json = nlohmann::json;

/// A JSON value with its location. Child accessors extend the path; `element` (e.g.
/// "state 'main', node 3 (Tasklet 'add')") is inherited by children until replaced.
class JsonCursor {
 public:
  JsonCursor(const json& value, const std::string* file, std::string path, std::string element)
      : v_(&value), file_(file), path_(std::move(path)), element_(std::move(element)) {}

  const json& value() const { return *v_; }
  const std::string& path() const { return path_; }
  const std::string& element() const { return element_; }
  JsonCursor with_element(std::string element) const { return {*v_, file_, path_, std::move(element)}; }

  [[noreturn]] void fail(const std::string& message) const;

  bool is_object() const { return v_->is_object(); }
  bool has(const char* key) const { return v_->is_object() && v_->contains(key) && !(*v_)[key].is_null(); }
  /// Required member; fails with "missing required key 'k'" if absent, "'k' is null; it needs a
  /// value" (located at the member) if null.
  JsonCursor at(const char* key) const;
  /// Optional member: nullopt-like via has(); precondition has(key).
  JsonCursor get(const char* key) const { return at(key); }
  JsonCursor index(std::size_t i) const;
  /// Member `key` of an object, which may be null (for iterating over maps of names).
  JsonCursor member(const std::string& key) const;
  std::size_t size() const { return v_->size(); }

  /// Typed reads that fail with a located message on a type mismatch.
  const json::object_t& object() const;
  const json::array_t& array() const;
  std::string string() const;
  bool boolean() const;
  long long integer() const;
  /// A symbolic expression written as a string or a number ("N - 1", 3).
  sym::Expr expr() const;
  /// A CodeBlock {"string_data", "language"}; a bare string is accepted as Python.
  CodeBlock code() const;
  /// A node/block index written as a string or number ("3" or 3).
  long long index_value() const;

 private:
  const json* v_;
  const std::string* file_;
  std::string path_;
  std::string element_;
};

}  // namespace weir::detail
