#pragma once
// Pipeline schedules: when each stage runs the forward and backward pass of each microbatch, given how long a
// stage takes for one microbatch and how long the activations (or their gradients) take to reach the next
// stage. Two schedules, both flushing at the end of the step (synchronous weight updates):
//   gpipe: every stage runs the M forwards, then the M backwards (Huang et al. 2019, "GPipe",
//          arXiv 1811.06965, section 2.2 and figure 2); a stage keeps the activations of all M microbatches.
//   1f1b:  PipeDream-flush (Narayanan et al. 2021, "Efficient Large-Scale Language Model Training on GPU
//          Clusters Using Megatron-LM", arXiv 2104.04473, section 2.2.1 and figure 4): stage s runs
//          min(S-1-s, M) warm-up forwards, then alternates one forward and one backward, then drains the
//          backwards; it keeps at most min(M, S-s) microbatches' activations.
// Both have the same bubble, (S-1)/(M+S-1) of the step when transfers take no time (the papers' closed form).
#include <string>
#include <vector>

#include "topologies/support/name_table.hpp"

namespace tpusim::mtf {

enum class PipelineSchedule { gpipe, one_forward_one_backward };
const NameTable<PipelineSchedule>& pipeline_schedules();  // gpipe, 1f1b

// One stage's time for one microbatch, and the time a stage's output takes to reach its neighbour. Checked:
// finite and not negative.
struct StageTimes {
  StageTimes(double forward_s, double backward_s, double transfer_s);
  double forward_s, backward_s, transfer_s;
};

struct StagePass {
  int microbatch = 0;
  bool backward = false;
  double start_s = 0, end_s = 0;
};

struct PipelineTimeline {
  std::vector<std::vector<StagePass>> stages;  // each stage's passes in the order it runs them
  double step_s = 0;                           // the last pass's end
  // Per stage: the most microbatches whose forward has run and backward has not, at any time (the
  // activations the stage keeps for its backward passes).
  std::vector<int> peak_in_flight;
  double busy_fraction() const;  // of stages x step_s, the time stages compute
};

// InputError unless stages >= 1 and microbatches >= 1.
PipelineTimeline lay_out_pipeline(PipelineSchedule schedule, int stages, int microbatches,
                                  const StageTimes& times);

// (S-1)/(M+S-1): the idle share of the step when transfers take no time.
double pipeline_bubble_fraction(int stages, int microbatches);

}  // namespace tpusim::mtf
