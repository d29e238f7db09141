// The step explanation (tpusim run --explain): a hand-made timeline whose shares are computed by hand, and a
// simulated step whose parts must add up to its time, whose bounds must be the roofline terms recomputed here
// from each op's FLOPs and bytes, and whose waits must be the compute steps that started late, at the end of
// a collective.
#include "workloads/report/step_explanation.hpp"

#include <catch2/catch.hpp>
#include <sstream>

#include "workloads/config/preset_catalog.hpp"
#include "workloads/training_run.hpp"

using namespace tpusim;
using namespace tpusim::workloads;

namespace {

mtf::TimelineEntry compute(int step, int op, const std::string& label, const std::string& family,
                           double start_us, double end_us, double overhead_us, mtf::ComputeBound bound) {
  mtf::TimelineEntry e;
  e.step = step;
  e.op = op;
  e.label = label;
  e.family = family;
  e.start_s = start_us * 1e-6;
  e.end_s = end_us * 1e-6;
  e.overhead_s = overhead_us * 1e-6;
  e.bound = bound;
  e.flops = 1000 * (end_us - start_us);
  e.hbm_bytes = 10 * (end_us - start_us);
  return e;
}

double share(const std::vector<TimeShare>& shares, const std::string& name) {
  for (const auto& s : shares) {
    if (s.name == name) return s.time_s;
  }
  return -1;
}

}  // namespace

TEST_CASE("explain: a hand-made step splits into its bounds, op kinds, longest ops and waits") {
  using mtf::ComputeBound;
  mtf::Timeline timeline;
  timeline.entries.push_back(compute(0, 1, "einsum_1", "einsum", 0, 10, 1, ComputeBound::flop_rate));
  mtf::TimelineEntry comm;
  comm.step = 1;
  comm.op = 1;
  comm.label = "allreduce[model] einsum_1";
  comm.family = "allreduce";
  comm.is_comm = true;
  comm.start_s = 10e-6;
  comm.end_s = 30e-6;
  timeline.entries.push_back(comm);
  timeline.entries.push_back(compute(2, 2, "binary_2", "binary", 30, 34, 1, ComputeBound::hbm_bandwidth));
  timeline.entries.back().waited_for = 1;
  timeline.entries.push_back(
      compute(3, 1, "einsum_1/second", "einsum", 34, 40, 0, ComputeBound::hbm_bandwidth));
  mtf::finalize_timeline(timeline);

  const auto x = explain_step(timeline, 1e9);
  // By hand: FLOP rate 10 - 1 us; HBM 4 - 1 + 6 us; overhead 1 + 1 us; the allreduce overlaps no compute: 20
  // us exposed; 40 us in all, nothing idle.
  CHECK(x.step_time_s == Approx(40e-6));
  CHECK(share(x.by_bound, "FLOP rate") == Approx(9e-6));
  CHECK(share(x.by_bound, "HBM bandwidth") == Approx(9e-6));
  CHECK(share(x.by_bound, "per-op overhead") == Approx(2e-6));
  CHECK(share(x.by_bound, "exposed communication") == Approx(20e-6));
  CHECK(share(x.by_bound, "idle") == Approx(0).margin(1e-15));
  REQUIRE(x.by_family.size() == 3);
  CHECK(x.by_family[0].name == "allreduce (exposed)");
  CHECK(x.by_family[1].name == "einsum");
  CHECK(x.by_family[1].time_s == Approx(16e-6));
  CHECK(x.by_family[2].name == "binary");
  // The einsum's two steps are one op: 16 us, mostly (9 of 15 us) at the FLOP rate.
  REQUIRE(x.top_ops.size() == 2);
  CHECK(x.top_ops[0].op == "einsum_1");
  CHECK(x.top_ops[0].steps == 2);
  CHECK(x.top_ops[0].time_s == Approx(16e-6));
  CHECK(x.top_ops[0].flops == Approx(16000));
  CHECK(x.top_ops[0].bound == "FLOP rate");
  CHECK(x.top_ops[1].bound == "HBM bandwidth");
  REQUIRE(x.waits.size() == 1);
  CHECK(x.waits[0].exposed_s == Approx(20e-6));
  CHECK(x.waits[0].waiting_op == "binary_2");
  std::ostringstream text;
  print_explanation(text, x);
  CHECK(text.str().find("allreduce[model] einsum_1") != std::string::npos);
  CHECK(explanation_json(x).at("exposed_collectives")[0].at("waiting_op") == "binary_2");
}

