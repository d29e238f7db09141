#include "workloads/sweep/sweep_record.hpp"

#include <fmt/format.h>

#include "topologies/support/input_error.hpp"
#include "workloads/sweep/folder_json.hpp"

namespace tpusim::workloads {
namespace {

// Every field make_record writes but the format, which is checked first.
const std::vector<FieldSpec> kFields = {
    {"tpusim_version", FieldKind::text}, {"sweep", FieldKind::text},          {"sweep_hash", FieldKind::text},
    {"point", FieldKind::whole_number},  {"hash", FieldKind::text},           {"values", FieldKind::array},
    {"status", FieldKind::text},         {"result", FieldKind::any},          {"error", FieldKind::text},
    {"wall_s", FieldKind::number},       {"peak_rss_mib", FieldKind::number}, {"csv", FieldKind::array},
    {"run", FieldKind::object},          {"checksum", FieldKind::text}};

// A string of the file as a message shows it: in quotes, escaped, so that it stays on the message's line.
std::string quoted(const nlohmann::json& text) { return canonical_text(text); }

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
    return fmt::format("is not a sweep record of this tpusim (format {}, expected {})", quoted(*format),
                       kRecordFormat);
  }
  if (const auto mismatch = field_mismatch(record, kFields)) {
    if (mismatch->missing()) return fmt::format("lacks its '{}' field", mismatch->key);
    return fmt::format("has {} as its '{}' where {} belongs", mismatch->found, mismatch->key,
                       mismatch->expected);
  }
  // Before the values are looked at: an edit by hand is told as such, whatever it changed.
  if (!checksum_matches(record)) return "fails its checksum: it was changed after tpusim wrote it";
  const auto& status = record.at("status");
  if (status != "ok" && status != "failed" && status != "input_error" && status != "skipped")
    return fmt::format("has status {}, which is none of ok, failed, input_error and skipped", quoted(status));
  for (const auto& cell : record.at("csv")) {
    if (cell.is_array() || cell.is_object())
      return fmt::format("has {} as a cell of its 'csv' row, where a string, number or null belongs",
                         kind_of(cell));
  }
  if (record.at("point") != point || record.at("hash") != hash) {
    return fmt::format("holds point {} (hash {}), not point {} (hash {}) as its name says",
                       record.at("point").get<std::size_t>(), quoted(record.at("hash")), point, hash);
  }
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
