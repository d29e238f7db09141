#pragma once
// sim-private: runs one collective's driver as a SimGrid actor and returns when it is done, with the engine
// paused rather than run dry.
//
// Running the engine until its actors are done would not return at the end of one of several collectives
// in flight together (Simulator::advance_concurrent), and SimGrid kills every actor left blocked when nothing
// more can happen. SimGrid 3.32 instead leaves its main loop early when an activity was vetoed (a set the
// user owns), so a driver marks the set when it returns; a timer at that instant keeps the loop's last turn
// from moving the clock, or from taking the actors still blocked for a deadlock.
#include <functional>
#include <simgrid/s4u.hpp>

namespace tpusim::sim {

// From an actor: makes the engine's current run (run_engine_until) return at this instant.
void pause_engine();
// Runs the engine until simulated time `until_s` (infinity: no limit) or until an actor pauses it, whichever
// comes first; false if it ran out of events before either (what it waited for can never happen).
bool run_engine_until(double until_s);

// Runs `body` in a new actor on `host`; false if the engine ran out of events before `body` returned (it
// waited for something that can never happen).
bool run_driver(simgrid::s4u::Host* host, const std::function<void()>& body);

}  // namespace tpusim::sim
