#pragma once
// Reading the text files a user names (configs, sweep files). The size is bounded: a config is a few hundred
// bytes, so anything past kMaxInputFileBytes (16 MiB) is a mistake, such as /dev/zero or a data file, and is
// reported as one line instead of exhausting memory.
#include <cstddef>
#include <string>

namespace tpusim {

constexpr std::size_t kMaxInputFileBytes = std::size_t(16) << 20;

// The whole text of `path`. `what` names the kind of file in messages ("config file"). Throws InputError
// "<path>: cannot read the config file: <reason>", "<path>: is a folder, not a config file" or "<path>: the
// config file is larger than 16 MiB, the most tpusim reads".
std::string read_input_file(const std::string& path, const std::string& what);

}  // namespace tpusim
