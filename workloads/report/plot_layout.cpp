#include "workloads/report/plot_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

namespace tpusim::workloads {
namespace {

double cores_of(const SweepRow& row) { return row.number({"cores"}); }

bool sets_cores(const std::string& key, const std::vector<const SweepRow*>& rows) {
  std::vector<std::pair<std::string, double>> value_and_cores;
  for (const SweepRow* row : rows) value_and_cores.emplace_back(row->value_of(key), cores_of(*row));
  return sets_core_count(value_and_cores);
}

// The index of `text` in `seen`, appending it when new: series and labels keep the order of first use.
std::size_t index_of(std::vector<std::string>& seen, const std::string& text) {
  const auto it = std::find(seen.begin(), seen.end(), text);
  if (it != seen.end()) return std::size_t(it - seen.begin());
  seen.push_back(text);
  return seen.size() - 1;
}

std::string strategy_of(const SweepRow& row, const std::vector<std::string>& keys) {
  std::vector<std::string> values;
  for (const auto& key : keys) values.push_back(row.value_of(key));
  return fmt::format("{}", fmt::join(values, ", "));
}

}  // namespace

bool sets_core_count(const std::vector<std::pair<std::string, double>>& value_and_cores) {
  std::map<std::string, double> cores;
  for (const auto& [value, count] : value_and_cores) {
    const auto [it, inserted] = cores.emplace(value, count);
    if (!inserted && it->second != count) return false;
  }
  return true;
}

PlotLayout plot_layout(const SweepDocument& document, const std::vector<const SweepRow*>& rows) {
  PlotLayout layout;
  std::vector<double> cores;
  for (const SweepRow* row : rows) cores.push_back(cores_of(*row));
  std::sort(cores.begin(), cores.end());
  cores.erase(std::unique(cores.begin(), cores.end()), cores.end());
  layout.by_cores = cores.size() > 1;

  std::vector<std::string> strategy_keys;
  std::string x_key;
  const auto keys = document.varied_keys();
  if (layout.by_cores) {
    for (const auto& key : keys) {
      if (!sets_cores(key, rows)) strategy_keys.push_back(key);
    }
    layout.x_label = "cores";
    for (const double c : cores) layout.x_tics.emplace_back(c, fmt::format("{}", c));
  } else if (!keys.empty()) {
    x_key = keys.front();
    strategy_keys.assign(keys.begin() + 1, keys.end());
    layout.x_label = x_key;
  } else {
    layout.x_label = "mesh shape";
  }
  layout.legend_title = fmt::format("{}", fmt::join(strategy_keys, ", "));

  std::vector<std::string> labels;
  for (const SweepRow* row : rows) {
    const std::string strategy = strategy_keys.empty() ? "all points" : strategy_of(*row, strategy_keys);
    layout.series_of.push_back(index_of(layout.series_titles, strategy));
    if (layout.by_cores) {
      layout.x_of.push_back(cores_of(*row));
    } else {
      std::string label = x_key.empty() ? row->text("mesh_shape") : row->value_of(x_key);
      if (label.empty()) label = row->label;
      layout.x_of.push_back(double(index_of(labels, label)));
    }
  }
  if (!layout.by_cores) {
    for (std::size_t i = 0; i < labels.size(); ++i) layout.x_tics.emplace_back(double(i), labels[i]);
  }
  return layout;
}

}  // namespace tpusim::workloads
