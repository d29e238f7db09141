#include "workloads/pipeline_report.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "topologies/support/units.hpp"

namespace tpusim::workloads {

std::optional<PipelineReport> pipeline_report(const PipelineConfig& pipeline,
                                              std::uint64_t activation_bytes) {
  if (!pipeline.on()) return std::nullopt;
  PipelineReport r;
  r.stages = pipeline.stages;
  r.microbatches = pipeline.microbatches;
  r.schedule = mtf::pipeline_schedules().name_of(pipeline.schedule);
  r.iterations = r.microbatches + r.stages - 1;
  r.bubble_fraction = mtf::pipeline_bubble_fraction(r.stages, r.microbatches);
  // Any positive times give the same counts; the layout only orders the passes.
  const mtf::PipelineTimeline laid_out =
      mtf::lay_out_pipeline(pipeline.schedule, r.stages, r.microbatches, mtf::StageTimes(1, 2, 0));
  r.kept_microbatches = laid_out.peak_in_flight;
  r.engine_activation_bytes = activation_bytes;
  if (pipeline.schedule == mtf::PipelineSchedule::gpipe) {
    r.schedule_activation_bytes = activation_bytes;
    r.note = "GPipe in SPMD form: the engine's step and activations";
  } else {
    const int busiest = *std::max_element(r.kept_microbatches.begin(), r.kept_microbatches.end());
    r.schedule_activation_bytes =
        static_cast<std::uint64_t>(double(activation_bytes) * busiest / r.iterations);
    r.note = fmt::format(
        "1F1B: the engine's GPipe step (same closed form), activations of {} of its {} iterations per core",
        busiest, r.iterations);
  }
  return r;
}

nlohmann::json pipeline_report_json(const PipelineReport& r) {
  return {{"stages", r.stages},
          {"microbatches", r.microbatches},
          {"schedule", r.schedule},
          {"iterations", r.iterations},
          {"bubble_fraction", r.bubble_fraction},
          {"kept_microbatches_per_stage", r.kept_microbatches},
          {"engine_activation_bytes_per_core", r.engine_activation_bytes},
          {"schedule_activation_bytes_per_core", r.schedule_activation_bytes},
          {"note", r.note}};
}

std::string pipeline_report_text(const PipelineReport& r) {
  std::string kept;
  for (std::size_t s = 0; s < r.kept_microbatches.size(); ++s)
    kept += (s ? " " : "") + std::to_string(r.kept_microbatches[s]);
  std::string out = fmt::format(
      "pipeline                {} stages x {} microbatches, {}: {} iterations, bubble "
      "{:.1f}%\n",
      r.stages, r.microbatches, r.schedule, r.iterations, 100 * r.bubble_fraction);
  out += fmt::format("  microbatches kept     {:>12}  per stage\n", kept);
  out += fmt::format("  activations per core  {:>12}  under {} (the engine's GPipe: {})\n",
                     format_bytes(double(r.schedule_activation_bytes)), r.schedule,
                     format_bytes(double(r.engine_activation_bytes)));
  out += fmt::format("  {}\n\n", r.note);
  return out;
}

}  // namespace tpusim::workloads
