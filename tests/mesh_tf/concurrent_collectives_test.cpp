// The concurrent overlap policy (overlap_policy.hpp, step_schedule.hpp): collectives along disjoint mesh
// dimensions run at the same time, on one simulated clock, contending where they share links. The sim tests
// check the shared clock against hand computations of fair sharing; these check how a step uses it.
#include <algorithm>
#include <catch2/catch.hpp>

#include "mesh_tf/execution.hpp"
#include "tests/mesh_tf/battery.hpp"
#include "tests/mesh_tf/sim_for_tests.hpp"
#include "tests/mesh_tf/two_layer.hpp"
#include "topologies/presets.hpp"

using namespace tpusim::mtf;
using namespace tpusim::mtf::testing;

namespace {

StepResult run_two_layer(tpusim::sim::Simulator* simulator, bool numerics, const std::string& mesh,
                         const std::string& rules, const std::string& mapping, OverlapPolicy overlap) {
  auto t = two_layer_example(64, 128, 256);
  ExecutionOptions options;
  options.numerics = numerics;
  options.overlap = overlap;
  options.mapping = MappingSpec::parse(mapping);
  options.outputs = {t.y, t.grads[0], t.grads[1], t.grads[2]};
  Executor executor(*t.graph, MeshShape::parse(mesh), LayoutRules::parse(rules), simulator, options);
  executor.feed(t.x, random_values(64 * 128, 1));
  executor.feed(t.dy, random_values(64 * 128, 2));
  return executor.run({t.y});
}

std::vector<const TimelineEntry*> collectives(const Timeline& timeline) {
  std::vector<const TimelineEntry*> out;
  for (const auto& e : timeline.entries) {
    if (e.is_comm) out.push_back(&e);
  }
  return out;
}

bool overlap_in_time(const TimelineEntry& a, const TimelineEntry& b) {
  return a.start_s < b.end_s && b.start_s < a.end_s;
}

// Each collective's duration in `concurrent` against the same collective's in `alone` (the dependencies
// policy, where every collective runs alone): the longest ratio, and whether any two overlapped.
struct Comparison {
  double longest_ratio = 0, shortest_ratio = 1e300;
  int overlapping_pairs = 0;
};

Comparison compare(const Timeline& concurrent, const Timeline& alone) {
  Comparison out;
  const auto comms = collectives(concurrent);
  for (const auto* c : comms) {
    const auto& a = alone.entries[c->step];
    REQUIRE(a.is_comm);
    const double ratio = (c->end_s - c->start_s) / (a.end_s - a.start_s);
    out.longest_ratio = std::max(out.longest_ratio, ratio);
    out.shortest_ratio = std::min(out.shortest_ratio, ratio);
    for (const auto* d : comms) {
      if (c < d && overlap_in_time(*c, *d)) {
        ++out.overlapping_pairs;
        CHECK(c->stream != d->stream);  // one stream per mesh dimension, and they differ
      }
    }
  }
  return out;
}

}  // namespace

TEST_CASE("collectives along disjoint mesh dimensions on disjoint links run at once, each as fast as alone") {
  // tpu-v2-32 under the rings mapping: cols (8) runs over the chips' cores and x links, rows (4) over y.
  auto simulator = make_test_simulator(tpusim::topo::preset("tpu-v2-32"));
  const auto alone = run_two_layer(simulator.get(), false, "rows:4;cols:8", "batch:rows;hidden:cols", "rings",
                                   OverlapPolicy::dependencies);
  const auto concurrent = run_two_layer(simulator.get(), false, "rows:4;cols:8", "batch:rows;hidden:cols",
                                        "rings", OverlapPolicy::concurrent);
  const auto comparison = compare(concurrent.timeline, alone.timeline);
  CHECK(comparison.overlapping_pairs > 0);
  CHECK(comparison.longest_ratio == Approx(1).epsilon(1e-9));
  CHECK(comparison.shortest_ratio == Approx(1).epsilon(1e-9));
  // More overlap than one stream allows: the step is no longer, and the time any collective is in flight
  // counts once.
  CHECK(concurrent.timeline.step_time_s <= alone.timeline.step_time_s);
  const auto& tl = concurrent.timeline;
  double sum = 0;
  for (const auto* c : collectives(tl)) sum += c->end_s - c->start_s;
  CHECK(tl.comm_s < sum);
  CHECK(tl.step_time_s == Approx(tl.compute_s + tl.exposed_comm_s + tl.idle_s).epsilon(1e-12));
}

