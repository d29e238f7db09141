// Leftovers of killed runs: which names are temporaries, which writers are gone (no process, or a process of
// another program now has the pid), and the one-line note of what was removed, with its size.
#include "topologies/support/leftovers.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <random>
#include <sstream>

#include "folder_fixtures.hpp"
#include "topologies/support/atomic_file.hpp"

using namespace tpusim;
using namespace tpusim::test;
namespace fs = std::filesystem;

namespace {

void write_bytes(const fs::path& path, std::size_t bytes) { std::ofstream(path) << std::string(bytes, 'x'); }

}  // namespace

TEST_CASE("leftovers: the pid in a temporary's name, and nothing in other names") {
  const std::vector<std::tuple<std::string, std::string, long>> cases = {
      {"sweep.csv.tmp.1234", "sweep.csv", 1234},
      {"plots.tmp.77", "plots", 77},
      {"run.tmp.77.earlier", "run", 77},  // the earlier result moved aside by a commit
      {"run.tmp.77", "ru", 0},
      {"run.tmp.", "run", 0},
      {"run.tmp.x1", "run", 0},
      {"run.tmp.12x", "run", 0},
      {"run.tmp.99999999999", "run", 0},  // above any pid
      {"3-00112233aabbccdd.json.tmp.5", "", 5},
      {"manifest.json.tmp.5", "", 5},
      {"notes.tmp.5.txt", "", 0},  // any name: nothing may follow the pid
      {".tmp.5", "", 0},
      {"summary.json", "", 0},
  };
  for (const auto& [entry, name, pid] : cases) {
    INFO(entry << " of '" << name << "'");
    CHECK(temporary_pid(entry, name) == pid);
  }
}

TEST_CASE("leftovers: a writer is gone when no process has its pid, or one of another program has it") {
  CHECK(writer_is_gone(ended_pid()));
  CHECK_FALSE(writer_is_gone(::getpid()));
  const Sibling sibling;
  CHECK_FALSE(writer_is_gone(sibling.pid()));
  // The parent (ctest, or a shell) runs another program: its pid, on a temporary, is a pid reused.
  CHECK(writer_is_gone(::getppid()));
}

TEST_CASE("leftovers: those of gone writers are removed and named on one line with their size") {
  const fs::path folder = fresh_folder("leftovers-note");
  const std::string dead = std::to_string(ended_pid());
  const Sibling sibling;
  const std::string running = std::to_string(sibling.pid());
  write_bytes(folder / ("sweep.csv.tmp." + dead), 1000);
  fs::create_directories(folder / ("plots.tmp." + dead) / "deeper");
  write_bytes(folder / ("plots.tmp." + dead) / "step_time.png", 500);
  write_bytes(folder / ("plots.tmp." + dead) / "deeper" / "x.dat", 24);
  write_bytes(folder / ("sweep.json.tmp." + running), 10);
  write_bytes(folder / ("sweep.json.tmp." + std::to_string(::getpid())), 10);
  write_bytes(folder / "sweep.csv", 10);
  const Leftovers removed = remove_leftovers(folder.string(), "");
  CHECK(removed.names == std::vector<std::string>{"plots.tmp." + dead, "sweep.csv.tmp." + dead});
  CHECK(removed.bytes == 1524);
  // 1524 B is 1.488 KiB.
  CHECK(leftovers_note(folder.string(), removed) == "tpusim: note: removed 2 leftovers of killed runs in '" +
                                                        folder.string() + "' (1.49 KiB): plots.tmp." + dead +
                                                        ", sweep.csv.tmp." + dead + "\n");
  std::vector<std::string> kept = {"sweep.csv", "sweep.json.tmp." + running,
                                   "sweep.json.tmp." + std::to_string(::getpid())};
  std::sort(kept.begin(), kept.end());
  CHECK(entries(folder) == kept);
  CHECK(leftovers_note(folder.string(), remove_leftovers(folder.string(), "")).empty());
  fs::remove_all(folder);
}

TEST_CASE("leftovers: a note names five and counts the rest, and those of a file go as it is written") {
  const fs::path folder = fresh_folder("leftovers-many");
  const std::string dead = std::to_string(ended_pid());
  for (int i = 0; i < 8; ++i) write_bytes(folder / (std::to_string(i) + ".json.tmp." + dead), 128);
  const Leftovers removed = remove_leftovers(folder.string(), "");
  CHECK(leftovers_note("results/x", removed) ==
        "tpusim: note: removed 8 leftovers of killed runs in 'results/x' (1 KiB): 0.json.tmp." + dead +
            ", 1.json.tmp." + dead + ", 2.json.tmp." + dead + ", 3.json.tmp." + dead + ", 4.json.tmp." +
            dead + " and 3 more\n");
  write_bytes(folder / ("trace.json.tmp." + dead), 3);
  write_bytes(folder / ("other.json.tmp." + dead), 3);
  {
    const StderrCapture captured;
    write_file_atomically((folder / "trace.json").string(), "[]\n");
    CHECK(captured.text() == "tpusim: note: removed 1 leftover of a killed run in '" + folder.string() +
                                 "' (3 B): trace.json.tmp." + dead + "\n");
  }
  CHECK(entries(folder) == std::vector<std::string>{"other.json.tmp." + dead, "trace.json"});
  fs::remove_all(folder);
}

TEST_CASE("leftovers: random names of temporaries and other files, only temporaries of gone writers go") {
  // Against a list kept by hand while making the folder: which entries are leftovers is known independently.
  std::mt19937 random(28);
  const std::string dead = std::to_string(ended_pid());
  const std::string mine = std::to_string(::getpid());
  const std::vector<std::string> stems = {"sweep.csv", "plots", "report.md", "3-00112233aabbccdd.json"};
  for (int round = 0; round < 20; ++round) {
    const fs::path folder = fresh_folder("leftovers-random");
    std::vector<std::string> expected_removed, expected_kept;
    for (int i = 0; i < 12; ++i) {
      const std::string stem = stems[random() % stems.size()] + std::to_string(i);
      const int kind = static_cast<int>(random() % 4);
      const std::string name = kind == 0   ? stem + ".tmp." + dead
                               : kind == 1 ? stem + ".tmp." + mine
                               : kind == 2 ? stem + ".tmp." + dead + ".txt"
                                           : stem;
      write_bytes(folder / name, 1 + random() % 50);
      (kind == 0 ? expected_removed : expected_kept).push_back(name);
    }
    std::sort(expected_removed.begin(), expected_removed.end());
    std::sort(expected_kept.begin(), expected_kept.end());
    CHECK(remove_leftovers(folder.string(), "").names == expected_removed);
    CHECK(entries(folder) == expected_kept);
    fs::remove_all(folder);
  }
}
