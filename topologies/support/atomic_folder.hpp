#pragma once
// A folder of result files that appears as one unit. The files are written into a temporary sibling,
// "<folder>.tmp.<pid>", which replaces <folder> wholesale on commit(): a reader never sees half a run, or the
// files of two runs mixed, even when a run is killed while writing. Creating the staging folder is also the
// check that the results can be written at all, made before a long simulation rather than after it.
// The folder is locked from the staging to the commit (folder_lock.hpp): a second writer of it refuses at
// once. Staging folders of killed runs (leftovers.hpp) are removed, with a note, the next time
// the folder is written.
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace tpusim {

class FolderLock;

// `folder` as a results folder of its own ("results/x/" is "results/x"): InputError "'<folder>' cannot be a
// results folder: <why>" for "", ".", ".." or a path ending in them, whose replacement would take its parent.
std::filesystem::path own_results_folder(const std::string& folder, const std::string& why);

class StagedFolder {
 public:
  // `result_names` are the files a complete folder holds. An existing <folder> is replaced only if it holds
  // nothing else, i.e. it is an earlier result: a folder with other entries is an InputError, so that a
  // mistyped --output never deletes anyone's files. A folder that cannot be created or replaced, or that
  // another process is writing, is an EnvironmentError.
  StagedFolder(const std::string& folder, std::vector<std::string> result_names);
  ~StagedFolder();  // unless committed, removes the staging folder and the parents it created
  StagedFolder(const StagedFolder&) = delete;
  StagedFolder& operator=(const StagedFolder&) = delete;

  const std::string& folder() const { return folder_; }
  // Where to write the result file `name` now: inside the staging folder.
  std::string staged_path(const std::string& name) const;
  // Puts the staging folder in place of <folder>, removing an earlier result. EnvironmentError on failure.
  void commit();

 private:
  void discard();

  std::string folder_;
  std::string staging_;
  std::vector<std::string> result_names_;
  std::vector<std::string> created_parents_;  // missing parents created for it, innermost first
  std::unique_ptr<FolderLock> lock_;
  bool committed_ = false;
};

}  // namespace tpusim
