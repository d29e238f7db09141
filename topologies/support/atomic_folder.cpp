#include "topologies/support/atomic_folder.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "topologies/support/atomic_file.hpp"
#include "topologies/support/environment_error.hpp"
#include "topologies/support/folder_lock.hpp"
#include "topologies/support/input_error.hpp"
#include "topologies/support/leftovers.hpp"

namespace tpusim {
namespace fs = std::filesystem;
namespace {

// An earlier result may also hold per-file temporaries of a killed writer ("summary.json.tmp.123"), and the
// lock of a folder in it that a killed writer left (".plots.lock").
bool is_result_entry(const std::string& entry, const std::vector<std::string>& names) {
  for (const auto& name : names) {
    if (entry == name || entry.rfind(name + ".tmp.", 0) == 0 || entry == lock_file_name(name)) return true;
  }
  return false;
}

void check_replaceable(const fs::path& folder, const std::vector<std::string>& names) {
  std::error_code error;
  const auto status = fs::symlink_status(folder, error);
  if (!fs::exists(status)) return;
  if (!fs::is_directory(status)) {
    throw InputError(fmt::format("results folder '{}' exists and is not a folder", folder.string()));
  }
  for (fs::directory_iterator it(folder, error), end; !error && it != end; it.increment(error)) {
    const std::string entry = it->path().filename().string();
    if (!is_result_entry(entry, names)) {
      throw InputError(
          fmt::format("results folder '{}' holds '{}', which is not a result of tpusim; results replace the "
                      "whole folder, so give an output folder of its own (new, empty or an earlier result)",
                      folder.string(), entry));
    }
  }
  if (error) {
    throw EnvironmentError(
        fmt::format("cannot read results folder '{}': {}", folder.string(), error.message()));
  }
  // Replacing it removes its files, which needs write permission on it.
  if (::access(folder.c_str(), W_OK | X_OK) != 0) {
    throw EnvironmentError(
        fmt::format("cannot replace results folder '{}': {}", folder.string(), std::strerror(errno)));
  }
}

}  // namespace

fs::path own_results_folder(const std::string& folder, const std::string& why) {
  fs::path path = fs::path(folder).lexically_normal();
  if (!path.empty() && !path.has_filename()) path = path.parent_path();  // "results/x/" -> "results/x"
  const std::string name = path.filename().string();
  if (folder.empty() || name.empty() || name == "." || name == "..") {
    throw InputError(fmt::format("'{}' cannot be a results folder: {}", folder, why));
  }
  return path;
}

StagedFolder::StagedFolder(const std::string& folder, std::vector<std::string> result_names)
    : result_names_(std::move(result_names)) {
  const fs::path path = own_results_folder(
      folder, "results replace the whole folder, so name one of its own, such as results/my-run");
  folder_ = path.string();
  check_replaceable(path, result_names_);
  const fs::path parent = path.parent_path();
  require_folder_path(parent.string());
  std::error_code error;
  for (fs::path missing = parent; !missing.empty() && !fs::exists(missing, error);
       missing = missing.parent_path())
    created_parents_.push_back(missing.string());
  try {
    if (!parent.empty()) fs::create_directories(parent, error);
    if (error) {
      throw EnvironmentError(fmt::format("cannot create folder '{}': {}", parent.string(), error.message()));
    }
    lock_ = std::make_unique<FolderLock>(folder_);
    clean_leftovers(parent.string(), path.filename().string());
    const std::string staging = temporary_path(folder_);
    if (!fs::create_directory(staging, error) || error) {
      throw EnvironmentError(fmt::format("cannot write results folder '{}': {}", folder_,
                                         error ? error.message() : "a folder of that name exists"));
    }
    staging_ = staging;
  } catch (...) {
    discard();
    throw;
  }
}

StagedFolder::~StagedFolder() {
  if (!committed_) discard();
}

void StagedFolder::discard() {
  std::error_code ignored;
  if (!staging_.empty()) fs::remove_all(staging_, ignored);
  lock_.reset();  // its file is in the parent, which may be one of those below
  // Folders made only to hold this one go too; fs::remove leaves a folder that is not empty.
  for (const auto& folder : created_parents_) fs::remove(folder, ignored);
}

std::string StagedFolder::staged_path(const std::string& name) const {
  return (fs::path(staging_) / name).string();
}

void StagedFolder::commit() {
  auto fail = [&](const std::string& reason) {
    throw EnvironmentError(fmt::format("cannot put results folder '{}' in place: {}", folder_, reason));
  };
  if (std::rename(staging_.c_str(), folder_.c_str()) == 0) {
    committed_ = true;
    lock_.reset();
    return;
  }
  if (errno != ENOTEMPTY && errno != EEXIST) fail(std::strerror(errno));
  // An earlier result is there: swap the two in one step, so that the folder is never missing, then remove
  // the earlier one (now under the staging name).
  if (::renameat2(AT_FDCWD, staging_.c_str(), AT_FDCWD, folder_.c_str(), RENAME_EXCHANGE) != 0) {
    if (errno != EINVAL && errno != ENOSYS) fail(std::strerror(errno));
    // A file system without atomic exchange: move the earlier result aside first.
    const std::string earlier = staging_ + ".earlier";
    if (std::rename(folder_.c_str(), earlier.c_str()) != 0) fail(std::strerror(errno));
    if (std::rename(staging_.c_str(), folder_.c_str()) != 0) {
      const int reason = errno;
      std::rename(earlier.c_str(), folder_.c_str());  // the earlier result back, as before the commit
      fail(std::strerror(reason));
    }
    staging_ = earlier;
  }
  committed_ = true;
  std::error_code ignored;
  fs::remove_all(staging_, ignored);
  lock_.reset();
}

}  // namespace tpusim
