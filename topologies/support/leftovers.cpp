#include "topologies/support/leftovers.hpp"

#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>

#include "topologies/support/units.hpp"

namespace tpusim {
namespace fs = std::filesystem;
namespace {

// A note names at most this many entries, then how many more: a line, not a listing.
constexpr std::size_t kNamesShown = 5;

// The digits of a pid at `at` in `entry`, up to its end or (when `suffix`) a '.': the pid, or 0.
long pid_at(const std::string& entry, std::size_t at, bool suffix) {
  long pid = 0;
  std::size_t i = at;
  for (; i < entry.size() && entry[i] >= '0' && entry[i] <= '9'; ++i) {
    if (pid > 100000000) return 0;  // above any pid Linux gives (4194304)
    pid = pid * 10 + (entry[i] - '0');
  }
  if (i == at) return 0;
  return i == entry.size() || (suffix && entry[i] == '.') ? pid : 0;
}

// The program a process runs, as /proc names it; "" where it cannot tell.
std::string program_of(const std::string& pid) {
  std::ifstream in("/proc/" + pid + "/comm");
  std::string name;
  std::getline(in, name);
  return in ? name : "";
}

std::uintmax_t size_of(const fs::path& entry) {
  std::error_code error;
  const auto status = fs::symlink_status(entry, error);
  if (fs::is_regular_file(status)) return fs::file_size(entry, error);
  std::uintmax_t bytes = 0;
  if (!fs::is_directory(status)) return bytes;
  for (fs::recursive_directory_iterator it(entry, error), end; !error && it != end; it.increment(error)) {
    std::error_code ignored;
    if (it->is_regular_file(ignored)) bytes += it->file_size(ignored);
  }
  return bytes;
}

// A name as the note shows it: one line, whatever bytes it holds.
std::string printable(const std::string& name) {
  std::string shown = name;
  for (char& c : shown) {
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  }
  return shown;
}

}  // namespace

long temporary_pid(const std::string& entry, const std::string& name) {
  if (!name.empty()) {
    const std::string prefix = name + ".tmp.";
    if (entry.compare(0, prefix.size(), prefix) != 0) return 0;
    return pid_at(entry, prefix.size(), true);
  }
  // Any name: "<something>.tmp.<pid>", nothing after the pid (a suffix could be anyone's file name).
  const auto at = entry.rfind(".tmp.");
  return at == std::string::npos || at == 0 ? 0 : pid_at(entry, at + 5, false);
}

bool writer_is_gone(long pid) {
  if (pid == ::getpid()) return false;
  if (pid <= 0 || pid != static_cast<pid_t>(pid)) return true;  // no process has such a pid
  if (::kill(static_cast<pid_t>(pid), 0) != 0 && errno == ESRCH) return true;
  static const std::string own = program_of("self");
  const std::string program = program_of(std::to_string(pid));
  return !own.empty() && !program.empty() && program != own;
}

Leftovers remove_leftovers(const std::string& folder, const std::string& name) {
  Leftovers removed;
  std::error_code error;
  for (fs::directory_iterator it(folder.empty() ? "." : folder, error), end; !error && it != end;
       it.increment(error)) {
    const std::string entry = it->path().filename().string();
    const long pid = temporary_pid(entry, name);
    if (pid == 0 || !writer_is_gone(pid)) continue;
    const std::uintmax_t bytes = size_of(it->path());
    std::error_code ignored;
    fs::remove_all(it->path(), ignored);
    if (ignored) continue;
    removed.names.push_back(entry);
    removed.bytes += bytes;
  }
  std::sort(removed.names.begin(), removed.names.end());
  return removed;
}

std::string leftovers_note(const std::string& folder, const Leftovers& removed) {
  const std::size_t n = removed.names.size();
  if (n == 0) return "";
  std::string names;
  for (std::size_t i = 0; i < n && i < kNamesShown; ++i)
    names += (i == 0 ? "" : ", ") + printable(removed.names[i]);
  if (n > kNamesShown) names += fmt::format(" and {} more", n - kNamesShown);
  return fmt::format("tpusim: note: removed {} in '{}' ({}): {}\n",
                     n == 1 ? "1 leftover of a killed run" : fmt::format("{} leftovers of killed runs", n),
                     folder.empty() ? "." : folder, format_bytes(static_cast<double>(removed.bytes)), names);
}

void clean_leftovers(const std::string& folder, const std::string& name) {
  std::cerr << leftovers_note(folder, remove_leftovers(folder, name)) << std::flush;
}

}  // namespace tpusim
