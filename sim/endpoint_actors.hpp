#pragma once
// sim-private: transfers as mailbox messages between endpoint actors, one per chip (transfer_tracker.hpp).
//
// The source chip's endpoint posts the message on a mailbox whose permanent receiver is the destination
// chip's endpoint, so the message starts at once towards that host and the destination's actor never runs;
// the end is learnt from SimGrid's network model (Link's communication state signal), so no actor waits on a
// message while it is in flight. Once it has ended, the source's endpoint waits on it, which only takes it
// out of that actor's activity list: a list of its own chip's few messages, where host-to-host comms started
// from maestro all share one list (maestro_comms.hpp). Two simcalls per message.
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

// In maestro. The slot is this mechanism's; `owner` hears of the end. The source's endpoint posts the message
// later in this same instant, so it starts at the current time.
std::uint32_t start(TransferTracker& owner, simgrid::s4u::Host* src, simgrid::s4u::Host* dst,
                    std::uint64_t bytes);
void release(std::uint32_t slot);  // in maestro, after the end: the source's endpoint clears it

}  // namespace tpusim::sim::endpoint_actors
