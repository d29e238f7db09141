// README.md and the guides (every Markdown file of the source tree: */README.md, results/*.md, ...) show what
// the programs print; these tests run the shown commands with the built binaries and compare, so that a
// change of output without a change of the document fails here. The documents are found, not listed, so a
// new guide is checked as soon as it exists.
//   Output blocks (readme_examples.hpp says how they and their commands are found): every line the README
//   shows must appear in what the command prints (stdout, then stderr), in the README's order; the output may
//   have more lines, since a block may be an excerpt, and a README line "..." only marks lines left out.
//   Trailing spaces do not count. The command must exit with status 0.
//   Host-dependent figures are masked: in a line holding the word "wall", "took" or "peak" (wall-clock time,
//   peak memory), every number is replaced by # on both sides before comparing.
//   Figures quoted in prose (the tour's comments, sentences) are checked through kProseClaims
//   (readme_prose_claims.hpp): each names the sentence (searched in every document), the command, and where
//   each figure is in the command's output. A figure is right when the output's, rounded to the README's
//   decimals, reads the same, with the same unit ("36.2 ms" for 36.19 ms). Wall times and benchmark figures
//   in prose are host-dependent and not claimed.
// The README read is the source tree's (TPUSIM_README), or the file the environment variable TPUSIM_README
// names, to try the test on an edited copy; the guides are the Markdown files of the README's folder.
#include <catch2/catch.hpp>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include "cli_runner.hpp"
#include "readme_examples.hpp"
#include "readme_prose_claims.hpp"

using tpusim::cli_test::CliRun;
using tpusim::cli_test::kProseClaims;
using tpusim::cli_test::parse_readme;
using tpusim::cli_test::ProseClaim;
using tpusim::cli_test::ProsePart;
using tpusim::cli_test::Readme;
using tpusim::cli_test::ReadmeOutput;
using tpusim::cli_test::Scratch;

namespace {

std::string readme_path() {
  const char* override_path = std::getenv("TPUSIM_README");
  return override_path != nullptr && *override_path != '\0' ? override_path : TPUSIM_README;
}

std::string file_text(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  REQUIRE(in.good());
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Readme load_readme() { return parse_readme(file_text(readme_path())); }

struct Document {
  std::string name;  // relative to the source tree, as messages name it: "sim/README.md"
  std::filesystem::path path;
  Readme parsed;
};

// README.md, then every guide, each parsed with the README's tour for commands the guide abbreviates.
std::vector<Document> load_documents() {
  const std::filesystem::path root = std::filesystem::path(readme_path()).parent_path();
  std::vector<Document> documents;
  documents.push_back({"README.md", readme_path(), load_readme()});
  for (const auto& relative : tpusim::cli_test::markdown_documents(root)) {
    if (relative == "README.md") continue;
    documents.push_back({relative.generic_string(), root / relative,
                         parse_readme(file_text(root / relative), documents[0].parsed.tour)});
  }
  return documents;
}

std::string right_trimmed(std::string line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t' || line.back() == '\r')) line.pop_back();
  return line;
}

std::string masked(const std::string& line) {
  static const std::regex host_dependent(R"(\b(wall|took|peak)\b)", std::regex::icase);
  static const std::regex number(R"([0-9]+(\.[0-9]+)?)");
  const std::string trimmed = right_trimmed(line);
  return std::regex_search(trimmed, host_dependent) ? std::regex_replace(trimmed, number, "#") : trimmed;
}

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(masked(line));
  return lines;
}

// The program of a README command: tpusim, or a path under the build folder.
std::vector<std::string> resolved(std::vector<std::string> command) {
  if (command.front() == "tpusim") {
    command.front() = TPUSIM_BINARY;
  } else if (command.front().rfind("build/", 0) == 0) {
    command.front() = std::string(TPUSIM_BUILD_DIR) + command.front().substr(5);
  }
  return command;
}

std::string joined(const std::vector<std::string>& words) {
  std::string text;
  for (const auto& word : words) text += (text.empty() ? "" : " ") + word;
  return text;
}

// The document's lines of the block not found in the output in order, as "README.md:LINE: text".
std::vector<std::string> missing_lines(const std::string& document, const ReadmeOutput& block,
                                       const std::string& output) {
  const auto printed = lines_of(output);
  std::vector<std::string> missing;
  std::size_t next = 0;
  for (std::size_t i = 0; i < block.lines.size(); ++i) {
    const std::string shown = masked(block.lines[i]);
    if (shown == "...") continue;
    std::size_t at = next;
    while (at < printed.size() && printed[at] != shown) ++at;
    if (at == printed.size()) {
      missing.push_back(document + ":" + std::to_string(block.line + 1 + static_cast<int>(i)) + ": " + shown);
    } else {
      next = at + 1;
    }
  }
  return missing;
}

// "36.2 ms" shown for "36.19 ms" printed: the same unit, and the printed number rounded to the shown
// decimals.
bool same_figure(const std::string& shown, const std::string& printed) {
  static const std::regex figure(R"(^(-?[0-9]+)(\.([0-9]+))?(.*)$)");
  std::smatch s, p;
  if (!std::regex_match(shown, s, figure) || !std::regex_match(printed, p, figure)) return shown == printed;
  if (s[4].str() != p[4].str()) return false;
  const int decimals = static_cast<int>(s[3].length());
  std::ostringstream rounded;
  rounded.setf(std::ios::fixed);
  rounded.precision(decimals);
  rounded << std::stod(p[1].str() + p[2].str());
  return rounded.str() == s[1].str() + s[2].str();
}

std::string folded(const std::string& text) {
  static const std::regex space(R"(\s+)");
  return std::regex_replace(text, space, " ");
}

}  // namespace

