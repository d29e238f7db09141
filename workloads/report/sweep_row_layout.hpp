#pragma once
// What a sweep.json holds, per document format (context.format), for `tpusim plot` and report.md: the kind
// of study, and where in a run each field the report and the plots use is and what it must be. The reader
// (sweep_document.cpp) takes a row's fields from these places only, each checked, so that a run with a
// field missing, of the wrong type or out of range is one line naming it rather than a report that
// contradicts itself.
#include <string>
#include <vector>

#include "workloads/report/checked_json.hpp"

namespace tpusim::workloads {

struct SweepRowField {
  enum class Type { text, flag, whole, count, number, positive, number_or_null };
  enum class When { always, ran, not_ran, optional };  // whether the run holds it: ran as it ran or did not
  std::string name;                                    // as SweepRow::fields holds it
  std::vector<std::string> path;                       // keys from the run down to it
  Type type;
  When when;
};

struct SweepLayout {
  std::string format;  // context.format
  std::string kind;    // sweep.kind, and SweepDocument::kind
  bool has_base;       // sweep.base, the base config of a training sweep
  std::vector<SweepRowField> fields;
  // Whether the point ran (then its figures are there), from its run; checks what it reads.
  bool (*ran)(const CheckedJson& run);
};

// The layouts of the documents tpusim sweep writes: tpusim.sweep.v1 and tpusim.collective_sweep.v1.
const std::vector<SweepLayout>& sweep_layouts();

// The field's value in `run`, checked: nothing when When says the run need not hold it and it does not.
// Values that are null stay null (a figure tpusim could not compute, written as NaN).
std::optional<nlohmann::json> read_row_field(const CheckedJson& run, const SweepRowField& field, bool ran);

}  // namespace tpusim::workloads
