// Fuzz target: a YAML run config (workloads/config/config_parser.hpp), as `tpusim run FILE` reads it.
#include "fuzz_input.hpp"
#include "workloads/config/config_parser.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = tpusim::fuzz::text_of(data, size);
  tpusim::fuzz::expect_only_input_errors([&] { tpusim::workloads::parse_run_config(text, "fuzz.yaml"); });
  return 0;
}
