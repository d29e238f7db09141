#pragma once
// What the end-to-end tests share besides running tpusim (cli_runner.hpp): writing an input, reading a
// sweep's output folder back, a tpusim started without waiting for it (to be killed, or to hold a folder
// while another runs), and the pid of a killed run.
#include <sys/types.h>

#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace tpusim::cli_test {

void write_file(const std::filesystem::path& path, const std::string& text);
// A file's whole text (empty when it cannot be read), and a JSON file parsed.
std::string read_text(const std::filesystem::path& path);
nlohmann::json read_json(const std::filesystem::path& path);
std::vector<std::string> lines_of(const std::filesystem::path& path);
// A sweep.csv without its wall_s column (measured, not simulated). The tiny sweeps of the tests quote no
// field.
std::vector<std::string> csv_without_wall(const std::filesystem::path& path);
// The record files of an output folder (not the manifest, not temporaries), sorted.
std::vector<std::string> records_in(const std::filesystem::path& folder);
// Waits, up to two minutes, until `folder` holds `count` records (a sweep started by start_tpusim has run
// that many points); whether it does.
bool wait_for_records(const std::filesystem::path& folder, std::size_t count);
// tpusim started in `work` without waiting for it, its output thrown away.
pid_t start_tpusim(const std::filesystem::path& work, const std::vector<std::string>& args);
// The pid of a process that has ended, as a killed run's was.
std::string ended_pid();

// Twelve points of the tiny language model, a few tenths of a second each.
extern const std::string kTwelvePointSweep;

}  // namespace tpusim::cli_test
