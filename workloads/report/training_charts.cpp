// The plots of a training sweep (sweep_charts.hpp).
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>

#include "workloads/report/plot_layout.hpp"
#include "workloads/report/sweep_charts.hpp"

namespace tpusim::workloads {
namespace {

// What the throughput chart shows, by what the rows hold: tokens when a run counts them, the model's
// examples (images) when those are what it counts, else the model's FLOP rate (which is MFU times the peak,
// without needing the peak), else steps.
struct Throughput {
  std::string y_label;
  double (*per_core)(const SweepRow& row);
};

double tokens_per_core(const SweepRow& row) { return row.number({"tokens_per_s"}) / row.number({"cores"}); }
double examples_per_core(const SweepRow& row) {
  return row.number({"examples_per_s"}) / row.number({"cores"});
}
double model_tflops_per_core(const SweepRow& row) {
  return row.number({"model_flops_per_step"}) / row.number({"step_time_s"}) / row.number({"cores"}) / 1e12;
}
double steps_per_core(const SweepRow& row) { return 1 / row.number({"step_time_s"}) / row.number({"cores"}); }

Throughput throughput_for(const std::vector<const SweepRow*>& rows) {
  auto all = [&](const std::function<bool(const SweepRow&)>& holds) {
    return std::all_of(rows.begin(), rows.end(), [&](const SweepRow* row) { return holds(*row); });
  };
  auto finite = [](double (*f)(const SweepRow&)) {
    return [f](const SweepRow& row) { return std::isfinite(f(row)); };
  };
  const std::string unit = rows.empty() ? "" : rows.front()->text("example_unit");
  // A model without tokens (an image model) writes its examples as its tokens: they are its unit.
  const bool examples = !unit.empty() && unit != "sequences" && all(finite(examples_per_core)) &&
                        all([&](const SweepRow& row) { return row.text("example_unit") == unit; });
  if (examples) return {unit + "/s per core", examples_per_core};
  if (all(finite(tokens_per_core))) return {"tokens/s per core", tokens_per_core};
  if (all(finite(model_tflops_per_core))) return {"model TFLOP/s per core", model_tflops_per_core};
  return {"training steps/s per core", steps_per_core};
}

// One chart of the layout's series, y from `value` for each row.
Chart series_chart(const PlotLayout& layout, const std::vector<const SweepRow*>& rows, Chart chart,
                   const std::function<double(const SweepRow&)>& value) {
  chart.x_label = layout.by_cores ? "cores (log2 scale)" : layout.x_label;
  chart.x_scale = layout.by_cores ? Chart::Scale::log2 : Chart::Scale::linear;
  chart.categories = !layout.by_cores;
  chart.x_tics = layout.x_tics;
  chart.legend_title = layout.legend_title;
  const auto draw = layout.ordered ? ChartSeries::Draw::lines : ChartSeries::Draw::points;
  for (const auto& title : layout.series_titles) chart.series.push_back(ChartSeries{title, {}, draw});
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const double y = value(*rows[i]);
    if (std::isfinite(y)) chart.series[layout.series_of[i]].points.emplace_back(layout.x_of[i], y);
  }
  for (auto& series : chart.series) std::stable_sort(series.points.begin(), series.points.end());
  chart.series.erase(std::remove_if(chart.series.begin(), chart.series.end(),
                                    [](const ChartSeries& s) { return s.points.empty(); }),
                     chart.series.end());
  return chart;
}

// The bars are scaled by the points that fit: one that does not, whose activations may have grown past its
// HBM by far, would otherwise flatten the others. It is hatched, and cut at the top with its total written.
Chart breakdown_chart(const SweepDocument& document, const std::vector<const SweepRow*>& rows) {
  double largest = 0, largest_fitting = 0;
  for (const SweepRow* row : rows) {
    largest = std::max(largest, row->number({"step_time_s"}));
    if (row->fits()) largest_fitting = std::max(largest_fitting, row->number({"step_time_s"}));
  }
  const TimeUnit unit = time_unit_for(largest_fitting > 0 ? largest_fitting : largest);
  Chart chart;
  chart.name = "breakdown";
  chart.title = fmt::format("Where the step time goes, per point: {}", document.name);
  chart.y_label = fmt::format("time per step ({})", unit.name);
  chart.style = Chart::Style::stacked_bars;
  chart.legend_title = "part of the step";
  const std::pair<const char*, const char*> parts[] = {
      {"compute", "compute_s"}, {"exposed communication", "exposed_communication_s"}, {"idle", "idle_s"}};
  for (const auto& [title, field] : parts) {
    ChartSeries series{title, {}};
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const double y = rows[i]->number({field});
      series.points.emplace_back(double(i), std::isfinite(y) ? y * unit.per_second : NAN);
    }
    // A part no row reports (an older sweep.json) is left out rather than drawn as nothing.
    if (std::any_of(series.points.begin(), series.points.end(),
                    [](const auto& point) { return std::isfinite(point.second); }))
      chart.series.push_back(series);
  }
  std::vector<const SweepRow*> placed;
  for (const SweepRow* row : rows) {
    if (std::isfinite(row->number({"cores"}))) placed.push_back(row);
  }
  const PlotLayout layout = plot_layout(document, placed);
  // The bars' labels say what each point is.
  chart.x_label = "";
  chart.value_unit = unit.name;
  for (const SweepRow* row : rows) {
    const auto at = std::find(placed.begin(), placed.end(), row);
    std::string label = at == placed.end() ? row->label : layout.row_labels[std::size_t(at - placed.begin())];
    chart.bar_labels.push_back(label + (row->fits() ? "" : " (no fit)"));
    chart.bar_marked.push_back(!row->fits());
  }
  if (largest_fitting > 0 && largest > largest_fitting * 1.15)
    chart.value_max = largest_fitting * 1.15 * unit.per_second;
  return chart;
}

}  // namespace

