#include "workloads/report/atomic_file.hpp"

#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <stdexcept>

namespace tpusim::workloads {

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  namespace fs = std::filesystem;
  const fs::path target(path);
  std::error_code error;
  if (target.has_parent_path()) fs::create_directories(target.parent_path(), error);
  if (error)
    throw std::runtime_error(
        fmt::format("cannot create folder {}: {}", target.parent_path().string(), error.message()));
  const std::string temp = path + ".tmp";
  try {
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    if (!out) throw std::runtime_error(fmt::format("cannot write {}", temp));
    write(out);
    out.flush();
    if (!out) throw std::runtime_error(fmt::format("writing {} failed", temp));
    out.close();
    fs::rename(temp, target, error);
    if (error)
      throw std::runtime_error(fmt::format("cannot rename {} to {}: {}", temp, path, error.message()));
  } catch (...) {
    std::remove(temp.c_str());
    throw;
  }
}

void write_file_atomically(const std::string& path, const std::string& content) {
  write_file_atomically(path, [&](std::ostream& out) { out << content; });
}

}  // namespace tpusim::workloads
