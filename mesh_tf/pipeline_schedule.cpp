#include "mesh_tf/pipeline_schedule.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "topologies/support/check.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

const NameTable<PipelineSchedule>& pipeline_schedules() {
  static const NameTable<PipelineSchedule> table(
      "pipeline schedule",
      {{"gpipe", PipelineSchedule::gpipe}, {"1f1b", PipelineSchedule::one_forward_one_backward}});
  return table;
}

StageTimes::StageTimes(double forward, double backward, double transfer)
    : forward_s(forward), backward_s(backward), transfer_s(transfer) {
  for (const double t : {forward, backward, transfer}) {
    if (!(std::isfinite(t) && t >= 0))
      throw InputError(fmt::format("pipeline stage times must be finite and not negative, got {}", t));
  }
}

double PipelineTimeline::busy_fraction() const {
  if (stages.empty() || step_s <= 0) return 0;
  double busy = 0;
  for (const auto& stage : stages) {
    for (const auto& pass : stage) busy += pass.end_s - pass.start_s;
  }
  return busy / (step_s * double(stages.size()));
}

namespace {

// The order stage s runs its passes in (times not yet set).
std::vector<StagePass> pipeline_stage_order(PipelineSchedule schedule, int s, int S, int M) {
  std::vector<StagePass> order;
  const auto add = [&](int m, bool backward) { order.push_back(StagePass{m, backward, 0, 0}); };
  if (schedule == PipelineSchedule::gpipe) {
    for (int m = 0; m < M; ++m) add(m, false);
    for (int m = 0; m < M; ++m) add(m, true);
    return order;
  }
  const int warmup = std::min(S - 1 - s, M);
  for (int m = 0; m < warmup; ++m) add(m, false);
  for (int i = 0; i < M - warmup; ++i) {
    add(warmup + i, false);
    add(i, true);
  }
  for (int m = M - warmup; m < M; ++m) add(m, true);
  return order;
}

}  // namespace

PipelineTimeline lay_out_pipeline(PipelineSchedule schedule, int S, int M, const StageTimes& times) {
  if (S < 1 || M < 1)
    throw InputError(fmt::format("a pipeline needs at least 1 stage and 1 microbatch, got {} and {}", S, M));
  PipelineTimeline out;
  for (int s = 0; s < S; ++s) out.stages.push_back(pipeline_stage_order(schedule, s, S, M));
  // end[s][m][backward]: when stage s finished that pass; < 0 while it has not run.
  std::vector<std::vector<double>> forward_end(S, std::vector<double>(M, -1)), backward_end = forward_end;
  std::vector<std::size_t> next(S, 0);
  std::vector<double> free_at(S, 0);
  const double p = times.transfer_s;
  // Each stage runs its passes in order, each as soon as the stage is free and its input has arrived: a
  // forward needs the previous stage's forward of the microbatch, a backward the next stage's backward (the
  // last stage's, its own forward).
  for (bool progress = true; progress;) {
    progress = false;
    for (int s = 0; s < S; ++s) {
      while (next[s] < out.stages[s].size()) {
        StagePass& pass = out.stages[s][next[s]];
        double ready = 0;
        if (!pass.backward && s > 0) {
          if (forward_end[s - 1][pass.microbatch] < 0) break;
          ready = forward_end[s - 1][pass.microbatch] + p;
        } else if (pass.backward && s + 1 < S) {
          if (backward_end[s + 1][pass.microbatch] < 0) break;
          ready = backward_end[s + 1][pass.microbatch] + p;
        } else if (pass.backward) {
          TPUSIM_CHECK(forward_end[s][pass.microbatch] >= 0);
        }
        pass.start_s = std::max(free_at[s], ready);
        pass.end_s = pass.start_s + (pass.backward ? times.backward_s : times.forward_s);
        free_at[s] = pass.end_s;
        (pass.backward ? backward_end : forward_end)[s][pass.microbatch] = pass.end_s;
        ++next[s];
        progress = true;
      }
    }
  }
  for (int s = 0; s < S; ++s) TPUSIM_CHECK(next[s] == out.stages[s].size());  // the orders cannot deadlock
  for (const auto& stage : out.stages) {
    int in_flight = 0, peak = 0;
    for (const auto& pass : stage) {
      in_flight += pass.backward ? -1 : 1;
      peak = std::max(peak, in_flight);
    }
    out.peak_in_flight.push_back(peak);
    out.step_s = std::max(out.step_s, stage.back().end_s);
  }
  return out;
}

double pipeline_bubble_fraction(int stages, int microbatches) {
  if (stages < 1 || microbatches < 1)
    throw InputError(fmt::format("a pipeline needs at least 1 stage and 1 microbatch, got {} and {}", stages,
                                 microbatches));
  return double(stages - 1) / double(microbatches + stages - 1);
}

}  // namespace tpusim::mtf
