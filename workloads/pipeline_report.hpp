#pragma once
// What a pipelined run (training.pipeline_stages, training.microbatches) reports beside its step: the
// stages, microbatches and schedule, the bubble, and the activations each stage keeps under the schedule.
//
// The engine runs GPipe in GSPMD's SPMD form (models/pipelined_lm.hpp): M+S-1 iterations forward, then
// backward, every stage computing in every iteration (on zeros in the bubble), so its timeline is GPipe's
// step and each core keeps the activations of all M+S-1 iterations of its stage. 1F1B (PipeDream-flush) has
// the same bubble and the same step when stages take equal time and transfers are exposed as in GPipe (the
// closed form (M+S-1)(F+B) of both; mesh_tf/pipeline_schedule.hpp lays both out), so its step is reported as
// the engine's; what it changes is memory: stage s keeps min(M, S-s) microbatches' activations instead of M,
// so the busiest core (stage 0) keeps min(M, S) of the M+S-1 iterations' activations the engine counted.
// That scaling treats every kept activation as the loop's; the embedding's and the loss's, outside the loop,
// are a small part of them in a deep model.
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "workloads/config/run_config.hpp"

namespace tpusim::workloads {

struct PipelineReport {
  int stages = 1, microbatches = 1;
  std::string schedule;  // "gpipe" or "1f1b"
  int iterations = 1;    // M + S - 1
  double bubble_fraction = 0;
  std::vector<int> kept_microbatches;           // per stage, under the schedule
  std::uint64_t engine_activation_bytes = 0;    // per core, as the engine kept them (GPipe, SPMD form)
  std::uint64_t schedule_activation_bytes = 0;  // per core on the busiest stage, under the schedule
  std::string note;                             // how the figures were found
};

// nullopt when the config does not pipeline. `activation_bytes`: the engine's kept activations per core.
std::optional<PipelineReport> pipeline_report(const PipelineConfig& pipeline, std::uint64_t activation_bytes);

nlohmann::json pipeline_report_json(const PipelineReport& report);
std::string pipeline_report_text(const PipelineReport& report);  // lines for the run's text report

}  // namespace tpusim::workloads
