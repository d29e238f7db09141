#pragma once
// sim-private: the transfers one driver has in flight on SimGrid, and how it learns which have ended.
//
// Transfers are started from maestro, so SimGrid owns them as it owns SimDAG's activities and reports each
// end through Activity::on_completion, naming the transfer. The driver actor sleeps on a semaphore that the
// first end of an instant releases: the same engine step at which Comm::wait_any over every transfer in
// flight would return, once SimGrid has ended every transfer of that instant. SimGrid creates the same comms
// in the same order at the same instants, so the simulated times are those of wait_any. What is saved is
// wait_any's pass over every transfer in flight at each instant (it registers with each, then leaves each)
// and a context switch per transfer started from the actor; where rounds do not run in lockstep (groups that
// are not physical rings), nothing is folded and these were up to 40% of a training step's simulation.
#include <cstdint>
#include <deque>
#include <functional>
#include <simgrid/s4u.hpp>
#include <vector>

namespace tpusim::sim {

class TransferTracker {
 public:
  TransferTracker();  // in the driver actor
  ~TransferTracker();
  TransferTracker(const TransferTracker&) = delete;
  TransferTracker& operator=(const TransferTracker&) = delete;

  // Runs `work` in maestro, in one kernel call from the driver actor.
  static void in_maestro(const std::function<void()>& work);
  // Starts a transfer and returns its slot, which is reused once released. Must run in maestro (inside
  // in_maestro): that is what makes SimGrid report its end.
  std::uint32_t start(simgrid::s4u::Host* src, simgrid::s4u::Host* dst, std::uint64_t bytes);

  // Blocks the driver actor until transfers end; `ended` becomes the slots of all that ended at that instant,
  // in no particular order. Release each before the next wait.
  void wait_for_ends(std::vector<std::uint32_t>& ended);
  void release(std::uint32_t slot);
  std::size_t in_flight() const { return in_flight_; }

 private:
  struct Entry {
    simgrid::s4u::CommPtr comm;
    std::uint32_t slot = 0;
    TransferTracker* owner = nullptr;
  };
  static void on_completion(const simgrid::s4u::Activity& activity);

  std::deque<Entry> entries_;  // a deque: each comm's data points at its entry
  std::vector<std::uint32_t> free_slots_;
  std::vector<std::uint32_t> ended_;
  simgrid::s4u::SemaphorePtr wake_;
  bool waiting_ = false;
  std::size_t in_flight_ = 0;
};

}  // namespace tpusim::sim
