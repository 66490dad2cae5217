#pragma once
// A strategy's own fields in a plan (plan.hpp's `family` members): one nlohmann::json held behind a
// pointer, so that plan.hpp (included by most of the simulator) needs only <nlohmann/json_fwd.hpp>.
// A TU that reads or writes the fields includes <nlohmann/json.hpp> and uses `->` or get().
//
// Contract: behaves as a json value with value semantics (copies are deep); default is null.

#include <nlohmann/json_fwd.hpp>

#include <memory>

namespace partsim::plan {

class FamilyFields {
 public:
  FamilyFields() noexcept;
  FamilyFields(const nlohmann::json& value);  // NOLINT(google-explicit-constructor): a json is one
  FamilyFields(nlohmann::json&& value);       // NOLINT(google-explicit-constructor)
  FamilyFields(const FamilyFields& other);
  FamilyFields(FamilyFields&& other) noexcept;
  FamilyFields& operator=(const FamilyFields& other);
  FamilyFields& operator=(FamilyFields&& other) noexcept;
  FamilyFields& operator=(const nlohmann::json& value);
  FamilyFields& operator=(nlohmann::json&& value);
  ~FamilyFields();

  /// The value (null when never set).
  const nlohmann::json& get() const noexcept;
  nlohmann::json& get();
  const nlohmann::json* operator->() const noexcept { return &get(); }
  nlohmann::json* operator->() { return &get(); }
  const nlohmann::json& operator*() const noexcept { return get(); }
  nlohmann::json& operator*() { return get(); }
  operator const nlohmann::json&() const noexcept { return get(); }  // NOLINT(google-explicit-constructor)

 private:
  std::unique_ptr<nlohmann::json> value_;  // null: a null json
};

}  // namespace partsim::plan
