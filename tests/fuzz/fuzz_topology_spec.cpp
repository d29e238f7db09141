// Fuzz target: a topology preset name or spec ("torus:16x16,cores=2,bw=62GBps"), as --topology and
// hardware.topology take it, with the memory check every simulation makes before building the pod; after a
// '|', faults as --faults and hardware.faults take them ("tpu-v2-32|down:1.2+x;random:3:7").
#include "fuzz_input.hpp"
#include "topologies/presets.hpp"
#include "topologies/simulation_memory.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = tpusim::fuzz::text_of(data, size);
  tpusim::fuzz::expect_only_input_errors([&] {
    const auto bar = text.find('|');
    const auto topology = tpusim::topo::topology_from_spec(text.substr(0, bar));
    tpusim::topo::require_simulation_fits(topology);
    if (bar != std::string::npos) topology.with_faults(text.substr(bar + 1));
  });
  return 0;
}
