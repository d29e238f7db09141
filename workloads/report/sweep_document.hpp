#pragma once
// A sweep's sweep.json read back for plots and report.md (`tpusim plot`, and `tpusim sweep` after writing
// it). Everything read is checked before anything is drawn: the document is one tpusim sweep writes
// (context.format tpusim.sweep.v1 or tpusim.collective_sweep.v1, with its tpusim_version), its sweep block
// (name, description, kind matching the format, base for a training sweep, vary as [{key, values}],
// points), and its runs: each with its point (below sweep.points, in increasing order, no more runs than
// points), its values (one per varied key, in vary's order, each among that key's values), and the fields
// the report and plots use at their places in the run (sweep_row_layout.hpp). Keys tpusim writes but
// neither uses are not read, so they are not checked either.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace tpusim::workloads {

struct SweepRow {
  std::string label;                                        // "#3" and the varied values
  std::vector<std::pair<std::string, std::string>> values;  // (varied key, value as text), in vary order
  std::map<std::string, nlohmann::json> fields;             // by SweepRowField::name, checked
  std::string error;  // the point did not run (then most fields are absent)

  bool has(const std::string& name) const;
  // The first of `names` that is a number, or NaN.
  double number(std::initializer_list<const char*> names) const;
  // The field as text: a string as it is, a number or boolean as JSON writes it; "" when absent.
  std::string text(const std::string& name) const;
  // Whether the point fits its HBM: true unless a field "fits" says false.
  bool fits() const;
  std::string value_of(const std::string& key) const;  // its varied value, "" when not varied
};

struct SweepDocument {
  std::string folder;
  std::string name, description, base, kind;  // kind: "training", or "collectives" for collective studies
  std::string tpusim_version;
  std::string written;                                                 // when: sweep.json's modification time
  std::vector<std::pair<std::string, std::vector<std::string>>> vary;  // (key, values), in vary order
  std::vector<SweepRow> rows;

  bool collectives() const { return kind == "collectives"; }
  std::vector<std::string> varied_keys() const;
};

// Reads <folder>/sweep.json. A folder or file that is missing or unreadable, not valid JSON, or not a
// sweep's JSON as above is one InputError line naming the file and the key (or line and column) and the
// problem: the user named the folder.
SweepDocument read_sweep_document(const std::string& folder);
// The same from the file's text, and from a parsed document (for tests, the fuzz target and callers that
// hold it already).
SweepDocument sweep_document_from_text(const std::string& text, const std::string& folder);
SweepDocument sweep_document_from_json(const nlohmann::json& json, const std::string& folder);

}  // namespace tpusim::workloads
