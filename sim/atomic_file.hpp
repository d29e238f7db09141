#pragma once
// Result files are written whole or not at all: to a temporary file beside the target, then renamed.
#include <string>

namespace tpusim::sim {

// Creates missing parent directories; InputError naming the path when it cannot be written.
void write_file_atomically(const std::string& path, const std::string& content);

}  // namespace tpusim::sim
