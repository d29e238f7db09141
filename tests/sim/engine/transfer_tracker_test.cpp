// The tracker reports the same instants, and the same transfers at each, as Comm::wait_any over every
// transfer in flight, with every mechanism: the executor's simulated times rest on it. Each variant runs in
// its own child (one engine per process), so all start at clock 0 and must agree to the last bit.
#include "sim/engine/transfer_tracker.hpp"

#include <algorithm>
#include <catch2/catch.hpp>
#include <map>
#include <optional>
#include <simgrid/s4u.hpp>
#include <sstream>

#include "sim/engine/driver_actor.hpp"
#include "sim/simulator.hpp"
#include "tests/sim/sim_test_support.hpp"
#include "topologies/presets.hpp"
#include "topologies/support/child_process.hpp"

using namespace tpusim;
namespace s4u = simgrid::s4u;

namespace {

// Transfer k of kTransfers goes from chip k to chip 5k+3 (mod 16) on a 4x4 torus, 1 to 3 MiB, so paths share
// links and some transfers end together. kFirst start at once; each end starts the next one, so starts are
// staggered.
constexpr int kTransfers = 60;
constexpr int kFirst = 12;

struct Pattern {
  std::vector<s4u::Host*> hosts;
  s4u::Host* src(int k) const { return hosts[k % 16]; }
  s4u::Host* dst(int k) const { return hosts[(5 * k + 3) % 16]; }
  static std::uint64_t bytes(int k) { return static_cast<std::uint64_t>(k % 3 + 1) << 20; }
};

// One line per instant: the clock and the transfers that ended then, in order.
void log_instant(std::ostringstream& log, std::vector<int> ended) {
  std::sort(ended.begin(), ended.end());
  log << s4u::Engine::get_clock();
  for (const int k : ended) log << ' ' << k;
  log << '\n';
}

void with_tracker(sim::TransferMechanism mechanism, const Pattern& pattern, std::ostringstream& log) {
  sim::TransferTracker tracker(mechanism);
  std::map<std::uint32_t, int> transfer_of_slot;
  int next = 0;
  auto start = [&](std::size_t count) {
    tracker.in_maestro([&] {
      for (std::size_t i = 0; i < count && next < kTransfers; ++i, ++next) {
        transfer_of_slot[tracker.start(pattern.src(next), pattern.dst(next), Pattern::bytes(next))] = next;
      }
    });
  };
  start(kFirst);
  std::vector<std::uint32_t> slots;
  while (tracker.in_flight() > 0) {
    tracker.wait_for_ends(slots);
    std::vector<int> ended;
    for (const auto slot : slots) {
      ended.push_back(transfer_of_slot.at(slot));
      tracker.release(slot);
    }
    log_instant(log, ended);
    start(ended.size());
  }
}

void with_wait_any(const Pattern& pattern, std::ostringstream& log) {
  std::vector<s4u::CommPtr> comms;
  std::vector<int> transfers;
  int next = 0;
  auto start = [&](std::size_t count) {
    for (std::size_t i = 0; i < count && next < kTransfers; ++i, ++next) {
      comms.push_back(s4u::Comm::sendto_async(pattern.src(next), pattern.dst(next), Pattern::bytes(next)));
      transfers.push_back(next);
    }
  };
  start(kFirst);
  while (!comms.empty()) {
    s4u::Comm::wait_any(comms);
    std::vector<int> ended;
    for (std::size_t i = comms.size(); i-- > 0;) {
      if (comms[i]->get_finish_time() < 0) continue;
      ended.push_back(transfers[i]);
      comms.erase(comms.begin() + static_cast<std::ptrdiff_t>(i));
      transfers.erase(transfers.begin() + static_cast<std::ptrdiff_t>(i));
    }
    log_instant(log, ended);
    start(ended.size());
  }
}

// With no mechanism: Comm::wait_any over host-to-host comms, the reference.
std::string run_pattern(std::optional<sim::TransferMechanism> mechanism) {
  return run_in_child([mechanism] {
           const auto topology = topo::topology_from_spec("torus-4x4");
           sim::Simulator simulator(topology);  // configures the engine and builds the platform
           auto* engine = s4u::Engine::get_instance();
           Pattern pattern;
           for (int chip = 0; chip < 16; ++chip)
             pattern.hosts.push_back(engine->host_by_name("chip-" + std::to_string(chip)));
           std::ostringstream log;
           log.precision(17);
           if (mechanism) {
             if (!sim::run_driver(pattern.hosts[0], [&] { with_tracker(*mechanism, pattern, log); }))
               log << "never returned\n";
           } else {
             s4u::Actor::create("driver", pattern.hosts[0], [&] { with_wait_any(pattern, log); });
             engine->run();
           }
           return log.str();
         })
      .output;
}

}  // namespace

