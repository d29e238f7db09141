#include "workloads/sweep/sweep_record.hpp"

#include <fmt/format.h>

#include "topologies/support/input_error.hpp"
#include "workloads/sweep/json_checksum.hpp"

namespace tpusim::workloads {
namespace {

enum class Kind { text, whole_number, number, array, object, any };

struct Field {
  const char* key;
  Kind kind;
};

// Every field make_record writes but the format, which is checked first.
constexpr Field kFields[] = {
    {"tpusim_version", Kind::text}, {"sweep", Kind::text},          {"sweep_hash", Kind::text},
    {"point", Kind::whole_number},  {"hash", Kind::text},           {"values", Kind::array},
    {"status", Kind::text},         {"result", Kind::any},          {"error", Kind::text},
    {"wall_s", Kind::number},       {"peak_rss_mib", Kind::number}, {"csv", Kind::array},
    {"run", Kind::object},          {"checksum", Kind::text}};

bool is_kind(const nlohmann::json& value, Kind kind) {
  switch (kind) {
    case Kind::text:
      return value.is_string();
    case Kind::whole_number:
      return value.is_number_unsigned();
    case Kind::number:
      return value.is_number();
    case Kind::array:
      return value.is_array();
    case Kind::object:
      return value.is_object();
    case Kind::any:
      return true;
  }
  return false;
}

const char* kind_name(Kind kind) {
  switch (kind) {
    case Kind::text:
      return "a string";
    case Kind::whole_number:
      return "a whole number";
    case Kind::number:
      return "a number";
    case Kind::array:
      return "an array";
    case Kind::object:
      return "an object";
    case Kind::any:
      break;
  }
  return "a value";
}

const char* value_name(const nlohmann::json& value) {
  if (value.is_string()) return "a string";
  if (value.is_number_unsigned()) return "a whole number";
  if (value.is_number()) return "a number";
  if (value.is_array()) return "an array";
  if (value.is_object()) return "an object";
  if (value.is_boolean()) return "true/false";
  return "null";
}

}  // namespace

nlohmann::json make_record(const Study& study, std::size_t point, const PointOutcome& outcome,
                           const std::string& sweep_hash) {
  return {{"format", kRecordFormat},
          {"tpusim_version", TPUSIM_VERSION},
          {"sweep", study.name()},
          {"sweep_hash", sweep_hash},
          {"point", point},
          {"hash", study.point_hash(point)},
          {"values", study.values(point)},
          {"status", outcome.status},
          {"result", outcome.result},
          {"error", outcome.error},
          {"wall_s", outcome.wall_s},
          {"peak_rss_mib", outcome.peak_rss_mib},
          {"csv", study.csv_cells(point, outcome)},
          {"run", study.run_json(point, outcome)}};
}

PointOutcome outcome_of_record(const nlohmann::json& record) {
  try {
    PointOutcome outcome;
    outcome.status = record.at("status").get<std::string>();
    outcome.result = record.at("result");
    outcome.error = record.at("error").get<std::string>();
    outcome.wall_s = record.at("wall_s").get<double>();
    outcome.peak_rss_mib = record.at("peak_rss_mib").get<double>();
    return outcome;
  } catch (const nlohmann::json::exception& error) {
    throw InputError(fmt::format("not a sweep record: {}", error.what()));
  }
}

std::string record_problem(const nlohmann::json& record, std::size_t point, const std::string& hash) {
  if (!record.is_object()) return "is not a JSON object";
  const auto format = record.find("format");
  if (format == record.end() || !format->is_string()) return "is not a sweep record (it has no format)";
  if (*format != kRecordFormat) {
    if (*format == "tpusim.sweep_record.v1")
      return "is of format tpusim.sweep_record.v1, written by an earlier tpusim without checksums";
    return fmt::format("is not a sweep record of this tpusim (format '{}', expected {})",
                       format->get<std::string>(), kRecordFormat);
  }
  for (const auto& field : kFields) {
    const auto value = record.find(field.key);
    if (value == record.end()) return fmt::format("lacks its '{}' field", field.key);
    if (!is_kind(*value, field.kind)) {
      return fmt::format("has {} as its '{}' where {} belongs", value_name(*value), field.key,
                         kind_name(field.kind));
    }
  }
  const std::string status = record.at("status").get<std::string>();
  if (status != "ok" && status != "failed" && status != "input_error" && status != "skipped")
    return fmt::format("has status '{}', which is none of ok, failed, input_error and skipped", status);
  for (const auto& cell : record.at("csv")) {
    if (cell.is_array() || cell.is_object())
      return fmt::format("has {} as a cell of its 'csv' row, where a string, number or null belongs",
                         value_name(cell));
  }
  if (record.at("point") != point || record.at("hash") != hash) {
    return fmt::format("holds point {} (hash {}), not point {} (hash {}) as its name says",
                       record.at("point").get<std::size_t>(), record.at("hash").get<std::string>(), point,
                       hash);
  }
  if (!checksum_matches(record)) return "fails its checksum: it was changed after tpusim wrote it";
  return "";
}

RecordRead parse_record(const std::string& text, std::size_t point, const std::string& hash) {
  RecordRead read;
  FolderJson parsed = parse_folder_json(text);
  read.problem = parsed.problem.empty() ? record_problem(parsed.document, point, hash) : parsed.problem;
  if (read.problem.empty()) read.record = std::move(parsed.document);
  return read;
}

bool same_result(const nlohmann::json& a, const nlohmann::json& b) {
  for (const char* key : {"status", "result", "error"}) {
    if (a.value(key, nlohmann::json()) != b.value(key, nlohmann::json())) return false;
  }
  return true;
}

std::string record_file_name(std::size_t point, const std::string& hash) {
  return fmt::format("{}-{}.json", point, hash);
}

std::optional<RecordName> parse_record_file_name(const std::string& name) {
  const auto dash = name.find('-');
  constexpr std::size_t kHashDigits = 16;
  if (dash == std::string::npos || dash == 0 || dash > 9 || name.size() != dash + 1 + kHashDigits + 5 ||
      name.compare(name.size() - 5, 5, ".json") != 0)
    return std::nullopt;
  RecordName parsed;
  for (std::size_t i = 0; i < dash; ++i) {
    if (name[i] < '0' || name[i] > '9') return std::nullopt;
    parsed.point = parsed.point * 10 + static_cast<std::size_t>(name[i] - '0');
  }
  parsed.hash = name.substr(dash + 1, kHashDigits);
  if (parsed.hash.find_first_not_of("0123456789abcdef") != std::string::npos) return std::nullopt;
  return parsed;
}

void RecordCounts::count(const nlohmann::json& record) {
  ++rows;
  const std::string status = record.value("status", "");
  const std::string error = record.value("error", "");
  if (status == "ok") {
    ++ok;
  } else if (status == "skipped") {
    ++skipped;
  } else if (status == "input_error") {
    if (input_errors++ == 0) first_input_error = error;
  } else if (failed++ == 0) {
    first_failure = error;
  }
}

}  // namespace tpusim::workloads
