#include "workloads/sweep/study_header.hpp"

#include <fmt/format.h>

#include <cctype>

#include "workloads/config/config_node.hpp"
#include "workloads/config/config_schema.hpp"

namespace tpusim::workloads {

StudyHeader read_study_header(const ConfigNode& root, const std::string& file) {
  StudyHeader header;
  header.source = file;
  header.name = config_file_stem(file);
  if (auto n = root.optional_child("name")) {
    header.name = n->scalar();
    for (const char c : header.name) {
      if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.')
        n->fail(fmt::format("'{}' is not a sweep name: use letters, digits, '-', '_' and '.'", header.name));
    }
    if (header.name.empty() || header.name[0] == '.')
      n->fail("a sweep name must not be empty or start with '.'");
  }
  if (auto n = root.optional_child("description")) header.description = n->scalar();
  header.output_dir = "results/" + header.name;
  if (auto n = root.optional_child("output")) {
    header.output_dir = n->scalar();
    if (header.output_dir.empty()) n->fail("must not be empty");
  }
  return header;
}

}  // namespace tpusim::workloads
