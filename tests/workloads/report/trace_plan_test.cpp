// Which chips a run's trace shows (trace_plan.hpp, trace_selection.hpp): the default collapses the chips the
// simulation does not tell apart into one process and gives each kind of fault its own, every chip standing
// in exactly one; all and the first N; the option's values and its one-line errors.
#include "workloads/report/trace_plan.hpp"

#include <catch2/catch.hpp>
#include <set>

#include "topologies/presets.hpp"
#include "topologies/rank_mapping.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/report/chip_faults.hpp"

using namespace tpusim::workloads;
using tpusim::InputError;
using tpusim::topo::chip_id;
using tpusim::topo::topology_from_spec;

namespace {

std::vector<int> chips_from(int first, int end) {
  std::vector<int> chips;
  for (int chip = first; chip < end; ++chip) chips.push_back(chip);
  return chips;
}

// Every chip of the pod in exactly one process's chips, and left out exactly when it is not a process's own.
void check_every_chip_stands_once(const TracePlan& plan) {
  std::multiset<int> stood, shown;
  for (const auto& process : plan.processes) {
    REQUIRE_FALSE(process.chips.empty());
    CHECK(process.chips.front() == process.chip);
    stood.insert(process.chips.begin(), process.chips.end());
    shown.insert(process.chip);
  }
  std::multiset<int> expected_left_out;
  for (int chip = 0; chip < plan.pod_chips; ++chip) {
    if (shown.count(chip) == 0) expected_left_out.insert(chip);
  }
  CHECK(std::multiset<int>(plan.left_out.begin(), plan.left_out.end()) == expected_left_out);
  if (plan.selection.mode == TraceChipsMode::classes) {
    const auto all = chips_from(0, plan.pod_chips);
    CHECK(stood == std::multiset<int>(all.begin(), all.end()));
  }
}

std::string parse_error(const std::string& text) {
  try {
    parse_trace_selection(text);
  } catch (const InputError& error) {
    return error.what();
  }
  return "no error";
}

}  // namespace

TEST_CASE("trace plan: on a healthy pod one chip stands for all, which run the same timeline") {
  const auto pod = topology_from_spec("tpu-v2-pod");
  const TracePlan plan = plan_trace(pod, {});
  REQUIRE(plan.processes.size() == 1);
  CHECK(plan.processes[0].chip == 0);
  CHECK(plan.processes[0].chips == chips_from(0, 256));
  CHECK(plan.processes[0].faults == "healthy");
  CHECK(plan.left_out == chips_from(1, 256));
  check_every_chip_stands_once(plan);
  CHECK(
      plan.summary() ==
      ": chip 0's tracks, standing for all 256 chips, which run the same timeline; --trace-chips all writes "
      "every chip");
}

TEST_CASE("trace plan: each kind of fault is a class of its own, holding every chip it touches") {
  // Chip (3,4) straggles; the link from (15,2) to its + neighbour along x, the wraparound to (0,2), is down;
  // the link from (7,7) along y, to (7,8), is slow.
  const auto pod =
      topology_from_spec("tpu-v2-pod").with_faults("straggler:3.4:1.5;down:15.2+x;slow:7.7+y:0.5");
  const int straggler = chip_id(pod, {3, 4});
  const int down_from = chip_id(pod, {15, 2}), down_to = chip_id(pod, {0, 2});
  const int slow_from = chip_id(pod, {7, 7}), slow_to = chip_id(pod, {7, 8});
  const TracePlan plan = plan_trace(pod, {});
  check_every_chip_stands_once(plan);
  REQUIRE(plan.processes.size() == 4);
  // The healthy chips first, then by lowest chip: the down link's (chip 32 = (0,2)), the straggler (67), the
  // slow link's (119).
  CHECK(plan.processes[0].faults == "healthy");
  CHECK(plan.processes[0].chips.size() == 256 - 5);
  CHECK(plan.processes[1].faults == "at a down link");
  CHECK(plan.processes[1].chips == std::vector<int>{down_to, down_from});
  CHECK(plan.processes[2].faults == "straggler 1.5x slower");
  CHECK(plan.processes[2].chips == std::vector<int>{straggler});
  CHECK(plan.processes[3].faults == "at a slow link");
  CHECK(plan.processes[3].chips == std::vector<int>{slow_from, slow_to});
  CHECK(plan.summary() ==
        ": 4 track sets for the 256 chips, one per class: 251 healthy, 2 at a down link, 1 straggler 1.5x "
        "slower, 2 at a slow link; --trace-chips all writes every chip");
  const auto faults = faults_by_chip(pod);
  CHECK(faults[std::size_t(down_to)].detail(pod) == "link 15.2+x down");
  CHECK(faults[std::size_t(slow_to)].detail(pod) == "link 7.7+y at 0.5 bandwidth");
  CHECK(faults[0].detail(pod) == "healthy");
}

