#include "workloads/report/sweep_row_layout.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "topologies/support/text.hpp"

namespace tpusim::workloads {
namespace {

using Type = SweepRowField::Type;
using When = SweepRowField::When;

// A training point that did not run says why in "error" and has no figures.
bool training_ran(const CheckedJson& run) { return !run.has("error"); }

const std::vector<std::string> kCollectiveStatuses = {"ok", "failed", "input_error", "skipped"};

// A point of a collective study says how it went in "status" (collective_study.cpp).
bool collective_ran(const CheckedJson& run) {
  const CheckedJson status = run.at("status");
  const std::string text = status.text();
  if (std::find(kCollectiveStatuses.begin(), kCollectiveStatuses.end(), text) == kCollectiveStatuses.end())
    status.fail(fmt::format("'{}' is not a status: expected {}", text, join(kCollectiveStatuses)));
  return text == "ok";
}

std::vector<SweepRowField> training_fields() {
  return {{"cores", {"config", "cores"}, Type::count, When::always},
          {"mesh_shape", {"config", "mesh_shape"}, Type::text, When::always},
          {"error", {"error"}, Type::text, When::not_ran},
          {"step_time_s", {"step_time", "step_time_s"}, Type::positive, When::ran},
          {"compute_s", {"step_time", "compute_s"}, Type::number, When::ran},
          {"exposed_communication_s", {"step_time", "exposed_communication_s"}, Type::number, When::ran},
          {"idle_s", {"step_time", "idle_s"}, Type::number, When::ran},
          {"model_flops_per_step", {"model_flops_per_step"}, Type::number, When::ran},
          {"mfu", {"mfu"}, Type::number, When::ran},
          {"total_bytes", {"memory_per_core", "total_bytes"}, Type::whole, When::ran},
          {"hbm_bytes", {"memory_per_core", "hbm_bytes"}, Type::whole, When::ran},
          {"fits", {"memory_per_core", "fits"}, Type::flag, When::ran},
          // Written since tpusim 0.4 (sweep.json of earlier versions lacks them, and still reads).
          {"global_batch", {"config", "global_batch"}, Type::count, When::optional},
          {"tokens_per_s", {"tokens_per_s"}, Type::number, When::optional},
          {"examples_per_s", {"examples_per_s"}, Type::number, When::optional},
          {"example_unit", {"config", "example_unit"}, Type::text, When::optional},
          {"flops_per_s_per_core", {"flops_per_s_per_core"}, Type::number, When::optional},
          {"scaling", {"scaling", "kind"}, Type::text, When::optional},
          {"speedup", {"scaling", "speedup"}, Type::number, When::optional},
          {"efficiency", {"scaling", "efficiency"}, Type::number, When::optional}};
}

std::vector<SweepRowField> collective_fields() {
  return {{"op", {"op"}, Type::text, When::always},
          {"algorithms", {"algorithms"}, Type::text, When::always},
          {"topology", {"topology"}, Type::text, When::always},
          {"group_axes", {"group_axes"}, Type::text, When::always},
          {"network", {"network"}, Type::text, When::always},
          {"status", {"status"}, Type::text, When::always},
          {"error", {"error"}, Type::text, When::optional},
          {"reason", {"reason"}, Type::text, When::optional},
          // A point that did not run keeps its size as the study wrote it ("1MiB").
          {"bytes", {"bytes"}, Type::text, When::not_ran},
          {"bytes", {"bytes"}, Type::number, When::ran},
          {"groups", {"groups"}, Type::count, When::ran},
          {"simulated_s", {"simulated_s"}, Type::number, When::ran},
          {"prediction_s", {"prediction_s"}, Type::number_or_null, When::ran},
          {"ratio_to_lower_bound", {"ratio_to_lower_bound"}, Type::number_or_null, When::ran},
          {"algbw_Bps", {"algbw_Bps"}, Type::number_or_null, When::ran},
          {"busbw_Bps", {"busbw_Bps"}, Type::number_or_null, When::ran}};
}

}  // namespace

const std::vector<SweepLayout>& sweep_layouts() {
  static const std::vector<SweepLayout> layouts = {
      {"tpusim.sweep.v1", "training", true, training_fields(), training_ran},
      {"tpusim.collective_sweep.v1", "collectives", false, collective_fields(), collective_ran}};
  return layouts;
}

std::optional<nlohmann::json> read_row_field(const CheckedJson& run, const SweepRowField& field, bool ran) {
  if ((field.when == When::ran && !ran) || (field.when == When::not_ran && ran)) return std::nullopt;
  std::optional<CheckedJson> at = run;
  for (const auto& key : field.path) {
    at = field.when == When::optional ? at->find(key) : std::optional<CheckedJson>(at->at(key));
    if (!at) return std::nullopt;
  }
  switch (field.type) {
    case Type::text:
      return at->text();
    case Type::flag:
      return at->flag();
    case Type::whole:
      return at->whole();
    case Type::count:
      return at->count();
    case Type::number:
      return at->number();
    case Type::positive:
      return at->positive();
    case Type::number_or_null: {
      const auto value = at->number_or_null();
      return value ? nlohmann::json(*value) : nlohmann::json();
    }
  }
  return std::nullopt;
}

}  // namespace tpusim::workloads