TEST_CASE("collectives along disjoint mesh dimensions that share links contend and take longer") {
  // ring-8 under the linear mapping: cols groups are chips 0-3 and 4-7, rows pairs are chips four apart,
  // whose transfers cross the links the cols rings use.
  auto simulator = make_test_simulator(tpusim::topo::preset("ring-8"));
  const auto alone = run_two_layer(simulator.get(), false, "rows:2;cols:4", "batch:rows;hidden:cols",
                                   "linear", OverlapPolicy::dependencies);
  const auto concurrent = run_two_layer(simulator.get(), false, "rows:2;cols:4", "batch:rows;hidden:cols",
                                        "linear", OverlapPolicy::concurrent);
  const auto comparison = compare(concurrent.timeline, alone.timeline);
  CHECK(comparison.overlapping_pairs > 0);
  CHECK(comparison.longest_ratio > 1.01);
  // The collectives' exposed shares add up to the step's exposed time, counted once.
  double exposed = 0;
  for (const auto* c : collectives(concurrent.timeline)) exposed += c->exposed_s;
  CHECK(exposed == Approx(concurrent.timeline.exposed_comm_s).epsilon(1e-12));
  // Numerics and timing-only runs place the same collectives at the same times; the data is right either way.
  const auto numeric = run_two_layer(simulator.get(), true, "rows:2;cols:4", "batch:rows;hidden:cols",
                                     "linear", OverlapPolicy::concurrent);
  REQUIRE(numeric.timeline.entries.size() == concurrent.timeline.entries.size());
  for (std::size_t i = 0; i < numeric.timeline.entries.size(); ++i) {
    CHECK(numeric.timeline.entries[i].start_s ==
          Approx(concurrent.timeline.entries[i].start_s).epsilon(1e-12));
    CHECK(numeric.timeline.entries[i].end_s == Approx(concurrent.timeline.entries[i].end_s).epsilon(1e-12));
  }
  const auto reference = run_two_layer(nullptr, true, "single", "", "rings", OverlapPolicy::dependencies);
  REQUIRE(numeric.fetched.size() == 1);
  REQUIRE(numeric.fetched[0].size() == reference.fetched[0].size());
  for (std::size_t i = 0; i < reference.fetched[0].size(); ++i)
    CHECK(numeric.fetched[0][i] == Approx(reference.fetched[0][i]).margin(1e-4));
}

TEST_CASE("the concurrent policy is a name of the overlap table") {
  CHECK(overlap_policies().parse("concurrent") == OverlapPolicy::concurrent);
}

TEST_CASE("a timeline counts the time overlapping collectives are in flight once, by hand") {
  Timeline timeline;
  auto add = [&](bool comm, int stream, double start, double end) {
    TimelineEntry e;
    e.step = static_cast<int>(timeline.entries.size());
    e.is_comm = comm;
    e.stream = stream;
    e.start_s = start;
    e.end_s = end;
    timeline.entries.push_back(e);
  };
  add(false, 0, 0, 2);
  add(true, 1, 1, 4);
  add(false, 0, 3, 5);
  add(true, 2, 2, 6);
  add(false, 0, 7, 8);
  finalize_timeline(timeline);
  CHECK(timeline.step_time_s == 8);
  CHECK(timeline.compute_s == 5);
  CHECK(timeline.comm_s == 5);                // [1, 6)
  CHECK(timeline.exposed_comm_s == 2);        // [2, 3) and [5, 6)
  CHECK(timeline.idle_s == 1);                // [6, 7)
  // [2, 3) is exposed with both in flight, half each; [5, 6) with only the second.
  CHECK(timeline.entries[1].exposed_s == 0.5);
  CHECK(timeline.entries[3].exposed_s == 1.5);
}
