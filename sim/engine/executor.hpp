#pragma once
// sim-private: runs a Schedule on the SimGrid platform from inside one driver actor. See sim/schedule.hpp for
// the dependency rule. Data, when present, is really moved: the payload is copied from the source at the
// start of a transfer and copied or reduced into the destination at its end.
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "sim/collective.hpp"
#include "sim/engine/platform.hpp"
#include "sim/schedule.hpp"
#include "sim/simulator.hpp"

namespace tpusim::sim {

struct TraceEvent {
  topo::Rank src;  // -1 for a span of folded rounds
  topo::Rank dst;
  std::uint64_t bytes;  // for a span of folded rounds: how many rounds it stands for
  double start_s;
  double end_s;
  int label;  // index into the simulator's labels
};

struct ExecutionInput {
  const Schedule* schedule = nullptr;
  std::vector<topo::Rank> participants;  // ranks that take part (for round folding and look-ahead)
  std::uint32_t element_bytes = 4;
  ReduceOp op = ReduceOp::sum;
  Buffers* data = nullptr;
  bool reads_input =
      false;  // some transfers read the buffers as they were at the start (all-to-all, permute)
  bool fold_repeated_rounds = true;
  TransferMechanism transfers = TransferMechanism::network_actions;
  int label = 0;
  std::vector<TraceEvent>* trace = nullptr;  // null: no trace
  const std::function<void(std::size_t, std::size_t)>* on_rounds = nullptr;  // SimOptions::on_rounds
};

struct ExecutionStats {
  double start_s = 0;
  double end_s = 0;
  std::uint64_t messages = 0;            // transfers, folded ones included
  std::uint64_t simulated_messages = 0;  // transfers SimGrid simulated
  std::uint64_t folded_rounds = 0;
};

// Must run inside a SimGrid actor. link_bytes is indexed like platform.links() and grows as needed.
ExecutionStats execute(Platform& platform, const ExecutionInput& input, int num_ranks,
                       std::vector<double>& link_bytes);

}  // namespace tpusim::sim
