#include "workloads/config/run_config.hpp"

#include <fmt/format.h>

#include "topologies/support/check.hpp"
#include "topologies/support/did_you_mean.hpp"
#include "topologies/support/input_error.hpp"

namespace tpusim::workloads {

const char* to_string(ModelKind kind) {
  switch (kind) {
    case ModelKind::mlp:
      return "mlp";
    case ModelKind::transformer_lm:
      return "transformer_lm";
    case ModelKind::encoder_decoder:
      return "encoder_decoder";
    case ModelKind::moe_transformer:
      return "moe_transformer";
  }
  return "?";
}

const char* to_string(OptimizerKind kind) {
  switch (kind) {
    case OptimizerKind::sgd:
      return "sgd";
    case OptimizerKind::adam:
      return "adam";
    case OptimizerKind::adafactor:
      return "adafactor";
  }
  return "?";
}

const char* to_string(NumericsMode mode) { return mode == NumericsMode::full ? "full" : "timing"; }
const char* to_string(ActivationDType dtype) { return dtype == ActivationDType::bf16 ? "bf16" : "f32"; }
std::uint32_t bytes_per_element(ActivationDType dtype) { return dtype == ActivationDType::bf16 ? 2 : 4; }
int MeshConfig::num_cores() const {
  std::int64_t cores = 1;
  for (const auto& axis : axes) {
    cores *= axis.size;
    TPUSIM_CHECK(cores <= topo::kMaxCores);  // parse_run_config bounds every mesh by the largest pod
  }
  return static_cast<int>(cores);
}

int MeshConfig::axis_size(const std::string& name) const {
  for (const auto& axis : axes) {
    if (axis.name == name) return axis.size;
  }
  return 1;
}

std::string MeshConfig::shape_text() const {
  std::vector<std::string> parts;
  for (const auto& axis : axes) parts.push_back(fmt::format("{}:{}", axis.name, axis.size));
  return join(parts, ";");
}

std::string MeshConfig::layout_text() const {
  std::vector<std::string> parts;
  for (const auto& [dim, axis] : layout) parts.push_back(dim + ":" + axis);
  return join(parts, ";");
}

std::string MeshConfig::mesh_axis_of(const std::string& tensor_dim) const {
  for (const auto& [dim, axis] : layout) {
    if (dim == tensor_dim) return axis;
  }
  return "";
}

}  // namespace tpusim::workloads

namespace tpusim::workloads {
std::string RunConfig::where(const std::string& key) const {
  const auto found = locations.find(key);
  return found != locations.end() ? found->second : source + ": " + key;
}
}  // namespace tpusim::workloads
