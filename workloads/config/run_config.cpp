#include "workloads/config/run_config.hpp"

namespace tpusim::workloads {

const NameTable<OptimizerKind>& optimizer_kinds() { return mtf::Optimizer::kinds(); }

const NameTable<NumericsMode>& numerics_modes() {
  static const NameTable<NumericsMode> table("numerics mode",
                                             {{"timing", NumericsMode::timing}, {"full", NumericsMode::full}});
  return table;
}

const char* to_string(OptimizerKind kind) { return optimizer_kinds().name_of(kind).c_str(); }
const char* to_string(NumericsMode mode) { return numerics_modes().name_of(mode).c_str(); }

std::string dtype_name(mtf::DType dtype) {
  std::string shortest;
  for (const auto& entry : mtf::dtypes().entries()) {
    if (entry.value == dtype && (shortest.empty() || entry.name.size() < shortest.size())) shortest = entry.name;
  }
  return shortest;
}

std::string RunConfig::where(const std::string& key) const {
  const auto found = locations.find(key);
  return found != locations.end() ? found->second : source + ": " + key;
}

}  // namespace tpusim::workloads
