#include "json_reader.h"

namespace weir::detail {

namespace {
const char* type_name_of(const json& v) { return v.type_name(); }
}  // namespace

void JsonCursor::fail(const std::string& message) const {
  throw SdfgLoadError(*file_, path_.empty() ? "/" : path_, element_, message);
}

JsonCursor JsonCursor::at(const char* key) const {
  if (!v_->is_object())
    fail(std::string("expected an object with key '") + key + "', found " + type_name_of(*v_));
  auto it = v_->find(key);
  if (it == v_->end()) fail(std::string("missing required key '") + key + "'");
  // Present but null is not missing (user31 G18: `"nodes": null` said "missing").
  if (it->is_null())
    JsonCursor(*it, file_, path_ + "/" + key, element_)
        .fail(std::string("'") + key + "' is null; it needs a value");
  return JsonCursor(*it, file_, path_ + "/" + key, element_);
}

JsonCursor JsonCursor::member(const std::string& key) const {
  return JsonCursor((*v_)[key], file_, path_ + "/" + key, element_);
}

JsonCursor JsonCursor::index(std::size_t i) const {
  return JsonCursor((*v_)[i], file_, path_ + "/" + std::to_string(i), element_);
}

const json::object_t& JsonCursor::object() const {
  if (!v_->is_object()) fail(std::string("expected an object, found ") + type_name_of(*v_));
  return v_->get_ref<const json::object_t&>();
}

const json::array_t& JsonCursor::array() const {
  if (!v_->is_array()) fail(std::string("expected an array, found ") + type_name_of(*v_));
  return v_->get_ref<const json::array_t&>();
}

std::string JsonCursor::string() const {
  if (!v_->is_string()) fail(std::string("expected a string, found ") + type_name_of(*v_));
  return v_->get<std::string>();
}

bool JsonCursor::boolean() const {
  if (!v_->is_boolean()) fail(std::string("expected true or false, found ") + type_name_of(*v_));
  return v_->get<bool>();
}

long long JsonCursor::integer() const {
  if (!v_->is_number_integer()) fail(std::string("expected an integer, found ") + type_name_of(*v_));
  return v_->get<long long>();
}

sym::Expr JsonCursor::expr() const {
  if (v_->is_number_integer()) return sym::Expr(v_->get<long long>());
  if (!v_->is_string())
    fail(std::string("expected a symbolic expression string, found ") + type_name_of(*v_));
  const auto& text = v_->get_ref<const std::string&>();
  try {
    return sym::Expr::parse(text);
  } catch (const sym::SymbolicError& e) {
    fail(std::string("invalid expression '") + text + "': " + e.what());
  }
}

CodeBlock JsonCursor::code() const {
  if (v_->is_string()) return CodeBlock{v_->get<std::string>(), Language::Python};
  CodeBlock cb;
  cb.code = at("string_data").string();
  if (has("language")) {
    auto lang = at("language").string();
    auto l = language_from_string(lang);
    if (!l) at("language").fail("unknown language '" + lang + "'");
    cb.language = *l;
  }
  return cb;
}

long long JsonCursor::index_value() const {
  if (v_->is_number_integer()) return v_->get<long long>();
  if (v_->is_string()) {
    const auto& s = v_->get_ref<const std::string&>();
    if (!s.empty() && s.find_first_not_of("0123456789") == std::string::npos && s.size() < 10)
      return std::stoll(s);
    fail("expected an index, found '" + s + "'");
  }
  fail(std::string("expected an index, found ") + type_name_of(*v_));
}

}  // namespace weir::detail
