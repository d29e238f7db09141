#include "workloads/sweep/record_folder.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "topologies/support/atomic_file.hpp"
#include "topologies/support/atomic_folder.hpp"
#include "topologies/support/environment_error.hpp"
#include "topologies/support/folder_lock.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/leftovers.hpp"
#include "workloads/report/sweep_plots.hpp"
#include "workloads/sweep/folder_json.hpp"
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

// Besides the outputs (and the study's own report files): their temporaries, the lock of plots/ (a sweep
// killed while drawing leaves it), and the probe of a writer killed while trying the folder.
bool is_output_entry(const std::string& entry, const std::vector<std::string>& report_files) {
  if (entry == "points" || entry.rfind(".tpusim-probe.tmp.", 0) == 0) return true;
  std::vector<std::string> names = sweep_output_entries();
  names.insert(names.end(), report_files.begin(), report_files.end());
  for (const auto& name : names) {
    if (entry == name || entry.rfind(name + ".tmp.", 0) == 0 || entry == lock_file_name(name)) return true;
  }
  return false;
}

void check_output_folder(const fs::path& folder, const std::vector<std::string>& report_files) {
  std::error_code error;
  const auto status = fs::symlink_status(folder, error);
  if (!fs::exists(status)) return;
  if (!fs::is_directory(status))
    throw InputError(fmt::format("results folder '{}' exists and is not a folder", folder.string()));
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string entry = it->path().filename().string();
    if (!is_output_entry(entry, report_files)) {
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

// The text of `path`: 0, or the errno of the failure (ENOENT: no such file); EFBIG for a file larger than any
// record or manifest, which is not read.
int read_small_file(const std::string& path, std::string& text) {
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return errno;
  struct stat status {};
  int error = 0;
  if (::fstat(fd, &status) != 0) {
    error = errno;
  } else if (!S_ISREG(status.st_mode)) {
    error = EISDIR;
  } else if (static_cast<std::uintmax_t>(status.st_size) > kMaxFolderJsonBytes) {
    error = EFBIG;
  } else {
    text.resize(static_cast<std::size_t>(status.st_size));
    std::size_t done = 0;
    while (done < text.size()) {
      const ssize_t n = ::read(fd, text.data() + done, text.size() - done);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) error = errno;
      if (n <= 0) break;
      done += static_cast<std::size_t>(n);
    }
    text.resize(done);
  }
  ::close(fd);
  return error;
}

std::string unreadable(int error) {
  return error == EFBIG ? fmt::format("is larger than {} MiB", kMaxFolderJsonBytes >> 20)
                        : fmt::format("cannot be read: {}", std::strerror(error));
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

RecordFolder::RecordFolder(std::string folder, const std::vector<std::string>& report_files)
    : RecordFolder(std::move(folder), Use::write, report_files) {}

RecordFolder RecordFolder::staged(const std::string& folder) {
  return RecordFolder(folder, Use::write_staged);
}

RecordFolder::RecordFolder(std::string folder, Use use, const std::vector<std::string>& report_files) {
  if (use == Use::read) {
    folder_ = std::move(folder);
    return;
  }
  const fs::path path = own_results_folder(
      folder, "a sweep's records and summary need a folder of their own, such as results/my-sweep");
  folder_ = path.string();
  // Locked before anything in it is looked at: what another writer is doing there is not a leftover.
  if (use == Use::write) lock_ = std::make_shared<FolderLock>(folder_);
  check_output_folder(path, report_files);
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
  if (use == Use::write) {
    clean_leftovers(folder_, "");
    clean_leftovers(points_folder(), "");
  }
}

RecordFolder RecordFolder::existing(const std::string& folder) {
  RecordFolder opened(fs::path(folder).lexically_normal().string(), Use::read);
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

RecordRead RecordFolder::read(const RecordFile& file) const {
  std::string text;
  const int error = read_small_file(file.path, text);
  if (error == ENOENT) return {};
  if (error != 0) return RecordRead{std::nullopt, unreadable(error)};
  return parse_record(text, file.point, file.hash);
}

std::string RecordFolder::write(const nlohmann::json& record) const {
  const std::string path =
      record_file(record.at("point").get<std::size_t>(), record.at("hash").get<std::string>()).path;
  write_whole_file(path, canonical_text(with_checksum(record)) + "\n");
  return path;
}

void RecordFolder::remove(const RecordFile& file) const {
  std::error_code ignored;
  fs::remove(file.path, ignored);
}

void RecordFolder::write_manifest(const nlohmann::json& manifest) const {
  write_whole_file(points_folder() + "/" + kManifestName, canonical_text(with_checksum(manifest)) + "\n");
}

nlohmann::json RecordFolder::read_manifest() const {
  const std::string path = points_folder() + "/" + kManifestName;
  std::string text;
  const int error = read_small_file(path, text);
  if (error != 0) throw InputError(fmt::format("{}: the sweep manifest {}", path, unreadable(error)));
  return parse_manifest(text, path);
}

}  // namespace tpusim::workloads
