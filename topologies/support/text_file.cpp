#include "topologies/support/text_file.hpp"

#include <fmt/format.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "topologies/support/input_error.hpp"
#include "topologies/support/units.hpp"

namespace tpusim {

std::string read_input_file(const std::string& path, const std::string& what) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error)) {
    throw InputError(fmt::format("{}: is a folder, not a {}", path, what));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(fmt::format("{}: cannot read the {}: {}", path, what, std::strerror(errno)));
  std::string text;
  // Read in chunks, never more than the limit plus one byte, so that an endless file stops being read.
  char chunk[65536];
  while (in && text.size() <= kMaxInputFileBytes) {
    in.read(chunk,
            static_cast<std::streamsize>(std::min(sizeof chunk, kMaxInputFileBytes + 1 - text.size())));
    text.append(chunk, static_cast<std::size_t>(in.gcount()));
  }
  if (text.size() > kMaxInputFileBytes) {
    throw InputError(fmt::format("{}: the {} is larger than {}, the most tpusim reads", path, what,
                                 format_bytes(double(kMaxInputFileBytes))));
  }
  if (in.bad()) throw InputError(fmt::format("{}: cannot read the {}: {}", path, what, std::strerror(errno)));
  return text;
}

}  // namespace tpusim
