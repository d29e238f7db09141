// A run's result folder appears as one unit: staged beside the target, renamed into place on commit,
// replacing an earlier result wholesale; killed runs' leftovers are cleaned; other people's files are safe.
#include "topologies/support/atomic_folder.hpp"

#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "folder_fixtures.hpp"
#include "topologies/support/atomic_file.hpp"
#include "topologies/support/environment_error.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim;
using namespace tpusim::test;
namespace fs = std::filesystem;

namespace {

const std::vector<std::string> kNames = {"summary.json", "trace.json"};

}  // namespace

TEST_CASE("staged results appear only when committed, all together") {
  const fs::path root = fresh_folder("staged");
  const fs::path target = root / "results" / "run";
  {
    StagedFolder staged(target.string(), kNames);
    write_file_atomically(staged.staged_path("summary.json"), "{}\n");
    write_file_atomically(staged.staged_path("trace.json"), "[]\n");
    CHECK_FALSE(fs::exists(target));
    staged.commit();
  }
  CHECK(entries(target) == kNames);
  CHECK(entries(root / "results") == std::vector<std::string>{"run"});
  fs::remove_all(root);
}

TEST_CASE("results that are not committed leave nothing, not even the folders made for them") {
  const fs::path root = fresh_folder("uncommitted");
  {
    StagedFolder staged((root / "results" / "run").string(), kNames);
    write_file_atomically(staged.staged_path("summary.json"), "{}\n");
  }
  CHECK(entries(root).empty());
  fs::remove_all(root);
}

TEST_CASE("a commit replaces an earlier result wholesale, never mixing two runs") {
  const fs::path root = fresh_folder("replace");
  const fs::path target = root / "run";
  fs::create_directories(target);
  std::ofstream(target / "summary.json") << "old\n";
  std::ofstream(target / "trace.json") << "old\n";
  std::ofstream(target / ("trace.json.tmp." + std::to_string(ended_pid()))) << "half\n";
  StagedFolder staged(target.string(), kNames);
  write_file_atomically(staged.staged_path("summary.json"), "new\n");
  staged.commit();
  CHECK(entries(target) == std::vector<std::string>{"summary.json"});
  CHECK(read_text(target / "summary.json") == "new\n");
  CHECK(entries(root) == std::vector<std::string>{"run"});
  fs::remove_all(root);
}

TEST_CASE("the staging folders of killed runs are removed, those of running ones kept") {
  const fs::path root = fresh_folder("stale");
  const Sibling sibling;  // a writer still at work
  const std::string killed = "run.tmp." + std::to_string(ended_pid());
  const std::string running = "run.tmp." + std::to_string(sibling.pid());
  // A pid that a process of another program has now (the parent: ctest or a shell) was reused: a leftover.
  const std::string reused = "run.tmp." + std::to_string(::getppid());
  const std::string someone_elses = "other.tmp." + std::to_string(ended_pid());
  for (const auto& name : {killed, running, reused, someone_elses}) fs::create_directories(root / name);
  StagedFolder((root / "run").string(), kNames).commit();
  std::vector<std::string> kept = {someone_elses, "run", running};
  std::sort(kept.begin(), kept.end());
  CHECK(entries(root) == kept);
  fs::remove_all(root);
}

TEST_CASE("a folder holding other files is never replaced") {
  const fs::path root = fresh_folder("foreign");
  fs::create_directories(root / "mine");
  std::ofstream(root / "mine" / "notes.txt") << "keep\n";
  CHECK_THROWS_AS(StagedFolder((root / "mine").string(), kNames), InputError);
  CHECK(entries(root / "mine") == std::vector<std::string>{"notes.txt"});
  CHECK(entries(root) == std::vector<std::string>{"mine"});
  for (const char* folder : {"", ".", "..", "/"}) {
    INFO(folder);
    CHECK_THROWS_AS(StagedFolder(folder, kNames), InputError);
  }
  fs::remove_all(root);
}

TEST_CASE("a results folder that cannot be created is an environment failure, found at once") {
  // sysfs refuses new folders to everyone, root included.
  CHECK_THROWS_AS(StagedFolder("/sys/tpusim-test-results/run", kNames), EnvironmentError);
  CHECK_THROWS_AS(require_writable_folder("/sys/tpusim-test-results"), EnvironmentError);
  CHECK_THROWS_AS(write_file_atomically("/sys/tpusim-test-results/x.json", "{}"), EnvironmentError);
}

TEST_CASE("a failed write leaves no partial file and a killed writer's temporary is cleaned") {
  const fs::path folder = fresh_folder("atomic-file");
  const std::string path = (folder / "out.json").string();
  std::ofstream(path + ".tmp." + std::to_string(ended_pid())) << "half";
  CHECK_THROWS(write_file_atomically(path, [](std::ostream& out) {
    out << "{\"partial\":";
    throw std::runtime_error("interrupted");
  }));
  CHECK(fs::is_empty(folder));
  fs::remove_all(folder);
}
