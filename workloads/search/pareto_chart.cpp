#include "workloads/search/pareto_chart.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "workloads/report/label_placement.hpp"
#include "workloads/report/plot_words.hpp"
#include "workloads/report/sweep_charts.hpp"

namespace tpusim::workloads {
namespace {

// More than this ratio between an axis' largest and smallest values makes it logarithmic.
constexpr double kLogAxisRatio = 10;

struct MemoryUnit {
  const char* name;
  double bytes;
};

MemoryUnit memory_unit_for(double largest_bytes) {
  return largest_bytes >= double(1ULL << 30) ? MemoryUnit{"GiB", double(1ULL << 30)}
                                             : MemoryUnit{"MiB", double(1ULL << 20)};
}

std::string mesh_in_words(const CandidateOutcome& o) {
  return value_in_words("mesh.shape", o.candidate.mesh_shape);
}

bool same_point(const CandidateOutcome& a, const CandidateOutcome& b) {
  return a.memory_per_core_bytes == b.memory_per_core_bytes && a.step_time_s == b.step_time_s;
}

Chart::Scale scale_for(double low, double high) {
  return low > 0 && high / low > kLogAxisRatio ? Chart::Scale::log10 : Chart::Scale::linear;
}

// The labels of the front and of the config's own layout, each on a side of its point that keeps it off
// the others and off the points.
void place_point_labels(Chart& chart, std::pair<double, double> x_values,
                        std::pair<double, double> y_values) {
  const bool log_x = chart.x_scale == Chart::Scale::log10, log_y = chart.y_scale == Chart::Scale::log10;
  // Named pairs rather than structured bindings, which C++17 lambdas may not capture (clang refuses).
  const auto x_range = autoscaled_range(x_values.first, x_values.second, log_x);
  // A linear y starts at zero, with headroom above the highest point (chart.cpp's offsets).
  const auto y_range = log_y ? autoscaled_range(y_values.first, y_values.second, true)
                             : autoscaled_range(0, y_values.second * 1.08, false);
  const auto fraction = [&](const std::pair<double, double>& p) {
    return std::pair<double, double>{axis_fraction(p.first, x_range.first, x_range.second, log_x),
                                     axis_fraction(p.second, y_range.first, y_range.second, log_y)};
  };
  std::vector<std::pair<double, double>> points;
  std::vector<PlacedLabel> labels;
  for (const auto& series : chart.series) {
    for (std::size_t p = 0; p < series.points.size(); ++p) {
      points.push_back(fraction(series.points[p]));
      if (p < series.point_labels.size() && !series.point_labels[p].empty())
        labels.push_back({points.back(), series.point_labels[p]});
    }
  }
  const std::vector<LabelSide> sides = place_labels(labels, points);
  std::size_t next = 0;
  for (auto& series : chart.series) {
    for (const auto& label : series.point_labels) {
      series.label_sides.push_back(label.empty() ? LabelSide::upper_right : sides[next++]);
    }
  }
}

}  // namespace

Chart pareto_chart(const SearchResult& result) {
  std::vector<const CandidateOutcome*> fitting;
  for (const auto& o : result.outcomes) {
    if (o.status == CandidateOutcome::Status::fits) fitting.push_back(&o);
  }
  const bool own = result.base && result.base->status == CandidateOutcome::Status::fits;
  if (own) fitting.push_back(&*result.base);
  double least_bytes = INFINITY, most_bytes = 0, least_s = INFINITY, most_s = 0;
  for (const CandidateOutcome* o : fitting) {
    least_bytes = std::min(least_bytes, double(o->memory_per_core_bytes));
    most_bytes = std::max(most_bytes, double(o->memory_per_core_bytes));
    least_s = std::min(least_s, o->step_time_s), most_s = std::max(most_s, o->step_time_s);
  }
  const MemoryUnit memory = memory_unit_for(most_bytes);
  const TimeUnit time = time_unit_for(most_s);
  Chart chart;
  chart.name = "pareto";
  chart.title = "Search: step time against memory per core";
  chart.x_scale = scale_for(least_bytes, most_bytes);
  chart.y_scale = scale_for(least_s, most_s);
  const char* log = " log scale";
  chart.x_label = fmt::format("memory per core ({}{})", memory.name,
                              chart.x_scale == Chart::Scale::log10 ? "," + std::string(log) : "");
  chart.y_label = fmt::format("step time ({}, simulated{})", time.name,
                              chart.y_scale == Chart::Scale::log10 ? "," + std::string(log) : "");
  const auto point = [&](const CandidateOutcome& o) {
    return std::pair<double, double>{double(o.memory_per_core_bytes) / memory.bytes,
                                     o.step_time_s * time.per_second};
  };
  ChartSeries all{"candidates that fit", {}, ChartSeries::Draw::points};
  for (const auto& o : result.outcomes) {
    if (o.status == CandidateOutcome::Status::fits) all.points.push_back(point(o));
  }
  ChartSeries front{"Pareto front (labelled with its mesh)", {}, ChartSeries::Draw::lines};
  for (const std::size_t i : result.pareto) {
    const auto& o = result.outcomes[i];
    front.points.push_back(point(o));
    // The config's own label stands for a front point it is on.
    front.point_labels.push_back(own && same_point(o, *result.base) ? "" : mesh_in_words(o));
  }
  chart.series = {all, front};
  if (own) {
    ChartSeries base{"the config's own layout", {point(*result.base)}, ChartSeries::Draw::highlight};
    base.point_labels = {"config's own: " + mesh_in_words(*result.base)};
    chart.series.push_back(base);
  }
  place_point_labels(chart, {least_bytes / memory.bytes, most_bytes / memory.bytes},
                     {least_s * time.per_second, most_s * time.per_second});
  return chart;
}

}  // namespace tpusim::workloads
