#include "fake_gnuplot.hpp"

#include <stdlib.h>

#include <fstream>
#include <stdexcept>

namespace tpusim::test {
namespace fs = std::filesystem;

const char* const kFakeGnuplotDraws =
    "for out in $(sed -n \"s/^set output '\\(.*\\)'\\$/\\1/p\" \"$1\"); do\n"
    "  case \"$out\" in\n"
    "    *.png) { printf "
    "'\\211PNG\\r\\n\\032\\n\\000\\000\\000\\015IHDR\\000\\000\\000\\001\\000\\000\\000\\001"
    "\\010\\002\\000\\000\\000\\220wS\\336'; head -c 65536 /dev/zero;"
    " printf '\\000\\000\\000\\000IEND\\256B`\\202'; } > \"$out\" ;;\n"
    "    *) { printf '<svg xmlns=\"http://www.w3.org/2000/svg\">'; head -c 65536 /dev/zero | tr '\\000' ' ';"
    " printf '</svg>\\n'; } > \"$out\" ;;\n"
    "  esac\n"
    "done\n";

const char* const kFakeGnuplotFails = "echo \"\\\"$1\\\" line 1: a fake gnuplot's failure\" >&2\nexit 1\n";

const char* const kFakeGnuplotHangs =
    "echo $$ >> \"$(dirname \"$0\")/pids\"\n"
    "sleep 1000 &\n"
    "echo $! >> \"$(dirname \"$0\")/pids\"\n"
    "wait\n";

const char* const kFakeGnuplotCutsShort =
    "for out in $(sed -n \"s/^set output '\\(.*\\)'\\$/\\1/p\" \"$1\"); do\n"
    "  printf '\\211PNG\\r\\n\\032\\n' > \"$out\"\n"
    "done\n";

FakeGnuplot::FakeGnuplot(const std::string& body)
    : saved_path_(std::getenv("PATH") != nullptr ? std::getenv("PATH") : "/usr/bin:/bin") {
  std::string pattern = (fs::temp_directory_path() / "tpusim-fake-gnuplot-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp " + pattern);
  folder_ = pattern;
  std::ofstream(folder_ / "gnuplot") << "#!/bin/sh\n" << body;
  fs::permissions(folder_ / "gnuplot", fs::perms::owner_all);
  ::setenv("PATH", (folder_.string() + ":" + saved_path_).c_str(), 1);
}

FakeGnuplot::~FakeGnuplot() {
  ::setenv("PATH", saved_path_.c_str(), 1);
  std::error_code ignored;
  fs::remove_all(folder_, ignored);
}

}  // namespace tpusim::test