TEST_CASE("trace plan: a chip with two kinds of fault is a class apart from chips with one") {
  const auto pod = topology_from_spec("tpu-v2-32").with_faults("straggler:1.1:2;slow:1.1+x:0.5");
  const TracePlan plan = plan_trace(pod, {});
  check_every_chip_stands_once(plan);
  REQUIRE(plan.processes.size() == 3);
  CHECK(plan.processes[1].faults == "straggler 2x slower and at a slow link");
  CHECK(plan.processes[1].chips == std::vector<int>{chip_id(pod, {1, 1})});
  CHECK(plan.processes[2].chips == std::vector<int>{chip_id(pod, {2, 1})});
}

TEST_CASE("trace plan: all writes every chip, N the first N, and says what it left out") {
  const auto pod = topology_from_spec("tpu-v2-32").with_faults("straggler:1.0:1.5");
  const TracePlan all = plan_trace(pod, {TraceChipsMode::all, 0});
  REQUIRE(all.processes.size() == 16);
  for (int chip = 0; chip < 16; ++chip)
    CHECK(all.processes[std::size_t(chip)].chips == std::vector<int>{chip});
  CHECK(all.processes[1].faults == "straggler 1.5x slower");
  CHECK(all.left_out.empty());
  CHECK(all.summary().empty());
  check_every_chip_stands_once(all);

  const TracePlan first = plan_trace(pod, {TraceChipsMode::first, 4});
  REQUIRE(first.processes.size() == 4);
  CHECK(first.processes.back().chip == 3);
  CHECK(first.left_out == chips_from(4, 16));
  CHECK(first.summary() ==
        ": chips 0-3 of 16, which all run the same timeline; --trace-chips all writes every chip");
  check_every_chip_stands_once(first);
  CHECK(plan_trace(pod, {TraceChipsMode::first, 1}).summary().substr(0, 18) == ": chip 0 of 16, wh");
  // More chips than the pod has: every chip, nothing left out.
  CHECK(plan_trace(pod, {TraceChipsMode::first, 100}).processes.size() == 16);
  CHECK(plan_trace(pod, {TraceChipsMode::first, 100}).summary().empty());
  // A pod of one chip: its one process is the whole pod, in every mode.
  CHECK(plan_trace(topology_from_spec("torus:1,cores=2,bw=62GBps,lat=1us"), {}).summary().empty());
}

TEST_CASE("trace selection: classes, all, N or 0 for all, and anything else is one line naming the choices") {
  CHECK(parse_trace_selection("classes").mode == TraceChipsMode::classes);
  CHECK(parse_trace_selection("all").mode == TraceChipsMode::all);
  CHECK(parse_trace_selection("0").mode == TraceChipsMode::all);
  const auto first = parse_trace_selection("4");
  CHECK(first.mode == TraceChipsMode::first);
  CHECK(first.first_chips == 4);
  CHECK(to_string(first) == "first 4");
  CHECK(to_string(TraceSelection{}) == "classes");
  const std::string expected =
      " is not a choice of chips: expected classes (one track set per class of chips), all, or how many of "
      "the first chips to write (1 to 65536; 0 is all)";
  for (const std::string bad : {"abc", "-1", "1.5", "65537", " 4", "ALL", "class", ""}) {
    INFO(bad);
    CHECK(parse_error(bad) == "'" + bad + "'" + expected);
  }
}

TEST_CASE("chip ranges: runs of consecutive chips as first-last") {
  CHECK(chip_ranges({}) == "");
  CHECK(chip_ranges({7}) == "7");
  CHECK(chip_ranges({0, 1, 2, 4, 6, 7}) == "0-2, 4, 6-7");
}