TEST_CASE("readme: every output block names the command that prints it") {
  const auto documents = load_documents();
  INFO("README: " << readme_path());
  CHECK(documents.size() >= 5);  // the README, the guides of sim/, mesh_tf/, workloads/ and the benchmarks
  std::size_t outputs = 0;
  for (const auto& document : documents) {
    outputs += document.parsed.outputs.size();
    for (const auto& block : document.parsed.outputs) {
      INFO(document.name << ":" << block.line << ": output block of `" << block.command_text << "`");
      CHECK(block.problem.empty());
      CHECK_FALSE(block.lines.empty());
    }
  }
  // the README's collective, multiport's excerpt, the two-layer example, the lm-s5-mesh and unet-split tables
  CHECK(outputs >= 5);
}

// A guide that abbreviates a command as `tpusim collective` runs the README tour's line, as the README does.
TEST_CASE("readme: a guide's output blocks may name a subcommand of the README's tour") {
  const Readme readme = parse_readme("```sh\nT=build/workloads/tpusim\n$T topo list   # every preset\n```\n");
  const Readme guide = parse_readme("`tpusim topo` prints\n\n```\nname\n```\n", readme.tour);
  REQUIRE(guide.outputs.size() == 1);
  CHECK(guide.outputs[0].problem.empty());
  CHECK(guide.outputs[0].command == std::vector<std::string>{"tpusim", "topo", "list"});
  const Readme alone = parse_readme("`tpusim topo` prints\n\n```\nname\n```\n");
  REQUIRE(alone.outputs.size() == 1);
  CHECK_FALSE(alone.outputs[0].problem.empty());
}

TEST_CASE("readme: each output block is what its command prints") {
  for (const auto& document : load_documents()) {
    for (const auto& block : document.parsed.outputs) {
      if (!block.problem.empty()) continue;  // the test above reports it
      const Scratch scratch;
      const auto command = resolved(block.command);
      const CliRun run = scratch.run_program(command);
      INFO(document.name << ":" << block.line << ": the block shown for `" << block.command_text
                         << "`, run as " << joined(command) << "\n"
                         << run.describe());
      CHECK(run.exit_status == 0);
      const auto missing = missing_lines(document.name, block, run.out + run.err);
      std::string report;
      for (const auto& line : missing) report += line + "\n";
      INFO("lines not printed, in order (the output follows; document: " << document.path.string() << "):\n"
                                                                         << report << "--- output\n"
                                                                         << run.out);
      CHECK(missing.empty());
    }
  }
}

namespace {

void check_prose_claims(ProsePart part) {
  std::vector<std::pair<std::string, std::string>> texts;  // each document's name and folded text
  for (const auto& document : load_documents())
    texts.emplace_back(document.name, folded(document.parsed.text));
  int checked = 0;
  for (const auto& claim : kProseClaims) {
    if (claim.part != part) continue;
    ++checked;
    INFO("README: " << readme_path() << "\nclaim: " << claim.what << "\npattern: " << claim.readme);
    const std::regex pattern(claim.readme);
    std::smatch shown;
    // A reworded sentence is reported here: update the claim with the document. The first document that
    // states it is the one checked.
    std::string stated_in;
    for (const auto& [name, text] : texts) {
      if (std::regex_search(text, shown, pattern)) {
        stated_in = name;
        break;
      }
    }
    CHECK_FALSE(stated_in.empty());
    if (stated_in.empty()) continue;
    INFO("stated in " << stated_in);
    REQUIRE(shown.size() == claim.figures.size() + 1);
    const Scratch scratch;
    const CliRun run = scratch.run(claim.args);
    INFO(run.describe());
    CHECK(run.exit_status == 0);
    for (std::size_t i = 0; i < claim.figures.size(); ++i) {
      std::smatch printed;
      INFO("figure " << i + 1 << ": output pattern " << claim.figures[i]);
      const bool found = std::regex_search(run.out, printed, std::regex(claim.figures[i]));
      CHECK(found);
      if (!found) continue;
      INFO("the document shows '" << shown[i + 1].str() << "', the command prints '" << printed[1].str()
                                  << "'");
      CHECK(same_figure(shown[i + 1].str(), printed[1].str()));
    }
  }
  CHECK(checked >= 1);
}

}  // namespace

