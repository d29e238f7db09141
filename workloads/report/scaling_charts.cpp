// The scaling figures of a training sweep over core counts (sweep_charts.hpp), from each point's speedup
// and efficiency against the smallest point of its series (sweep/scaling.hpp):
//   speedup     strong-scaling series (the same work spread over more cores): speedup against cores, both
//               axes log2, with the ideal (linear) speedup from each series' smallest core count, which a
//               reader measures the series against
//   efficiency  weak-scaling series (the work grows with the cores), and series that mix both: parallel
//               efficiency against cores, with the ideal 100%; their speedup would only grow with the cores
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>

#include "workloads/report/sweep_charts.hpp"

namespace tpusim::workloads {
namespace {

struct ScalingSeries {
  std::string kind;  // weak, strong or mixed: the sweep's figures
  std::string title;
  std::vector<const SweepRow*> rows;
};

// The layout's series whose points have scaling figures, titled by their kind first: "weak, 16 per batch
// core".
std::vector<ScalingSeries> scaling_series(const PlotLayout& layout,
                                          const std::vector<const SweepRow*>& rows) {
  std::vector<ScalingSeries> series(layout.series_titles.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string kind = rows[i]->text("scaling");
    if (kind.empty() || !std::isfinite(rows[i]->number({"speedup"}))) continue;
    ScalingSeries& s = series[layout.series_of[i]];
    s.kind = kind;
    s.rows.push_back(rows[i]);
  }
  for (std::size_t s = 0; s < series.size(); ++s) {
    const std::string& title = layout.series_settings[s];
    series[s].title =
        layout.series_titles.size() == 1 ? series[s].kind + " scaling" : series[s].kind + ", " + title;
  }
  series.erase(
      std::remove_if(series.begin(), series.end(), [](const ScalingSeries& s) { return s.rows.size() < 2; }),
      series.end());
  return series;
}

Chart scaling_chart(const PlotLayout& layout, const std::string& name, const std::string& title,
                    const std::string& y_label) {
  Chart chart;
  chart.name = name;
  chart.title = title;
  chart.x_label = "cores (log2 scale)";
  chart.y_label = y_label;
  chart.x_scale = Chart::Scale::log2;
  chart.x_tics = layout.x_tics;
  chart.legend_title = layout.legend_title;
  return chart;
}

double cores_of(const SweepRow* row) { return row->number({"cores"}); }

Chart speedup_chart(const SweepDocument& document, const PlotLayout& layout,
                    const std::vector<ScalingSeries>& strong) {
  Chart chart = scaling_chart(layout, "speedup",
                              fmt::format("Strong scaling, speedup against cores: {}", document.name),
                              "speedup over the series' fewest cores (log2 scale)");
  chart.y_scale = Chart::Scale::log2;
  std::set<double> references;
  double most = 0;
  for (const auto& series : strong) {
    ChartSeries line{series.title, {}};
    double fewest = INFINITY;
    for (const SweepRow* row : series.rows) {
      line.points.emplace_back(cores_of(row), row->number({"speedup"}));
      fewest = std::min(fewest, cores_of(row));
      most = std::max(most, cores_of(row));
    }
    std::sort(line.points.begin(), line.points.end());
    references.insert(fewest);
    chart.series.push_back(line);
  }
  // Ideal speedup is the core ratio, from each core count a series starts at.
  for (const double fewest : references) {
    ChartSeries ideal{
        references.size() == 1 ? "ideal (linear speedup)" : fmt::format("ideal from {} cores", fewest),
        {{fewest, 1.0}, {most, most / fewest}},
        ChartSeries::Draw::reference};
    chart.series.push_back(ideal);
  }
  return chart;
}

Chart efficiency_chart(const SweepDocument& document, const PlotLayout& layout,
                       const std::vector<ScalingSeries>& weak) {
  Chart chart = scaling_chart(
      layout, "efficiency", fmt::format("Weak scaling, parallel efficiency against cores: {}", document.name),
      "parallel efficiency (%, 100 = ideal)");
  double fewest = INFINITY, most = 0;
  for (const auto& series : weak) {
    ChartSeries line{series.title, {}};
    for (const SweepRow* row : series.rows) {
      line.points.emplace_back(cores_of(row), 100 * row->number({"efficiency"}));
      fewest = std::min(fewest, cores_of(row));
      most = std::max(most, cores_of(row));
    }
    std::sort(line.points.begin(), line.points.end());
    chart.series.push_back(line);
  }
  chart.series.push_back(
      ChartSeries{"ideal (100%)", {{fewest, 100.0}, {most, 100.0}}, ChartSeries::Draw::reference});
  return chart;
}

}  // namespace

std::vector<Chart> scaling_charts(const SweepDocument& document, const PlotLayout& layout,
                                  const std::vector<const SweepRow*>& rows) {
  std::vector<Chart> charts;
  if (!layout.by_cores) return charts;
  std::vector<ScalingSeries> strong, weak;
  for (auto& series : scaling_series(layout, rows))
    (series.kind == "strong" ? strong : weak).push_back(series);
  if (!strong.empty()) charts.push_back(speedup_chart(document, layout, strong));
  if (!weak.empty()) charts.push_back(efficiency_chart(document, layout, weak));
  return charts;
}

}  // namespace tpusim::workloads
