#pragma once
// One measured collective as a record: the figures `tpusim collective`, a collective study's points and
// `tpusim validate` report, computed once from a measurement and named once, in collective_record_fields();
// each report shows the fields it lists, by name.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "workloads/collectives/measurement.hpp"
#include "workloads/collectives/request_builder.hpp"
#include "workloads/report/record_fields.hpp"

namespace tpusim::workloads {

struct CollectiveRecord {
  std::string algorithms;  // as run, comma-separated (auto resolved)
  std::string group_axes;  // as resolved, e.g. "core+x,y"
  std::uint64_t groups = 0;
  int group_size = 0;
  std::uint64_t bytes = 0;  // per member
  double simulated_s = 0;
  double prediction_s = 0;  // the alpha-beta critical path
  bool contention_free = false;
  std::optional<double> closed_form_s;  // none when the algorithm has no closed form here
  double lower_bound_s = 0;
  std::string lower_bound_term;
  double ratio_to_prediction = 0;
  double ratio_to_lower_bound = 0;
  double busiest_link_bound_s = 0;
  double algbw_Bps = 0;
  double busbw_Bps = 0;
  std::uint64_t messages = 0;
  std::uint64_t simulated_messages = 0;
  std::uint64_t folded_rounds = 0;
};

const RecordFields<CollectiveRecord>& collective_record_fields();

CollectiveRecord collective_record(const BuiltRequest& built, const Measurement& measurement);

}  // namespace tpusim::workloads