TEST_CASE("readme: the figures quoted in prose are what the commands print: the tour") {
  check_prose_claims(ProsePart::tour);
}

TEST_CASE("readme: the figures quoted in prose are what the commands print: models and presets") {
  check_prose_claims(ProsePart::models);
}

TEST_CASE("readme: the figures quoted in prose are what the commands print: studies") {
  check_prose_claims(ProsePart::studies);
}

TEST_CASE("readme: the figures quoted in prose are what the commands print: the default search") {
  check_prose_claims(ProsePart::search);
}

TEST_CASE("readme: the figures quoted in prose are what the commands print: the search with auto") {
  check_prose_claims(ProsePart::search_auto);
}

// A figure or page a document links (a relative link, as the README's images and guides are) is in the
// repository, relative to the linking document's folder as Markdown reads it.
TEST_CASE("readme: every file it links is in the repository") {
  int relative = 0;
  for (const auto& document : load_documents()) {
    const std::filesystem::path folder = document.path.parent_path();
    const std::string& text = document.parsed.text;
    static const std::regex link(R"(\]\(([^)#\s]+)\))");
    for (std::sregex_iterator it(text.begin(), text.end(), link), end; it != end; ++it) {
      const std::string target = (*it)[1].str();
      if (target.find("://") != std::string::npos) continue;
      ++relative;
      INFO(document.name << " links " << target);
      CHECK(std::filesystem::is_regular_file(folder / target));
    }
  }
  CHECK(relative >= 2);  // the torus-size study's figure, the guides
}

// The table of every preset's step: each row's step time and MFU, with the mechanisms and as the plain
// roofline (matrix unit, vector unit and fusion off), are what `tpusim run --preset` prints.
TEST_CASE("readme: the preset table's steps are what each preset runs") {
  const std::string header =
      "| preset | pod | step time | MFU | plain roofline | MFU |\n|---|---|---|---|---|---|\n";
  std::string table;  // from the header on, in the document that has it
  for (const auto& document : load_documents()) {
    const auto at = document.parsed.text.find(header);
    if (at != std::string::npos) table = document.parsed.text.substr(at + header.size());
  }
  REQUIRE_FALSE(table.empty());
  std::istringstream rows(table);
  const std::vector<std::string> roofline = {"--set", "hardware.matrix_unit=peak_rate",
                                             "--set", "hardware.vector_unit=peak_rate",
                                             "--set", "hardware.fusion=none"};
  int checked = 0;
  for (std::string row; std::getline(rows, row) && row.rfind("| ", 0) == 0;) {
    std::vector<std::string> cells;  // trimmed
    std::istringstream split(row.substr(1));
    for (std::string cell; std::getline(split, cell, '|');) {
      cells.push_back(cell.substr(1, cell.find_last_not_of(' ')));
    }
    INFO("preset table row: " << row);
    REQUIRE(cells.size() == 6);
    for (const bool plain : {false, true}) {
      std::vector<std::string> args = {"run", "--preset", cells[0], "--no-files"};
      if (plain) args.insert(args.end(), roofline.begin(), roofline.end());
      const Scratch scratch;
      const CliRun run = scratch.run(args);
      INFO(run.describe());
      REQUIRE(run.exit_status == 0);
      std::smatch step, mfu;
      REQUIRE(std::regex_search(run.out, step, std::regex(R"(\nstep time \(simulated\) +(\S+ \S+))")));
      REQUIRE(std::regex_search(run.out, mfu, std::regex(R"(MFU ([0-9.]+%))")));
      const std::string& shown_step = cells[plain ? 4 : 2];
      const std::string& shown_mfu = cells[plain ? 5 : 3];
      INFO((plain ? "plain roofline: " : "") << "the table shows " << shown_step << ", MFU " << shown_mfu
                                             << "; the run prints " << step[1] << ", MFU " << mfu[1]);
      CHECK(same_figure(shown_step, step[1]));
      CHECK(same_figure(shown_mfu, mfu[1]));
    }
    ++checked;
  }
  CHECK(checked >= 10);
}

TEST_CASE("readme: figures compare at the README's precision, with the same unit") {
  CHECK(same_figure("36.2 ms", "36.19 ms"));
  CHECK(same_figure("10.1 ms", "10.08 ms"));
  CHECK(same_figure("66.7%", "66.7%"));
  CHECK(same_figure("8.03", "8.0314"));
  CHECK(same_figure("524", "524"));
  CHECK_FALSE(same_figure("260.3 ms", "253.4 ms"));
  CHECK_FALSE(same_figure("36.2 ms", "36.19 us"));
  CHECK_FALSE(same_figure("113", "524"));
  CHECK(masked("wall time 0.24 s (building)") == masked("wall time 12.5 s (building)"));
  CHECK(masked("simulated time   1.204 ms") != masked("simulated time   1.205 ms"));
}
