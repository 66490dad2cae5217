#pragma once
// Reading JSON with its path, for plan.json and the strategies' codecs: every error names the file
// and the JSON pointer ("plan.json: /layers/3/family/levels/0/type: must be one of I, II, III (got
// "IV")"), and objects reject keys they do not know (DESIGN.md principle 4).
//
// Contract: a JsonReader refers to the JSON value it was made from (keep it alive); it copies the
// file name and path.

#include <nlohmann/json_fwd.hpp>

#include <initializer_list>
#include <string>
#include <vector>

namespace partsim::plan {

class JsonReader {
 public:
  JsonReader(const nlohmann::json& value, std::string pointer, std::string file)
      : value_(value), pointer_(std::move(pointer)), file_(std::move(file)) {}

  [[noreturn]] void fail(const std::string& message) const;
  const nlohmann::json& value() const { return value_; }
  const std::string& pointer() const { return pointer_; }
  const std::string& file() const { return file_; }

  /// A required key of an object.
  JsonReader at(const std::string& key) const;
  bool has(const std::string& key) const;
  /// Fails on any key not in `allowed` (listing them); the value must be an object.
  void only_keys(std::initializer_list<const char*> allowed) const;
  std::vector<JsonReader> elements() const;
  std::string str() const;
  /// A finite number (>= 0 unless `non_negative` is false).
  double number(bool non_negative = true) const;
  long long integer(long long min_value, long long max_value = 1LL << 53) const;
  bool boolean() const;
  /// Index of the string value in `names`.
  size_t choice(const std::vector<std::string>& names) const;

 private:
  const nlohmann::json& value_;
  std::string pointer_;
  std::string file_;
};

/// "a, b, c".
std::string join_names(const std::vector<std::string>& names);

}  // namespace partsim::plan
