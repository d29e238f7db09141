// Fuzz target: a sweep file of either kind (workloads/sweep/study.hpp), every point resolved as `tpusim sweep`
// does before running anything.
#include "fuzz_input.hpp"
#include "workloads/sweep/study.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text = tpusim::fuzz::text_of(data, size);
  // A base given as a path is read from disk: an absolute one could name /dev/stdin and wait forever, or any
  // file of this machine. Reading files is tested on its own (text_file_test); here bases are presets or
  // relative paths that do not exist. YAML escapes ("\x2f") could spell a '/', so backslashes go too.
  if (text.find('/') != std::string::npos || text.find('\\') != std::string::npos) return 0;
  tpusim::fuzz::expect_only_input_errors([&] { tpusim::workloads::parse_study(text, "fuzz-sweep.yaml"); });
  return 0;
}