SweepCharts training_charts(const SweepDocument& document) {
  SweepCharts out;
  std::vector<const SweepRow*> ran, drawn;
  for (const auto& row : document.rows) {
    if (!row.error.empty() || !std::isfinite(row.number({"step_time_s"}))) continue;
    ran.push_back(&row);
    // A point over its HBM could not train: its step time would mislead next to those that can.
    if (row.fits() && std::isfinite(row.number({"cores"}))) drawn.push_back(&row);
  }
  const std::size_t failed = document.rows.size() - ran.size();
  if (failed > 0)
    out.notes.push_back(
        fmt::format("{} of {} points did not run and are in no plot.", failed, document.rows.size()));
  if (ran.size() > drawn.size())
    out.notes.push_back(fmt::format(
        "{} points do not fit their HBM: they are left out of the step time, throughput and MFU plots, and "
        "hatched and marked \"(no fit)\" in the breakdown, whose scale is that of the points that fit.",
        ran.size() - drawn.size()));
  if (ran.empty()) {
    out.notes.push_back("No point ran, so there is nothing to plot.");
    return out;
  }
  if (!drawn.empty()) {
    const PlotLayout layout = plot_layout(document, drawn);
    double largest = 0;
    for (const SweepRow* row : drawn) largest = std::max(largest, row->number({"step_time_s"}));
    const TimeUnit unit = time_unit_for(largest);
    // Points that stand alone have no x to be against.
    const std::string against = layout.by_cores  ? " against cores"
                                : layout.ordered ? " against " + layout.x_label
                                                 : " per point";
    Chart step;
    step.name = "step_time";
    step.title = fmt::format("Step time{}: {}", against, document.name);
    step.y_label = fmt::format("step time ({})", unit.name);
    out.charts.push_back(series_chart(layout, drawn, step, [&](const SweepRow& row) {
      return row.number({"step_time_s"}) * unit.per_second;
    }));
    const Throughput throughput = throughput_for(drawn);
    Chart rate;
    rate.name = "throughput";
    rate.title = fmt::format("Throughput per core{}: {}", against, document.name);
    rate.y_label = throughput.y_label;
    out.charts.push_back(series_chart(layout, drawn, rate, throughput.per_core));
    Chart mfu;
    mfu.name = "mfu";
    mfu.title = fmt::format("Model FLOPs utilisation{}: {}", against, document.name);
    mfu.y_label = "MFU (% of peak FLOP/s)";
    out.charts.push_back(
        series_chart(layout, drawn, mfu, [](const SweepRow& row) { return 100 * row.number({"mfu"}); }));
    for (auto& chart : scaling_charts(document, layout, drawn)) out.charts.push_back(std::move(chart));
  }
  out.charts.push_back(breakdown_chart(document, ran));
  std::vector<Chart> charts;
  for (auto& chart : out.charts) {
    if (chart.empty()) {
      out.notes.push_back(fmt::format("No {} plot: the rows hold no data for it.", chart.name));
    } else {
      charts.push_back(std::move(chart));
    }
  }
  out.charts = std::move(charts);
  return out;
}

}  // namespace tpusim::workloads
