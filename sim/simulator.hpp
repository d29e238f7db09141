#pragma once
// The simulation engine of one process. SimGrid keeps global state, so at most one Simulator exists per
// process; collectives run one after another on its clock, each timed as a clock difference.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sim/collective.hpp"
#include "topologies/support/name_table.hpp"
#include "topologies/topology.hpp"

namespace tpusim::sim {

enum class NetworkModel { ideal, lv08 };
const NameTable<NetworkModel>& network_models();  // ideal, lv08

// How SimGrid carries a transfer (sim/engine/transfer_tracker.hpp): the same simulated times either way.
enum class TransferMechanism { network_actions, maestro_comms };

struct SimOptions {
  NetworkModel network = NetworkModel::ideal;
  bool record_trace = false;  // keep every transfer for write_chrome_trace
  // Rounds whose transfers all started and ended together repeat exactly while the pattern repeats: simulate
  // one, advance the clock by the rest. Exact in the ideal model; tests compare it with folding off.
  bool fold_repeated_rounds = true;
  // Only tests change it: maestro_comms carries the same transfers through SimGrid's public interface alone.
  TransferMechanism transfers = TransferMechanism::network_actions;
  // Each collective runs in a child process forked from this engine before its clock ever moved, so every
  // time is simulated from clock 0 whatever ran before: a collective's time is then a function of the request
  // alone, bit for bit (on one long clock, end minus start rounds differently at later dates), which a cache
  // shared by many programs needs (a search). Timing only: no data, no trace, no link loads, no concurrent
  // collectives. Costs a fork per collective.
  bool isolated_collectives = false;
  // With isolated collectives: a request identical to one simulated before (every field but data and label:
  // kind, reduction, algorithms, groups, permutation, sizes) gets that result again instead of a new child.
  // Exact, since the result is a function of the request alone.
  bool remember_isolated_results = true;
  // Called while a collective runs, whenever more of its rounds have been taken up (rounds taken up so far,
  // rounds in all): how far a collective of a billion transfers is, for a progress line. Called from inside
  // the simulation, so it must be cheap and must not throw.
  std::function<void(std::size_t rounds_taken, std::size_t rounds)> on_rounds;
};

struct LinkLoad {
  std::string link;   // SimGrid link name
  double bytes = 0;   // carried in all collectives so far
  double busy_s = 0;  // bytes / bandwidth
  double bandwidth_Bps = 0;
};

class Simulator {
 public:
  // Throws InputError if a Simulator was already created in this process.
  Simulator(const topo::Topology& topology, SimOptions options = {});
  ~Simulator();
  Simulator(const Simulator&) = delete;
  Simulator& operator=(const Simulator&) = delete;

  const topo::Topology& topology() const;
  NetworkModel network() const;
  // Validates the request (InputError naming the problem) before anything is simulated.
  CollectiveResult run(const CollectiveRequest& request);
  bool isolated_collectives() const;
  // What an isolated result depends on besides the request: the platform (chips, cores, wraparound, links,
  // faults, twists) and the options, as text. Results remembered by a simulator of the same identity, built
  // from the same code, hold for this one.
  std::string identity() const;
  // The remembered isolated results, keyed by their requests (opaque bytes), and more of them to remember.
  std::vector<std::pair<std::string, CollectiveResult>> remembered_results() const;
  void remember_results(const std::vector<std::pair<std::string, CollectiveResult>>& results);

  // Collectives simulated so far by run and probe (not those started concurrently); with isolated
  // collectives, those answered from remembered results are not counted.
  std::uint64_t collectives_simulated() const;
  // The request run timing only (its data ignored) and left out of link_loads and the trace: what choosing
  // among algorithms by simulation needs (sim/algorithm_choice.hpp).
  CollectiveResult probe(const CollectiveRequest& request);
  double now_s() const;

  // Collectives that run at the same time on this clock and contend where they share links, timing only
  // (their data ignored) and left out of link_loads and the trace. start_concurrent launches one at now_s();
  // its requests run in turn. advance_concurrent runs the clock until `until_s` (infinity: no limit) or
  // until started ones end, whichever comes first, and returns the ids of those that ended (at now_s()),
  // in start order; empty when the clock reached until_s first. Nothing of their rounds is folded, since a
  // round that ran alone may not stay alone. Run and probe wait until none is in flight.
  int start_concurrent(const std::vector<CollectiveRequest>& in_turn);
  std::vector<int> advance_concurrent(double until_s);
  int concurrent_in_flight() const;
  // The platform links the request's transfers cross, sorted. Fair sharing is decided link by link, so
  // collectives whose sets are disjoint take their times alone when they run at once.
  std::vector<int> links_crossed(const CollectiveRequest& request);
  std::vector<LinkLoad> link_loads() const;                // links that carried bytes, busiest first
  void write_chrome_trace(const std::string& path) const;  // atomically; needs record_trace

 private:
  struct Impl;
  CollectiveResult run(const CollectiveRequest& request, bool recorded);
  std::unique_ptr<Impl> impl_;
};

// A result as text, every double in the shortest form that reads back to the same bits, and back (nullopt
// for text that is not one).
std::string result_text(const CollectiveResult& result);
std::optional<CollectiveResult> result_from_text(const std::string& text);

// "3.32.0": the SimGrid library this build links, for the context of result files.
std::string simgrid_version();

}  // namespace tpusim::sim