TEST_CASE("explain: a simulated step's parts add up and name the roofline term of every op") {
  // Each op its own kernel (loop fusion only fuses elementwise chains, each step keeping its own roofline),
  // so that every entry's time can be recomputed from its own FLOPs and bytes; XLA's fusions charge a
  // kernel's whole time to its last op (tests/mesh_tf/fusion_test.cpp).
  RunConfig config = load_preset("tiny-lm");
  config.hardware.fusion = mtf::FusionPolicy::loop;
  const RunReport report = run_training(config);
  const auto& timeline = report.timeline;
  const auto& device = config.hardware.device;
  const auto x = explain_step(timeline, device.peak_flops(), 1000000);
  double sum = 0;
  for (const auto& s : x.by_bound) sum += s.time_s;
  CHECK(sum == Approx(timeline.step_time_s).epsilon(1e-12));
  double ops_s = 0;
  for (const auto& op : x.top_ops) ops_s += op.time_s;
  CHECK(ops_s == Approx(timeline.compute_s).epsilon(1e-12));

  double previous_end = 0;
  int waited = 0, on_matrix_unit = 0;
  std::vector<const mtf::TimelineEntry*> compute;
  for (const auto& e : timeline.entries) {
    if (!e.is_comm) compute.push_back(&e);
  }
  std::sort(compute.begin(), compute.end(),
            [](const auto* a, const auto* b) { return a->start_s < b->start_s; });
  for (const auto* e : compute) {
    INFO(e->label);
    // The roofline terms, recomputed: the larger one is the bound, except that a matmul on the matrix
    // unit takes at least its FLOPs at the peak rate and longer than its bytes. Other work runs on the
    // vector unit, 2048 operations a cycle (tiny-lm's transcendentals cost one operation each).
    const double peak_s = e->flops / device.peak_flops(), byte_s = e->hbm_bytes / device.hbm_bandwidth_Bps();
    const double flop_s = e->flops / (2048 * device.clock_Hz());
    const double duration_s = e->end_s - e->start_s, slack_s = 1e-12 * timeline.step_time_s;
    if (e->bound == mtf::ComputeBound::matrix_unit) {
      ++on_matrix_unit;
      CHECK(duration_s >= e->overhead_s + peak_s - slack_s);
      CHECK(duration_s >= e->overhead_s + byte_s - slack_s);
    } else {
      CHECK(e->bound ==
            (byte_s > flop_s ? mtf::ComputeBound::hbm_bandwidth : mtf::ComputeBound::vector_unit));
      // Durations come back as end - start of times in the step: exact to a few ulps of the step time.
      CHECK(duration_s == Approx(e->overhead_s + std::max(flop_s, byte_s)).epsilon(1e-12).margin(slack_s));
    }
    // The compute stream starts a step late only when it waited for a collective, which ended right then.
    if (e->start_s > previous_end) {
      REQUIRE(e->waited_for >= 0);
      const auto& collective = timeline.entries[e->waited_for];
      CHECK(collective.is_comm);
      CHECK(collective.end_s == e->start_s);
      ++waited;
    } else {
      CHECK(e->waited_for == -1);
    }
    previous_end = e->end_s;
  }
  CHECK(waited > 0);
  CHECK(on_matrix_unit > 0);
  int exposed = 0;
  for (const auto& e : timeline.entries) exposed += e.is_comm && e.exposed_s > 0 ? 1 : 0;
  CHECK(static_cast<int>(x.waits.size()) == exposed);
}

TEST_CASE("explain: a per-op overhead shows as its own share, once per local op") {
  RunConfig config = load_preset("tiny-lm");
  config.training.steps = 1;
  config.hardware.fusion = mtf::FusionPolicy::none;  // fused ops share one overhead (fusion_test.cpp)
  const auto& d = config.hardware.device;
  config.hardware.device = d.with_figures(d.peak_flops(), d.hbm_bandwidth_Bps(), d.hbm_bytes(), 2e-6);
  const RunReport report = run_training(config);
  int compute_ops = 0;
  for (const auto& e : report.timeline.entries) compute_ops += e.is_comm ? 0 : 1;
  REQUIRE(compute_ops > 0);
  const auto x = explain_step(report.timeline, d.peak_flops());
  CHECK(share(x.by_bound, "per-op overhead") == Approx(2e-6 * compute_ops).epsilon(1e-9));
  double sum = 0;
  for (const auto& s : x.by_bound) sum += s.time_s;
  CHECK(sum == Approx(report.timeline.step_time_s).epsilon(1e-12));
}
