#pragma once
// sim-private: the transfers one driver has in flight on SimGrid, and how it learns which have ended.
//
// Two mechanisms carry a transfer; both give the same simulated times, to the bit (tests compare them with
// each other and with Comm::wait_any):
// - network_actions (network_actions.hpp), the simulator's: the network model's action alone, no actor,
//   simcall or activity per transfer.
// - maestro_comms (maestro_comms.hpp): a host-to-host comm started from maestro, as SimDAG does, through
//   SimGrid's public interface alone; the tests' reference. SimGrid 3.32 keeps each such (detached) comm in
//   one list and scans it whenever one ends: a cost that grows as the square of the transfers in flight.
// An earlier third, a mailbox message between two actors per chip, avoided that scan at a few actor switches
// per transfer; network actions took 0.49x its time end to end on 1024 chips (64 MiB bucket2d) and 0.25x
// on 2048 (64 MiB ring per dimension, unfolded), medians of pairs (results/benchmarks.md).
#include <cstdint>
#include <functional>
#include <simgrid/s4u.hpp>
#include <vector>

#include "sim/simulator.hpp"

namespace tpusim::sim {

class TransferTracker {
 public:
  explicit TransferTracker(TransferMechanism mechanism);  // in the driver actor; one at a time
  ~TransferTracker();
  TransferTracker(const TransferTracker&) = delete;
  TransferTracker& operator=(const TransferTracker&) = delete;

  // Runs `work` in maestro, in one kernel call from the driver actor.
  void in_maestro(const std::function<void()>& work);
  // Starts a transfer and returns its slot, which is reused once released. Must run in maestro (inside
  // in_maestro), so that a batch of starts costs the driver one context switch; it starts at the current
  // time.
  std::uint32_t start(simgrid::s4u::Host* src, simgrid::s4u::Host* dst, std::uint64_t bytes);

  // Blocks the driver actor until transfers end; `ended` becomes the slots of all that ended at that instant,
  // in no particular order. Release each before the next wait.
  void wait_for_ends(std::vector<std::uint32_t>& ended);
  // Released slots are handed back with the next kernel call (in_maestro, or before waiting): one context
  // switch for a batch.
  void release(std::uint32_t slot);
  std::size_t in_flight() const { return in_flight_; }
  // Waits for every transfer in flight to end and releases it: a driver that failed leaves none behind to
  // end inside the next collective.
  void drain();

  // From the mechanism, when the transfer in `slot` has ended.
  void ended(std::uint32_t slot);

 private:
  void hand_back_released();  // in maestro

  TransferMechanism mechanism_;
  std::vector<std::uint32_t> ended_;
  std::vector<std::uint32_t> released_;
  simgrid::s4u::SemaphorePtr wake_ = simgrid::s4u::Semaphore::create(0);
  bool waiting_ = false;
  std::size_t in_flight_ = 0;
};

}  // namespace tpusim::sim
