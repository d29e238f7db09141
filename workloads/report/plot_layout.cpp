#include "workloads/report/plot_layout.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "workloads/report/plot_words.hpp"

namespace tpusim::workloads {
namespace {

// A value that names nothing by itself: the mesh shape comes from the mapping, which names it.
constexpr const char* kDeferringValues[] = {"from_mapping"};

double cores_of(const SweepRow& row) { return row.number({"cores"}); }

bool sets_cores(const std::string& key, const std::vector<const SweepRow*>& rows) {
  std::vector<std::pair<std::string, double>> value_and_cores;
  for (const SweepRow* row : rows) value_and_cores.emplace_back(row->value_of(key), cores_of(*row));
  return sets_core_count(value_and_cores);
}

// Whether each value of `from` comes with one value of `to` among the rows.
bool determines(const std::string& from, const std::string& to, const std::vector<const SweepRow*>& rows) {
  std::map<std::string, std::string> seen;
  for (const SweepRow* row : rows) {
    const auto [it, inserted] = seen.emplace(row->value_of(from), row->value_of(to));
    if (!inserted && it->second != row->value_of(to)) return false;
  }
  return true;
}

bool defers(const std::string& value) {
  return std::find(std::begin(kDeferringValues), std::end(kDeferringValues), value) !=
         std::end(kDeferringValues);
}

// The index of `text` in `seen`, appending it when new: series and labels keep the order of first use.
std::size_t index_of(std::vector<std::string>& seen, const std::string& text) {
  const auto it = std::find(seen.begin(), seen.end(), text);
  if (it != seen.end()) return std::size_t(it - seen.begin());
  seen.push_back(text);
  return seen.size() - 1;
}

// The keys that name a row's series, in order: each but those that follow from a key named before it.
std::vector<std::string> naming_keys(const SweepRow& row, const std::vector<std::string>& keys,
                                     const std::vector<const SweepRow*>& rows) {
  std::vector<std::string> named;
  for (const auto& key : keys) {
    if (defers(row.value_of(key))) continue;
    const bool follows = std::any_of(named.begin(), named.end(), [&](const std::string& earlier) {
      return determines(earlier, key, rows);
    });
    if (!follows) named.push_back(key);
  }
  return named;
}

// A series' name: under a legend titled by its one key, its value alone; else each value with its key
// where the value does not say what it is.
std::string strategy_of(const SweepRow& row, const std::vector<std::string>& named, bool with_keys) {
  std::vector<std::string> parts;
  for (const auto& key : named) {
    const std::string value = row.value_of(key);
    parts.push_back(with_keys ? setting_in_words(key, value) : value_in_words(key, value));
  }
  return fmt::format("{}", fmt::join(parts, ", "));
}

// The most common value of each key: what a point of a listed sweep leaves as it is.
std::map<std::string, std::string> usual_values(const std::vector<std::string>& keys,
                                                const std::vector<const SweepRow*>& rows) {
  std::map<std::string, std::string> usual;
  for (const auto& key : keys) {
    std::map<std::string, int> counts;
    for (const SweepRow* row : rows) ++counts[row->value_of(key)];
    usual[key] = std::max_element(counts.begin(), counts.end(), [](const auto& a, const auto& b) {
                   return a.second < b.second;
                 })->first;
  }
  return usual;
}

// What a point sets apart from the others, in words: "fusion none, matrix unit peak rate".
std::string point_in_words(const SweepRow& row, const std::vector<std::string>& keys,
                           const std::map<std::string, std::string>& usual) {
  std::vector<std::string> parts;
  for (const auto& key : keys) {
    const std::string value = row.value_of(key);
    if (!value.empty() && value != usual.at(key)) parts.push_back(setting_in_words(key, value));
  }
  return parts.empty() ? "as the base config" : fmt::format("{}", fmt::join(parts, ", "));
}

std::string with_series(const std::string& where, const PlotLayout& layout, std::size_t series) {
  return layout.series_titles.size() > 1 ? where + ", " + layout.series_settings[series] : where;
}

// One category per point, one series: for points that are no grid of their keys' values.
void one_category_per_point(PlotLayout& layout, const std::vector<std::string>& keys,
                            const std::vector<const SweepRow*>& rows) {
  const auto usual = usual_values(keys, rows);
  layout.ordered = false;
  layout.x_label = "";  // the labels say what each point sets
  layout.legend_title.clear();
  layout.series_titles = layout.series_settings = {"all points"};
  layout.series_of.assign(rows.size(), 0);
  layout.x_of.clear();
  layout.x_tics.clear();
  layout.row_labels.clear();
  for (std::size_t i = 0; i < rows.size(); ++i) {
    layout.x_of.push_back(double(i));
    layout.row_labels.push_back(point_in_words(*rows[i], keys, usual));
    layout.x_tics.emplace_back(double(i), layout.row_labels.back());
  }
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
    layout.x_label = key_in_words(x_key);
  } else {
    layout.x_label = "mesh";
  }

  std::vector<std::string> labels, legend_keys;
  for (const SweepRow* row : rows) {
    const auto named = naming_keys(*row, strategy_keys, rows);
    for (const auto& key : named) {
      if (std::find(legend_keys.begin(), legend_keys.end(), key) == legend_keys.end())
        legend_keys.push_back(key);
    }
    const std::string strategy = named.empty() ? "all points" : strategy_of(*row, named, named.size() > 1);
    layout.series_of.push_back(index_of(layout.series_titles, strategy));
    if (layout.series_settings.size() < layout.series_titles.size())
      layout.series_settings.push_back(named.empty() ? strategy : strategy_of(*row, named, true));
    if (layout.by_cores) {
      layout.x_of.push_back(cores_of(*row));
      layout.row_labels.push_back(fmt::format("{} cores", cores_of(*row)));
    } else {
      const std::string key = x_key.empty() ? "mesh.shape" : x_key;
      const std::string value = x_key.empty() ? row->text("mesh_shape") : row->value_of(x_key);
      layout.x_of.push_back(double(index_of(labels, value_in_words(key, value))));
      layout.row_labels.push_back(setting_in_words(key, value));
    }
  }
  std::vector<std::string> legend_words;
  for (const auto& key : legend_keys) legend_words.push_back(key_in_words(key));
  layout.legend_title = fmt::format("{}", fmt::join(legend_words, ", "));
  for (std::size_t i = 0; i < rows.size(); ++i)
    layout.row_labels[i] = with_series(layout.row_labels[i], layout, layout.series_of[i]);
  if (!layout.by_cores) {
    for (std::size_t i = 0; i < labels.size(); ++i) layout.x_tics.emplace_back(double(i), labels[i]);
    // Most cells of the grid of x and series empty: the keys do not cross, so the points stand alone.
    if (layout.series_titles.size() * labels.size() > 2 * rows.size())
      one_category_per_point(layout, keys, rows);
  }
  return layout;
}

}  // namespace tpusim::workloads
