#pragma once
// A sweep's sweep.json read back for plots and report.md (`tpusim plot`, and `tpusim sweep` after writing
// it). The reader depends on as little of the layout as it can, so that sweep kinds and fields added later
// are read too: the rows are the objects of the first array among "runs", "records", "rows", "results" and
// "points"; each row's fields are its leaves found by name at any depth (a run's step_time.step_time_s is
// field "step_time_s"; the outermost wins where a name repeats), and its varied values are its "values"
// ([{key, value}]) or else its fields named by the varied keys.
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

namespace tpusim::workloads {

struct SweepRow {
  std::string label;                                        // "#3" and the varied values
  std::vector<std::pair<std::string, std::string>> values;  // (varied key, value as text), in vary order
  std::map<std::string, nlohmann::json> fields;
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
  std::string written;  // when: the document's own date if it has one, else sweep.json's modification time
  std::vector<std::pair<std::string, std::vector<std::string>>> vary;  // (key, values), in vary order
  std::vector<SweepRow> rows;

  bool collectives() const { return kind == "collectives"; }
  std::vector<std::string> varied_keys() const;
};

// Reads <folder>/sweep.json. A folder or file that is missing, unreadable or not a sweep's JSON is an
// InputError naming it: the user named the folder.
SweepDocument read_sweep_document(const std::string& folder);
// The same from a parsed document (for tests and callers that hold it already).
SweepDocument sweep_document_from_json(const nlohmann::json& json, const std::string& folder);

}  // namespace tpusim::workloads
