#pragma once
// A record's fields as one table: the name each field has in JSON and CSV and the member that holds it. The
// table is the only place the names are written: a record goes to JSON and comes back from it through the
// same rows (a child process's result, a sweep's point), and a report picks the fields it shows by name.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <variant>
#include <vector>

#include "topologies/support/check.hpp"

namespace tpusim::workloads {

template <class Record>
struct RecordField {
  using Member =
      std::variant<double Record::*, std::optional<double> Record::*, bool Record::*, int Record::*,
                   std::int64_t Record::*, std::uint64_t Record::*, std::string Record::*>;
  const char* name;
  Member member;
};

template <class Record>
using RecordFields = std::vector<RecordField<Record>>;

// One field as JSON: an optional that holds nothing is null.
template <class Record>
nlohmann::json field_json(const Record& record, const RecordField<Record>& field) {
  return std::visit(
      [&record](auto member) {
        const auto& value = record.*member;
        if constexpr (std::is_same_v<std::decay_t<decltype(value)>, std::optional<double>>) {
          return value ? nlohmann::json(*value) : nlohmann::json();
        } else {
          return nlohmann::json(value);
        }
      },
      field.member);
}

template <class Record>
const RecordField<Record>& field_named(const RecordFields<Record>& fields, const std::string& name) {
  for (const auto& field : fields) {
    if (name == field.name) return field;
  }
  TPUSIM_CHECK(false);  // a report asked for a field the record does not have
  return fields.front();
}

// Every field, or the fields `names` lists, as one JSON object.
template <class Record>
nlohmann::json record_json(const Record& record, const RecordFields<Record>& fields) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& field : fields) out[field.name] = field_json(record, field);
  return out;
}
template <class Record>
nlohmann::json record_json(const Record& record, const RecordFields<Record>& fields,
                           const std::vector<std::string>& names) {
  nlohmann::json out = nlohmann::json::object();
  for (const auto& name : names) out[name] = field_json(record, field_named(fields, name));
  return out;
}

// The record written by record_json, read back; nlohmann::json's exception names a missing or mistyped key
// (callers that read what a user may have edited check the JSON first: sweep/folder_json.hpp).
template <class Record>
Record record_from_json(const nlohmann::json& json, const RecordFields<Record>& fields) {
  Record record;
  for (const auto& field : fields) {
    std::visit(
        [&](auto member) {
          auto& value = record.*member;
          using Value = std::decay_t<decltype(value)>;
          const nlohmann::json& cell = json.at(field.name);
          if constexpr (std::is_same_v<Value, std::optional<double>>) {
            if (!cell.is_null()) value = cell.get<double>();
          } else {
            value = cell.get<Value>();
          }
        },
        field.member);
  }
  return record;
}

}  // namespace tpusim::workloads
