#include "sim/engine/driver_actor.hpp"

#include <algorithm>
#include <limits>
#include <set>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/simix.hpp>

namespace tpusim::sim {
namespace {

namespace s4u = simgrid::s4u;

std::set<s4u::Activity*>& vetoed_activities() {
  static std::set<s4u::Activity*> vetoed;
  return vetoed;
}

// In maestro: the engine's main loop leaves at the end of this turn, without moving the clock.
void mark_paused() {
  vetoed_activities().insert(nullptr);
  simgrid::kernel::timer::Timer::set(s4u::Engine::get_clock(), [] {});
}

}  // namespace

void pause_engine() {
  simgrid::kernel::actor::simcall_answered([] { mark_paused(); });
}

bool run_engine_until(double until_s) {
  bool timer_fired = false;
  simgrid::kernel::timer::Timer* timer = nullptr;
  if (until_s < std::numeric_limits<double>::infinity()) {
    timer = simgrid::kernel::timer::Timer::set(std::max(until_s, s4u::Engine::get_clock()), [&timer_fired] {
      timer_fired = true;
      mark_paused();
    });
  }
  vetoed_activities().clear();
  s4u::Activity::set_vetoed_activities(&vetoed_activities());
  // A date rather than none: SimGrid's run() refuses to leave on a veto while actors remain.
  s4u::Engine::get_instance()->run_until(std::numeric_limits<double>::max());
  s4u::Activity::set_vetoed_activities(nullptr);  // SimGrid would veto a Comm::sendto being set up otherwise
  const bool paused = !vetoed_activities().empty();
  vetoed_activities().clear();
  // A timer left behind would pause a later run at a date that means nothing to it.
  if (timer != nullptr && !timer_fired) timer->remove();
  return paused;
}

bool run_driver(s4u::Host* host, const std::function<void()>& body) {
  bool returned = false;
  s4u::Actor::create("driver", host, [&body, &returned] {
    body();
    returned = true;
    pause_engine();
  });
  run_engine_until(std::numeric_limits<double>::infinity());
  return returned;
}

}  // namespace tpusim::sim
