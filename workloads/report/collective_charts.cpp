// The plots of a collective study (sweep_charts.hpp): bus bandwidth and the ratio to the lower bound against
// the message size, one chart of each per op, one series per algorithm and whatever else varies.
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <map>
#include <set>

#include "topologies/support/units.hpp"
#include "workloads/report/plot_words.hpp"
#include "workloads/report/series_styles.hpp"
#include "workloads/report/sweep_charts.hpp"

namespace tpusim::workloads {
namespace {

// Field names, each list in the order looked for: the study's columns as named in its rows.
const std::vector<std::string> kOpFields = {"op", "collective"};
const std::vector<std::string> kAlgorithmFields = {"algorithm", "algorithms", "algo"};
const std::vector<std::string> kSeriesFields = {"topology", "group_axes", "groups", "network"};
constexpr std::initializer_list<const char*> kBytesFields = {"bytes", "bytes_per_member", "message_bytes",
                                                             "size_bytes"};
// The colours a grid of series takes (the first of series_styles.hpp's, all solid).
constexpr std::size_t kGridColours = 8;
// At most this many labelled sizes on the x axis; more are thinned to every second, fourth, ...
constexpr std::size_t kMaxTics = 12;

std::string first_text(const SweepRow& row, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    if (row.has(name)) return row.text(name);
  }
  return "";
}

// What tells a row's series apart: (name, value) pairs, the algorithm first.
std::vector<std::pair<std::string, std::string>> series_parts(const SweepRow& row) {
  std::vector<std::pair<std::string, std::string>> parts = {{"algorithm", first_text(row, kAlgorithmFields)}};
  for (const auto& name : kSeriesFields) {
    if (row.has(name)) parts.emplace_back(name, row.text(name));
  }
  // Varied keys beyond those columns (a link bandwidth, say), but not the size on the x axis or the op.
  for (const auto& [key, value] : row.values) {
    const bool shown = std::any_of(parts.begin(), parts.end(),
                                   [&value = value](const auto& p) { return p.second == value; });
    const bool size = key.find("bytes") != std::string::npos || key.find("size") != std::string::npos;
    if (!shown && !size && value != first_text(row, kOpFields)) parts.emplace_back(key, value);
  }
  return parts;
}

std::string file_stem(const std::string& text) {
  std::string stem;
  for (const char c : text) stem += std::isalnum(static_cast<unsigned char>(c)) || c == '-' ? c : '_';
  return stem;
}

// Whether y spans so many decades that a linear axis would flatten the small values (the bandwidth of small
// messages, latency-bound) onto zero.
bool wide_range(const Chart& chart) {
  double low = INFINITY, high = 0;
  for (const auto& series : chart.series) {
    for (const auto& point : series.points)
      low = std::min(low, point.second), high = std::max(high, point.second);
  }
  return low > 0 && high / low > 20;
}

struct OpRows {
  std::string op;
  std::vector<const SweepRow*> rows;
};

// A series part's value in words: a topology as "4x4 torus", an algorithm as "bidir ring".
std::string part_in_words(const std::string& name, const std::string& value) {
  return value_in_words(name == "topology" ? "hardware.topology" : name, value);
}

// Whether, among the rows, the value of part `name` follows from the values of the parts in `others`: then
// it tells no series apart (the group axes an algorithm takes by default on a topology).
bool follows_from(const std::string& name, const std::vector<std::string>& others, const OpRows& group) {
  std::map<std::vector<std::string>, std::string> seen;
  for (const SweepRow* row : group.rows) {
    const auto parts = series_parts(*row);
    std::vector<std::string> key;
    std::string value;
    for (const auto& [n, v] : parts) {
      if (n == name) value = v;
      if (std::find(others.begin(), others.end(), n) != others.end()) key.push_back(n + "=" + v);
    }
    const auto [it, inserted] = seen.emplace(key, value);
    if (!inserted && it->second != value) return false;
  }
  return true;
}

// The parts that tell this op's series apart, the algorithm first: those that differ between rows, less
// those that follow from the others.
std::vector<std::string> distinguishing_parts(const OpRows& group) {
  std::vector<std::string> names;
  std::map<std::string, std::set<std::string>> seen;
  for (const SweepRow* row : group.rows) {
    for (const auto& [name, value] : series_parts(*row)) {
      if (seen[name].insert(value).second && seen[name].size() == 2) names.push_back(name);
    }
  }
  std::stable_sort(names.begin(), names.end(), [](const std::string& a, const std::string& b) {
    return (a == "algorithm") > (b == "algorithm");
  });
  for (std::size_t i = names.size(); i-- > 0;) {
    if (names[i] == "algorithm") continue;
    std::vector<std::string> others = names;
    others.erase(others.begin() + std::ptrdiff_t(i));
    if (follows_from(names[i], others, group)) names.erase(names.begin() + std::ptrdiff_t(i));
  }
  if (names.empty() || names.front() != "algorithm") names.insert(names.begin(), "algorithm");
  return names;
}

Chart size_chart(const OpRows& group, const std::string& field, Chart chart, double scale) {
  const std::vector<std::string> names = distinguishing_parts(group);
  std::vector<std::string> name_words;
  for (const auto& name : names) name_words.push_back(key_in_words(name));
  chart.legend_title = fmt::format("{}", fmt::join(name_words, ", "));
  // Each series is an algorithm (its colour) on one of the rest (its dash type).
  std::vector<std::string> titles, algorithms, rests;
  std::set<double> sizes;
  for (const SweepRow* row : group.rows) {
    const double bytes = row->number(kBytesFields), y = row->number({field.c_str()});
    if (!(bytes > 0) || !std::isfinite(y)) continue;
    const auto parts = series_parts(*row);
    std::string algorithm;
    std::vector<std::string> rest;
    for (const auto& name : names) {
      for (const auto& part : parts) {
        if (part.first != name) continue;
        if (name == "algorithm") {
          algorithm = part_in_words(name, part.second);
        } else {
          rest.push_back(part_in_words(name, part.second));
        }
      }
    }
    const std::string rest_words = fmt::format("{}", fmt::join(rest, ", "));
    const std::string title = rest.empty() ? algorithm : algorithm + ", " + rest_words;
    auto it = std::find(titles.begin(), titles.end(), title);
    if (it == titles.end()) {
      titles.push_back(title);
      ChartSeries series{title, {}};
      series.colour = int(std::find(algorithms.begin(), algorithms.end(), algorithm) - algorithms.begin());
      if (series.colour == int(algorithms.size())) algorithms.push_back(algorithm);
      series.dash = int(std::find(rests.begin(), rests.end(), rest_words) - rests.begin());
      if (series.dash == int(rests.size())) rests.push_back(rest_words);
      chart.series.push_back(series);
      it = titles.end() - 1;
    }
    chart.series[std::size_t(it - titles.begin())].points.emplace_back(bytes, y * scale);
    sizes.insert(bytes);
  }
  // A grid the colours and dash types can show has a legend of each; a larger one, an entry per series.
  if (rests.size() > 1 && algorithms.size() <= kGridColours && rests.size() <= grid_dash_types().size()) {
    chart.colours = {"algorithm", algorithms};
    name_words.erase(name_words.begin());
    chart.dashes = {fmt::format("{}", fmt::join(name_words, ", ")), rests};
  }
  for (auto& series : chart.series) std::stable_sort(series.points.begin(), series.points.end());
  const std::size_t step = std::max<std::size_t>(1, (sizes.size() + kMaxTics - 1) / kMaxTics);
  std::size_t i = 0;
  for (const double bytes : sizes) {
    if (i++ % step == 0) chart.x_tics.emplace_back(bytes, format_bytes(bytes));
  }
  chart.x_label = "message size per member (log2 scale)";
  chart.x_scale = Chart::Scale::log2;
  return chart;
}

}  // namespace

