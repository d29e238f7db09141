// Fuzz target: a YAML run config as `tpusim run FILE` and `tpusim search FILE` read it
// (workloads/search/search_spec.hpp: the run config of workloads/config/config_parser.hpp and its search
// section), and the same text as a --set option (KEY=VALUE), the form the Python front end's overrides take.
#include "fuzz_input.hpp"
#include "workloads/config/config_layers.hpp"
#include "workloads/search/search_spec.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = tpusim::fuzz::text_of(data, size);
  tpusim::fuzz::expect_only_input_errors([&] { tpusim::workloads::load_search_input(text, "fuzz.yaml"); });
  tpusim::fuzz::expect_only_input_errors([&] { tpusim::workloads::parse_set_option(text); });
  tpusim::fuzz::expect_only_input_errors([&] { tpusim::workloads::parse_set_option("model.d_ff=" + text); });
  return 0;
}
