#include "cli_runner.hpp"

#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

extern char** environ;

namespace tpusim::cli_test {
namespace fs = std::filesystem;

namespace {

std::string read_all(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

void throw_errno(const std::string& what, int error) {
  throw std::runtime_error(what + ": " + std::strerror(error));
}

}  // namespace

std::vector<std::string> CliRun::err_lines() const {
  std::vector<std::string> lines;
  std::istringstream in(err);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
}

std::string CliRun::describe() const {
  std::ostringstream text;
  text << "exit status " << exit_status;
  if (signal != 0) text << " (signal " << signal << ")";
  text << "\n--- stdout (" << out.size() << " bytes)\n" << out.substr(0, 2000) << "\n--- stderr\n" << err;
  return text.str();
}

Scratch::Scratch() {
  std::string pattern = (fs::temp_directory_path() / "tpusim-cli-test-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw_errno("mkdtemp " + pattern, errno);
  root_ = pattern;
  work_ = root_ / "work";
  fs::create_directory(work_);
}

Scratch::~Scratch() {
  std::error_code ignored;
  fs::remove_all(root_, ignored);
}

CliRun Scratch::run(const std::vector<std::string>& args) const {
  std::vector<std::string> words = {TPUSIM_BINARY};
  words.insert(words.end(), args.begin(), args.end());
  return spawn(words);
}

CliRun Scratch::run_program(const std::vector<std::string>& words) const { return spawn(words); }

CliRun Scratch::run_unprivileged(const std::vector<std::string>& args) const {
  if (::geteuid() != 0) return run(args);
  std::vector<std::string> words = {
      "/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "--", TPUSIM_BINARY};
  words.insert(words.end(), args.begin(), args.end());
  return spawn(words);
}

CliRun Scratch::spawn(std::vector<std::string> words) const {
  const fs::path out_path = root_ / "stdout.txt", err_path = root_ / "stderr.txt";
  std::vector<char*> argv;
  for (auto& word : words) argv.push_back(word.data());
  argv.push_back(nullptr);

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, 1, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, 2, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addchdir_np(&actions, work_.c_str());
  pid_t pid = 0;
  const int spawned = ::posix_spawn(&pid, argv[0], &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (spawned != 0) throw_errno(std::string("posix_spawn ") + argv[0], spawned);

  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) throw_errno("waitpid", errno);
  }
  CliRun result;
  if (WIFEXITED(status)) result.exit_status = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) result.signal = WTERMSIG(status);
  result.out = read_all(out_path);
  result.err = read_all(err_path);
  return result;
}

std::vector<std::string> Scratch::entries() const {
  std::vector<std::string> found;
  for (const auto& entry : fs::recursive_directory_iterator(work_)) {
    const std::string name = fs::relative(entry.path(), work_).string();
    found.push_back(entry.is_directory() ? name + "/" : name);
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::vector<std::string> listed_algorithms(const std::string& collective) {
  const CliRun run = Scratch().run({"collective", "--list-algorithms", "--json"});
  if (run.exit_status != 0)
    throw std::runtime_error("tpusim collective --list-algorithms failed: " + run.describe());
  const auto listing = nlohmann::json::parse(run.out);
  std::vector<std::string> names;
  for (const auto& row : listing.at("algorithms")) {
    const auto name = row.at("name").get<std::string>();
    if (!collective.empty() && row.at("collective").get<std::string>() != collective) continue;
    if (std::find(names.begin(), names.end(), name) == names.end()) names.push_back(name);
  }
  if (names.empty()) throw std::runtime_error("tpusim collective --list-algorithms listed no algorithm");
  return names;
}

std::string joined(const std::vector<std::string>& names) {
  std::string text;
  for (const auto& name : names) text += (text.empty() ? "" : ", ") + name;
  return text;
}

}  // namespace tpusim::cli_test
