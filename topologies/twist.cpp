#include "topologies/twist.hpp"

#include <fmt/format.h>

#include <set>

#include "topologies/support/input_error.hpp"
#include "topologies/support/text.hpp"

namespace tpusim::topo {
namespace {}  // namespace

std::string Twist::text() const {
  return fmt::format("{}={}+{}", kChipAxisNames[dimension], kChipAxisNames[along], shift);
}

Twist parse_twist(int dimension, const std::string& value, int dimensions, const std::string& topology_name) {
  const std::string key = fmt::format("twist_{}", kChipAxisNames[dimension]);
  const auto plus = value.find('+');
  int along = -1;
  for (int d = 0; d < dimensions && plus != std::string::npos; ++d) {
    if (value.substr(0, plus) == kChipAxisNames[d]) along = d;
  }
  if (along < 0) {
    std::vector<std::string> axes(kChipAxisNames, kChipAxisNames + dimensions);
    throw InputError(
        fmt::format("topology '{}': {}: '{}' is not <axis>+<shift> with an axis of the pod ({}), such as z+4",
                    topology_name, key, value, join(axes)));
  }
  try {
    const auto shift = static_cast<int>(parse_whole_number(value.substr(plus + 1), 1, 1 << 20));
    return Twist{dimension, along, shift};
  } catch (const InputError& error) {
    throw InputError(fmt::format("topology '{}': {}: shift: {}", topology_name, key, error.what()));
  }
}

void check_twists(const std::vector<Twist>& twists, const std::vector<int>& chip_dims, bool wraparound,
                  const std::string& topology_name) {
  std::set<int> twisted;
  for (const auto& twist : twists) twisted.insert(twist.dimension);
  const int dims = static_cast<int>(chip_dims.size());
  for (const auto& twist : twists) {
    if (twist.dimension < 0 || twist.dimension >= dims || twist.along < 0 || twist.along >= dims) {
      throw InputError(fmt::format("topology '{}': a twist names a dimension the pod's {} do not have",
                                   topology_name, dims));
    }
    auto fail = [&](const std::string& problem) {
      throw InputError(fmt::format("topology '{}': twist_{}: {}", topology_name, twist.text(), problem));
    };
    if (!wraparound) fail("only a torus has wraparound links to twist");
    if (twist.along == twist.dimension) fail("a dimension cannot be twisted along itself");
    if (chip_dims[twist.dimension] < 2) fail("the twisted dimension has one chip, so no wraparound link");
    if (twisted.count(twist.along) > 0) fail("it shifts along a dimension that is itself twisted");
    const int size = chip_dims[twist.along];
    if (twist.shift <= 0 || twist.shift >= size || size % twist.shift != 0) {
      fail(fmt::format("the shift {} must divide the size {} it shifts along and be less than it",
                       twist.shift, size));
    }
  }
  if (twisted.size() != twists.size())
    throw InputError(fmt::format("topology '{}': a dimension is twisted twice", topology_name));
}

}  // namespace tpusim::topo
