// The progress line of long work: its figures for steps and rounds, its silence while the work is short, and
// the run's step lines and estimate (workloads/report/progress.hpp, step_reporter.hpp).
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <sstream>
#include <string>

#include "workloads/models/model_formulas.hpp"
#include "workloads/report/progress.hpp"
#include "workloads/report/step_reporter.hpp"

using namespace tpusim::workloads;

namespace {

std::string written(std::FILE* file) {
  std::fflush(file);
  std::rewind(file);
  std::string text;
  for (int c = std::fgetc(file); c != EOF; c = std::fgetc(file)) text += static_cast<char>(c);
  return text;
}

}  // namespace

TEST_CASE("progress counts steps or rounds without failures, and its count moves to where it is told") {
  const ProgressStyle rounds{"rounds", false, 0, 0};
  std::FILE* out = std::tmpfile();
  Progress progress(ProgressMode::plain, "allreduce", 127998, 0, rounds, out);
  CHECK(progress.line(80) == "allreduce:      0/127998 rounds  0:00 elapsed  ETA --");
  progress.advance_to(913);
  CHECK_THAT(progress.line(80), Catch::StartsWith("allreduce:    913/127998 rounds  0:00 elapsed  ETA "));
  progress.advance_to(127998);
  CHECK(progress.line(80) == "allreduce: 127998/127998 rounds  0:00 elapsed  done");
  progress.finish();
  // plain_every_s 0: a line per move, the last included, and nothing more from finish.
  const std::string text = written(out);
  CHECK_THAT(text, Catch::StartsWith("allreduce:    913/127998 rounds  0:00 elapsed  ETA "));
  CHECK_THAT(text, Catch::EndsWith("\nallreduce: 127998/127998 rounds  0:00 elapsed  done\n"));
  CHECK(std::count(text.begin(), text.end(), '\n') == 2);
}

TEST_CASE("progress stays silent while the work is younger than its quiet time") {
  for (const auto mode : {ProgressMode::bar, ProgressMode::plain}) {
    std::FILE* out = std::tmpfile();
    Progress quiet(mode, "run", 10, 0, ProgressStyle{"steps", false, 1e6, 0}, out);
    for (int step = 1; step <= 10; ++step) quiet.advance_to(step);
    quiet.print_above("");
    quiet.finish();
    CHECK(written(out).empty());
  }
  std::FILE* out = std::tmpfile();
  Progress loud(ProgressMode::plain, "run", 2, 0, ProgressStyle{"steps", false, 1e-12, 0}, out);
  loud.advance_to(1);
  loud.advance_to(2);
  loud.finish();
  const std::string text = written(out);
  CHECK_THAT(text, Catch::StartsWith("run: 1/2 steps  0:00 elapsed  ETA "));
  CHECK_THAT(text, Catch::EndsWith("\nrun: 2/2 steps  0:00 elapsed  done\n"));
}

TEST_CASE("a run prints every step's loss up to 100 steps, then about 100 spread over the run and the last") {
  for (int step = 0; step < 100; ++step) CHECK(StepReporter::prints_loss(step, 100));
  // 1000 steps: every 10th (0, 10, ..., 990) and the last, 999.
  int printed = 0;
  for (int step = 0; step < 1000; ++step) printed += StepReporter::prints_loss(step, 1000) ? 1 : 0;
  CHECK(printed == 101);
  CHECK(StepReporter::prints_loss(990, 1000));
  CHECK_FALSE(StepReporter::prints_loss(991, 1000));
  CHECK(StepReporter::prints_loss(999, 1000));
  // 101 steps: every 2nd and the last.
  CHECK(StepReporter::prints_loss(100, 101));
  CHECK_FALSE(StepReporter::prints_loss(99, 101));
  CHECK(StepReporter::prints_loss(98, 101));
}

TEST_CASE("the step lines a run prints go to the stream it is given") {
  std::ostringstream losses;
  StepReporter reporter(ProgressMode::none, "tiny", 3, true, losses);
  for (int step = 0; step < 3; ++step) reporter.step_done(StepRecord{step, 4.0 - step, 0.5});
  reporter.finish();
  CHECK(losses.str() ==
        "step    0  loss 4.000000  step time 0.5 s (simulated)\n"
        "step    1  loss 3.000000  step time 0.5 s (simulated)\n"
        "step    2  loss 2.000000  step time 0.5 s (simulated)\n");
  std::ostringstream timing;
  StepReporter timing_only(ProgressMode::none, "lm", 3, false, timing);
  for (int step = 0; step < 3; ++step) timing_only.step_done(StepRecord{step, std::nullopt, 0.5});
  CHECK(timing.str().empty());
}

TEST_CASE("the full-numerics limit is on the whole run: steps times the work of a step") {
  NumericsCost cost;
  cost.flops_per_step = 1.5e8;
  cost.host_bytes = 1e6;
  cost.steps = 13333;  // 1.99995e12 FLOPs
  CHECK(cost.fits());
  cost.steps = 13334;  // 2.0001e12
  CHECK_FALSE(cost.fits());
  CHECK(cost.problem() ==
        "full numerics of this run would need about 2e+12 FLOPs (13334 steps of 1.5e+08) and 977 KiB of host "
        "memory; a full run is limited to at most 2e+12 FLOPs over the run (steps x FLOPs per step) and 6 "
        "GiB of host memory (use numerics: timing, fewer steps or a smaller model)");
}
