#pragma once
// What `tpusim run` says while its steps run, so that a long run is never silent:
//   - in full numerics, each step's loss: every step up to 100, then about 100 lines spread over the run
//     (every k-th step, and the last), so 100,000 steps do not print 100,000 lines;
//   - a progress line on stderr (report/progress.hpp) once the run has taken 2 s;
//   - after the second step, when the rest will take more than 10 s, an estimate of how long (the first step
//     also builds and lowers the program, so the second step is the first that times a step alone).
#include <chrono>
#include <iosfwd>
#include <memory>
#include <string>

#include "workloads/report/progress.hpp"
#include "workloads/training_run.hpp"

namespace tpusim::workloads {

class StepReporter {
 public:
  StepReporter(ProgressMode mode, const std::string& name, int steps, bool full_numerics,
               std::ostream& loss_out);
  void step_done(const StepRecord& step);
  void finish();

  // Whether step `step` (from 0) of `steps` has its loss line.
  static bool prints_loss(int step, int steps);

 private:
  int steps_;
  bool full_numerics_;
  std::ostream& loss_out_;
  Progress progress_;
  std::chrono::steady_clock::time_point first_step_done_;
};

}  // namespace tpusim::workloads
