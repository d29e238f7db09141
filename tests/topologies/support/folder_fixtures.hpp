#pragma once
// What the tests of files and folders written as a unit, locked and cleaned share: a fresh folder, its
// entries, a file's text, the pid of a process that has ended (as a killed writer's), a process of this
// program at work (as a writer still writing), and what is written on std::cerr.
#include <sys/types.h>

#include <filesystem>
#include <string>
#include <vector>

#include "stderr_capture.hpp"

namespace tpusim::test {

// An empty folder of the temporary directory named after `name` and this process; made anew each call.
std::filesystem::path fresh_folder(const std::string& name);
std::vector<std::string> entries(const std::filesystem::path& folder);  // names, sorted
std::string read_text(const std::filesystem::path& path);
pid_t ended_pid();

// A process of this program, until destroyed: a writer still at work.
class Sibling {
 public:
  Sibling();
  ~Sibling();
  Sibling(const Sibling&) = delete;
  Sibling& operator=(const Sibling&) = delete;
  pid_t pid() const { return pid_; }

 private:
  pid_t pid_;
};


}  // namespace tpusim::test
