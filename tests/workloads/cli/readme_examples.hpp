#pragma once
// The examples README.md and the guides show, read from their Markdown so that the golden test
// (readme_golden_test.cpp) checks whatever each document says today:
//   - an output block is a fenced block whose opening fence has no language (```), the README's way of
//     showing what a program printed; ```sh, ```yaml and ```cpp blocks are inputs;
//   - its command is the last inline code span (`...`, which may wrap across lines) in the prose between the
//     previous fenced block and this one that starts with `tpusim` or `build/`;
//   - a span of only the program and a subcommand (`tpusim collective`) stands for the first line of the tour
//     (the ```sh block that sets T=build/workloads/tpusim, README.md's) running that subcommand:
//     `$T collective ...`; a guide without a tour of its own uses the README's;
//   - words split at spaces; "..." and '...' group words; an unquoted # starts a comment.
#include <filesystem>
#include <string>
#include <vector>

namespace tpusim::cli_test {

struct ReadmeOutput {
  int line = 0;                      // of the opening fence, 1-based
  std::string command_text;          // as the README writes it
  std::vector<std::string> command;  // split into words: the program ("tpusim" or "build/...") first
  std::vector<std::string> lines;    // the block's lines as shown
  std::string problem;               // non-empty when no command could be found for the block
};

struct Readme {
  std::string text;
  std::vector<std::vector<std::string>> tour;  // the tour's command lines, "$T" replaced by "tpusim"
  std::vector<ReadmeOutput> outputs;
};

// outside_tour: the tour's lines when the document has none of its own (a guide, with the README's tour).
Readme parse_readme(const std::string& markdown,
                    const std::vector<std::vector<std::string>>& outside_tour = {});
std::vector<std::string> split_command(const std::string& text);

// Every Markdown file of the source tree under root, relative to it: README.md first, then the others in
// path order. Build folders (build*) and hidden folders (.git, .ci's) are not part of the documentation.
std::vector<std::filesystem::path> markdown_documents(const std::filesystem::path& root);
// Whether a folder under the source tree holds no sources or documents of its own (build*, .*).
bool outside_the_sources(const std::filesystem::path& folder_name);

}  // namespace tpusim::cli_test
