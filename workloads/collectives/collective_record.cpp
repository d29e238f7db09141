#include "workloads/collectives/collective_record.hpp"

#include "topologies/support/text.hpp"

namespace tpusim::workloads {

const RecordFields<CollectiveRecord>& collective_record_fields() {
  using R = CollectiveRecord;
  static const RecordFields<CollectiveRecord> fields = {{"algorithms", &R::algorithms},
                                                        {"group_axes", &R::group_axes},
                                                        {"groups", &R::groups},
                                                        {"group_size", &R::group_size},
                                                        {"bytes", &R::bytes},
                                                        {"simulated_s", &R::simulated_s},
                                                        {"prediction_s", &R::prediction_s},
                                                        {"contention_free", &R::contention_free},
                                                        {"closed_form_s", &R::closed_form_s},
                                                        {"lower_bound_s", &R::lower_bound_s},
                                                        {"lower_bound_term", &R::lower_bound_term},
                                                        {"ratio_to_prediction", &R::ratio_to_prediction},
                                                        {"ratio_to_lower_bound", &R::ratio_to_lower_bound},
                                                        {"busiest_link_bound_s", &R::busiest_link_bound_s},
                                                        {"algbw_Bps", &R::algbw_Bps},
                                                        {"busbw_Bps", &R::busbw_Bps},
                                                        {"messages", &R::messages},
                                                        {"simulated_messages", &R::simulated_messages},
                                                        {"folded_rounds", &R::folded_rounds}};
  return fields;
}

CollectiveRecord collective_record(const BuiltRequest& built, const Measurement& measurement) {
  const auto& r = measurement.result;
  const auto& p = measurement.prediction;
  CollectiveRecord record;
  record.algorithms = sim::algorithm_list(built.request.algorithms);
  record.group_axes = built.group_axes;
  record.groups = built.request.groups.size();
  record.group_size = r.group_size;
  record.bytes = r.bytes_per_member;
  record.simulated_s = r.time_s;
  record.prediction_s = p.time_s;
  record.contention_free = p.contention_free;
  if (p.closed_form_s >= 0) record.closed_form_s = p.closed_form_s;
  record.lower_bound_s = measurement.bound.time_s;
  record.lower_bound_term = measurement.bound.binding;
  record.ratio_to_prediction = ratio(r.time_s, p.time_s);
  record.ratio_to_lower_bound = ratio(r.time_s, measurement.bound.time_s);
  record.busiest_link_bound_s = p.max_link_time_s;
  record.algbw_Bps = r.algbw_Bps;
  record.busbw_Bps = r.busbw_Bps;
  record.messages = r.messages;
  record.simulated_messages = r.simulated_messages;
  record.folded_rounds = r.folded_rounds;
  return record;
}

}  // namespace tpusim::workloads
