#include "fake_study.hpp"

#include <fmt/format.h>
#include <stdlib.h>

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "topologies/support/input_error.hpp"
#include "workloads/sweep/content_hash.hpp"
#include "workloads/sweep/sweep_merge.hpp"

namespace tpusim::workloads::test {
namespace fs = std::filesystem;

FakeStudy::FakeStudy(std::string name, std::size_t points, std::string output_dir)
    : name_(std::move(name)), output_dir_(std::move(output_dir)) {
  for (std::size_t i = 0; i < points; ++i) configs.push_back(fmt::format("c{}", i));
}

std::string FakeStudy::point_hash(std::size_t point) const {
  return ContentHash().add(configs[point]).add(std::to_string(result_scale)).hex();
}

std::string FakeStudy::skip_reason(std::size_t point) const {
  return skipped.count(point) > 0 ? "does not fit" : "";
}

std::string FakeStudy::run_point(std::size_t point) const {
  if (failing.count(point) > 0) throw std::runtime_error(fmt::format("point {} broke", point));
  if (crashing.count(point) > 0) {
    std::signal(SIGABRT, SIG_DFL);  // not the test framework's handler, inherited from the parent
    std::abort();
  }
  const long n = result_by_config ? std::stol(configs[point].substr(1)) : static_cast<long>(point);
  return nlohmann::json{{"square", result_scale * n * n}}.dump();
}

nlohmann::json FakeStudy::csv_cells(std::size_t point, const PointOutcome& outcome) const {
  return {point, configs[point], outcome.ok() ? outcome.result.at("square") : nlohmann::json(),
          outcome.wall_s, outcome.error.empty() ? nlohmann::json() : nlohmann::json(outcome.error)};
}

nlohmann::json FakeStudy::run_json(std::size_t point, const PointOutcome& outcome) const {
  return {
      {"point", point}, {"config", configs[point]}, {"status", outcome.status}, {"result", outcome.result}};
}

std::string FakeStudy::table_row(std::size_t point, const PointOutcome& outcome) const {
  return fmt::format("{} {}\n", point, outcome.status);
}

TempFolder::TempFolder() {
  std::string pattern = (fs::temp_directory_path() / "tpusim-sweep-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
  root_ = pattern;
}

TempFolder::~TempFolder() {
  std::error_code ignored;
  fs::remove_all(root_, ignored);
}

std::string read_text(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

std::vector<std::string> csv_without_wall(const std::string& path) {
  std::istringstream in(read_text(path));
  std::vector<std::string> lines;
  std::size_t wall = std::string::npos;
  for (std::string line; std::getline(in, line);) {
    std::vector<std::string> cells(1);
    for (const char c : line) {
      if (c == ',') {
        cells.emplace_back();
      } else {
        cells.back() += c;
      }
    }
    if (lines.empty()) {
      wall = static_cast<std::size_t>(std::find(cells.begin(), cells.end(), "wall_s") - cells.begin());
    }
    std::string kept;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c != wall) kept += (c == 0 ? "" : ",") + cells[c];
    }
    lines.push_back(kept);
  }
  return lines;
}

std::vector<std::string> record_names(const std::string& folder) {
  std::vector<std::string> names;
  std::error_code error;
  for (fs::directory_iterator it(folder + "/points", error), end; !error && it != end; it.increment(error))
    names.push_back(it->path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

std::string merge_error(const std::string& output, const std::vector<std::string>& folders) {
  try {
    merge_sweep_folders(output, folders);
  } catch (const tpusim::InputError& error) {
    return error.what();
  }
  return "(merged)";
}

}  // namespace tpusim::workloads::test
