#include "topologies/support/folder_lock.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <map>
#include <mutex>
#include <thread>
#include <utility>

#include "topologies/support/atomic_file.hpp"
#include "topologies/support/atomic_folder.hpp"
#include "topologies/support/environment_error.hpp"

namespace tpusim {
namespace fs = std::filesystem;
namespace {

struct Held {
  int fd = -1;
  int users = 0;
};

using FileId = std::pair<unsigned long long, unsigned long long>;  // device, inode

// The locks this process holds, by their file.
std::map<FileId, Held>& held_locks() {
  static std::map<FileId, Held> held;
  return held;
}

std::mutex& held_mutex() {
  static std::mutex mutex;
  return mutex;
}

// The pid the holder wrote, or 0. The holder writes it just after taking the lock, so a reader that comes in
// between waits for it a little.
long holder_pid(int fd) {
  for (int attempt = 0; attempt < 200; ++attempt) {
    char text[32] = {};
    const ssize_t n = ::pread(fd, text, sizeof text - 1, 0);
    long pid = 0;
    for (ssize_t i = 0; i < n && pid < 100000000; ++i) {
      if (text[i] == '\n') return i > 0 ? pid : 0;
      if (text[i] < '0' || text[i] > '9') return 0;
      pid = pid * 10 + (text[i] - '0');
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  return 0;
}

bool locks_unsupported(int error) { return error == ENOLCK || error == ENOSYS || error == EOPNOTSUPP; }

}  // namespace

std::string lock_file_name(const std::string& name) { return "." + name + ".lock"; }

FolderLock::FolderLock(const std::string& folder) {
  const fs::path path = own_results_folder(
      folder, "results are written into a folder of their own, so name one, such as results/my-run");
  const fs::path parent = path.has_parent_path() ? path.parent_path() : fs::path(".");
  require_folder_path(parent.string());
  std::error_code error;
  for (fs::path missing = parent; !missing.empty() && !fs::exists(missing, error);
       missing = missing.parent_path())
    created_parents_.push_back(missing.string());
  fs::create_directories(parent, error);
  if (error) {
    remove_created_parents();
    throw EnvironmentError(fmt::format("cannot create folder '{}': {}", parent.string(), error.message()));
  }
  lock_path_ = (parent / lock_file_name(path.filename().string())).string();
  try {
    acquire(path);
  } catch (...) {
    remove_created_parents();
    throw;
  }
}

void FolderLock::acquire(const fs::path& path) {
  auto fail = [&](const std::string& what, int reason) {
    throw EnvironmentError(fmt::format("cannot write results folder '{}': {} ({} its lock '{}')",
                                       path.string(), std::strerror(reason), what, lock_path_));
  };
  const std::lock_guard<std::mutex> guard(held_mutex());
  // A holder unlinks the file as it releases the lock; one opened just before that is a file nobody else
  // opens any more, so locking it proves nothing: then the file now at the path is tried. Each retry means
  // another writer finished meanwhile, so a few suffice.
  for (int attempt = 0; attempt < 100; ++attempt) {
    const int fd = ::open(lock_path_.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
    if (fd < 0) fail("creating", errno);
    struct stat opened {};
    if (::fstat(fd, &opened) != 0) {
      const int reason = errno;
      ::close(fd);
      fail("reading", reason);
    }
    device_ = opened.st_dev;
    inode_ = opened.st_ino;
    auto& held = held_locks();
    if (const auto mine = held.find({device_, inode_}); mine != held.end()) {
      ++mine->second.users;
      ::close(fd);
      return;
    }
    if (::flock(fd, LOCK_EX | LOCK_NB) != 0) {
      const int reason = errno;
      if (reason == EWOULDBLOCK) {
        const long pid = holder_pid(fd);
        ::close(fd);
        throw EnvironmentError(fmt::format(
            "results folder '{}' is in use by another tpusim{}; wait for it or give another --output",
            path.string(), pid > 0 ? fmt::format(" (pid {})", pid) : ""));
      }
      if (!locks_unsupported(reason)) {
        ::close(fd);
        fail("locking", reason);
      }
    }
    struct stat now {};
    if (::stat(lock_path_.c_str(), &now) != 0 || now.st_dev != opened.st_dev || now.st_ino != opened.st_ino) {
      ::close(fd);
      continue;
    }
    const std::string pid = fmt::format("{}\n", ::getpid());
    // Written before the truncation, so that a reader never finds the file empty between the two.
    if (::pwrite(fd, pid.data(), pid.size(), 0) != static_cast<ssize_t>(pid.size()) ||
        ::ftruncate(fd, static_cast<off_t>(pid.size())) != 0) {
      const int reason = errno;
      ::unlink(lock_path_.c_str());
      ::close(fd);
      fail("writing", reason);
    }
    held[{device_, inode_}] = Held{fd, 1};
    return;
  }
  throw EnvironmentError(fmt::format(
      "results folder '{}' is in use by other tpusim processes, one after the other; wait for them "
      "or give another --output",
      path.string()));
}

FolderLock::~FolderLock() {
  {
    const std::lock_guard<std::mutex> guard(held_mutex());
    auto& held = held_locks();
    const auto mine = held.find({device_, inode_});
    if (mine != held.end() && --mine->second.users == 0) {
      // Unlinked while still locked: a writer that opened this file meanwhile sees it gone and opens anew.
      ::unlink(lock_path_.c_str());
      ::close(mine->second.fd);
      held.erase(mine);
    }
  }
  remove_created_parents();
}

void FolderLock::remove_created_parents() {
  // Folders made only to hold the lock go too (those holding results stay: fs::remove leaves a folder that is
  // not empty).
  std::error_code ignored;
  for (const auto& folder : created_parents_) fs::remove(folder, ignored);
}

}  // namespace tpusim
