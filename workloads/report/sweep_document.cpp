#include "workloads/report/sweep_document.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <algorithm>
#include <cmath>
#include <ctime>
#include <filesystem>
#include <set>

#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "topologies/support/text_file.hpp"
#include "workloads/report/checked_json.hpp"
#include "workloads/report/report_context.hpp"
#include "workloads/report/sweep_row_layout.hpp"

namespace tpusim::workloads {
namespace fs = std::filesystem;
namespace {

std::string as_text(const nlohmann::json& value) {
  if (value.is_string()) return value.get<std::string>();
  if (value.is_null()) return "";
  return value.dump();
}

const SweepLayout& layout_of(const CheckedJson& context) {
  const CheckedJson format = context.at("format");
  const std::string name = format.text();
  std::vector<std::string> known;
  for (const auto& layout : sweep_layouts()) {
    if (layout.format == name) return layout;
    known.push_back("'" + layout.format + "'");
  }
  if (name == format::kFidelity)
    format.fail(
        "this is tpusim fidelity's sweep.json, which tpusim plot does not draw; give the output "
        "folder of a tpusim sweep");
  format.fail(
      fmt::format("'{}' is not the format of a sweep's sweep.json: expected {}", name, join(known, " or ")));
}

// sweep.vary: [{key, values: [...]}], the keys distinct.
std::vector<std::pair<std::string, std::vector<std::string>>> read_vary(const CheckedJson& vary) {
  std::vector<std::pair<std::string, std::vector<std::string>>> axes;
  std::set<std::string> keys;
  for (std::size_t a = 0; a < vary.size(); ++a) {
    const CheckedJson axis = vary.at(a);
    const CheckedJson key = axis.at("key");
    const std::string name = key.text();
    if (name.empty()) key.fail("a varied key cannot be empty");
    if (!keys.insert(name).second) key.fail(fmt::format("'{}' is varied twice", name));
    const CheckedJson values = axis.at("values");
    std::vector<std::string> texts;
    for (std::size_t v = 0; v < values.size(); ++v) texts.push_back(values.at(v).text());
    axes.emplace_back(name, std::move(texts));
  }
  return axes;
}

// A run's values: one per varied key, in sweep.vary's order, each among that key's values.
std::vector<std::pair<std::string, std::string>> read_values(const CheckedJson& run,
                                                             const SweepDocument& document) {
  const CheckedJson values = run.at("values");
  if (values.size() != document.vary.size())
    values.fail(
        fmt::format("has {} values, but sweep.vary has {} keys", values.size(), document.vary.size()));
  std::vector<std::pair<std::string, std::string>> pairs;
  for (std::size_t a = 0; a < values.size(); ++a) {
    const auto& [axis, axis_values] = document.vary[a];
    const CheckedJson entry = values.at(a);
    const CheckedJson key = entry.at("key");
    if (key.text() != axis)
      key.fail(fmt::format("'{}' is not sweep.vary[{}]'s key '{}'", key.text(), a, axis));
    const CheckedJson value = entry.at("value");
    const std::string text = value.text();
    if (std::find(axis_values.begin(), axis_values.end(), text) == axis_values.end())
      value.fail(fmt::format("'{}' is not among the values sweep.vary gives {}", text, axis));
    pairs.emplace_back(axis, text);
  }
  return pairs;
}

SweepRow read_row(const CheckedJson& run, const SweepLayout& layout, const SweepDocument& document,
                  std::uint64_t point) {
  SweepRow row;
  row.values = read_values(run, document);
  const bool ran = layout.ran(run);
  for (const auto& field : layout.fields) {
    if (auto value = read_row_field(run, field, ran)) row.fields[field.name] = std::move(*value);
  }
  // A point that did not run says why in "error", or (a skipped point of a study) in "status" and "reason".
  if (row.has("error")) {
    row.error = row.text("error");
  } else if (!ran) {
    row.error = row.text("status") + (row.has("reason") ? ": " + row.text("reason") : "");
  }
  // Even a point that did not run for no stated reason is not shown as one that ran.
  if (!ran && row.error.empty()) row.error = "did not run";
  row.label = fmt::format("#{}", point);
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
  const CheckedJson root(json, path);
  const CheckedJson context = root.at("context");
  const SweepLayout& layout = layout_of(context);
  const CheckedJson sweep = root.at("sweep");
  SweepDocument document;
  document.folder = folder;
  document.tpusim_version = context.at("tpusim_version").text();
  document.name = sweep.at("name").text();
  document.description = sweep.at("description").text();
  const CheckedJson kind = sweep.at("kind");
  document.kind = kind.text();
  if (document.kind != layout.kind)
    kind.fail(fmt::format("'{}' is not the kind of a {} document: expected '{}'", document.kind,
                          layout.format, layout.kind));
  if (layout.has_base) document.base = sweep.at("base").text();
  document.vary = read_vary(sweep.at("vary"));
  const CheckedJson points = sweep.at("points");
  const std::uint64_t point_count = points.whole();
  const CheckedJson runs = root.at("runs");
  // A shard's folder holds some of the points; never more than the sweep has, each once, in order.
  if (runs.size() > point_count)
    runs.fail(fmt::format("has {} runs, but sweep.points says the sweep has {}", runs.size(), point_count));
  std::optional<std::uint64_t> previous;
  for (std::size_t i = 0; i < runs.size(); ++i) {
    const CheckedJson run = runs.at(i);
    const CheckedJson point = run.at("point");
    const std::uint64_t index = point.whole();
    if (index >= point_count)
      point.fail(fmt::format("point {} is beyond the sweep's {} points (sweep.points)", index, point_count));
    if (previous && index <= *previous)
      point.fail(
          fmt::format("point {} comes after point {}: runs are in point order, each once", index, *previous));
    previous = index;
    document.rows.push_back(read_row(run, layout, document, index));
  }
  if (document.name.empty()) document.name = fs::path(folder).lexically_normal().filename().string();
  document.written = modification_time(path);
  return document;
}

SweepDocument sweep_document_from_text(const std::string& text, const std::string& folder) {
  const std::string path = folder + "/sweep.json";
  nlohmann::json json;
  try {
    json = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& parse_error) {
    // The byte it stopped at as line:column, as every other message of tpusim's names a place in a file.
    const std::size_t at =
        std::min<std::size_t>(parse_error.byte > 0 ? parse_error.byte - 1 : 0, text.size());
    const std::size_t line = 1 + std::count(text.begin(), text.begin() + at, '\n');
    const std::size_t line_start = text.rfind('\n', at == 0 ? 0 : at - 1);
    const std::size_t column = line_start == std::string::npos || at == 0 ? at + 1 : at - line_start;
    throw InputError(
        fmt::format("{}:{}:{}: not valid JSON: {}", path, line, column, json_exception_reason(parse_error)));
  } catch (const nlohmann::json::exception& other) {
    throw InputError(fmt::format("{}: not valid JSON: {}", path, json_exception_reason(other)));
  }
  return sweep_document_from_json(json, folder);
}

SweepDocument read_sweep_document(const std::string& folder) {
  std::error_code error;
  if (!fs::is_directory(folder, error))
    throw InputError(
        fmt::format("'{}' is not a folder: give the output folder of a sweep (it holds sweep.json)", folder));
  const std::string path = folder + "/sweep.json";
  if (!fs::exists(path, error))
    throw InputError(fmt::format("'{}' holds no sweep.json: give the output folder of a sweep", folder));
  return sweep_document_from_text(read_input_file(path, "sweep JSON file"), folder);
}

}  // namespace tpusim::workloads
