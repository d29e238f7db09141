#include "workloads/report/checked_json.hpp"

#include <fmt/format.h>

#include <cmath>

#include "topologies/support/input_error.hpp"

namespace tpusim::workloads {
namespace {

constexpr std::uint64_t kLargestExactWhole = std::uint64_t(1) << 53;
// Quoted values longer than this are cut, so that the message stays one readable line.
constexpr std::size_t kLongestShownValue = 40;

// The value as a message shows it: strings quoted (and cut), containers by their kind.
std::string shown(const nlohmann::json& value) {
  if (value.is_object()) return "an object";
  if (value.is_array()) return "an array";
  // ASCII only, with control characters escaped: the line holds nothing a terminal would act on.
  std::string text = value.dump(-1, ' ', true, nlohmann::json::error_handler_t::replace);
  if (text.size() > kLongestShownValue) text = text.substr(0, kLongestShownValue) + "...";
  return text;
}

}  // namespace

CheckedJson::CheckedJson(const nlohmann::json& value, std::string file, std::string key)
    : value_(&value), file_(std::move(file)), key_(std::move(key)) {}

void CheckedJson::fail(const std::string& problem) const {
  throw InputError(key_.empty() ? fmt::format("{}: {}", file_, problem)
                                : fmt::format("{}: {}: {}", file_, key_, problem));
}

void CheckedJson::expected(const std::string& what) const {
  fail(fmt::format("expected {}, not {}", what, shown(*value_)));
}

std::optional<CheckedJson> CheckedJson::find(const std::string& name) const {
  if (!value_->is_object()) expected("an object");
  const auto it = value_->find(name);
  if (it == value_->end()) return std::nullopt;
  return CheckedJson(*it, file_, key_.empty() ? name : key_ + "." + name);
}

CheckedJson CheckedJson::at(const std::string& name) const {
  auto member = find(name);
  if (!member) {
    const std::string key = key_.empty() ? name : key_ + "." + name;
    throw InputError(fmt::format("{}: {}: missing", file_, key));
  }
  return *member;
}

std::size_t CheckedJson::size() const {
  if (!value_->is_array()) expected("an array");
  return value_->size();
}

CheckedJson CheckedJson::at(std::size_t index) const {
  if (index >= size()) fail(fmt::format("has no element {}", index));
  return CheckedJson((*value_)[index], file_, fmt::format("{}[{}]", key_, index));
}

std::string CheckedJson::text() const {
  if (!value_->is_string()) expected("a string");
  return value_->get<std::string>();
}

bool CheckedJson::flag() const {
  if (!value_->is_boolean()) expected("true or false");
  return value_->get<bool>();
}

std::uint64_t CheckedJson::whole() const { return whole_from(0); }

std::uint64_t CheckedJson::count() const { return whole_from(1); }

std::uint64_t CheckedJson::whole_from(std::uint64_t least) const {
  const std::string what = fmt::format("a whole number of at least {}", least);
  double value = -1;
  if (value_->is_number_unsigned()) {
    value = double(value_->get<std::uint64_t>());
  } else if (value_->is_number_integer()) {
    value = double(value_->get<std::int64_t>());  // negative when parsed; any sign when built in memory
  } else if (value_->is_number_float()) {
    // 8.0 is a whole number too, as a hand or another tool may write it.
    value = value_->get<double>();
  }  // not a number: -1 fails below
  if (!(value >= double(least) && value <= double(kLargestExactWhole)) || std::floor(value) != value)
    expected(what);
  return static_cast<std::uint64_t>(value);
}

double CheckedJson::number() const {
  if (!value_->is_number()) expected("a number of at least 0");
  const double value = value_->get<double>();
  if (!(value >= 0) || !std::isfinite(value)) expected("a number of at least 0");
  return value;
}

double CheckedJson::positive() const {
  if (!value_->is_number()) expected("a number above 0");
  const double value = value_->get<double>();
  if (!(value > 0) || !std::isfinite(value)) expected("a number above 0");
  return value;
}

std::optional<double> CheckedJson::number_or_null() const {
  if (value_->is_null()) return std::nullopt;
  if (!value_->is_number()) expected("a number of at least 0, or null");
  return number();
}

std::string json_exception_reason(const nlohmann::json::exception& error) {
  std::string text = error.what();
  // "[json.exception.parse_error.101] parse error at line 1, column 5: syntax error ..."
  if (text.rfind("[json.exception.", 0) == 0 && text.find("] ") != std::string::npos)
    text = text.substr(text.find("] ") + 2);
  const auto column = text.find(", column ");
  if (text.rfind("parse error", 0) == 0 && column != std::string::npos) {
    const auto colon = text.find(": ", column);
    if (colon != std::string::npos) text = text.substr(colon + 2);
  }
  return text;
}

}  // namespace tpusim::workloads
