#pragma once
// sim-private: transfers as mailbox messages between endpoint actors, one per chip (transfer_tracker.hpp).
//
// The source chip's endpoint posts the message and the destination chip's endpoint receives it; the end is
// learnt from SimGrid's network model (Link's communication state signal), so no actor waits on a message
// while it is in flight. Once it has ended, each endpoint waits on its side, which only takes it out of that
// actor's activity list: a list of its own chip's few messages, where host-to-host comms started from maestro
// all share one list (maestro_comms.hpp).
//
// Endpoints are created when a chip first sends or receives and kept for the rest of the process: the
// Simulator pauses its engine between collectives instead of running it dry, which would end them
// (driver_actor.hpp).
#include <cstdint>
#include <simgrid/s4u.hpp>

namespace tpusim::sim {
class TransferTracker;
}

namespace tpusim::sim::endpoint_actors {

// In maestro. The slot is this mechanism's; `owner` hears of the end. Both endpoints post the message later
// in this same instant, so it starts at the current time.
std::uint32_t start(TransferTracker& owner, simgrid::s4u::Host* src, simgrid::s4u::Host* dst,
                    std::uint64_t bytes);
void release(std::uint32_t slot);  // in maestro, after the end: the endpoints clear it, then reuse the slot

}  // namespace tpusim::sim::endpoint_actors
