#pragma once
// sim-private: the transfers one driver has in flight on SimGrid, and how it learns which have ended.
//
// Each transfer is a mailbox message from an endpoint actor on its source host to the endpoint actor of its
// destination host; the tracker learns of its end from SimGrid's network model (Link's communication state
// signal), so no actor waits on it while it is in flight. Why not host-to-host comms started from maestro
// (Comm::sendto_init), as SimDAG does: SimGrid 3.32 keeps each such (detached) comm in maestro's activity
// list and takes it out with a std::list::remove when it ends, a pass over every transfer in flight. With
// every core of a 16384-core pod sending at once that pass was over 90% of a simulation and grew as the
// square of the pod. An endpoint's list holds only its own host's few messages: once one has ended, the
// endpoint waits on it, which takes it out of that short list.
//
// Endpoints are created when a host first sends or receives and kept for the rest of the process: the
// Simulator pauses its engine between collectives instead of running it dry (which would end them).
#include <cstdint>
#include <functional>
#include <simgrid/s4u.hpp>
#include <vector>

namespace tpusim::sim {

class TransferTracker {
 public:
  TransferTracker() = default;  // in the driver actor; one at a time
  ~TransferTracker();
  TransferTracker(const TransferTracker&) = delete;
  TransferTracker& operator=(const TransferTracker&) = delete;

  // Runs `work` in maestro, in one kernel call from the driver actor.
  void in_maestro(const std::function<void()>& work);
  // Starts a transfer and returns its slot, which is reused once released. Must run in maestro (inside
  // in_maestro), so that a batch of starts costs the driver one context switch. The endpoints post it later
  // in this same instant, so it starts at the time the driver chose.
  std::uint32_t start(simgrid::s4u::Host* src, simgrid::s4u::Host* dst, std::uint64_t bytes);

  // Blocks the driver actor until transfers end; `ended` becomes the slots of all that ended at that instant,
  // in no particular order. Release each before the next wait.
  void wait_for_ends(std::vector<std::uint32_t>& ended);
  // The slot's messages are cleared from their endpoints with the next kernel call (in_maestro, or before
  // waiting): one context switch for a batch.
  void release(std::uint32_t slot);
  std::size_t in_flight() const { return in_flight_; }
  // Waits for every transfer in flight to end and releases it: a driver that failed leaves none behind to
  // end inside the next collective.
  void drain();

  // From the network model, when the message of `slot` has arrived.
  void ended(std::uint32_t slot);

 private:
  void clear_released();  // in maestro

  std::vector<std::uint32_t> ended_;
  std::vector<std::uint32_t> released_;
  simgrid::s4u::SemaphorePtr wake_ = simgrid::s4u::Semaphore::create(0);
  bool waiting_ = false;
  std::size_t in_flight_ = 0;
};

}  // namespace tpusim::sim
