#include "topologies/support/atomic_file.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "topologies/support/environment_error.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/leftovers.hpp"

namespace tpusim {
namespace fs = std::filesystem;
namespace {

// The nearest part of `folder` that exists: where the first missing folder would be created.
fs::path nearest_existing(const std::string& folder) {
  fs::path existing = fs::absolute(folder.empty() ? "." : folder).lexically_normal();
  std::error_code error;
  while (!fs::exists(existing, error) && existing.has_relative_path()) existing = existing.parent_path();
  return existing;
}

void create_folder(const fs::path& folder) {
  std::error_code error;
  if (folder.empty()) return;
  require_folder_path(folder.string());
  fs::create_directories(folder, error);
  if (error)
    throw EnvironmentError(fmt::format("cannot create folder '{}': {}", folder.string(), error.message()));
}

}  // namespace

void require_folder_path(const std::string& folder) {
  const fs::path existing = nearest_existing(folder);
  std::error_code error;
  if (!fs::is_directory(existing, error)) {
    throw InputError(fmt::format("cannot create folder '{}': '{}' is not a folder", folder, existing.string()));
  }
}

std::string temporary_path(const std::string& path) { return fmt::format("{}.tmp.{}", path, ::getpid()); }

void require_writable_folder(const std::string& folder) {
  // The nearest folder that exists is where the first missing one would be created; nothing is created
  // here, so that a check before bad input is found leaves nothing behind.
  require_folder_path(folder);
  const fs::path existing = nearest_existing(folder);
  // Permissions alone do not tell (root may write anywhere, except where the file system refuses), so try.
  const std::string probe = temporary_path((existing / ".tpusim-probe").string());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL, 0600);
  if (fd < 0) {
    throw EnvironmentError(
        fmt::format("cannot write in folder '{}': {}", existing.string(), std::strerror(errno)));
  }
  ::close(fd);
  ::unlink(probe.c_str());
}

void require_writable_file(const std::string& path) {
  std::error_code error;
  if (fs::is_directory(path, error)) {
    throw InputError(fmt::format("'{}' is a folder: give the path of a file to write", path));
  }
  require_writable_folder(fs::path(path).parent_path().string());
}

std::string write_problem(const std::string& folder, std::size_t bytes) {
  const std::string probe = temporary_path((fs::path(folder) / ".tpusim-probe").string());
  const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
  if (fd < 0) return std::strerror(errno);
  static const std::string zeros(65536, '\0');
  int error = 0;
  for (std::size_t done = 0; done < bytes && error == 0;) {
    const ssize_t n = ::write(fd, zeros.data(), std::min(zeros.size(), bytes - done));
    if (n > 0) done += static_cast<std::size_t>(n);
    if (n == 0) error = ENOSPC;  // a file that takes no more bytes without saying why
    if (n < 0 && errno != EINTR) error = errno;
  }
  // A file system that allocates late may take the bytes and refuse them only here.
  if (error == 0 && ::fsync(fd) != 0) error = errno;
  if (::close(fd) != 0 && error == 0) error = errno;
  ::unlink(probe.c_str());
  return error == 0 ? "" : std::strerror(error);
}

void write_file_atomically(const std::string& path, const std::function<void(std::ostream&)>& write) {
  const fs::path target(path);
  std::error_code kind_error;
  if (fs::is_directory(target, kind_error)) {
    throw InputError(fmt::format("'{}' is a folder: give the path of a file to write", path));
  }
  create_folder(target.parent_path());
  clean_leftovers(target.parent_path().string(), target.filename().string());
  // The pid keeps two processes writing the same result (a sweep's children) from sharing a temporary file.
  const std::string temporary = temporary_path(path);
  auto fail = [&](const std::string& reason) {
    throw EnvironmentError(fmt::format("cannot write '{}': {}", path, reason));
  };
  try {
    std::ofstream out(temporary, std::ios::binary | std::ios::trunc);
    if (!out) fail(std::strerror(errno));
    write(out);
    out.flush();
    if (!out) fail(std::strerror(errno));
    out.close();
    // close() is where a full disk may show first.
    if (!out) fail(std::strerror(errno));
    std::error_code error;
    fs::rename(temporary, target, error);
    if (error) fail(error.message());
  } catch (...) {
    std::remove(temporary.c_str());
    throw;
  }
}

void write_file_atomically(const std::string& path, const std::string& content) {
  write_file_atomically(path, [&](std::ostream& out) { out << content; });
}

}  // namespace tpusim
