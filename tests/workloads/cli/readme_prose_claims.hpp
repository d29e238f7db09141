#pragma once
// The figures README.md and the guides quote in prose, each with the tpusim command that prints it and where
// in its output: the table readme_golden_test.cpp checks (its header says how a figure is compared).
#include <string>
#include <vector>

namespace tpusim::cli_test {

// Claims are checked in groups, one test case each, so that the sanitizer build (many times slower) keeps
// every group inside the per-test time limit and runs the groups in parallel.
enum class ProsePart { tour, models, studies, search, search_auto };

struct ProseClaim {
  ProsePart part;
  const char* what;
  // A regex over a document (each is tried: README.md, then the guides) with every run of white space folded
  // to one space; one group per figure.
  const char* readme;
  std::vector<std::string> args;  // of tpusim
  // One per group of `readme`: a regex over the command's output whose group 1 is the same figure.
  std::vector<const char*> figures;
};

extern const std::vector<ProseClaim> kProseClaims;

}  // namespace tpusim::cli_test
