#pragma once
// sim-private: transfers as bare actions of SimGrid's network model (transfer_tracker.hpp).
//
// A comm is a network action wrapped in SimGrid's activity machinery: a CommImpl and an s4u::Comm, a mailbox
// or a place in maestro's list of detached activities, simcalls to start and to end it. A transfer here is
// the network action alone, created by the network model from maestro, as CommImpl::start creates it: the
// same route, latency, LMM variable and sharing, so the same simulated times to the bit (a test compares them
// with Comm::wait_any), with no actor, simcall or list walk per transfer. The end is learnt from the model
// (Link's communication state signal); the action is freed when its slot is released.
//
// SimGrid 3.32 installs no header for its network model; network_actions.cpp declares the part it calls.
#include <cstdint>
#include <simgrid/s4u.hpp>

namespace tpusim::sim {
class TransferTracker;
}

namespace tpusim::sim::network_actions {

// In maestro. The slot is this mechanism's; `owner` hears of the end. Starts at the current time.
std::uint32_t start(TransferTracker& owner, simgrid::s4u::Host* src, simgrid::s4u::Host* dst,
                    std::uint64_t bytes);
void release(std::uint32_t slot);  // in maestro, after the end: frees the action, the slot may be reused

}  // namespace tpusim::sim::network_actions
