#pragma once
// The examples README.md shows, read from its Markdown so that the golden test (readme_golden_test.cpp)
// checks whatever the README says today:
//   - an output block is a fenced block whose opening fence has no language (```), the README's way of
//     showing what a program printed; ```sh, ```yaml and ```cpp blocks are inputs;
//   - its command is the last inline code span (`...`, which may wrap across lines) in the prose between the
//     previous fenced block and this one that starts with `tpusim` or `build/`;
//   - a span of only the program and a subcommand (`tpusim collective`) stands for the first line of the tour
//     (the ```sh block that sets T=build/workloads/tpusim) running that subcommand: `$T collective ...`;
//   - words split at spaces; "..." and '...' group words; an unquoted # starts a comment.
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

Readme parse_readme(const std::string& markdown);
std::vector<std::string> split_command(const std::string& text);

}  // namespace tpusim::cli_test
