// One writer per results folder: a second process refuses at once naming the holder's pid, a killed holder's
// lock ends with it, a process shares the lock it holds, and the lock leaves nothing behind.
#include "topologies/support/folder_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/wait.h>
#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "folder_fixtures.hpp"
#include "topologies/support/atomic_folder.hpp"
#include "topologies/support/environment_error.hpp"

using namespace tpusim;
using namespace tpusim::test;
namespace fs = std::filesystem;

namespace {

std::string in_use(const fs::path& folder, pid_t pid) {
  return "results folder '" + folder.string() + "' is in use by another tpusim (pid " + std::to_string(pid) +
         "); wait for it or give another --output";
}

// A child process that holds the lock of `folder` until told to end (or killed).
class Holder {
 public:
  explicit Holder(const fs::path& folder) {
    REQUIRE(::pipe(ready_) == 0);
    REQUIRE(::pipe(done_) == 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::close(ready_[0]);
      ::close(done_[1]);
      char byte = 0;
      try {
        const FolderLock lock(folder.string());
        byte = 'y';
        if (::write(ready_[1], &byte, 1) != 1) ::_exit(2);
        if (::read(done_[0], &byte, 1) < 0) ::_exit(3);
      } catch (...) {
        ::_exit(1);
      }
      ::_exit(0);
    }
    // Only the child writes `ready` and reads `done`: a child that fails ends the wait for it.
    ::close(ready_[1]);
    ::close(done_[0]);
    char byte = 0;
    REQUIRE(::read(ready_[0], &byte, 1) == 1);
  }
  ~Holder() { end(); }
  pid_t pid() const { return pid_; }
  // Kill -9: what a killed run does.
  void kill() { end(SIGKILL); }
  void end(int signal = 0) {
    if (pid_ <= 0) return;
    if (signal != 0) ::kill(pid_, signal);
    ::close(done_[1]);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = 0;
    ::close(ready_[0]);
  }

 private:
  pid_t pid_ = 0;
  int ready_[2] = {-1, -1}, done_[2] = {-1, -1};
};

}  // namespace

TEST_CASE("folder lock: a second writer refuses at once, naming the holder's pid, until the holder ends") {
  const fs::path root = fresh_folder("lock-second");
  const fs::path folder = root / "results" / "run";
  {
    Holder holder(folder);
    CHECK(fs::exists(root / "results" / ".run.lock"));
    CHECK(read_text(root / "results" / ".run.lock") == std::to_string(holder.pid()) + "\n");
    try {
      const FolderLock second(folder.string());
      FAIL("a second lock of a folder in use was taken");
    } catch (const EnvironmentError& error) {
      CHECK(std::string(error.what()) == in_use(folder, holder.pid()));
    }
    // A staged result into it refuses alike, and writes nothing.
    try {
      StagedFolder staged(folder.string(), {"summary.json"});
      FAIL("a folder in use was staged");
    } catch (const EnvironmentError& error) {
      CHECK(std::string(error.what()) == in_use(folder, holder.pid()));
    }
    CHECK_FALSE(fs::exists(folder));
    holder.end();
  }
  {
    const FolderLock after(folder.string());
    CHECK(read_text(root / "results" / ".run.lock") == std::to_string(::getpid()) + "\n");
  }
  // Released: nothing is left, not even the folder made for the lock.
  CHECK(fs::is_empty(root));
  fs::remove_all(root);
}

TEST_CASE("folder lock: a killed holder's lock ends with it, and its file is taken over") {
  const fs::path root = fresh_folder("lock-killed");
  const fs::path folder = root / "run";
  {
    Holder holder(folder);
    holder.kill();
  }
  CHECK(fs::exists(root / ".run.lock"));  // what a kill -9 leaves
  {
    const FolderLock lock(folder.string());
    CHECK(read_text(root / ".run.lock") == std::to_string(::getpid()) + "\n");
  }
  CHECK(fs::is_empty(root));
  fs::remove_all(root);
}

TEST_CASE("folder lock: a process shares the lock it holds, which still excludes every other open file") {
  const fs::path root = fresh_folder("lock-shared");
  const fs::path folder = root / "run";
  {
    const FolderLock outer(folder.string());
    const FolderLock inner((folder.string() + "/"));  // another spelling of the same folder
    const FolderLock staged_inside((root / "." / "run").string());
    // flock belongs to the open file: another open of the lock file, even in this process, is refused.
    const int fd = ::open((root / ".run.lock").c_str(), O_RDWR);
    REQUIRE(fd >= 0);
    CHECK(::flock(fd, LOCK_EX | LOCK_NB) != 0);
    ::close(fd);
  }
  CHECK(fs::is_empty(root));
  // The same through a staged result: staging while the folder's lock is held by this process works.
  {
    const FolderLock lock(folder.string());
    StagedFolder staged(folder.string(), {"summary.json"});
    std::ofstream(staged.staged_path("summary.json")) << "{}\n";
    staged.commit();
  }
  CHECK(fs::exists(folder / "summary.json"));
  CHECK_FALSE(fs::exists(root / ".run.lock"));
  fs::remove_all(root);
}

TEST_CASE(
    "folder lock: a folder's lock left by a killed writer inside a results folder keeps it a results "
    "folder") {
  const fs::path root = fresh_folder("lock-inside");
  const fs::path folder = root / "run";
  fs::create_directories(folder);
  std::ofstream(folder / "summary.json") << "{}\n";
  std::ofstream(folder / lock_file_name("summary.json")) << "4194305\n";
  StagedFolder staged(folder.string(), {"summary.json"});
  staged.commit();
  CHECK(fs::is_empty(folder));
  fs::remove_all(root);
}
