#include "topologies/support/text_file.hpp"

#include <unistd.h>

#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>

#include "folder_fixtures.hpp"
#include "topologies/support/input_error.hpp"

using namespace tpusim;
namespace fs = std::filesystem;

using tpusim::test::fresh_folder;

TEST_CASE("an input file is read whole") {
  const fs::path folder = fresh_folder("text-file");
  std::ofstream(folder / "c.yaml") << "name: x\n";
  CHECK(read_input_file((folder / "c.yaml").string(), "config file") == "name: x\n");
  fs::remove_all(folder);
}

TEST_CASE("a folder, a missing file and an endless file are one clear error each") {
  const fs::path folder = fresh_folder("text-file-bad");
  CHECK_THROWS_WITH(read_input_file(folder.string(), "config file"),
                    folder.string() + ": is a folder, not a config file");
  CHECK_THROWS_WITH(
      read_input_file((folder / "absent.yaml").string(), "sweep file"),
      (folder / "absent.yaml").string() + ": cannot read the sweep file: No such file or directory");
  CHECK_THROWS_WITH(read_input_file("/dev/zero", "config file"),
                    "/dev/zero: the config file is larger than 16 MiB, the most tpusim reads");
  fs::remove_all(folder);
}

TEST_CASE("a file of exactly the limit is read, one byte more is refused") {
  const fs::path folder = fresh_folder("text-file-limit");
  {
    std::ofstream out(folder / "big.yaml", std::ios::binary);
    out << std::string(kMaxInputFileBytes, '#');
  }
  CHECK(read_input_file((folder / "big.yaml").string(), "config file").size() == kMaxInputFileBytes);
  std::ofstream(folder / "big.yaml", std::ios::app) << "#";
  CHECK_THROWS_AS(read_input_file((folder / "big.yaml").string(), "config file"), InputError);
  fs::remove_all(folder);
}
