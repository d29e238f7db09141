#include "cli_files.hpp"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <sstream>
#include <thread>

namespace tpusim::cli_test {

const std::string kTwelvePointSweep =
    "name: twelve\n"
    "base: tiny-lm\n"
    "vary:\n"
    "  training.numerics: [timing]\n"
    "  training.seed: [1, 2, 3, 4, 5, 6]\n"
    "  mesh.shape: [batch:2;model:4, batch:4;model:2]\n";

void write_file(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

std::vector<std::string> lines_of(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

namespace {

// The cells of a CSV row (RFC 4180: a quoted cell may hold commas and doubled quotes).
std::vector<std::string> cells_of(const std::string& line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
      cells.back() += c;
      ++i;
    } else if (c == '"') {
      quoted = !quoted;
    } else if (c == ',' && !quoted) {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

}  // namespace

std::vector<std::string> csv_without_wall(const std::filesystem::path& path) {
  std::vector<std::string> rows;
  std::size_t wall = 0;
  for (const auto& line : lines_of(path)) {
    const std::vector<std::string> cells = cells_of(line);
    if (rows.empty()) wall = std::find(cells.begin(), cells.end(), "wall_s") - cells.begin();
    std::string kept;
    for (std::size_t c = 0; c < cells.size(); ++c) {
      if (c != wall) kept += (c == 0 ? "" : ",") + cells[c];
    }
    rows.push_back(kept);
  }
  return rows;
}

std::vector<std::string> records_in(const std::filesystem::path& folder) {
  std::vector<std::string> names;
  std::error_code error;
  for (std::filesystem::directory_iterator it(folder / "points", error), end; !error && it != end;
       it.increment(error)) {
    const std::string name = it->path().filename().string();
    if (name != "manifest.json" && name.find(".tmp.") == std::string::npos) names.push_back(name);
  }
  std::sort(names.begin(), names.end());
  return names;
}

bool wait_for_records(const std::filesystem::path& folder, std::size_t count) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  while (records_in(folder).size() < count && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  return records_in(folder).size() >= count;
}

pid_t start_tpusim(const std::filesystem::path& work, const std::vector<std::string>& args) {
  std::vector<std::string> words = {TPUSIM_BINARY};
  words.insert(words.end(), args.begin(), args.end());
  const pid_t pid = ::fork();
  if (pid == 0) {
    if (::chdir(work.c_str()) != 0) ::_exit(127);
    const int null = ::open("/dev/null", O_RDWR);
    ::dup2(null, 0);
    ::dup2(null, 1);
    ::dup2(null, 2);
    std::vector<char*> argv;
    for (auto& word : words) argv.push_back(word.data());
    argv.push_back(nullptr);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  return pid;
}

std::string ended_pid() {
  const pid_t pid = ::fork();
  if (pid == 0) ::_exit(0);
  int status = 0;
  ::waitpid(pid, &status, 0);
  return std::to_string(pid);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

nlohmann::json read_json(const std::filesystem::path& path) { return nlohmann::json::parse(read_text(path)); }

}  // namespace tpusim::cli_test
