#include "sim/plan/family_fields.hpp"

#include <nlohmann/json.hpp>

#include <utility>

namespace partsim::plan {

namespace {
const nlohmann::json& null_json() noexcept {
  static const nlohmann::json null;
  return null;
}
}  // namespace

FamilyFields::FamilyFields() noexcept = default;
FamilyFields::FamilyFields(const nlohmann::json& value) : value_(std::make_unique<nlohmann::json>(value)) {}
FamilyFields::FamilyFields(nlohmann::json&& value) : value_(std::make_unique<nlohmann::json>(std::move(value))) {}
FamilyFields::FamilyFields(const FamilyFields& other)
    : value_(other.value_ ? std::make_unique<nlohmann::json>(*other.value_) : nullptr) {}
FamilyFields::FamilyFields(FamilyFields&& other) noexcept = default;
FamilyFields& FamilyFields::operator=(const FamilyFields& other) {
  if (this != &other) value_ = other.value_ ? std::make_unique<nlohmann::json>(*other.value_) : nullptr;
  return *this;
}
FamilyFields& FamilyFields::operator=(FamilyFields&& other) noexcept = default;
FamilyFields& FamilyFields::operator=(const nlohmann::json& value) {
  get() = value;
  return *this;
}
FamilyFields& FamilyFields::operator=(nlohmann::json&& value) {
  get() = std::move(value);
  return *this;
}
FamilyFields::~FamilyFields() = default;

const nlohmann::json& FamilyFields::get() const noexcept { return value_ ? *value_ : null_json(); }
nlohmann::json& FamilyFields::get() {
  if (!value_) value_ = std::make_unique<nlohmann::json>();
  return *value_;
}

}  // namespace partsim::plan