SweepCharts collective_charts(const SweepDocument& document) {
  SweepCharts out;
  std::vector<OpRows> groups;
  std::size_t measured = 0;
  for (const auto& row : document.rows) {
    if (!row.error.empty() || !std::isfinite(row.number(kBytesFields))) continue;
    ++measured;
    const std::string op = first_text(row, kOpFields);
    auto it = std::find_if(groups.begin(), groups.end(), [&](const OpRows& g) { return g.op == op; });
    if (it == groups.end()) it = groups.insert(groups.end(), OpRows{op, {}});
    it->rows.push_back(&row);
  }
  if (measured < document.rows.size())
    out.notes.push_back(
        fmt::format("{} of {} rows did not run or name no message size (a bytes column) and "
                    "are in no plot.",
                    document.rows.size() - measured, document.rows.size()));
  for (const auto& group : groups) {
    const std::string suffix = group.op.empty() ? "" : "_" + file_stem(group.op);
    const std::string what = group.op.empty() ? "the collectives" : group.op;
    Chart busbw;
    busbw.name = "busbw" + suffix;
    busbw.title = fmt::format("Bus bandwidth of {} against message size: {}", what, document.name);
    busbw.y_label = "bus bandwidth (GB/s)";
    busbw = size_chart(group, "busbw_Bps", busbw, 1e-9);
    Chart ratio;
    ratio.name = "ratio" + suffix;
    ratio.title = fmt::format("Simulated time over the lower bound, {}: {}", what, document.name);
    ratio.y_label = "simulated time / lower bound (1 = the bound)";
    ratio = size_chart(group, "ratio_to_lower_bound", ratio, 1);
    for (Chart* chart : {&busbw, &ratio}) {
      if (wide_range(*chart)) chart->y_scale = Chart::Scale::log10;
      // Both labels end in their unit's parenthesis: "bus bandwidth (GB/s, log scale)".
      if (chart->y_scale == Chart::Scale::log10)
        chart->y_label.insert(chart->y_label.size() - 1, ", log scale");
    }
    for (Chart* chart : {&busbw, &ratio}) {
      if (!chart->empty()) {
        out.charts.push_back(std::move(*chart));
      } else {
        out.notes.push_back(fmt::format("No {} plot: the rows of {} have no {} column.", chart->name, what,
                                        chart == &busbw ? "busbw_Bps" : "ratio_to_lower_bound"));
      }
    }
  }
  if (groups.empty())
    out.notes.push_back("No collective plots: no row names a message size and a bus bandwidth.");
  return out;
}

}  // namespace tpusim::workloads
