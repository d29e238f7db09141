#include "sim/driver_actor.hpp"

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

void pause_engine() {
  simgrid::kernel::actor::simcall_answered([] {
    vetoed_activities().insert(nullptr);
    simgrid::kernel::timer::Timer::set(s4u::Engine::get_clock(), [] {});
  });
}

}  // namespace

bool run_driver(s4u::Host* host, const std::function<void()>& body) {
  bool returned = false;
  s4u::Actor::create("driver", host, [&body, &returned] {
    body();
    returned = true;
    pause_engine();
  });
  vetoed_activities().clear();
  s4u::Activity::set_vetoed_activities(&vetoed_activities());
  // A date rather than none: SimGrid's run() refuses to leave on a veto while actors remain.
  s4u::Engine::get_instance()->run_until(std::numeric_limits<double>::max());
  s4u::Activity::set_vetoed_activities(nullptr);  // SimGrid would veto a Comm::sendto being set up otherwise
  vetoed_activities().clear();
  return returned;
}

}  // namespace tpusim::sim