TEST_CASE("the tracker sees the instants and the transfers ending at each that wait_any sees, to the bit") {
  const std::string waited = run_pattern(std::nullopt);
  const std::string tracked = run_pattern(sim::TransferMechanism::network_actions);
  CHECK(tracked == waited);
  CHECK(run_pattern(sim::TransferMechanism::maestro_comms) == waited);
  // The pattern is worth checking: every transfer ended, at fewer instants than transfers.
  std::istringstream lines(tracked);
  int instants = 0, ended = 0;
  for (std::string line; std::getline(lines, line); ++instants) {
    std::istringstream words(line);
    double clock = 0;
    words >> clock;
    for (int k = 0; words >> k;) ++ended;
  }
  CHECK(ended == kTransfers);
  CHECK(instants < kTransfers);
  CHECK(instants > kTransfers / 10);
}

// The engine is paused between collectives, not run dry, and the mechanisms keep their slots (and freed
// actions or comms) for the rest of the process. A later collective must start at the instant the earlier one
// ended and take as long as it takes alone in a fresh process: nothing of the earlier one may be left in
// flight.
TEST_CASE("a collective after others in one process starts where they ended and takes as long as alone") {
  const std::string spec = "torus:4x4,cores=2";
  for (const auto mechanism :
       {sim::TransferMechanism::network_actions, sim::TransferMechanism::maestro_comms}) {
    INFO("mechanism " << static_cast<int>(mechanism));
    sim::SimOptions options;
    options.transfers = mechanism;
    auto alone = sim::testing::in_child([&](std::ostream& out) {
      const auto topology = topo::topology_from_spec(spec);
      sim::Simulator simulator(topology, options);
      out << simulator.run(sim::testing::request_along(topology, "alltoall", "pairwise", "64KiB")).time_s;
    });
    double alone_s = 0;
    alone >> alone_s;

    auto after = sim::testing::in_child([&](std::ostream& out) {
      const auto topology = topo::topology_from_spec(spec);
      sim::Simulator simulator(topology, options);
      const double first_s =
          simulator.run(sim::testing::request_along(topology, "allreduce", "bidir_ring", "1MiB")).time_s;
      const double second_s =
          simulator.run(sim::testing::request_along(topology, "allgather", "ring", "4KiB", "x")).time_s;
      const double clock_before_s = simulator.now_s();
      const double third_s =
          simulator.run(sim::testing::request_along(topology, "alltoall", "pairwise", "64KiB")).time_s;
      out << first_s << ' ' << second_s << ' ' << clock_before_s << ' ' << third_s << ' '
          << simulator.now_s();
    });
    double first_s = 0, second_s = 0, clock_before_s = 0, third_s = 0, clock_after_s = 0;
    after >> first_s >> second_s >> clock_before_s >> third_s >> clock_after_s;
    REQUIRE(alone_s > 0);
    CHECK(clock_before_s == Approx(first_s + second_s).epsilon(1e-12));
    CHECK(clock_after_s == Approx(clock_before_s + third_s).epsilon(1e-12));
    CHECK(third_s == Approx(alone_s).epsilon(1e-12));
  }
}

// Whole collectives with real data, contention included (the direct all-to-all, multiport's parts sharing
// on-chip links): the two mechanisms must give the same simulated time and the same data, to the bit.
TEST_CASE("every transfer mechanism gives the same collectives, time and data to the bit") {
  struct Case {
    const char* op;
    const char* algorithm;
    const char* bytes;
    const char* axes;
  };
  const Case cases[] = {{"allreduce", "bucket2d", "256KiB", "core+x,y"},
                        {"allreduce", "multiport", "96KiB", "core,x,y"},
                        {"alltoall", "direct", "64KiB", "all"},
                        {"allgather", "halving_doubling", "32KiB", "all"},
                        {"reduce_scatter", "ring", "4KiB", "x"}};
  auto run = [&](sim::TransferMechanism mechanism) {
    return sim::testing::in_child([&](std::ostream& out) {
             const auto topology = topo::topology_from_spec("torus:4x4,cores=2");
             sim::SimOptions options;
             options.transfers = mechanism;
             sim::Simulator simulator(topology, options);
             for (const Case& c : cases) {
               auto request = sim::testing::request_along(topology, c.op, c.algorithm, c.bytes, c.axes);
               auto data = sim::random_inputs(request, 11);
               request.data = &data;
               const auto result = simulator.run(request);
               std::uint64_t hash = 1469598103934665603ull;  // FNV-1a over every byte of every result buffer
               for (const auto& [rank, buffer] : data) {
                 const auto* bytes = reinterpret_cast<const unsigned char*>(buffer.data());
                 for (std::size_t i = 0; i < buffer.size() * sizeof(float); ++i)
                   hash = (hash ^ bytes[i]) * 1099511628211ull;
               }
               out << c.algorithm << ' ' << result.time_s << ' ' << hash << ' ' << result.simulated_messages
                   << '\n';
             }
           })
        .str();
  };
  const std::string actions = run(sim::TransferMechanism::network_actions);
  CHECK(std::count(actions.begin(), actions.end(), '\n') == 5);
  CHECK(actions == run(sim::TransferMechanism::maestro_comms));
}
