#pragma once
// Reads a section of plain rows (key_row.hpp: rows that need no other key read first and read their own key's
// value, as the search section's): the section's keys are checked against the rows' names (an unknown key is
// "file:line: section.key: unknown key; did you mean ...?"), then each row in order gets the value written,
// else its default read as if written, else its fallback, else nothing; a required row left out is the
// error "missing key". The run config's rows need more (config_parser.cpp).
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "topologies/support/check.hpp"
#include "workloads/config/config_node.hpp"
#include "workloads/config/key_row.hpp"

namespace tpusim::workloads {

enum class RowsToRead {
  all,      // every row: what is written, else what the row gives when left out
  written,  // only the keys written, over a Reading that holds a result already (a command line override)
};

struct KeyRowsOptions {
  RowsToRead rows = RowsToRead::all;
  // Where an absent section is missing from, for the "missing key" of a required row; a section that may be
  // absent and has required rows needs it (TPUSIM_CHECK).
  const ConfigNode* parent = nullptr;
};

// The row names, in order: the keys a section may hold.
template <class Row>
std::vector<std::string> key_row_names(const std::vector<Row>& rows) {
  std::vector<std::string> names;
  for (const auto& row : rows) names.push_back(row.name());
  return names;
}

// Returns where each key written was ("file:3: search.mesh_dims"), by its row's name ("mesh_dims").
template <class Row>
std::map<std::string, std::string> read_key_rows(const std::optional<ConfigNode>& section,
                                                 const std::vector<Row>& rows, typename Row::Reading& reading,
                                                 const KeyRowsOptions& options = {}) {
  if (section) section->expect_map(key_row_names(rows));
  std::map<std::string, std::string> locations;
  for (const Row& row : rows) {
    if (std::optional<ConfigNode> value = section ? section->optional_child(row.name()) : std::nullopt) {
      locations[row.name()] = value->where();
      row.read(*value, reading);
      continue;
    }
    if (options.rows == RowsToRead::written) continue;
    switch (row.absent) {
      case KeyAbsent::required:
        if (section) section->child(row.name());  // throws "missing key"
        TPUSIM_CHECK(options.parent != nullptr);
        options.parent->child(row.section());  // throws "missing key", naming the section
        TPUSIM_CHECK(false);
        break;
      case KeyAbsent::default_value:
        row.read(ConfigNode::schema_default(row.default_value, row.key), reading);
        break;
      case KeyAbsent::computed:
        row.fallback(reading);
        break;
      case KeyAbsent::nothing:
        break;
      case KeyAbsent::unset:
        TPUSIM_CHECK(false);  // every row says what its absence means
    }
  }
  return locations;
}

}  // namespace tpusim::workloads
