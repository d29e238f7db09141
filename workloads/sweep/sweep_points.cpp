#include "workloads/sweep/sweep_points.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"
#include "workloads/sweep/sweep_spec.hpp"

namespace tpusim::workloads {

std::string study_order(int product_points, const std::vector<std::vector<std::string>>& zip_groups,
                        int listed_points, int excluded_points) {
  std::string text = product_points > 0 ? "cartesian product, the first key varying slowest" : "";
  for (const auto& group : zip_groups) text += fmt::format("; zipped, advancing together: {}", join(group));
  if (listed_points > 0)
    text += fmt::format("{}{} listed points", text.empty() ? "" : "; then ", listed_points);
  if (excluded_points > 0) text += fmt::format("; {} points excluded", excluded_points);
  return text;
}

PointLister::PointLister(const SweepSections& sections, std::vector<std::string> fillers, std::string file,
                         PointExpansion expand)
    : s_(sections), fillers_(std::move(fillers)), file_(std::move(file)), expand_(std::move(expand)) {}

std::vector<ListedPoint> PointLister::list(int& product_points) {
  std::size_t count = s_.vary.empty() ? 0 : 1;
  for (const auto& factor : s_.factors) {
    count *= s_.vary[factor.front()].values.size();
    if (count > static_cast<std::size_t>(kMaxSweepPoints)) {
      s_.vary_node->fail(
          fmt::format("the product of the value lists has more than {} points", kMaxSweepPoints));
    }
  }
  product_points = static_cast<int>(count);
  if (count + s_.listed.size() > static_cast<std::size_t>(kMaxSweepPoints))
    s_.points_node->fail(fmt::format("the sweep has more than {} points", kMaxSweepPoints));
  std::vector<ListedPoint> points;
  std::vector<std::size_t> choice(s_.factors.size(), 0);
  std::vector<std::size_t> factor_of(s_.vary.size());
  for (std::size_t f = 0; f < s_.factors.size(); ++f) {
    for (const std::size_t v : s_.factors[f]) factor_of[v] = f;
  }
  for (std::size_t index = 0; index < count; ++index) {
    ListedPoint point;
    for (std::size_t v = 0; v < s_.vary.size(); ++v)
      point.own.push_back(&s_.vary[v].values[choice[factor_of[v]]]);
    for (const std::size_t c : choice) point.rank.emplace_back(c, 0);
    add(std::move(point), points, factor_of);
    // Odometer: the last factor turns fastest.
    for (std::size_t f = s_.factors.size(); f-- > 0;) {
      if (++choice[f] < s_.vary[s_.factors[f].front()].values.size()) break;
      choice[f] = 0;
    }
  }
  std::stable_sort(points.begin(), points.end(),
                   [](const ListedPoint& a, const ListedPoint& b) { return a.rank < b.rank; });
  for (std::size_t p = 0; p < points.size(); ++p) seen_[points[p].cells] = p;
  for (std::size_t p = 0; p < s_.listed.size(); ++p) {
    ListedPoint point;
    for (const auto& value : s_.listed[p]) point.own.push_back(&value);
    point.label = fmt::format("points[{}]", p);
    point.line = s_.listed_lines[p];
    add(std::move(point), points, {});
  }
  if (points.size() > static_cast<std::size_t>(kMaxSweepPoints))
    throw InputError(fmt::format("{}: the sweep has more than {} points", file_, kMaxSweepPoints));
  return points;
}

std::vector<ListedPoint> PointLister::filter(std::vector<ListedPoint> points) const {
  if (s_.exclude.empty()) return points;
  std::vector<int> matches(s_.exclude.size(), 0);
  std::vector<ListedPoint> kept;
  for (auto& point : points) {
    bool excluded = false;
    for (std::size_t f = 0; f < s_.exclude.size(); ++f) {
      bool all = true;
      for (const auto& [key, text] : s_.exclude[f].values) all = all && point.cells[axis_of(key)] == text;
      if (all) matches[f] += 1;
      excluded = excluded || all;
    }
    if (!excluded) kept.push_back(std::move(point));
  }
  for (std::size_t f = 0; f < s_.exclude.size(); ++f) {
    if (matches[f] > 0) continue;
    std::vector<std::string> values;
    for (const auto& [key, text] : s_.exclude[f].values) values.push_back(key + "=" + text);
    throw InputError(fmt::format("{}:{}: {}: matches no point ({}); values are compared as written", file_,
                                 s_.exclude[f].line, s_.exclude[f].label, join(values)));
  }
  if (kept.empty()) {
    s_.exclude_node->fail(
        fmt::format("excludes every point ({} of {}): nothing would run", points.size(), points.size()));
  }
  return kept;
}

std::vector<SweepAxis> PointLister::axes(const std::vector<ListedPoint>& points) const {
  std::vector<SweepAxis> axes;
  for (std::size_t a = 0; a < s_.varied_keys.size(); ++a) {
    SweepAxis axis{s_.varied_keys[a], {}};
    if (a < s_.vary.size()) {
      for (const auto& value : s_.vary[a].values) axis.values.push_back(value.text);
    }
    for (const auto& point : points) {
      const std::string& cell = point.cells[a];
      if (std::find(axis.values.begin(), axis.values.end(), cell) == axis.values.end())
        axis.values.push_back(cell);
    }
    axes.push_back(std::move(axis));
  }
  return axes;
}

std::size_t PointLister::axis_of(const std::string& key) const {
  for (std::size_t a = 0; a < s_.varied_keys.size(); ++a) {
    if (s_.varied_keys[a] == key) return a;
  }
  return s_.varied_keys.size();  // every key a point or filter names is a varied key
}

std::string PointLister::describe(const std::vector<std::string>& cells) const {
  std::vector<std::string> parts;
  for (std::size_t a = 0; a < cells.size(); ++a) {
    if (!cells[a].empty()) parts.push_back(s_.varied_keys[a] + "=" + cells[a]);
  }
  return join(parts);
}

void PointLister::add(ListedPoint point, std::vector<ListedPoint>& points,
                      const std::vector<std::size_t>& factor_of) {
  point.cells = fillers_;
  for (const SweepValue* value : point.own) point.cells[axis_of(value->key)] = value->text;
  if (!expand_) return add_one(std::move(point), points);
  const std::vector<std::string> written = point.cells;
  std::vector<ListedPoint> expanded = expand_(std::move(point));
  for (ListedPoint& each : expanded) {
    for (std::size_t v = 0; v < factor_of.size(); ++v) {
      if (each.cells[v] != written[v]) each.rank[factor_of[v]].second = each.expansion_rank;
    }
    add_one(std::move(each), points);
  }
}

void PointLister::add_one(ListedPoint point, std::vector<ListedPoint>& points) {
  const auto [earlier, inserted] = seen_.emplace(point.cells, points.size());
  if (!inserted) {
    // Points of the product differ (vary's values and zip's positions do); a listed one may repeat any, and
    // an expanded one may repeat a point written out.
    const ListedPoint& first = points[earlier->second];
    const int line = point.line > 0 || point.own.empty() ? point.line : point.own.front()->line();
    throw InputError(fmt::format("{}:{}: {}: the same point as {} ({})", file_, line,
                                 point.label.empty() ? "a point of vary" : point.label,
                                 first.label.empty() ? "one of vary's" : first.label, describe(point.cells)));
  }
  points.push_back(std::move(point));
}

}  // namespace tpusim::workloads
