#include "workloads/report/step_reporter.hpp"

#include <fmt/format.h>

#include <iostream>

#include "topologies/support/units.hpp"

namespace tpusim::workloads {
namespace {

constexpr int kAllLossLines = 100;
constexpr double kEstimateAbove_s = 10;

}  // namespace

StepReporter::StepReporter(ProgressMode mode, const std::string& name, int steps, bool full_numerics,
                           std::ostream& loss_out)
    : steps_(steps),
      full_numerics_(full_numerics),
      loss_out_(loss_out),
      progress_(mode, name, steps, 0, ProgressStyle{"steps", false, 2.0, 10.0}) {}

bool StepReporter::prints_loss(int step, int steps) {
  if (steps <= kAllLossLines || step + 1 == steps) return true;
  const int every = (steps + kAllLossLines - 1) / kAllLossLines;
  return step % every == 0;
}

void StepReporter::step_done(const StepRecord& step) {
  const auto now = std::chrono::steady_clock::now();
  if (full_numerics_ && step.loss && prints_loss(step.step, steps_)) {
    progress_.print_above(fmt::format("step {:>4}  loss {:.6f}  step time {:.6g} s (simulated)\n", step.step,
                                      *step.loss, step.step_time_s),
                          loss_out_);
  }
  if (step.step == 0) first_step_done_ = now;
  if (step.step == 1 && steps_ > 2) {
    const double per_step_s = std::chrono::duration<double>(now - first_step_done_).count();
    const double rest_s = per_step_s * (steps_ - 2);
    if (rest_s > kEstimateAbove_s) {
      progress_.print_above(
          fmt::format("tpusim: note: {} steps at about {} each on this machine: about {} more (--steps runs "
                      "fewer)\n",
                      steps_, format_duration(per_step_s), format_clock(rest_s)),
          std::cerr);
    }
  }
  progress_.advance_to(step.step + 1);
}

void StepReporter::finish() { progress_.finish(); }

}  // namespace tpusim::workloads
