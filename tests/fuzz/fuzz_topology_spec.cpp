// Fuzz target: a topology preset name or spec ("torus:16x16,cores=2,bw=62GBps"), as --topology and
// hardware.topology take it, with the memory check every simulation makes before building the pod.
#include "fuzz_input.hpp"
#include "topologies/presets.hpp"
#include "topologies/simulation_memory.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = tpusim::fuzz::text_of(data, size);
  tpusim::fuzz::expect_only_input_errors([&] {
    const auto topology = tpusim::topo::topology_from_spec(text);
    tpusim::topo::require_simulation_fits(topology);
  });
  return 0;
}
