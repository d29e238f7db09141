#include "workloads/sweep/scaling.hpp"

#include <algorithm>
#include <cmath>
#include <map>

#include "workloads/report/plot_layout.hpp"

namespace tpusim::workloads {
namespace {

bool usable(const ScalingInput& p) {
  return p.fits && p.cores > 0 && p.step_time_s > 0 && p.model_flops_per_step > 0;
}

double throughput(const ScalingInput& p) { return p.model_flops_per_step / p.step_time_s; }

// Whether key `k` sets the core count among the usable points (as the plots decide it).
bool sets_cores(std::size_t k, const std::vector<const ScalingInput*>& points) {
  std::vector<std::pair<std::string, double>> value_and_cores;
  for (const ScalingInput* p : points) {
    if (k >= p->values.size()) return false;
    value_and_cores.emplace_back(p->values[k], p->cores);
  }
  return sets_core_count(value_and_cores);
}

}  // namespace

const std::vector<std::string> kScalingCsvColumns = {"scaling", "speedup", "efficiency"};

std::vector<std::optional<ScalingFigures>> scaling_figures(const std::vector<ScalingInput>& points) {
  std::vector<std::optional<ScalingFigures>> figures(points.size());
  std::vector<const ScalingInput*> ran;
  for (const auto& p : points) {
    if (usable(p)) ran.push_back(&p);
  }
  if (ran.empty()) return figures;
  std::vector<bool> series_key(ran.front()->values.size());
  for (std::size_t k = 0; k < series_key.size(); ++k) series_key[k] = !sets_cores(k, ran);
  // Series by their values of the series keys, each with its points' indices in `points`.
  std::map<std::vector<std::string>, std::vector<std::size_t>> series;
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (!usable(points[i])) continue;
    std::vector<std::string> key;
    for (std::size_t k = 0; k < series_key.size() && k < points[i].values.size(); ++k)
      key.push_back(series_key[k] ? points[i].values[k] : "");
    series[key].push_back(i);
  }
  for (const auto& [key, members] : series) {
    std::size_t reference = members.front();
    for (const std::size_t i : members) {
      if (points[i].cores < points[reference].cores) reference = i;
    }
    const ScalingInput& smallest = points[reference];
    bool weak = false, strong = false;
    for (const std::size_t i : members) {
      if (points[i].cores == smallest.cores) continue;
      const double work = std::log(points[i].model_flops_per_step / smallest.model_flops_per_step);
      const double cores = std::log(points[i].cores / smallest.cores);
      (std::fabs(work - cores) < std::fabs(work) ? weak : strong) = true;
    }
    if (!weak && !strong) continue;  // one core count: not a scaling series
    const std::string kind = weak && strong ? "mixed" : weak ? "weak" : "strong";
    for (const std::size_t i : members) {
      const double speedup = throughput(points[i]) / throughput(smallest);
      figures[i] = ScalingFigures{kind, smallest.point, speedup, speedup * smallest.cores / points[i].cores};
    }
  }
  return figures;
}

ScalingInput scaling_input_of_run(const nlohmann::json& run) {
  ScalingInput input;
  input.point = run.value("point", std::size_t(0));
  for (const auto& value : run.value("values", nlohmann::json::array())) {
    input.values.push_back(value.is_object() ? value.value("value", "") : "");
  }
  const auto number = [](const nlohmann::json& at) { return at.is_number() ? at.get<double>() : 0.0; };
  if (run.contains("config")) input.cores = number(run["config"].value("cores", nlohmann::json()));
  if (run.contains("error")) return input;
  input.model_flops_per_step = number(run.value("model_flops_per_step", nlohmann::json()));
  if (run.contains("step_time"))
    input.step_time_s = number(run["step_time"].value("step_time_s", nlohmann::json()));
  if (run.contains("memory_per_core")) input.fits = run["memory_per_core"].value("fits", false);
  return input;
}

bool has_scaling_columns(const std::vector<std::string>& csv_header) {
  return csv_header.size() >= kScalingCsvColumns.size() &&
         std::equal(kScalingCsvColumns.begin(), kScalingCsvColumns.end(),
                    csv_header.end() - std::ptrdiff_t(kScalingCsvColumns.size()));
}

void add_scaling(nlohmann::json& csv_cells, nlohmann::json& run,
                 const std::optional<ScalingFigures>& figures) {
  if (!figures) {
    for (std::size_t i = 0; i < kScalingCsvColumns.size(); ++i) csv_cells.push_back(nullptr);
    return;
  }
  csv_cells.push_back(figures->kind);
  csv_cells.push_back(figures->speedup);
  csv_cells.push_back(figures->efficiency);
  run["scaling"] = {{"kind", figures->kind},
                    {"reference_point", figures->reference_point},
                    {"speedup", figures->speedup},
                    {"efficiency", figures->efficiency}};
}

}  // namespace tpusim::workloads
