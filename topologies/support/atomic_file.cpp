#include "topologies/support/atomic_file.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "topologies/support/input_error.hpp"

namespace tpusim {

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code error;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), error);
  if (error) {
    throw InputError(
        fmt::format("cannot create folder '{}': {}", target.parent_path().string(), error.message()));
  }
  // The pid keeps two processes writing the same result (a sweep's children) from sharing a temporary file.
  const std::string temporary = fmt::format("{}.tmp.{}", path, ::getpid());
  try {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) throw InputError(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    write(out);
    out.flush();
    if (!out) throw InputError(fmt::format("cannot write '{}': {}", path, std::strerror(errno)));
    out.close();
    fs::rename(temporary, target, error);
    if (error) throw InputError(fmt::format("cannot write '{}': {}", path, error.message()));
  } catch (...) {
    std::remove(temporary.c_str());
    throw;
  }
}

void write_file_atomically(const std::string& path, const std::string& content) {
  write_file_atomically(path, [&](std::ostream& out) { out << content; });
}

}  // namespace tpusim
