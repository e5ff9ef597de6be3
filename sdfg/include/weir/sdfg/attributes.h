// Attributes weir does not model, kept verbatim so that a load/save round trip loses nothing
// (DaCe ignores unknown keys with a warning; weir keeps them).
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace weir {

/// Attribute name -> its value as JSON text, in file order. Kept as text rather than a JSON
/// object so that IR headers do not pull in the JSON library.
class UnknownAttributes {
 public:
  void set(std::string key, std::string json_text);
  /// JSON text of `key`, or nullptr.
  const std::string* find(const std::string& key) const;
  bool erase(const std::string& key);
  bool empty() const { return items_.empty(); }
  const std::vector<std::pair<std::string, std::string>>& items() const { return items_; }
  bool operator==(const UnknownAttributes&) const = default;

 private:
  std::vector<std::pair<std::string, std::string>> items_;
};

}  // namespace weir
