#pragma once
// The test's one simulator (SimGrid allows one engine per process, and every TEST_CASE is its own process).
#include <memory>

#include "sim/simulator.hpp"

namespace tpusim::mtf::testing {

inline std::unique_ptr<sim::Simulator> make_test_simulator(const topo::Topology& topology) {
  return std::make_unique<sim::Simulator>(topology);
}

}  // namespace tpusim::mtf::testing
