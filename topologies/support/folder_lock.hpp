#pragma once
// One writer per results folder. Two tpusim processes writing one folder (a sweep started twice, a run whose
// --output is another's) would mix their records or silently replace each other's results, so a writer holds
// an exclusive lock on the folder for as long as it writes, and a second one refuses at once with an
// EnvironmentError (exit status 3):
//   results folder 'X' is in use by another tpusim (pid N); wait for it or give another --output
//
// The lock is flock(2) on "<parent>/.<name>.lock", beside the folder rather than in it, because staged
// results replace their folder wholesale (atomic_folder.hpp). The file holds the holder's pid (for the
// message only) and is removed when the lock is released. A killed holder's lock ends with its process (the
// kernel releases it), and the file it leaves is taken over by the next writer. flock locks belong to an open
// file, not to a process, so a second FolderLock of one folder in the same process would refuse too; instead
// it shares the lock the process holds (a sweep holds its folder, and its parts open it again). On a file
// system without locks (flock fails with ENOLCK, ENOSYS or EOPNOTSUPP) the folder is written unlocked, as
// before.
#include <filesystem>
#include <string>
#include <vector>

namespace tpusim {

class FolderLock {
 public:
  // `folder` as own_results_folder (atomic_folder.hpp) takes it; its missing parents are created, as the
  // place of the lock, and removed with the lock if nothing else was put in them. EnvironmentError if another
  // process holds the lock or the lock cannot be made.
  explicit FolderLock(const std::string& folder);
  ~FolderLock();
  FolderLock(const FolderLock&) = delete;
  FolderLock& operator=(const FolderLock&) = delete;

  const std::string& lock_path() const { return lock_path_; }

 private:
  void acquire(const std::filesystem::path& folder);
  void remove_created_parents();

  std::string lock_path_;
  std::vector<std::string> created_parents_;   // innermost first
  unsigned long long device_ = 0, inode_ = 0;  // of the lock file: two spellings of a folder share a lock
};

// The name of the lock of a folder named `name`, beside it: ".<name>.lock".
std::string lock_file_name(const std::string& name);

}  // namespace tpusim
