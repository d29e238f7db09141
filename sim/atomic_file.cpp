#include "sim/atomic_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "topologies/support/input_error.hpp"

namespace tpusim::sim {

void write_file_atomically(const std::string& path, const std::string& content) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code error;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), error);
  if (error)
    throw InputError(
        fmt::format("cannot create directory '{}': {}", target.parent_path().string(), error.message()));
  const std::string temporary = fmt::format("{}.tmp.{}", path, ::getpid());
  {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    out << content;
    out.flush();
    if (!out) {
      std::remove(temporary.c_str());
      throw InputError(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    }
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const std::string reason = std::strerror(errno);
    std::remove(temporary.c_str());
    throw InputError(fmt::format("cannot write '{}': {}", path, reason));
  }
}

}  // namespace tpusim::sim
