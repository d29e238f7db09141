#include "workloads/search/collective_time_file.hpp"

#include <fmt/format.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/simulator.hpp"
#include "topologies/support/atomic_file.hpp"
#include "workloads/sweep/content_hash.hpp"

namespace tpusim::workloads {
namespace {

// FNV-1a of the executable's bytes, once per process ("unknown" where /proc is missing: then no file
// matches, since no two processes could tell their builds apart).
const std::string& build_hash() {
  static const std::string hash = [] {
    std::ifstream exe("/proc/self/exe", std::ios::binary);
    if (!exe) return std::string("unknown");
    std::ostringstream bytes;
    bytes << exe.rdbuf();
    return ContentHash().add(bytes.str()).hex();
  }();
  return hash;
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  return -1;
}

}  // namespace

std::string collective_time_identity(const sim::Simulator& simulator) {
  return fmt::format("tpusim {} build {} simgrid {}: {}", TPUSIM_VERSION, build_hash(),
                     sim::simgrid_version(), simulator.identity());
}

std::string collective_time_file(const std::string& folder, const sim::Simulator& simulator) {
  return (std::filesystem::path(folder) /
          (ContentHash().add(collective_time_identity(simulator)).hex() + ".txt"))
      .string();
}

int load_collective_times(const std::string& path, sim::Simulator& simulator) {
  std::ifstream in(path);
  if (!in) return 0;
  std::string line;
  if (!std::getline(in, line) || line != collective_time_identity(simulator)) return 0;
  std::vector<std::pair<std::string, sim::CollectiveResult>> results;
  while (std::getline(in, line)) {
    const std::size_t space = line.find(' ');
    if (space == std::string::npos || space % 2 != 0) return 0;
    std::string key(space / 2, '\0');
    for (std::size_t i = 0; i < key.size(); ++i) {
      const int high = hex_value(line[2 * i]), low = hex_value(line[2 * i + 1]);
      if (high < 0 || low < 0) return 0;
      key[i] = static_cast<char>(high * 16 + low);
    }
    const auto result = sim::result_from_text(line.substr(space + 1));
    if (!result) return 0;
    results.emplace_back(std::move(key), *result);
  }
  simulator.remember_results(results);
  return static_cast<int>(results.size());
}

void save_collective_times(const std::string& path, const sim::Simulator& simulator) {
  write_file_atomically(path, [&](std::ostream& out) {
    out << collective_time_identity(simulator) << "\n";
    for (const auto& [key, result] : simulator.remembered_results()) {
      for (const unsigned char c : key) out << fmt::format("{:02x}", c);
      out << ' ' << sim::result_text(result) << "\n";
    }
  });
}

}  // namespace tpusim::workloads
