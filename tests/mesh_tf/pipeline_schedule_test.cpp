// Pipeline schedules against the papers' closed forms, written out here: GPipe's and 1F1B's step
// M(F+B) + (S-1)(F+B) without transfer time (both have the bubble (S-1)/(M+S-1)), GPipe's
// M(F+B) + (S-1)(F+B+2p) with a transfer time p on each hop, and the activations each stage keeps (GPipe M,
// 1F1B min(M, S-s)); random cases as well as chosen ones.
#include "mesh_tf/pipeline_schedule.hpp"

#include <catch2/catch.hpp>
#include <random>

#include "topologies/support/input_error.hpp"

using namespace tpusim::mtf;

namespace {

double no_transfer_step_s(int S, int M, double F, double B) { return M * (F + B) + (S - 1) * (F + B); }

// Every pass of every stage ran once, passes on a stage do not overlap, and each ran after its input.
void check_consistent(const PipelineTimeline& t, int S, int M, double p) {
  REQUIRE(int(t.stages.size()) == S);
  for (int s = 0; s < S; ++s) {
    REQUIRE(int(t.stages[s].size()) == 2 * M);
    for (std::size_t i = 1; i < t.stages[s].size(); ++i)
      CHECK(t.stages[s][i].start_s >= t.stages[s][i - 1].end_s);
  }
  const auto end_of = [&](int s, int m, bool backward) {
    for (const auto& pass : t.stages[s])
      if (pass.microbatch == m && pass.backward == backward) return pass.end_s;
    FAIL("missing pass");
    return 0.0;
  };
  for (int s = 0; s < S; ++s) {
    for (const auto& pass : t.stages[s]) {
      if (!pass.backward && s > 0) CHECK(pass.start_s >= end_of(s - 1, pass.microbatch, false) + p - 1e-12);
      if (pass.backward && s + 1 < S) CHECK(pass.start_s >= end_of(s + 1, pass.microbatch, true) + p - 1e-12);
    }
  }
}

}  // namespace

TEST_CASE("pipeline schedules: chosen cases equal the closed forms") {
  // S=4, M=8, F=1, B=2: 8*3 + 3*3 = 33 s; bubble 3/11.
  for (const auto schedule : {PipelineSchedule::gpipe, PipelineSchedule::one_forward_one_backward}) {
    const PipelineTimeline t = lay_out_pipeline(schedule, 4, 8, StageTimes(1, 2, 0));
    check_consistent(t, 4, 8, 0);
    CHECK(t.step_s == 33);
    CHECK(1 - t.busy_fraction() == Approx(3.0 / 11));
  }
  CHECK(pipeline_bubble_fraction(4, 8) == Approx(3.0 / 11));
  CHECK(pipeline_bubble_fraction(1, 5) == 0);
  // GPipe keeps all 8 microbatches on every stage; 1F1B keeps 4, 3, 2, 1.
  CHECK(lay_out_pipeline(PipelineSchedule::gpipe, 4, 8, StageTimes(1, 2, 0)).peak_in_flight ==
        std::vector<int>{8, 8, 8, 8});
  CHECK(lay_out_pipeline(PipelineSchedule::one_forward_one_backward, 4, 8, StageTimes(1, 2, 0))
            .peak_in_flight == std::vector<int>{4, 3, 2, 1});
  // Fewer microbatches than stages: 1F1B cannot keep more than M.
  CHECK(lay_out_pipeline(PipelineSchedule::one_forward_one_backward, 4, 2, StageTimes(1, 2, 0))
            .peak_in_flight == std::vector<int>{2, 2, 2, 1});
  // One stage: no bubble, M(F+B).
  CHECK(lay_out_pipeline(PipelineSchedule::gpipe, 1, 5, StageTimes(1, 2, 0.5)).step_s == 15);
}

TEST_CASE("pipeline schedules: random cases equal the closed forms") {
  std::mt19937 rng(30);
  std::uniform_int_distribution<int> stages(1, 8), microbatches(1, 16);
  std::uniform_real_distribution<double> time(0.1, 3);
  for (int trial = 0; trial < 200; ++trial) {
    const int S = stages(rng), M = microbatches(rng);
    const double F = time(rng), B = time(rng), p = time(rng);
    INFO("S=" << S << " M=" << M << " F=" << F << " B=" << B << " p=" << p);
    for (const auto schedule : {PipelineSchedule::gpipe, PipelineSchedule::one_forward_one_backward}) {
      const PipelineTimeline t = lay_out_pipeline(schedule, S, M, StageTimes(F, B, 0));
      check_consistent(t, S, M, 0);
      CHECK(t.step_s == Approx(no_transfer_step_s(S, M, F, B)).epsilon(1e-12));
      CHECK(1 - t.busy_fraction() == Approx(pipeline_bubble_fraction(S, M)).margin(1e-12));
      for (int s = 0; s < S; ++s) {
        const int expected = schedule == PipelineSchedule::gpipe ? M : std::min(M, S - s);
        CHECK(t.peak_in_flight[s] == expected);
      }
      const PipelineTimeline with_p = lay_out_pipeline(schedule, S, M, StageTimes(F, B, p));
      check_consistent(with_p, S, M, p);
      CHECK(with_p.step_s >= t.step_s);
    }
    // GPipe with transfers: the first microbatch reaches the last stage after (S-1)(F+p), the last stage runs
    // its M forwards and M backwards back to back, and the last backward returns through (S-1)(B+p).
    const PipelineTimeline gpipe = lay_out_pipeline(PipelineSchedule::gpipe, S, M, StageTimes(F, B, p));
    CHECK(gpipe.step_s == Approx(M * (F + B) + (S - 1) * (F + B + 2 * p)).epsilon(1e-12));
  }
}

TEST_CASE("pipeline schedules: bad input is an InputError") {
  CHECK_THROWS_AS(lay_out_pipeline(PipelineSchedule::gpipe, 0, 4, StageTimes(1, 1, 0)), tpusim::InputError);
  CHECK_THROWS_AS(lay_out_pipeline(PipelineSchedule::gpipe, 2, 0, StageTimes(1, 1, 0)), tpusim::InputError);
  CHECK_THROWS_AS(StageTimes(-1, 1, 0), tpusim::InputError);
  CHECK_THROWS_AS(pipeline_bubble_fraction(2, 0), tpusim::InputError);
  CHECK(pipeline_schedules().parse("1f1b") == PipelineSchedule::one_forward_one_backward);
  CHECK_THROWS_AS(pipeline_schedules().parse("1f2b"), tpusim::InputError);
}
