#include "mesh_tf/vector_unit.hpp"

#include <fmt/format.h>

#include "topologies/support/input_error.hpp"

namespace tpusim::mtf {

VectorUnit::VectorUnit(int lanes, int sublanes, int alus_per_sublane, double transcendental_ops)
    : lanes_(lanes),
      sublanes_(sublanes),
      alus_per_sublane_(alus_per_sublane),
      transcendental_ops_(transcendental_ops) {
  for (const auto& [what, value] :
       {std::pair{"lanes", lanes_}, {"sublanes", sublanes_}, {"ALUs per sublane", alus_per_sublane_}}) {
    if (value < 1 || value > 4096) {
      throw InputError(fmt::format("vector unit: {} {} is not plausible: expected 1 to 4096", value, what));
    }
  }
  if (!(transcendental_ops_ >= 1 && transcendental_ops_ <= 1000)) {
    throw InputError(fmt::format(
        "vector unit: {:g} vector operations per transcendental is not plausible: expected 1 to 1000",
        transcendental_ops_));
  }
}

}  // namespace tpusim::mtf
