#include "workloads/sweep/record_folder.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "topologies/support/atomic_file.hpp"
#include "topologies/support/atomic_folder.hpp"
#include "topologies/support/environment_error.hpp"
#include "topologies/support/input_error.hpp"
#include "workloads/report/sweep_plots.hpp"
#include "workloads/sweep/sweep_record.hpp"
#include "workloads/sweep/sweep_summary.hpp"

namespace tpusim::workloads {
namespace fs = std::filesystem;
std::vector<std::string> sweep_output_entries() {
  std::vector<std::string> entries = kSweepSummaryFiles;
  entries.insert(entries.end(), kSweepPlotOutputs.begin(), kSweepPlotOutputs.end());
  return entries;
}

namespace {

constexpr const char* kManifestName = "manifest.json";

// The pid of a temporary "<name>.tmp.<pid>", or 0 for any other name.
long temporary_pid(const std::string& entry) {
  const auto at = entry.rfind(".tmp.");
  if (at == std::string::npos || at + 5 >= entry.size()) return 0;
  long pid = 0;
  for (std::size_t i = at + 5; i < entry.size(); ++i) {
    if (entry[i] < '0' || entry[i] > '9' || pid > 100000000) return 0;
    pid = pid * 10 + (entry[i] - '0');
  }
  return pid;
}

bool process_is_running(long pid) {
  if (pid <= 0 || pid != static_cast<pid_t>(pid)) return false;
  return ::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM;
}

void remove_stale_temporaries_in(const fs::path& folder) {
  std::error_code error;
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const long pid = temporary_pid(it->path().filename().string());
    std::error_code ignored;  // best effort: one that cannot be removed is tried again next time
    if (pid != 0 && !process_is_running(pid)) fs::remove_all(it->path(), ignored);
  }
}

bool is_output_entry(const std::string& entry) {
  if (entry == "points") return true;
  for (const auto& name : sweep_output_entries()) {
    if (entry == name || entry.rfind(name + ".tmp.", 0) == 0) return true;
  }
  return false;
}

void check_output_folder(const fs::path& folder) {
  std::error_code error;
  const auto status = fs::symlink_status(folder, error);
  if (!fs::exists(status)) return;
  if (!fs::is_directory(status))
    throw InputError(fmt::format("results folder '{}' exists and is not a folder", folder.string()));
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string entry = it->path().filename().string();
    if (!is_output_entry(entry)) {
      throw InputError(fmt::format(
          "results folder '{}' holds '{}', which is not a result of tpusim sweep; give an output folder of "
          "its own (new, empty or an earlier output of a sweep)",
          folder.string(), entry));
    }
  }
  if (error) {
    throw EnvironmentError(
        fmt::format("cannot read results folder '{}': {}", folder.string(), error.message()));
  }
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return {};
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

void write_whole_file(const std::string& path, const std::string& text) {
  const std::string temporary = temporary_path(path);
  const int fd = ::open(temporary.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  auto fail = [&](int error) {
    if (fd >= 0) ::close(fd);
    ::unlink(temporary.c_str());
    throw EnvironmentError(fmt::format("cannot write '{}': {}", path, std::strerror(error)));
  };
  if (fd < 0) fail(errno);
  std::size_t done = 0;
  while (done < text.size()) {
    const ssize_t n = ::write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) fail(n < 0 ? errno : ENOSPC);
    done += static_cast<std::size_t>(n);
  }
  if (::close(fd) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    throw EnvironmentError(fmt::format("cannot write '{}': {}", path, std::strerror(error)));
  }
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int error = errno;
    ::unlink(temporary.c_str());
    throw EnvironmentError(fmt::format("cannot write '{}': {}", path, std::strerror(error)));
  }
}

RecordFolder::RecordFolder(std::string folder, Unchecked) : folder_(std::move(folder)) {}

RecordFolder::RecordFolder(std::string folder) {
  const fs::path path = own_results_folder(
      folder, "a sweep's records and summary need a folder of their own, such as results/my-sweep");
  folder_ = path.string();
  check_output_folder(path);
  std::error_code error;
  fs::create_directories(path / "points", error);
  if (error)
    throw EnvironmentError(fmt::format("cannot write results folder '{}': {}", folder_, error.message()));
  // Creating a folder that exists needs no permission: try a file in each.
  for (const fs::path& place : {path, path / "points"}) {
    const std::string probe = temporary_path((place / ".tpusim-probe").string());
    const int fd = ::open(probe.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
      throw EnvironmentError(
          fmt::format("cannot write results folder '{}': {}", folder_, std::strerror(errno)));
    ::close(fd);
    ::unlink(probe.c_str());
  }
  remove_stale_temporaries_in(path);
  remove_stale_temporaries_in(path / "points");
}

RecordFolder RecordFolder::existing(const std::string& folder) {
  RecordFolder opened(fs::path(folder).lexically_normal().string(), Unchecked{});
  std::error_code error;
  if (!fs::is_directory(folder, error))
    throw InputError(fmt::format("'{}' is not a folder (expected a sweep's output folder)", folder));
  if (!fs::exists(fs::path(opened.points_folder()) / kManifestName, error)) {
    throw InputError(
        fmt::format("'{}' is not a sweep's output folder: it has no points/{} (made by tpusim "
                    "sweep when it starts)",
                    folder, kManifestName));
  }
  return opened;
}

void RecordFolder::scan(const std::function<void(RecordFile)>& visit) const {
  std::error_code error;
  for (fs::directory_iterator it(points_folder(), error), end; !error && it != end; it.increment(error)) {
    const auto parsed = parse_record_file_name(it->path().filename().string());
    if (parsed) visit(RecordFile{parsed->point, parsed->hash, it->path().string()});
  }
  if (error) {
    throw EnvironmentError(
        fmt::format("cannot read records folder '{}': {}", points_folder(), error.message()));
  }
}

RecordFile RecordFolder::record_file(std::size_t point, const std::string& hash) const {
  return RecordFile{point, hash, points_folder() + "/" + record_file_name(point, hash)};
}

std::optional<nlohmann::json> RecordFolder::read(const RecordFile& file) const {
  const std::string text = read_text(file.path);
  auto record = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (!record.is_object() || record.value("format", "") != kRecordFormat) return std::nullopt;
  if (record.value("point", nlohmann::json()) != file.point || record.value("hash", "") != file.hash)
    return std::nullopt;
  return record;
}

std::string RecordFolder::write(const nlohmann::json& record) const {
  const std::string path =
      record_file(record.at("point").get<std::size_t>(), record.at("hash").get<std::string>()).path;
  write_whole_file(path, record.dump() + "\n");
  return path;
}

void RecordFolder::remove(const RecordFile& file) const {
  std::error_code ignored;
  fs::remove(file.path, ignored);
}

void RecordFolder::write_manifest(const nlohmann::json& manifest) const {
  write_whole_file(points_folder() + "/" + kManifestName, manifest.dump() + "\n");
}

nlohmann::json RecordFolder::read_manifest() const {
  const std::string path = points_folder() + "/" + kManifestName;
  auto manifest = nlohmann::json::parse(read_text(path), nullptr, /*allow_exceptions=*/false);
  if (!manifest.is_object() || manifest.value("format", "") != kManifestFormat) {
    throw InputError(
        fmt::format("{}: not a sweep manifest of this tpusim (format {})", path, kManifestFormat));
  }
  return manifest;
}

}  // namespace tpusim::workloads
