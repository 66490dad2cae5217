#include "sim/plan/json_reader.hpp"

#include <nlohmann/json.hpp>
#include <algorithm>
#include <cmath>

#include "sim/common/error.hpp"
#include "sim/common/text.hpp"

namespace partsim::plan {

using nlohmann::json;

std::string join_names(const std::vector<std::string>& names) { return join(names); }

void JsonReader::fail(const std::string& message) const {
  throw InputError(file_ + ": " + (pointer_.empty() ? "/" : pointer_) + ": " + message);
}

bool JsonReader::has(const std::string& key) const { return value_.is_object() && value_.contains(key); }

JsonReader JsonReader::at(const std::string& key) const {
  if (!value_.is_object()) fail("expected an object");
  auto it = value_.find(key);
  if (it == value_.end()) JsonReader(value_, pointer_ + "/" + key, file_).fail("missing required key");
  return JsonReader(*it, pointer_ + "/" + key, file_);
}

void JsonReader::only_keys(std::initializer_list<const char*> allowed) const {
  if (!value_.is_object()) fail("expected an object");
  for (const auto& item : value_.items()) {
    const std::string& key = item.key();  // not a structured binding: clang 14 cannot capture one
    if (std::any_of(allowed.begin(), allowed.end(), [&](const char* a) { return key == a; })) continue;
    std::vector<std::string> names(allowed.begin(), allowed.end());
    JsonReader(item.value(), pointer_ + "/" + key, file_).fail("unknown key (allowed: " + join_names(names) + ")");
  }
}

std::vector<JsonReader> JsonReader::elements() const {
  if (!value_.is_array()) fail("expected an array");
  std::vector<JsonReader> out;
  out.reserve(value_.size());
  for (size_t i = 0; i < value_.size(); ++i) out.emplace_back(value_[i], pointer_ + "/" + std::to_string(i), file_);
  return out;
}

std::string JsonReader::str() const {
  if (!value_.is_string()) fail("expected a string (got " + value_.dump() + ")");
  return value_.get<std::string>();
}

double JsonReader::number(bool non_negative) const {
  if (!value_.is_number()) fail("expected a number (got " + value_.dump() + ")");
  const double v = value_.get<double>();
  if (!std::isfinite(v) || (non_negative && v < 0)) fail("must be a finite number >= 0 (got " + value_.dump() + ")");
  return v;
}

long long JsonReader::integer(long long min_value, long long max_value) const {
  if (!value_.is_number_integer()) fail("expected a whole number (got " + value_.dump() + ")");
  if (value_.is_number_unsigned() && value_.get<unsigned long long>() > static_cast<unsigned long long>(max_value))
    fail("must be <= " + std::to_string(max_value) + " (got " + value_.dump() + ")");
  const long long v = value_.get<long long>();
  if (v < min_value || v > max_value)
    fail("must be in [" + std::to_string(min_value) + ", " + std::to_string(max_value) + "] (got " + value_.dump() + ")");
  return v;
}

bool JsonReader::boolean() const {
  if (!value_.is_boolean()) fail("expected true or false (got " + value_.dump() + ")");
  return value_.get<bool>();
}

size_t JsonReader::choice(const std::vector<std::string>& names) const {
  if (value_.is_string())
    for (size_t i = 0; i < names.size(); ++i)
      if (value_.get<std::string>() == names[i]) return i;
  fail("must be one of " + join_names(names) + " (got " + value_.dump() + ")");
}

}  // namespace partsim::plan
