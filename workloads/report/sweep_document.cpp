#include "workloads/report/sweep_document.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cmath>
#include <ctime>
#include <filesystem>

#include "topologies/support/input_error.hpp"
#include "topologies/support/text_file.hpp"

namespace tpusim::workloads {
namespace fs = std::filesystem;
namespace {

// Where the rows may be, in the order they are looked for.
constexpr const char* kRowArrays[] = {"runs", "records", "rows", "results", "points"};

std::string as_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "";
  return value.dump();
}

void collect_leaves(const nlohmann::json& object, std::map<std::string, nlohmann::json>& fields) {
  // Outer fields first, so that a name at the top of the row wins over the same name deeper in.
  for (const auto& [key, value] : object.items()) {
    if (!value.is_object() && fields.count(key) == 0) fields[key] = value;
  }
  for (const auto& [key, value] : object.items()) {
    if (value.is_object()) collect_leaves(value, fields);
  }
}

std::vector<std::pair<std::string, std::vector<std::string>>> read_vary(const nlohmann::json& vary) {
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  auto add = [&](const std::string& key, const nlohmann::json& values) {
    std::vector<std::string> texts;
    if (values.is_array()) {
      for (const auto& value : values) texts.push_back(as_text(value));
    }
    axes.emplace_back(key, texts);
  };
  if (vary.is_array()) {
    for (const auto& axis : vary) {
      if (axis.is_object() && axis.contains("key") && axis["key"].is_string())
        add(axis["key"].get<std::string>(), axis.value("values", nlohmann::json::array()));
    }
  } else if (vary.is_object()) {
    for (const auto& [key, values] : vary.items()) add(key, values);
  }
  return axes;
}

SweepRow read_row(const nlohmann::json& run, std::size_t index, const SweepDocument& document) {
  SweepRow row;
  collect_leaves(run, row.fields);
  if (run.contains("values") && run["values"].is_array()) {
    for (const auto& value : run["values"]) {
      if (value.is_object() && value.contains("key"))
        row.values.emplace_back(as_text(value["key"]), as_text(value.value("value", nlohmann::json())));
    }
  } else {
    for (const auto& key : document.varied_keys()) {
      if (run.contains(key)) row.values.emplace_back(key, as_text(run[key]));
    }
  }
  // A point that did not run says why in "error", or (a skipped point of a study) in "status" and "reason".
  if (row.has("error")) {
    row.error = row.text("error");
  } else if (row.has("status") && row.text("status") != "ok") {
    row.error = row.text("status") + (row.has("reason") ? ": " + row.text("reason") : "");
  }
  const double point = row.number({"point", "index"});
  row.label = "#" + (std::isfinite(point) ? fmt::format("{}", point) : std::to_string(index));
  for (const auto& [key, value] : row.values) row.label += " " + value;
  return row;
}

std::string modification_time(const std::string& path) {
  struct stat info {};
  if (::stat(path.c_str(), &info) != 0) return "";
  std::tm utc{};
  gmtime_r(&info.st_mtime, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%d %H:%M UTC", &utc);
  return text;
}

}  // namespace

bool SweepRow::has(const std::string& name) const {
  const auto it = fields.find(name);
  return it != fields.end() && !it->second.is_null();
}

double SweepRow::number(std::initializer_list<const char*> names) const {
  for (const char* name : names) {
    const auto it = fields.find(name);
    if (it != fields.end() && it->second.is_number()) return it->second.get<double>();
  }
  return NAN;
}

std::string SweepRow::text(const std::string& name) const {
  const auto it = fields.find(name);
  return it == fields.end() ? "" : as_text(it->second);
}

bool SweepRow::fits() const {
  const auto it = fields.find("fits");
  return it == fields.end() || !it->second.is_boolean() || it->second.get<bool>();
}

std::string SweepRow::value_of(const std::string& key) const {
  for (const auto& [k, value] : values) {
    if (k == key) return value;
  }
  return "";
}

std::vector<std::string> SweepDocument::varied_keys() const {
  std::vector<std::string> keys;
  for (const auto& axis : vary) keys.push_back(axis.first);
  return keys;
}

SweepDocument sweep_document_from_json(const nlohmann::json& json, const std::string& folder) {
  const std::string path = folder + "/sweep.json";
  if (!json.is_object()) throw InputError(fmt::format("{}: not a sweep's JSON (not an object)", path));
  const nlohmann::json rows = [&] {
    for (const char* name : kRowArrays) {
      if (json.contains(name) && json[name].is_array()) return json[name];
    }
    throw InputError(fmt::format("{}: not a sweep's JSON (no \"runs\" array of points)", path));
  }();
  const nlohmann::json sweep = json.value("sweep", nlohmann::json::object());
  const nlohmann::json context = json.value("context", nlohmann::json::object());
  SweepDocument document;
  document.folder = folder;
  if (sweep.is_object()) {
    document.name = as_text(sweep.value("name", nlohmann::json()));
    document.description = as_text(sweep.value("description", nlohmann::json()));
    document.base = as_text(sweep.value("base", nlohmann::json()));
    document.kind = as_text(sweep.value("kind", json.value("kind", nlohmann::json())));
    document.vary = read_vary(sweep.value("vary", nlohmann::json()));
  }
  if (document.name.empty()) document.name = fs::path(folder).lexically_normal().filename().string();
  if (context.is_object()) {
    document.tpusim_version = as_text(context.value("tpusim_version", nlohmann::json()));
    for (const char* date : {"date", "time", "written"}) {
      if (document.written.empty()) document.written = as_text(context.value(date, nlohmann::json()));
    }
  }
  if (document.written.empty()) document.written = modification_time(path);
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i].is_object()) document.rows.push_back(read_row(rows[i], i, document));
  }
  if (document.kind.empty()) {
    // Collective studies name their rows by busbw; training rows by step time.
    bool collective_rows = false;
    for (const auto& row : document.rows) collective_rows |= row.has("busbw_Bps") && !row.has("step_time_s");
    document.kind = collective_rows ? "collectives" : "training";
  }
  return document;
}

SweepDocument read_sweep_document(const std::string& folder) {
  std::error_code error;
  if (!fs::is_directory(folder, error))
    throw InputError(
        fmt::format("'{}' is not a folder: give the output folder of a sweep (it holds sweep.json)", folder));
  const std::string path = folder + "/sweep.json";
  if (!fs::exists(path, error))
    throw InputError(fmt::format("'{}' holds no sweep.json: give the output folder of a sweep", folder));
  const std::string text = read_input_file(path, "sweep JSON file");
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& parse_error) {
    throw InputError(fmt::format("{}: not valid JSON: {}", path, parse_error.what()));
  }
  return sweep_document_from_json(json, folder);
}

}  // namespace tpusim::workloads
