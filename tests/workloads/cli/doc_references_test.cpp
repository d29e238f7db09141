// Every Markdown document that the sources, tests, build files, CI scripts and documents cite is in the
// repository: a comment citing "sim/README.md, Closed forms" must find sim/README.md. A reference is any word
// ending in ".md" (a path or a bare file name), resolved against the source tree's root and against the
// citing file's folder, as a reader would look for it. The one name exempt is report.md, the file `tpusim
// sweep`, `search` and `plot` write into a results folder, which the code and tests name but the repository
// never holds.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "readme_examples.hpp"

namespace {

namespace fs = std::filesystem;

const fs::path kDocRefRoot = fs::path(TPUSIM_README).parent_path();

struct DocReference {
  fs::path file;  // the citing file, relative to the root
  std::string target;
};

// The references of one file's text to Markdown files that exist neither under root nor beside the file.
std::vector<DocReference> doc_references_missing(const fs::path& root, const fs::path& relative,
                                                 const std::string& text) {
  static const std::regex markdown_name(R"([A-Za-z0-9_][A-Za-z0-9_./-]*\.md\b)");
  std::vector<DocReference> missing;
  for (std::sregex_iterator it(text.begin(), text.end(), markdown_name), end; it != end; ++it) {
    const std::string target = it->str();
    if (fs::path(target).filename() == "report.md") continue;  // a results folder's, written by tpusim
    if (fs::is_regular_file(root / target) || fs::is_regular_file(root / relative.parent_path() / target))
      continue;
    missing.push_back({relative, target});
  }
  return missing;
}

bool doc_reference_scanned(const fs::path& path) {
  static const std::set<std::string> extensions = {".cpp", ".hpp", ".h",    ".md",  ".txt",
                                                   ".py",  ".sh",  ".yaml", ".yml", ".cmake"};
  return extensions.count(path.extension().string()) > 0 || path.filename() == "CMakeLists.txt";
}

// Every file a reader of the sources meets: the tree without build and hidden folders, and the CI scripts.
std::vector<fs::path> doc_reference_files(const fs::path& root) {
  std::vector<fs::path> files;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator(); ++it) {
    if (it->is_directory() && tpusim::cli_test::outside_the_sources(it->path().filename())) {
      it.disable_recursion_pending();
    } else if (it->is_regular_file() && doc_reference_scanned(it->path())) {
      files.push_back(fs::relative(it->path(), root));
    }
  }
  if (fs::is_directory(root / ".ci")) {
    for (const auto& entry : fs::directory_iterator(root / ".ci")) {
      if (entry.is_regular_file()) files.push_back(fs::relative(entry.path(), root));
    }
  }
  return files;
}

std::string doc_reference_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

TEST_CASE("docs: every Markdown document cited in the repository is in it") {
  const auto files = doc_reference_files(kDocRefRoot);
  CHECK(files.size() > 100);  // the whole tree was read
  int references = 0;
  for (const auto& file : files) {
    const std::string text = doc_reference_text(kDocRefRoot / file);
    static const std::regex any_markdown(R"(\.md\b)");
    references += static_cast<int>(
        std::distance(std::sregex_iterator(text.begin(), text.end(), any_markdown), std::sregex_iterator()));
    for (const auto& missing : doc_references_missing(kDocRefRoot, file, text)) {
      FAIL_CHECK(missing.file.generic_string()
                 << " cites " << missing.target << ", which is not in the repository");
    }
  }
  CHECK(references > 20);  // the guides' citations were seen
}

// The check can fail: a planted reference to a document that does not exist is reported, one that exists is
// not, whether it is written from the root or from the citing file's folder; report.md is exempt.
TEST_CASE("docs: a citation of a missing Markdown document is reported") {
  const std::string absent = std::string("sim/no-such-guide") + ".md";
  const auto planted = doc_references_missing(kDocRefRoot, "sim/bounds.hpp",
                                              "// see " + absent +
                                                  ", Closed forms; and sim/README.md; README.md\n"
                                                  "// and results/x/report.md");
  REQUIRE(planted.size() == 1);
  CHECK(planted[0].target == absent);
  // Relative to the citing file's folder: README.md beside sim/bounds.hpp is sim/README.md.
  CHECK(doc_references_missing(kDocRefRoot, "sim/bounds.hpp", "see README.md, Lower bounds").empty());
  CHECK(doc_references_missing(kDocRefRoot, "tests/sim/bounds_test.cpp", "see Closed" + std::string(".md"))
            .size() == 1);
}
