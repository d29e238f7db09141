// The step scheduler (step_schedule.hpp) on hand-made programs, with a stand-in for the simulated clock whose
// sharing is simple enough to work out by hand: collectives that share links split one unit of rate equally
// (processor sharing), so one that takes d alone takes 2d while it shares with one other. Every expected time
// below is computed by hand from that rule.
#include "mesh_tf/step_schedule.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <map>
#include <set>

using namespace tpusim::mtf;

namespace {

// A program of compute and collective steps: each step reads the values listed and writes one new value.
struct ProgramBuilder {
  Program program;

  int source() {
    const int id = static_cast<int>(program.values.size());
    program.values.push_back(make_value(id, -1, "v", TensorLayout("v", Shape(), program.mesh, {}),
                                        DType::float32, {}, program.mesh));
    return id;
  }

  int add(bool comm, std::vector<int> inputs, std::vector<int> mesh_dims = {}) {
    Step step;
    step.is_comm = comm;
    step.op = static_cast<int>(program.steps.size());
    step.label = (comm ? "comm " : "compute ") + std::to_string(program.steps.size());
    step.inputs = std::move(inputs);
    step.mesh_dims = std::move(mesh_dims);
    step.output = source();
    program.values[step.output].producer_step = static_cast<int>(program.steps.size());
    program.steps.push_back(step);
    return step.output;
  }
};

// Processor sharing among collectives in flight that share links (all of them, or none).
class SharedRate final : public ConcurrentCollectives {
 public:
  SharedRate(const std::vector<double>& durations, bool shared) : durations_(durations), shared_(shared) {}

  void start(std::size_t step, double start_s) override {
    CHECK(start_s >= now_);
    run_to(start_s);
    left_[step] = durations_[step];
    ++starts_;
  }

  std::vector<std::pair<std::size_t, double>> advance(double until_s) override {
    std::vector<std::pair<std::size_t, double>> ended;
    if (left_.empty()) {
      now_ = until_s;
      return ended;
    }
    const double rate = 1.0 / static_cast<double>(left_.size());
    double least = std::numeric_limits<double>::infinity();
    for (const auto& [step, left] : left_) least = std::min(least, left);
    const double end = now_ + least / rate;
    if (end > until_s) {
      run_to(until_s);
      return ended;
    }
    run_to(end);
    for (auto it = left_.begin(); it != left_.end();) {
      if (it->second <= 1e-12) {
        ended.emplace_back(it->first, end);
        it = left_.erase(it);
      } else {
        ++it;
      }
    }
    return ended;
  }

  bool share_links(std::size_t, std::size_t) override { return shared_; }
  int starts() const { return starts_; }

 private:
  void run_to(double t) {
    if (!left_.empty()) {
      const double rate = 1.0 / static_cast<double>(left_.size());
      for (auto& [step, left] : left_) left -= (t - now_) * rate;
    }
    now_ = t;
  }

  const std::vector<double>& durations_;
  bool shared_;
  double now_ = 0;
  std::map<std::size_t, double> left_;
  int starts_ = 0;
};

struct Span {
  double start, end;
};

std::vector<Span> spans(const Timeline& timeline) {
  std::vector<Span> out;
  for (const auto& e : timeline.entries) out.push_back({e.start_s, e.end_s});
  return out;
}

void check_spans(const Timeline& timeline, const std::vector<Span>& expected) {
  const auto actual = spans(timeline);
  REQUIRE(actual.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    INFO("step " << i);
    CHECK(actual[i].start == Approx(expected[i].start).margin(1e-12));
    CHECK(actual[i].end == Approx(expected[i].end).margin(1e-12));
  }
}

}  // namespace

TEST_CASE("step schedule: two collectives ready together, along different mesh dimensions") {
  // c0 (1) -> A along dim 0 (2) -> c1 (1); c0 -> B along dim 1 (2) -> c2 (1).
  ProgramBuilder b;
  const int x = b.source();
  const int v = b.add(false, {x});
  const int a = b.add(true, {v}, {0});
  const int bb = b.add(true, {v}, {1});
  b.add(false, {a});
  b.add(false, {bb});
  const std::vector<double> durations{1, 2, 2, 1, 1};

  // One communication stream: A then B.
  check_spans(schedule_step(b.program, durations, OverlapPolicy::dependencies),
              {{0, 1}, {1, 3}, {3, 5}, {3, 4}, {5, 6}});
  // Concurrent on disjoint links: both as alone, at once.
  SharedRate disjoint(durations, false);
  check_spans(schedule_step(b.program, durations, OverlapPolicy::concurrent, &disjoint),
              {{0, 1}, {1, 3}, {1, 3}, {3, 4}, {4, 5}});
  CHECK(disjoint.starts() == 0);  // never needed the shared clock
  // Concurrent on shared links: each at half rate, both end at 1 + 4.
  SharedRate shared(durations, true);
  const auto timeline = schedule_step(b.program, durations, OverlapPolicy::concurrent, &shared);
  check_spans(timeline, {{0, 1}, {1, 5}, {1, 5}, {5, 6}, {6, 7}});
  CHECK(shared.starts() == 2);
  CHECK(timeline.entries[1].stream == 1);
  CHECK(timeline.entries[2].stream == 2);
  // Without overlap everything is in line; at 3 c1 and B are both ready, and compute goes first on a tie.
  check_spans(schedule_step(b.program, durations, OverlapPolicy::none),
              {{0, 1}, {1, 3}, {4, 6}, {3, 4}, {6, 7}});
}

namespace {

// c0 (1) -> A along `a_dim` (2); c0 -> c1 (1) -> B along `b_dim` (2); A -> c2 (1); B -> c3 (1).
Program staggered_collectives(int a_dim, int b_dim) {
  ProgramBuilder b;
  const int x = b.source();
  const int v = b.add(false, {x});
  const int a = b.add(true, {v}, {a_dim});
  const int w = b.add(false, {v});
  const int bb = b.add(true, {w}, {b_dim});
  b.add(false, {a});
  b.add(false, {bb});
  return b.program;
}

}  // namespace

TEST_CASE("step schedule: a collective that starts while another runs alone replays it from its start") {
  // A runs alone from 1; B starts at 2, when A has 1 left: both at half rate until A ends at 4, then B's
  // last 1 alone until 5.
  const std::vector<double> durations{1, 2, 1, 2, 1, 1};
  SharedRate shared(durations, true);
  check_spans(schedule_step(staggered_collectives(0, 1), durations, OverlapPolicy::concurrent, &shared),
              {{0, 1}, {1, 4}, {1, 2}, {2, 5}, {4, 5}, {5, 6}});
  CHECK(shared.starts() == 2);
  // A collective along the same mesh dimension waits for the stream instead: dim 0 for both.
  SharedRate unused(durations, true);
  check_spans(schedule_step(staggered_collectives(0, 0), durations, OverlapPolicy::concurrent, &unused),
              {{0, 1}, {1, 3}, {1, 2}, {3, 5}, {3, 4}, {5, 6}});
  CHECK(unused.starts() == 0);
}
