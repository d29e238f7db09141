#pragma once
// Speedup and parallel efficiency of a training sweep that scales the pod: each point against the smallest
// point (fewest cores) of its series, in sweep.csv, sweep.json, the terminal and report.md.
//
// A series is the points that share the value of every varied key but those that set the core count (a key
// sets it when each of its values comes with one core count among the points, as hardware.topology does;
// report/plot_layout.hpp draws one line per series by the same rule). Only points that ran and fit their HBM
// count; a series with one core count is no scaling study, and its points get no figures.
//
// Throughput is the model's FLOPs per simulated second (model_flops_per_step / step_time_s), which is the
// samples (or tokens) per second times the work per sample, so that a series whose model grows with the pod
// (lm-scaling's model splitting) compares the same quantity as one whose batch does:
//   speedup    = throughput / the smallest point's throughput
//              (strong scaling: the smallest point's step time / this point's, the work being the same)
//   efficiency = speedup / (cores / the smallest point's cores)
//              (weak scaling: throughput per core / the smallest point's; 1 is perfect scaling)
// Which one a series is comes from its work per step: a point is weak scaling when its model FLOPs per step
// are nearer to the smallest point's times the core ratio (the global batch or the model grew with the
// cores) than to the smallest point's (the same work spread thinner), strong otherwise; a series is "weak"
// or "strong" when all its points are, else "mixed".
#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

namespace tpusim::workloads {

struct ScalingInput {
  std::size_t point = 0;
  std::vector<std::string> values;  // the varied keys' values, as written
  double cores = 0;
  double model_flops_per_step = 0;
  double step_time_s = 0;  // 0 when the point did not run
  bool fits = false;
};

struct ScalingFigures {
  std::string kind;                 // "weak", "strong" or "mixed"
  std::size_t reference_point = 0;  // the smallest point of the series
  double speedup = 0;
  double efficiency = 0;
};

// One entry per input, in the same order: the figures of points in a scaling series, else nothing.
std::vector<std::optional<ScalingFigures>> scaling_figures(const std::vector<ScalingInput>& points);

// What a training sweep's run (sweep.json, report/sweep_report.hpp) gives the computation.
ScalingInput scaling_input_of_run(const nlohmann::json& run);

// The columns sweep.csv ends with, and their cells (null for a point without figures); the "scaling" block
// of its sweep.json run ({kind, reference_point, speedup, efficiency}), absent without figures.
extern const std::vector<std::string> kScalingCsvColumns;  // scaling, speedup, efficiency
bool has_scaling_columns(const std::vector<std::string>& csv_header);
void add_scaling(nlohmann::json& csv_cells, nlohmann::json& run,
                 const std::optional<ScalingFigures>& figures);

}  // namespace tpusim::workloads
